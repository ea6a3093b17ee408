package rules

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pmcheck/pmcheck/analyze/model"
)

var t0 = time.Date(2026, 5, 6, 9, 0, 0, 0, time.UTC)

func at(file string, line int) model.Evidence {
	return model.Evidence{File: file, Line: line, Time: t0.Add(time.Duration(line) * time.Second)}
}

func session(id string) model.RunFact {
	return model.RunFact{Kind: model.KindSession, ID: id, Path: id + ".jsonl", At: at(id+".jsonl", 1)}
}

func workflow(id string) model.RunFact {
	return model.RunFact{Kind: model.KindWorkflow, ID: id, Path: "s/subagents/workflows/" + id, At: at("s/subagents/workflows/"+id+"/journal.jsonl", 1)}
}

// killedSubagent is a sync subagent killed by the harness (Signature A) that
// wrote a file and made a commit.
func killedSubagent() model.SubagentFact {
	return model.SubagentFact{
		RunID: "s1", ToolUseID: "toolu_01", Description: "Refactor the parser", Mode: "sync",
		AgentID: "a111", Outcome: "killed", Signature: "A", Rule: "A:prefix-anchored", Segment: 1,
		InLastSegment: true, Killed: true, Paths: []string{"parser.go"}, Commits: []string{"abc1234"},
		Time: t0.Add(time.Minute), At: at("s1.jsonl", 3),
	}
}

func killedAttempt() model.AttemptFact {
	return model.AttemptFact{
		RunID: "wf1", Key: "v2:k", Agent: "review-a", AgentID: "aw1", Ordinal: 1, Outcome: "killed",
		SilenceSeconds: 190, SupersededBy: 2, Paths: []string{"a.go", "b.go"}, CommitsReported: 1, CommitsUnknown: true,
		Time: t0, At: at("s/subagents/workflows/wf1/journal.jsonl", 1),
	}
}

// defaultRuleCase is a hand-built good and bad fact set for one default rule:
// the bad one must produce exactly want, the good one nothing from this rule.
type defaultRuleCase struct {
	bad, good model.Facts
	want      string
}

func defaultRuleCases() map[string]defaultRuleCase {
	shippedKill := killedSubagent()
	shippedKill.OnShippedBranch = true
	shippedKill.ShippedAfterKill = true
	reviewedKill := shippedKill
	reviewedKill.Reviewed = true
	reviewedKill.ReviewEvidence = []string{"trailer Reviewed-Killed-Agent: a111"}

	push := model.ShipFact{RunID: "s1", Kind: "push", Command: "git push origin main", Tool: "Bash", Branch: "main",
		OutstandingKilled: []string{"Refactor the parser", "Write tests"}, Outstanding: true, Time: t0.Add(2 * time.Minute), At: at("s1.jsonl", 9)}
	cleanPush := push
	cleanPush.OutstandingKilled, cleanPush.Outstanding = nil, false

	idleKill := killedAttempt()
	idleKill.Paths, idleKill.CommitsReported, idleKill.CommitsUnknown = nil, 0, false

	open := model.AttemptFact{RunID: "wf1", Key: "v2:k", Agent: "review-b", AgentID: "aw2", Ordinal: 2, Outcome: "open", NeverReturned: true, At: at("s/subagents/workflows/wf1/journal.jsonl", 3)}
	superseded := open
	superseded.NeverReturned, superseded.Ordinal, superseded.SupersededBy = false, 1, 2

	falseDone := model.SubagentFact{RunID: "s1", ToolUseID: "toolu_02", Description: "Write tests", Mode: "async", AgentID: "a222", Outcome: "completed", FalseDone: true, At: at("s1.jsonl", 12)}
	trueDone := falseDone
	trueDone.FalseDone = false
	openAtEnd := model.SubagentFact{RunID: "s1", ToolUseID: "toolu_03", Description: "Read README thrice then wait", Mode: "sync", Outcome: "open-at-end", Killed: true, At: at("s1.jsonl", 9)}
	stillRunning := openAtEnd
	stillRunning.Mode, stillRunning.Outcome, stillRunning.Killed, stillRunning.AgentID = "async", "launched-never-returned", false, "a333"

	mismatch := model.WatchdogFact{RunID: "wf1", Source: "workflow-runtime", Kind: "mismatch", Agent: "review-a", SilenceSeconds: -1, Predicted: "not killed", Observed: "killed",
		Message: "killed without a 180s stall the Workflow runtime would act on", At: at("s/subagents/workflows/wf1/agent-aw1.jsonl", 7)}
	agree := mismatch
	agree.Kind, agree.Predicted, agree.Observed = "retry", "", ""

	quiet := func(s float64, line int) model.WatchdogFact {
		return model.WatchdogFact{RunID: "wf1", Source: "watch", Kind: "QUIET", Agent: "review-a", SilenceSeconds: s, At: at("s/subagents/workflows/wf1/agent-aw1.jsonl", line)}
	}

	unshipped := killedSubagent()
	unshippedReviewed := unshipped
	unshippedReviewed.Reviewed = true
	unshippedReviewed.ReviewEvidence = []string{"review subagent toolu_09"}
	consumedFailure := unshipped // killed, but the parent consumed the report: no signature
	consumedFailure.Signature, consumedFailure.Rule, consumedFailure.Mode, consumedFailure.Outcome = "", "", "async", "failed"

	streamRun := session("s1")
	streamRun.Source, streamRun.StreamFormat, streamRun.RuntimeCounted = "sdk-stream", "json-array", true
	agreeing := streamRun
	streamRun.CountsDisagree = []string{"spawned: the runtime counted 3, the messages show 2", "completed: the runtime counted 3, the messages show 2",
		"failed: the runtime counted 0, the messages show 1", "killed: the runtime counted 1 (parent 1, user 0, system 0), the messages show 0",
		"max depth: the runtime counted 2, the messages show 1", `by type "pruefer": the runtime counted 2, the messages show 1`}

	return map[string]defaultRuleCase{
		"runtime-counts-disagree": {
			bad:  model.Facts{Run: streamRun},
			good: model.Facts{Run: agreeing},
			want: `the runtime's subagent_stats disagree with what the messages show: spawned: the runtime counted 3, the messages show 2; completed: the runtime counted 3, the messages show 2; failed: the runtime counted 0, the messages show 1; killed: the runtime counted 1 (parent 1, user 0, system 0), the messages show 0; max depth: the runtime counted 2, the messages show 1 and 1 more`,
		},
		"killed-subagent-not-shipped-unreviewed": {
			bad:  model.Facts{Run: session("s1"), Subagents: []model.SubagentFact{unshipped}},
			good: model.Facts{Run: session("s1"), Subagents: []model.SubagentFact{unshippedReviewed, consumedFailure, shippedKill}},
			want: `sync subagent "Refactor the parser" (agent a111) was killed before it finished (the harness cut off its result) and nothing shows its work was reviewed`,
		},
		"killed-subagent-shipped-unreviewed": {
			bad:  model.Facts{Run: session("s1"), Subagents: []model.SubagentFact{shippedKill}},
			good: model.Facts{Run: session("s1"), Subagents: []model.SubagentFact{reviewedKill, killedSubagent()}},
			want: `sync subagent "Refactor the parser" (agent a111) was killed before it finished and nothing shows its work was reviewed; the branch under check carries its work, and a ship action ran after the kill`,
		},
		"ship-while-killed-outstanding": {
			bad:  model.Facts{Run: session("s1"), Ships: []model.ShipFact{push}},
			good: model.Facts{Run: session("s1"), Ships: []model.ShipFact{cleanPush}},
			want: `push ran while killed subagents were still unreviewed (Refactor the parser, Write tests): git push origin main`,
		},
		"killed-attempt-with-work": {
			bad:  model.Facts{Run: workflow("wf1"), Attempts: []model.AttemptFact{killedAttempt()}},
			good: model.Facts{Run: workflow("wf1"), Attempts: []model.AttemptFact{idleKill}},
			want: `attempt 1 of agent review-a was killed after it changed the working tree (wrote: a.go, b.go; commits: made, ids not reported); the retry started from whatever it left behind`,
		},
		"agent-never-returned": {
			bad:  model.Facts{Run: workflow("wf1"), Attempts: []model.AttemptFact{superseded, open}},
			good: model.Facts{Run: workflow("wf1"), Attempts: []model.AttemptFact{superseded}},
			want: `agent review-b (attempt 2) was started and never returned a result, so the run's DONE verdict is FAILED`,
		},
		"false-done": {
			bad:  model.Facts{Run: session("s1"), Subagents: []model.SubagentFact{falseDone}},
			good: model.Facts{Run: session("s1"), Subagents: []model.SubagentFact{trueDone}},
			want: `agent a222 reported completed, but its transcript ends in an API error, a usage limit or an interruption`,
		},
		"subagent-open-at-end": {
			bad:  model.Facts{Run: session("s1"), Subagents: []model.SubagentFact{openAtEnd}},
			good: model.Facts{Run: session("s1"), Subagents: []model.SubagentFact{stillRunning}},
			want: `the transcript ends inside the sync Agent call "Read README thrice then wait" (agent unknown): no result, no notification, so nobody knows how the subagent ended`,
		},
		"watchdog-disagreement": {
			bad:  model.Facts{Run: workflow("wf1"), Watchdogs: []model.WatchdogFact{mismatch}},
			good: model.Facts{Run: workflow("wf1"), Watchdogs: []model.WatchdogFact{agree}},
			want: `agent review-a: killed without a 180s stall the Workflow runtime would act on`,
		},
		"quiet-agent": {
			bad:  model.Facts{Run: workflow("wf1"), Watchdogs: []model.WatchdogFact{quiet(300, 5), quiet(600, 6), quiet(1200, 8)}},
			good: model.Facts{Run: workflow("wf1"), Watchdogs: []model.WatchdogFact{quiet(300, 5), quiet(599, 6)}},
			want: `agent review-a wrote nothing for 600 seconds`,
		},
	}
}

// TestDefaultRulesOnHandBuiltFacts: each default rule fires once on its bad
// facts with the exact message, and stays silent on its good facts.
func TestDefaultRulesOnHandBuiltFacts(t *testing.T) {
	pack, err := Defaults()
	if err != nil {
		t.Fatal(err)
	}
	cases := defaultRuleCases()
	for _, r := range pack.Rules {
		tc, ok := cases[r.ID]
		if !ok {
			t.Errorf("default rule %s has no hand-built case in defaultRuleCases", r.ID)
			continue
		}
		only := &Pack{Rules: []*Rule{r}}
		bad, err := Evaluate(only, []model.Facts{tc.bad})
		if err != nil {
			t.Fatalf("%s: %v", r.ID, err)
		}
		if len(bad) != 1 || bad[0].Message != tc.want || bad[0].RuleID != r.ID || bad[0].Severity != r.Severity {
			t.Errorf("%s on its bad facts:\n got %+v\nwant one finding %q", r.ID, bad, tc.want)
		}
		good, err := Evaluate(only, []model.Facts{tc.good})
		if err != nil {
			t.Fatalf("%s: %v", r.ID, err)
		}
		if len(good) != 0 {
			t.Errorf("%s fired on its good facts: %+v", r.ID, good)
		}
	}
	for id := range cases {
		if pack.Rule(id) == nil {
			t.Errorf("defaultRuleCases has a case for %s, which is not a default rule", id)
		}
	}
}

// TestDefaultPackShape: the pack is led by the shipped-branch rule, and every
// rule carries the metadata reports and docs need.
func TestDefaultPackShape(t *testing.T) {
	pack, err := Defaults()
	if err != nil {
		t.Fatal(err)
	}
	if pack.Rules[0].ID != "killed-subagent-shipped-unreviewed" || pack.Rules[0].Severity != SeverityError {
		t.Errorf("the first default rule is %s (%s); it must be killed-subagent-shipped-unreviewed at error", pack.Rules[0].ID, pack.Rules[0].Severity)
	}
	for _, r := range pack.Rules {
		if r.Title == "" || len(r.Description) < 40 || len(r.Help) < 80 || len(r.Tags) == 0 {
			t.Errorf("%s lacks metadata: title %q, description %d bytes, help %d bytes, %d tags", r.ID, r.Title, len(r.Description), len(r.Help), len(r.Tags))
		}
		if !slices.Contains(Severities, r.Severity) {
			t.Errorf("%s: severity %q", r.ID, r.Severity)
		}
	}
	a, _ := Defaults()
	a.Rules[0].Severity = SeverityNote
	b, _ := Defaults()
	if b.Rules[0].Severity != SeverityError {
		t.Error("Defaults returned a shared pack: re-levelling one copy changed another")
	}
}

// TestKilledAttemptMessageVariants pins the branches of the one default
// message with real logic in it.
func TestKilledAttemptMessageVariants(t *testing.T) {
	pack, _ := Defaults()
	only := &Pack{Rules: []*Rule{pack.Rule("killed-attempt-with-work")}}
	many := killedAttempt()
	many.Paths = []string{"1", "2", "3", "4", "5", "6", "7"}
	many.PathsPartial = true
	many.Commits, many.CommitsReported, many.CommitsUnknown = []string{"abc1234"}, 1, false
	shellOnly := killedAttempt()
	shellOnly.Paths, shellOnly.PathsPartial, shellOnly.CommitsReported, shellOnly.CommitsUnknown = nil, true, 0, false
	for _, tc := range []struct {
		a    model.AttemptFact
		want string
	}{
		{many, "attempt 1 of agent review-a was killed after it changed the working tree (wrote: 1, 2, 3, 4, 5 and 2 more, maybe more through shell commands; commits: abc1234); the retry started from whatever it left behind"},
		{shellOnly, "attempt 1 of agent review-a was killed after it changed the working tree (wrote: no listed path, maybe more through shell commands; commits: none); the retry started from whatever it left behind"},
	} {
		got, err := Evaluate(only, []model.Facts{{Run: workflow("wf1"), Attempts: []model.AttemptFact{tc.a}}})
		if err != nil || len(got) != 1 || got[0].Message != tc.want {
			t.Errorf("got %v %+v\nwant %s", err, got, tc.want)
		}
	}
}

// TestShippedKillSaysWhatWasEstablished (issue 31, item 6): the message of
// a killed subagent shipped without review says what was established: a
// ship action after the kill, the branch under check carrying its work, or
// both, never "a shipped branch" when on_shipped_branch is false.
func TestShippedKillSaysWhatWasEstablished(t *testing.T) {
	pack, err := Build(Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		onBranch, afterKill bool
		want, not           string
	}{
		{false, true, "; a ship action ran after the kill", "branch"},
		{true, false, "; the branch under check carries its work", "ship action"},
		{true, true, "; the branch under check carries its work, and a ship action ran after the kill", "xxx"},
	} {
		s := killedSubagent()
		s.OnShippedBranch, s.ShippedAfterKill = c.onBranch, c.afterKill
		fs, err := Evaluate(pack, []model.Facts{{Run: model.RunFact{Kind: "session", ID: "s1", Path: "s1.jsonl"}, Subagents: []model.SubagentFact{s}}})
		if err != nil {
			t.Fatal(err)
		}
		var msg string
		for _, f := range fs {
			if f.RuleID == "killed-subagent-shipped-unreviewed" {
				msg = f.Message
			}
		}
		if !strings.HasSuffix(msg, c.want) || strings.Contains(msg[strings.Index(msg, ";"):], c.not) {
			t.Errorf("on branch %v, after kill %v: %q; want it to end %q", c.onBranch, c.afterKill, msg, c.want)
		}
	}
}

// TestRenamedRulesKeepTheirOldNames (issue 31, item 6): the two rules whose
// names differed only by word order are renamed to say the difference
// (shipped or not); their old ids still disable and re-level them, and
// their fingerprints still hash the old ids, so baselines survive.
func TestRenamedRulesKeepTheirOldNames(t *testing.T) {
	for old, new := range map[string]string{
		"unreviewed-killed-subagent": "killed-subagent-shipped-unreviewed",
		"killed-subagent-unreviewed": "killed-subagent-not-shipped-unreviewed",
	} {
		p, err := Build(Options{Disable: []string{old}, Severity: []string{old + "=note"}})
		if err != nil {
			t.Fatalf("the old id %s: %v", old, err)
		}
		if p.Rule(new) != nil {
			t.Errorf("--disable %s left %s on", old, new)
		}
		p, err = Build(Options{Severity: []string{old + "=note"}})
		if err != nil || p.Rule(new).Severity != "note" {
			t.Errorf("--severity %s=note did not re-level %s (%v)", old, new, err)
		}
		if got := p.Rule(new).fingerprintID(); got != old {
			t.Errorf("%s's fingerprints hash %q, want its old id %q", new, got, old)
		}
	}
}
