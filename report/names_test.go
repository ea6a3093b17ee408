package report

import (
	"slices"
	"strings"
	"testing"

	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/rules"
)

// TestJUnitCaseNamesStayDistinct: a run without a path is named by its
// kind and id, and runs that share a path (a session and a workflow beside
// it) are told apart by their ids, so (classname, name) stays unique.
func TestJUnitCaseNamesStayDistinct(t *testing.T) {
	d := mustNew(t, Input{Tool: testTool, Rules: testRules()[:1], Runs: []RunSummary{
		{Kind: "session", ID: "s0"},
		{Kind: "session", ID: "s1", Path: "x"},
		{Kind: "workflow", ID: "w1", Path: "x"},
	}, Findings: []rules.Finding{{
		RuleID: "PM001", Severity: "error", RunID: "s9", Evidence: []model.Evidence{{File: "s9.jsonl", Line: 3}},
	}}})
	p := parseJUnit(t, render(t, d, FormatJUnit, Options{}))
	var names []string
	for _, c := range p.Suites[0].Cases {
		names = append(names, c.Name)
	}
	want := []string{"session s0", "x [s1]", "x [w1]", "run s9"}
	if !slices.Equal(names, want) {
		t.Fatalf("testcase names %q, want %q", names, want)
	}
}

// TestWatchdogFindsItsLaneByTheWholeAgentID: a watchdog event whose agent
// carries the "a:" prefix lands on the lane whose agent id is the whole
// string when no lane has the id without it.
func TestWatchdogFindsItsLaneByTheWholeAgentID(t *testing.T) {
	rf := NewRunFacts(model.Facts{
		Run: model.RunFact{Kind: "session", ID: "s1", Path: "s1.jsonl", Start: tm(0), End: tm(30)},
		Subagents: []model.SubagentFact{{RunID: "s1", ToolUseID: "toolu_01", AgentID: "a:b7", Description: "d", Mode: "sync",
			Outcome: "completed", Time: tm(1), End: tm(20)}},
		Watchdogs: []model.WatchdogFact{{RunID: "s1", Source: "harness", Kind: "stall", Agent: "a:b7", SilenceSeconds: -1, Time: tm(10)}},
	})
	tl := buildTimeline(&rf, 0, map[string]bool{}, nil)
	sub := tl.lanes[1]
	if !sub.interesting || !slices.ContainsFunc(sub.markers, func(m marker) bool { return m.kind == "watchdog" && strings.HasPrefix(m.title, "harness stall") }) {
		t.Fatalf("the watchdog event is not on the subagent's lane: %+v", sub)
	}
}
