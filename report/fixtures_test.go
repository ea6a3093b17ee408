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
				Fact: &rules.FactRef{Run: "s1/subagents/workflows/wf-7f3a", RunID: "wf-7f3a", Kind: "attempt", Index: 1},
			},
			{
				RuleID: "PM001", Severity: "error", RunID: "s1", RunKind: "session",
				Message:  `subagent "refactor parser" (toolu_01) was killed at 09:12:00 and its writes reached branch main without review`,
				Evidence: []model.Evidence{at("s1.jsonl", 120, 12), at("s1/subagents/agent-b7.jsonl", 88, 11), at("s1.jsonl", 210, 30)},
				Time:     t0.Add(12 * time.Minute), Fingerprint: "fp-pm001-b7",
				Fact: &rules.FactRef{Run: "s1.jsonl", RunID: "s1", Kind: "subagent", Index: 0},
			},
			{
				RuleID: "PM002", Severity: "error", RunID: "s1", RunKind: "session",
				Message:  "git push origin main while killed subagent toolu_01 was unreviewed",
				Evidence: []model.Evidence{at("s1.jsonl", 210, 30)},
				Time:     t0.Add(30 * time.Minute), Fingerprint: "fp-pm002-push",
				Fact: &rules.FactRef{Run: "s1.jsonl", RunID: "s1", Kind: "ship", Index: 0},
			},
			{
				RuleID: "PM007", Severity: "note", RunID: "s1", RunKind: "session",
				Message:  "agent b7 wrote nothing for 412s",
				Evidence: []model.Evidence{at("s1/subagents/agent-b7.jsonl", 87, 4)},
				Time:     t0.Add(11 * time.Minute), Fingerprint: "fp-pm007-b7",
				Fact: &rules.FactRef{Run: "s1.jsonl", RunID: "s1", Kind: "watchdog", Index: 0},
			},
			{
				RuleID: "PM004", Severity: "warning", RunID: "wf-7f3a", RunKind: "workflow",
				Message:  `agent "tests" (key test-1) started and never returned`,
				Evidence: []model.Evidence{at("s1/subagents/workflows/wf-7f3a/journal.jsonl", 5, 6)},
				Time:     t0.Add(6 * time.Minute), Fingerprint: "fp-pm004-a3", Suppressed: true,
			},
		},
		Facts:  mixedFacts(),
		Git:    &GitBranch{Name: "feat/parser", Base: "main", Head: "HEAD", Commits: 3, Paths: 5},
		Review: ReviewSearch{Trailers: []string{"Reviewed-Killed-Agent"}, Files: []string{"reviews/{agent}.md"}, ReviewerKeywords: []string{"review"}},
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
		Facts: hostileFacts(),
		Findings: []rules.Finding{
			{
				RuleID: "PM001", Severity: "error", RunID: "s:2", RunKind: "session",
				Message: "killed\x1b[31m red\x1b[0m\x00nul\r\n::set-output name=x::pwned\n" +
					"<script>alert(1)</script> | [link](http://x) ![img](http://x/i.png) ]]> & % , :",
				Evidence:    []model.Evidence{at("odd dir/s 2:ü.jsonl", 9, 1), at("odd dir/50%#?.jsonl", 1, 2)},
				Fingerprint: "fp,with:odd%chars",
				Fact:        &rules.FactRef{Run: "odd dir/s 2:ü.jsonl", RunID: "s:2", Kind: "subagent", Index: 0},
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
	FormatText: "txt", FormatJSON: "json", FormatSARIF: "sarif", FormatJUnit: "xml", FormatGitHub: "github.txt", FormatMarkdown: "md", FormatHTML: "html",
}

func ev(file string, line, minutes int) model.Evidence { return at(file, line, minutes) }

func tm(minutes int) time.Time { return t0.Add(time.Duration(minutes) * time.Minute) }

// mixedFacts are the facts behind fixtureMixed's findings: a session whose
// foreground subagent was killed and pushed, and a Workflow run with a retry.
func mixedFacts() []RunFacts {
	wf := "s1/subagents/workflows/wf-7f3a"
	return []RunFacts{
		NewRunFacts(model.Facts{
			Run: model.RunFact{Kind: "session", ID: "s1", Path: "s1.jsonl", Agents: 2, Segments: 1, Malformed: 1,
				Start: tm(0), End: tm(35), Shipped: true, Branch: "feat/parser", At: ev("s1.jsonl", 1, 0)},
			Subagents: []model.SubagentFact{
				{RunID: "s1", ToolUseID: "toolu_01", Description: "refactor parser", Mode: "sync", AgentID: "b7",
					Outcome: "terminated-early", Signature: "A", Rule: "A:prefix-anchored", Segment: 1, InLastSegment: true,
					Killed: true, Paths: []string{"parser/lex.go", "parser/parse.go"}, Commits: []string{"3f9a1c2"},
					OnShippedBranch: true, BranchMatches: []string{"commit 3f9a1c2", "path parser/lex.go"}, ShippedAfterKill: true,
					ReviewEvidence: []string{}, Time: tm(2), End: tm(12), At: ev("s1.jsonl", 120, 2),
					Reasons: []model.Reason{
						{What: "spawned (sync)", At: ev("s1.jsonl", 120, 2)},
						{What: "tool result, starts with the API-error prefix", At: ev("s1.jsonl", 131, 12)},
						{What: "Signature A (A:prefix-anchored)", At: ev("s1.jsonl", 131, 12)},
					}},
				{RunID: "s1", ToolUseID: "toolu_02", Description: "write tests", Mode: "async", AgentID: "c3",
					Outcome: "completed", Segment: 1, InLastSegment: true, Paths: []string{"parser/lex_test.go"},
					Time: tm(14), End: tm(26), At: ev("s1.jsonl", 150, 14),
					Reasons: []model.Reason{{What: "spawned (async)", At: ev("s1.jsonl", 150, 14)}, {What: "last notification, status completed", At: ev("s1.jsonl", 190, 26)}}},
			},
			Ships: []model.ShipFact{{RunID: "s1", Kind: "push", Command: "git push origin main", Tool: "Bash", Branch: "main",
				OutstandingKilled: []string{"refactor parser"}, Outstanding: true, Time: tm(30), At: ev("s1.jsonl", 210, 30)}},
			Watchdogs: []model.WatchdogFact{
				{RunID: "s1", Source: "watch", Kind: "QUIET", Agent: "b7", SilenceSeconds: 412, Message: "b7 quiet for 412s", Time: tm(11), At: ev("s1/subagents/agent-b7.jsonl", 87, 4)},
				{RunID: "s1", Source: "harness", Kind: "stall", Agent: "b7", SilenceSeconds: 600, Predicted: "kill at 600s", Message: "harness would stall b7", Time: tm(12), At: ev("s1/subagents/agent-b7.jsonl", 88, 11)},
			},
		}),
		NewRunFacts(model.Facts{
			Run: model.RunFact{Kind: "workflow", ID: "wf-7f3a", Path: wf, Agents: 3, Attempts: 4, Verdict: "FAILED", Segments: 1,
				Start: tm(3), End: tm(20), At: ev(wf, 0, 3)},
			Attempts: []model.AttemptFact{
				{RunID: "wf-7f3a", Key: "build-1", Agent: "a1", AgentID: "a1", Ordinal: 1, Outcome: "completed", SilenceSeconds: -1,
					Time: tm(3), End: tm(8), At: ev(wf+"/journal.jsonl", 1, 3),
					Reasons: []model.Reason{{What: "journal started", At: ev(wf+"/journal.jsonl", 1, 3)}, {What: "journal completed", At: ev(wf+"/journal.jsonl", 4, 8)}}},
				{RunID: "wf-7f3a", Key: "review-1", Agent: "reviewer", AgentID: "a2", Ordinal: 1, Outcome: "open", NeverReturned: true, SilenceSeconds: -1,
					Time: tm(4), End: tm(9), At: ev(wf+"/journal.jsonl", 3, 4),
					Reasons: []model.Reason{{What: "journal started", At: ev(wf+"/journal.jsonl", 3, 4)}}},
				{RunID: "wf-7f3a", Key: "test-1", Agent: "tests", AgentID: "a3", Ordinal: 1, Outcome: "killed", SilenceSeconds: 200, SupersededBy: 2,
					Time: tm(5), End: tm(10), At: ev(wf+"/journal.jsonl", 5, 5)},
				{RunID: "wf-7f3a", Key: "test-1", Agent: "tests", AgentID: "a4", Ordinal: 2, Outcome: "open", NeverReturned: true, SilenceSeconds: -1,
					Time: tm(10), End: tm(20), At: ev(wf+"/journal.jsonl", 7, 10)},
			},
			Watchdogs: []model.WatchdogFact{
				{RunID: "wf-7f3a", Source: "workflow-runtime", Kind: "inactivity-timeout", Agent: "a3", SilenceSeconds: 200, Time: tm(10), At: ev(wf+"/agent-a3.jsonl", 30, 10)},
				{RunID: "wf-7f3a", Source: "progresswatch", Kind: "mismatch", Agent: "a3", SilenceSeconds: -1, Predicted: "kill at 10:15", Observed: "kill at 09:10", Time: tm(10), At: ev(wf+"/agent-a3.jsonl", 30, 10)},
			},
		}),
	}
}

// hostileFacts carry transcript text that tries to break HTML and the
// terminal: script tags, attribute breakers, javascript: URLs, bidi
// controls, ANSI escapes.
func hostileFacts() []RunFacts {
	p := "odd dir/s 2:ü.jsonl"
	evil := "<script>alert(1)</script>\"><img src=x onerror=alert(2)> javascript:alert(3) \u202egnp.exe\x1b[31m"
	return []RunFacts{NewRunFacts(model.Facts{
		Run: model.RunFact{Kind: "session", ID: "s:2", Path: p, Agents: 1, Segments: 1, Start: tm(0), End: tm(5), Branch: evil, At: ev(p, 1, 0)},
		Subagents: []model.SubagentFact{{RunID: "s:2", ToolUseID: "toolu_<b>", Description: evil, Mode: "sync", AgentID: "a'\"<x>",
			Outcome: "terminated-early", Killed: true, Paths: []string{"javascript:alert(1)", "<svg onload=alert(1)>.go"},
			Commits: []string{"\u202e1234"}, BranchMatches: []string{"path <svg onload=alert(1)>.go"},
			Time: tm(1), End: tm(2), At: ev(p, 9, 1),
			Reasons: []model.Reason{{What: "spawned (sync) " + evil, At: ev(p, 9, 1)}}}},
		Ships:     []model.ShipFact{{RunID: "s:2", Kind: "push", Command: "git push " + evil, Tool: "Bash", Branch: evil, Time: tm(3), At: ev("odd dir/50%#?.jsonl", 1, 3)}},
		Watchdogs: []model.WatchdogFact{{RunID: "s:2", Source: "watch", Kind: "QUIET", Agent: evil, SilenceSeconds: 90, Message: evil, Time: tm(4), At: ev(p, 12, 4)}},
	})}
}
