package interpret

import (
	"testing"

	"github.com/pmcheck/pmcheck/analyze/model"
)

func result(text string, isError bool, extra *model.ResultExtra) *model.ToolResult {
	return model.NewToolResult(model.ResultInput{Text: text, IsError: isError, Extra: extra, At: model.Evidence{File: "s.jsonl", Line: 3}})
}

// TestSubagentOutcome covers every outcome, the negative cases first: a
// rejection is never killed, an interruption is stopped, a call with no
// result is open at the end of the file.
func TestSubagentOutcome(t *testing.T) {
	cases := []struct {
		name   string
		sc     model.SubagentCall
		polls  []*model.ToolResult
		want   string
		by     string
		killed bool
	}{
		{"no result, foreground", model.SubagentCall{Mode: model.ModeSync}, nil, OutcomeOpenAtEnd, "none", true},
		{"no result, background", model.SubagentCall{Mode: model.ModeAsync}, nil, OutcomeOpenAtEnd, "none", false},
		{"validation error", model.SubagentCall{Mode: model.ModeSync, Result: result("<tool_use_error>InputValidationError: Agent failed due to the following issue:\nThe required parameter `prompt` is missing</tool_use_error>", true, nil)}, nil, OutcomeRejected, "result", false},
		{"unknown agent type", model.SubagentCall{Mode: model.ModeSync, Result: result("<tool_use_error>Agent type 'planner' not found. Available agents: general-purpose</tool_use_error>", true, nil)}, nil, OutcomeRejected, "result", false},
		{"declined permission", model.SubagentCall{Mode: model.ModeSync, Result: result("The user doesn't want to proceed with this tool use. The tool use was rejected.", true, &model.ResultExtra{ResultString: "User rejected tool use"})}, nil, OutcomeRejected, "result", false},
		{"background launch declined", model.SubagentCall{Mode: model.ModeAsync, Result: result("User rejected tool use", true, nil)}, nil, OutcomeRejected, "result", false},
		{"declined words after the agent ran (Esc on a running agent)", model.SubagentCall{Mode: model.ModeSync, AgentID: "a972d08", Result: result("The user doesn't want to proceed with this tool use. The tool use was rejected.", true, nil)}, nil, OutcomeStopped, "result", true},
		{"unknown agent type, no wrapper (2.1.37)", model.SubagentCall{Mode: model.ModeSync, Result: result("Agent type 'code-simplifier' not found. Available agents: Bash, general-purpose", true, &model.ResultExtra{ResultString: "Error: Agent type 'code-simplifier' not found."})}, nil, OutcomeRejected, "result", false},
		{"auto-mode safety check unavailable", model.SubagentCall{Mode: model.ModeSync, Result: result("claude-sonnet-5[1m] is temporarily unavailable, so auto mode cannot determine the safety of Agent right now.", true, nil)}, nil, OutcomeRejected, "result", false},
		{"sibling call errored", model.SubagentCall{Mode: model.ModeSync, Result: result("<tool_use_error>Sibling tool call errored</tool_use_error>", true, nil)}, nil, OutcomeRejected, "result", false},
		{"error naming an agent is not a rejection", model.SubagentCall{Mode: model.ModeSync, Result: result("<tool_use_error>boom</tool_use_error>", true, &model.ResultExtra{AgentID: "a1234567"})}, nil, OutcomeFailed, "result", true},
		{"interrupted during the call", model.SubagentCall{Mode: model.ModeSync, Result: result("The user doesn't want to take this action right now. STOP what you are doing.", true, nil)}, nil, OutcomeStopped, "result", true},
		{"interrupted for tool use", model.SubagentCall{Mode: model.ModeSync, Result: result("[Request interrupted by user for tool use]", true, nil)}, nil, OutcomeStopped, "result", true},
		{"interrupted for tool use, not flagged", model.SubagentCall{Mode: model.ModeSync, Result: result("[Request interrupted by user for tool use]", false, nil)}, nil, OutcomeStopped, "result", true},
		{"terminated early", model.SubagentCall{Mode: model.ModeSync, Result: model.NewToolResult(model.ResultInput{StartsWithAPIErrorPrefix: true, IsError: true})}, nil, OutcomeTerminatedEarly, "result", true},
		{"completed", model.SubagentCall{Mode: model.ModeSync, Result: result("Done.", false, nil)}, nil, OutcomeCompleted, "result", false},
		{"background, no word", model.SubagentCall{Mode: model.ModeAsync, Result: result("Async agent launched successfully.", false, nil)}, nil, OutcomeNeverReturned, "result", false},
		{"background, poll running", model.SubagentCall{Mode: model.ModeAsync, Result: result("Async agent launched successfully.", false, nil)},
			[]*model.ToolResult{result("", false, &model.ResultExtra{PollStatus: "running"})}, OutcomeNeverReturned, "result", false},
		{"background, poll completed", model.SubagentCall{Mode: model.ModeAsync, Result: result("Async agent launched successfully.", false, nil)},
			[]*model.ToolResult{result("", false, &model.ResultExtra{PollStatus: "running"}), result("", false, &model.ResultExtra{PollStatus: "completed"})}, OutcomeCompleted, "poll", false},
		{"background, poll in_progress", model.SubagentCall{Mode: model.ModeAsync, Result: result("Async agent launched successfully.", false, nil)},
			[]*model.ToolResult{result("", false, &model.ResultExtra{PollStatus: "in_progress"})}, OutcomeNeverReturned, "result", false},
		{"background, poll failed", model.SubagentCall{Mode: model.ModeAsync, Result: result("Async agent launched successfully.", false, nil)},
			[]*model.ToolResult{result("", false, &model.ResultExtra{PollStatus: "failed"})}, OutcomeFailed, "poll", true},
		{"notification beats polls", model.SubagentCall{Mode: model.ModeAsync, Result: result("Async agent launched successfully.", false, nil),
			LastNotification: &model.Notification{Status: "killed", HasStatus: true}},
			[]*model.ToolResult{result("", false, &model.ResultExtra{PollStatus: "completed"})}, OutcomeKilled, "notification", true},
		{"notification without status", model.SubagentCall{Mode: model.ModeAsync, LastNotification: &model.Notification{}}, nil, OutcomeUnknown, "notification", true},
	}
	for _, c := range cases {
		got := SubagentOutcome(&c.sc, c.polls)
		if got.Outcome != c.want || got.By != c.by {
			t.Errorf("%s: %s by %s, want %s by %s", c.name, got.Outcome, got.By, c.want, c.by)
		}
		if k := TerminatedEarly(got.Outcome, c.sc.Mode); k != c.killed {
			t.Errorf("%s: terminated early %v, want %v", c.name, k, c.killed)
		}
	}
}

// TestPolls: a poll names the agent by the task id in its result, else by
// its input; polls of other tasks and other tools are not the agent's.
func TestPolls(t *testing.T) {
	mk := func(name, input, polled, status string) *model.ToolCall {
		return model.NewToolCall(model.CallInput{Name: name, TaskID: input, Result: result("", false, &model.ResultExtra{PollTaskID: polled, PollStatus: status})})
	}
	tr := &model.Transcript{ToolCalls: []*model.ToolCall{
		mk("TaskOutput", "a1", "a1", "running"),
		mk("TaskOutput", "a1", "", "completed"),
		mk("TaskOutput", "a2", "a2", "completed"),
		mk("TaskOutput", "a1", "a2", "failed"), // the result names another task
		mk("TaskStop", "a1", "a1", "killed"),
	}}
	got := Polls(tr, "a1")
	if len(got) != 2 || got[0].PollStatus() != "running" || got[1].PollStatus() != "completed" {
		t.Fatalf("polls of a1 = %d", len(got))
	}
	if Polls(tr, "") != nil || Polls(nil, "a1") != nil {
		t.Error("an empty id or no transcript has no polls")
	}
}

// TestPollsByTaskAgreesWithPolls: the grouped index gives, for every id,
// exactly what Polls gives, in the same order.
func TestPollsByTaskAgreesWithPolls(t *testing.T) {
	ids := []string{"", "a1", "a2", "a3"}
	names := []string{"TaskOutput", "AgentOutputTool", "BashOutput", "TaskStop", "Bash"}
	tr := &model.Transcript{}
	for i := range 200 {
		c := model.NewToolCall(model.CallInput{Name: names[i%len(names)], TaskID: ids[i%len(ids)]})
		if i%7 != 0 {
			c.Result = result("", false, &model.ResultExtra{PollTaskID: ids[(i/3)%len(ids)], PollStatus: "running"})
		}
		tr.ToolCalls = append(tr.ToolCalls, c)
	}
	idx := PollsByTask(tr)
	for _, id := range ids[1:] {
		want, got := Polls(tr, id), idx[id]
		if len(want) != len(got) {
			t.Fatalf("%s: %d polls, index has %d", id, len(want), len(got))
		}
		for i := range want {
			if want[i] != got[i] {
				t.Fatalf("%s: poll %d differs", id, i)
			}
		}
	}
	if len(idx[""]) != 0 || len(PollsByTask(nil)) != 0 {
		t.Error("no empty id, no transcript")
	}
}
