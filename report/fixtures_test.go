package report

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/rules"
)

// The named Documents below are the report fixtures: each is rendered in
// every format and compared with a golden file in golden/report. They are
// built by hand so that report tests do not depend on the analyzers.

var t0 = time.Date(2026, 5, 6, 9, 0, 0, 0, time.UTC)

func at(file string, line int, minutes int) model.Evidence {
	return model.Evidence{File: file, Line: line, Time: t0.Add(time.Duration(minutes) * time.Minute)}
}

var testTool = Tool{Name: "pmcheck", Version: "1.2.3", InformationURI: "https://github.com/pmcheck/pmcheck"}

func testRules() []Rule {
	return []Rule{
		{
			ID: "PM001", Title: "Unreviewed killed subagent on a shipped branch", Severity: "error",
			Description: "A subagent was killed mid-task and its partial work reached a shipped branch with no review evidence.",
			Help: "A killed subagent stops wherever it happened to be.\n\n**What to do**\n\n" +
				"1. Review what the killed subagent wrote before merging.\n" +
				"2. Add a `Reviewed-Killed-Agent: <id>` trailer to the commit that records the review.",
			Tags: []string{"agents", "review"},
		},
		{
			ID: "PM002", Title: "Ship action while a killed subagent was outstanding", Severity: "error",
			Description: "The run pushed or merged while a killed subagent's work was still unreviewed.",
			Help:        "Re-run the ship action after the killed subagent's work has been reviewed.",
			Tags:        []string{"agents", "ship"},
		},
		{
			ID: "PM004", Title: "Agent never returned", Severity: "warning",
			Description: "A Workflow agent was started and never wrote a result.",
			Help:        "Check why the agent stopped (API error, usage limit, kill) and re-run its task.",
			Tags:        []string{"agents"},
		},
		{
			ID: "PM007", Title: "Quiet agent", Severity: "note",
			Description: "An agent wrote nothing for longer than the quiet threshold.",
			Help:        "Usually harmless; look at the agent's last rows if the run also failed.",
			Tags:        nil,
		},
	}
}

func testRuns() []RunSummary {
	return []RunSummary{
		{Kind: "workflow", ID: "wf-7f3a", Path: "s1/subagents/workflows/wf-7f3a", Agents: 3, Attempts: 4},
		{Kind: "session", ID: "s1", Path: "s1.jsonl", Agents: 2, Attempts: 0, Malformed: 1},
	}
}

func fixtureClean(t testing.TB) *Document {
	return mustNew(t, Input{Tool: testTool, Rules: testRules(), Runs: testRuns(), Inputs: Inputs{Files: 7}})
}

func fixtureMixed(t testing.TB) *Document {
	return mustNew(t, Input{
		Tool:  testTool,
		Root:  "agent-runs",
		Rules: testRules(),
		Runs:  testRuns(),
		Findings: []rules.Finding{
			{
				RuleID: "PM004", Severity: "warning", RunID: "wf-7f3a", RunKind: "workflow",
				Message:  `agent "reviewer" (key review-1) started and never returned`,
				Evidence: []model.Evidence{at("s1/subagents/workflows/wf-7f3a/journal.jsonl", 3, 4), at("s1/subagents/workflows/wf-7f3a/agent-a2.jsonl", 41, 9)},
				Time:     t0.Add(9 * time.Minute), Fingerprint: "fp-pm004-a2",
			},
			{
				RuleID: "PM001", Severity: "error", RunID: "s1", RunKind: "session",
				Message:  `subagent "refactor parser" (toolu_01) was killed at 09:12:00 and its writes reached branch main without review`,
				Evidence: []model.Evidence{at("s1.jsonl", 120, 12), at("s1/subagents/agent-b7.jsonl", 88, 11), at("s1.jsonl", 210, 30)},
				Time:     t0.Add(12 * time.Minute), Fingerprint: "fp-pm001-b7",
			},
			{
				RuleID: "PM002", Severity: "error", RunID: "s1", RunKind: "session",
				Message:  "git push origin main while killed subagent toolu_01 was unreviewed",
				Evidence: []model.Evidence{at("s1.jsonl", 210, 30)},
				Time:     t0.Add(30 * time.Minute), Fingerprint: "fp-pm002-push",
			},
			{
				RuleID: "PM007", Severity: "note", RunID: "s1", RunKind: "session",
				Message:  "agent b7 wrote nothing for 412s",
				Evidence: []model.Evidence{at("s1/subagents/agent-b7.jsonl", 87, 4)},
				Time:     t0.Add(11 * time.Minute), Fingerprint: "fp-pm007-b7",
			},
			{
				RuleID: "PM004", Severity: "warning", RunID: "wf-7f3a", RunKind: "workflow",
				Message:  `agent "tests" (key test-1) started and never returned`,
				Evidence: []model.Evidence{at("s1/subagents/workflows/wf-7f3a/journal.jsonl", 5, 6)},
				Time:     t0.Add(6 * time.Minute), Fingerprint: "fp-pm004-a3", Suppressed: true,
			},
		},
		Inputs: Inputs{Files: 7, Malformed: 1, Problems: []Problem{
			{File: "s1.jsonl", Line: 57, Message: "invalid JSON: unexpected end of input (torn line)"},
			{File: "s1/subagents/agent-b7.meta.json", Message: "sidecar unreadable: permission denied"},
		}},
		StaleBaseline: []BaselineEntry{{Fingerprint: "fp-gone-1", RuleID: "PM002", Note: "pushed by hand, reviewed in #12"}},
	})
}

// fixtureHostile carries transcript text that tries to break every format:
// control characters, ANSI colours, a workflow command, markdown and HTML,
// a CDATA terminator, and paths that need percent-encoding.
func fixtureHostile(t testing.TB) *Document {
	long := strings.Repeat("very long message ", 400)
	return mustNew(t, Input{
		Tool:  testTool,
		Rules: testRules(),
		Runs:  []RunSummary{{Kind: "session", ID: "s:2", Path: "odd dir/s 2:ü.jsonl", Agents: 1}},
		Findings: []rules.Finding{
			{
				RuleID: "PM001", Severity: "error", RunID: "s:2", RunKind: "session",
				Message: "killed\x1b[31m red\x1b[0m\x00nul\r\n::set-output name=x::pwned\n" +
					"<script>alert(1)</script> | [link](http://x) ![img](http://x/i.png) ]]> & % , :",
				Evidence:    []model.Evidence{at("odd dir/s 2:ü.jsonl", 9, 1), at("odd dir/50%#?.jsonl", 1, 2)},
				Fingerprint: "fp,with:odd%chars",
			},
			{
				RuleID: "PM004", Severity: "warning", RunID: "s:2", RunKind: "session",
				Message:     long,
				Evidence:    []model.Evidence{{File: "odd dir/s 2:ü.jsonl", Line: 0}},
				Fingerprint: "fp-long",
			},
		},
	})
}

// fixtureMany has more findings than GitHub annotates, to exercise the caps.
func fixtureMany(t testing.TB) *Document {
	var fs []rules.Finding
	add := func(rule, sev string, n int) {
		for i := range n {
			fs = append(fs, rules.Finding{
				RuleID: rule, Severity: sev, RunID: "wf-7f3a", RunKind: "workflow",
				Message:     fmt.Sprintf("%s finding %02d", rule, i),
				Evidence:    []model.Evidence{at("s1/subagents/workflows/wf-7f3a/journal.jsonl", i+1, i)},
				Time:        t0.Add(time.Duration(i) * time.Minute),
				Fingerprint: fmt.Sprintf("fp-%s-%02d", rule, i),
			})
		}
	}
	add("PM001", "error", 13)
	add("PM004", "warning", 12)
	add("PM007", "note", 3)
	return mustNew(t, Input{Tool: testTool, Rules: testRules(), Runs: testRuns(), Findings: fs, FailLevel: "warning"})
}

func mustNew(t testing.TB, in Input) *Document {
	t.Helper()
	d, err := New(in)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return d
}

type namedFixture struct {
	name  string
	build func(testing.TB) *Document
}

var fixtures = []namedFixture{
	{"clean", fixtureClean},
	{"mixed", fixtureMixed},
	{"hostile", fixtureHostile},
	{"many", fixtureMany},
}

// goldenExt is the golden file extension per format.
var goldenExt = map[string]string{
	FormatText: "txt", FormatJSON: "json", FormatSARIF: "sarif", FormatJUnit: "xml", FormatGitHub: "github.txt", FormatMarkdown: "md",
}
