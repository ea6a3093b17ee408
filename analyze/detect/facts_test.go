package detect_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/pmcheck/pmcheck/analyze/detect"
	"github.com/pmcheck/pmcheck/analyze/interpret"
	"github.com/pmcheck/pmcheck/analyze/model"
)

func subagent(t *testing.T, f model.Facts, toolUseID string) model.SubagentFact {
	t.Helper()
	for _, s := range f.Subagents {
		if s.ToolUseID == toolUseID {
			return s
		}
	}
	t.Fatalf("no subagent fact for %s in %+v", toolUseID, f.Subagents)
	return model.SubagentFact{}
}

func TestSyncKillLedger(t *testing.T) {
	f := detect.Analyze(loadRun(t, "detect-sync-killed", model.KindSession), detect.Options{})
	s := subagent(t, f, "toolu_kill01")
	if !s.Killed || s.Outcome != interpret.OutcomeTerminatedEarly || s.Signature != "A" || s.Mode != model.ModeSync {
		t.Fatalf("fact %+v", s)
	}
	if !reflect.DeepEqual(s.Paths, []string{"disclosure.md"}) || !reflect.DeepEqual(s.Commits, []string{"1a2b3c4"}) || s.CommitsUnknown {
		t.Fatalf("ledger paths %q commits %q unknown %v", s.Paths, s.Commits, s.CommitsUnknown)
	}
	if s.Reviewed || len(s.ReviewEvidence) != 0 {
		t.Fatalf("reviewed without evidence: %+v", s)
	}
}

func TestShipActionsAndWhatWasOutstanding(t *testing.T) {
	f := detect.Analyze(loadRun(t, "detect-ship-after-kill", model.KindSession), detect.Options{})
	var got []string
	for _, s := range f.Ships {
		got = append(got, s.Kind+":"+s.Branch+":"+strings.Join(s.OutstandingKilled, ","))
	}
	want := []string{
		"push:feat/detect:",               // before the kill
		"push:main:Harden the login flow", // `npm test; git -C … push origin feat/detect:main`
		"deploy::Harden the login flow",   // gh pr edit --add-label auto-deploy
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("ships = %q, want %q", got, want)
	}
	if !f.Run.Shipped {
		t.Error("the run pushed, so it shipped")
	}
	s := subagent(t, f, "toolu_kill14")
	if !s.ShippedAfterKill || s.Reviewed {
		t.Fatalf("fact %+v", s)
	}
}

func TestReviewSubagentClearsTheKill(t *testing.T) {
	f := detect.Analyze(loadRun(t, "detect-reviewed-by-subagent", model.KindSession), detect.Options{})
	s := subagent(t, f, "toolu_kill15")
	if !s.Killed || !s.Reviewed || len(s.ReviewEvidence) != 1 || !strings.Contains(s.ReviewEvidence[0], "toolu_rev15") {
		t.Fatalf("fact %+v", s)
	}
	if len(f.Ships) != 1 || f.Ships[0].Outstanding {
		t.Fatalf("ships %+v", f.Ships)
	}
	// With the reviewer keywords switched off the same subagent is no review.
	f = detect.Analyze(loadRun(t, "detect-reviewed-by-subagent", model.KindSession), detect.Options{Review: detect.ReviewOptions{ReviewerKeywords: []string{}}})
	if s := subagent(t, f, "toolu_kill15"); s.Reviewed || !f.Ships[0].Outstanding {
		t.Fatalf("review evidence not configurable: %+v %+v", s, f.Ships)
	}
}

func TestWorkflowAttemptOutcomes(t *testing.T) {
	f := detect.Analyze(loadRun(t, "detect-workflow-attempts", model.KindWorkflow), detect.Options{})
	type row struct {
		agent, outcome   string
		never, falseDone bool
		cause            string
	}
	var got []row
	for _, a := range f.Attempts {
		got = append(got, row{a.AgentID, a.Outcome, a.NeverReturned, a.FalseDone, a.FailureCause})
	}
	want := []row{
		{"aw40000000000161", model.OutcomeKilled, false, false, ""},
		{"aw40000000000163", model.OutcomeFailed, false, false, "usage limit reached: You've hit your session limit · resets 3pm (UTC)"},
		{"aw40000000000164", model.OutcomeCompleted, false, true, "API error"},
		{"aw40000000000165", model.OutcomeOpen, true, false, ""},
		{"aw40000000000162", model.OutcomeCompleted, false, false, ""},
		{"aw40000000000199", detect.OutcomeOrphan, false, false, "journal result line matches no open attempt"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("attempts:\n got %+v\nwant %+v", got, want)
	}
	k := f.Attempts[0]
	if k.SupersededBy != 2 || k.SilenceSeconds != 185 {
		t.Errorf("killed attempt superseded by %d after %vs", k.SupersededBy, k.SilenceSeconds)
	}
	if !reflect.DeepEqual(k.Paths, []string{"a.go"}) || !k.PathsPartial || !k.CommitsUnknown || k.CommitsReported != 0 {
		t.Errorf("ledger of the killed attempt: paths %q partial %v unknown %v reported %d", k.Paths, k.PathsPartial, k.CommitsUnknown, k.CommitsReported)
	}
	if f.Run.Agents != 4 || f.Run.Attempts != 5 { // the orphan line is no attempt
		t.Errorf("run: %+v", f.Run)
	}
}

func TestNoFactsForNilRun(t *testing.T) {
	f := detect.Analyze(nil, detect.Options{})
	if f.Subagents == nil || f.Ships == nil || f.Attempts == nil || f.Watchdogs == nil {
		t.Fatal("fact lists must be empty, not nil, so JSON shows []")
	}
}

func TestPublishToolsAreConfigurable(t *testing.T) {
	run := &model.Run{Kind: model.KindSession, ID: "s", Main: &model.Transcript{File: "s.jsonl", ToolCalls: []*model.ToolCall{
		model.NewToolCall(model.CallInput{ID: "t1", Name: "mcp__claude_ai_Gmail__create_draft", At: model.Evidence{File: "s.jsonl", Line: 1}}),
		model.NewToolCall(model.CallInput{ID: "t2", Name: "mcp__acme__publish_page", At: model.Evidence{File: "s.jsonl", Line: 2}}),
	}}}
	kinds := func(f model.Facts) []string {
		var out []string
		for _, s := range f.Ships {
			out = append(out, s.Kind+":"+s.Tool)
		}
		return out
	}
	if got := kinds(detect.Analyze(run, detect.Options{})); !reflect.DeepEqual(got, []string{"publish:mcp__claude_ai_Gmail__create_draft"}) {
		t.Fatalf("default list: %q", got)
	}
	if got := kinds(detect.Analyze(run, detect.Options{PublishTools: []string{"mcp__*__publish_*"}})); !reflect.DeepEqual(got, []string{"publish:mcp__acme__publish_page"}) {
		t.Fatalf("pattern list: %q", got)
	}
}
