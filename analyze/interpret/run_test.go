package interpret

import (
	"testing"

	"github.com/pmcheck/pmcheck/analyze/model"
)

// How a stream's run ended, from its result message, in the shapes public
// streams show (an API error reported with subtype success and is_error,
// the turn limit, a result-less stream) and the SDK documents.
func TestRunEnding(t *testing.T) {
	interrupted := &model.Transcript{File: "run.jsonl", Interrupts: []*model.Event{{Line: 3}}}
	for _, c := range []struct {
		name string
		res  *model.RuntimeResult
		main *model.Transcript
		want string
	}{
		{"success", &model.RuntimeResult{Subtype: "success", TerminalReason: "completed"}, nil, RunCompleted},
		{"api error with subtype success", &model.RuntimeResult{Subtype: "success", IsError: true, TerminalReason: "api_error"}, nil, RunAPIError},
		{"api error status", &model.RuntimeResult{Subtype: "success", IsError: true, APIErrorStatus: "529"}, nil, RunAPIError},
		{"turn limit", &model.RuntimeResult{Subtype: "error_max_turns", IsError: true, TerminalReason: "max_turns"}, nil, RunMaxTurns},
		{"turn limit by reason", &model.RuntimeResult{Subtype: "success", IsError: true, TerminalReason: "max_turns"}, nil, RunMaxTurns},
		{"aborted", &model.RuntimeResult{Subtype: "error_during_execution", IsError: true, TerminalReason: "aborted_tools"}, nil, RunInterrupted},
		{"interrupted turn", &model.RuntimeResult{Subtype: "error_during_execution", IsError: true}, interrupted, RunInterrupted},
		{"execution error", &model.RuntimeResult{Subtype: "error_during_execution", IsError: true}, nil, RunFailed},
		{"is_error alone", &model.RuntimeResult{Subtype: "success", IsError: true}, nil, RunFailed},
		{"budget", &model.RuntimeResult{Subtype: "error_max_budget_usd", IsError: true}, nil, RunFailed},
	} {
		got := RunEnding(&model.Runtime{Result: c.res}, c.main)
		if got.Ending != c.want {
			t.Errorf("%s: ended %q (%s), want %q", c.name, got.Ending, got.Detail, c.want)
		}
	}
	main := &model.Transcript{File: "exec.json", LastRowLine: 40}
	if got := RunEnding(&model.Runtime{}, main); got.Ending != RunNoResult || got.At.Line != 40 {
		t.Errorf("no result: %+v", got)
	}
	if got := RunEnding(nil, main); got.Ending != "" {
		t.Errorf("a session run has no stream ending: %+v", got)
	}
}

// A spawn refused by a limit counts as refused; an input error, a denial
// or a call that ran does not.
func TestRefusedBySpawnLimit(t *testing.T) {
	call := func(text string) *model.SubagentCall {
		c := model.NewToolCall(model.CallInput{ID: "toolu_1", Name: "Task"})
		r := model.NewToolResult(model.ResultInput{ToolUseID: "toolu_1", Text: text, IsError: true})
		return &model.SubagentCall{Call: c, Result: r, ToolUseID: "toolu_1"}
	}
	if !RefusedBySpawnLimit(call("<tool_use_error>Cannot start agent: the maximum agent nesting depth (2) is reached</tool_use_error>")) {
		t.Error("a depth refusal is not counted as refused")
	}
	if RefusedBySpawnLimit(call("<tool_use_error>InputValidationError: prompt is required</tool_use_error>")) {
		t.Error("an input error is counted as refused")
	}
	denied := call("Permission to use Task has been denied (a depth of caution).")
	denied.Denied = &model.Evidence{File: "run.jsonl", Line: 9}
	if RefusedBySpawnLimit(denied) {
		t.Error("a permission denial is counted as refused")
	}
	ran := call("agent hit the concurrency limit of its own")
	ran.AgentID = "a1"
	if RefusedBySpawnLimit(ran) {
		t.Error("a call whose agent ran is counted as refused")
	}
}

// TestRuntimeTally: how subagent_stats counts a subagent, the negative
// cases first (one that never ran is no count; an open or rejected one is
// spawned only); a cut-off subagent whose call returned "completed"
// without is_error is the runtime's completed.
func TestRuntimeTally(t *testing.T) {
	done := &model.ResultExtra{Status: "completed"}
	cases := []struct {
		name    string
		sc      model.SubagentCall
		outcome string
		started bool
		want    string
	}{
		{"never ran", model.SubagentCall{}, OutcomeFailed, false, ""},
		{"started, open", model.SubagentCall{}, OutcomeOpenAtEnd, true, ""},
		{"ran, rejected", model.SubagentCall{AgentID: "a1"}, OutcomeRejected, false, ""},
		{"completed", model.SubagentCall{AgentID: "a1"}, OutcomeCompleted, false, TallyCompleted},
		{"cut off, returned completed", model.SubagentCall{AgentID: "a1", Result: result("partial", false, done)}, OutcomeTerminatedEarly, false, TallyCompleted},
		{"cut off, an error", model.SubagentCall{AgentID: "a1", Result: result("partial", true, done)}, OutcomeTerminatedEarly, false, TallyFailed},
		{"cut off, no result", model.SubagentCall{AgentID: "a1"}, OutcomeTerminatedEarly, true, TallyFailed},
		{"failed", model.SubagentCall{AgentID: "a1"}, OutcomeFailed, false, TallyFailed},
		{"unknown", model.SubagentCall{AgentID: "a1"}, OutcomeUnknown, false, TallyFailed},
		{"stopped", model.SubagentCall{}, OutcomeStopped, true, TallyKilled},
		{"killed", model.SubagentCall{AgentID: "a1"}, OutcomeKilled, false, TallyKilled},
	}
	for _, c := range cases {
		if got := RuntimeTally(&c.sc, c.outcome, c.started); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// TestSubagentLedgerOfAnUnreadChild: a subagent without a transcript of
// its own is unknown work only where the check says so (a commit range),
// and never when its call was rejected.
func TestSubagentLedgerOfAnUnreadChild(t *testing.T) {
	sc := &model.SubagentCall{AgentID: "a1"}
	if l, why := SubagentLedger(sc, OutcomeCompleted, nil, false); l.Partial || l.CommitsUnknown || why != "" {
		t.Errorf("outside a range: %+v %q", l, why)
	}
	if l, why := SubagentLedger(sc, OutcomeRejected, nil, true); l.Partial || why != "" {
		t.Errorf("rejected: %+v %q", l, why)
	}
	if l, why := SubagentLedger(sc, OutcomeCompleted, nil, true); !l.Partial || !l.CommitsUnknown || why != NoOwnTranscript {
		t.Errorf("in a range: %+v %q", l, why)
	}
	sc.Child = &model.Transcript{}
	if l, why := SubagentLedger(sc, OutcomeCompleted, nil, true); l.Partial || why != "" {
		t.Errorf("with its transcript: %+v %q", l, why)
	}
}
