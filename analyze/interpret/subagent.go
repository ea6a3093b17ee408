package interpret

import (
	"strings"

	"github.com/pmcheck/pmcheck/analyze/harness"
	"github.com/pmcheck/pmcheck/analyze/model"
)

// Subagent outcomes (SubagentFact.Outcome): how one Agent/Task call ended.
const (
	OutcomeCompleted = "completed"
	OutcomeKilled    = "killed"
	OutcomeFailed    = "failed"
	// OutcomeStopped: stopped by the user (an interruption during the call,
	// or a notification saying so).
	OutcomeStopped = "stopped"
	// OutcomeNeverReturned: a background agent was launched and nothing
	// later in the file says how it ended.
	OutcomeNeverReturned   = "launched-never-returned"
	OutcomeTerminatedEarly = "terminated-early"
	// OutcomeUnknown: a notification arrived without a readable status; it
	// counts as terminated early (fail toward reporting).
	OutcomeUnknown = "unknown"
	// OutcomeRejected: the call failed before any agent was launched (input
	// validation, a missing prompt, an unknown agent type, a permission
	// prompt the user declined). It did no work.
	OutcomeRejected = "rejected"
	// OutcomeOpenAtEnd: the transcript ends while the call is still open
	// (no tool result at all): the parent was killed mid-call, or the file
	// is a snapshot taken mid-call.
	OutcomeOpenAtEnd = "open-at-end"
)

// SubagentEnd is how one Agent/Task call ended and the row that decided it.
type SubagentEnd struct {
	Outcome string
	At      model.Evidence
	// By names the evidence: "notification", "poll" (a TaskOutput result),
	// "result" (the call's tool result), "permission_denials" (the SDK
	// result's list) or "none".
	By string
}

// SubagentOutcome decides how one Agent/Task call ended, from the most
// authoritative evidence: the last notification for background agents, else
// the last output poll that names the agent with a final status, else the
// call's tool result. polls are the owner transcript's TaskOutput-style
// results for the call's agent, in file order (see Polls).
func SubagentOutcome(sc *model.SubagentCall, polls []*model.ToolResult) SubagentEnd {
	if sc.Denied != nil && !ran(sc) {
		// The runtime's result lists the call among its permission
		// denials (an SDK stream): it was refused before it ran.
		return SubagentEnd{OutcomeRejected, *sc.Denied, "permission_denials"}
	}
	if n := sc.LastNotification; n != nil {
		switch {
		case !n.HasStatus:
			return SubagentEnd{OutcomeUnknown, n.At, "notification"}
		case n.Status == "completed":
			return SubagentEnd{OutcomeCompleted, n.At, "notification"}
		case n.Status == "killed" || n.Status == "stopped" || n.Status == "failed":
			return SubagentEnd{n.Status, n.At, "notification"}
		default:
			return SubagentEnd{OutcomeFailed, n.At, "notification"}
		}
	}
	r := sc.Result
	if r == nil {
		return SubagentEnd{OutcomeOpenAtEnd, sc.At, "none"}
	}
	switch {
	case refusedBeforeLaunch(r):
		return SubagentEnd{OutcomeRejected, r.At(), "result"}
	case declinedByUser(r) && !ran(sc):
		// The permission prompt's answer; with the same words a user who
		// pressed Esc on a running agent is answered, so it is a rejection
		// only when nothing shows the agent ran.
		return SubagentEnd{OutcomeRejected, r.At(), "result"}
	case declinedByUser(r):
		return SubagentEnd{OutcomeStopped, r.At(), "result"}
	}
	if sc.Mode == model.ModeAsync || r.IsAsync() || r.Status() == "async_launched" {
		// Only a final status ends the agent; running, pending,
		// in_progress and words not known to be final say it was alive.
		for i := len(polls) - 1; i >= 0; i-- {
			switch st := polls[i].PollStatus(); st {
			case "completed", "killed", "stopped", "failed":
				return SubagentEnd{st, polls[i].At(), "poll"}
			case "error":
				return SubagentEnd{OutcomeFailed, polls[i].At(), "poll"}
			}
		}
		return SubagentEnd{OutcomeNeverReturned, r.At(), "result"}
	}
	switch {
	case r.StartsWithAPIErrorPrefix():
		return SubagentEnd{OutcomeTerminatedEarly, r.At(), "result"}
	case stoppedByUser(r):
		return SubagentEnd{OutcomeStopped, r.At(), "result"}
	case r.IsError():
		return SubagentEnd{OutcomeFailed, r.At(), "result"}
	}
	return SubagentEnd{OutcomeCompleted, r.At(), "result"}
}

// Polls returns the output polls in t (TaskOutput, AgentOutputTool and
// BashOutput results) that name agentID, in file order.
func Polls(t *model.Transcript, agentID string) []*model.ToolResult {
	if t == nil || agentID == "" {
		return nil
	}
	var out []*model.ToolResult
	for _, c := range t.ToolCalls {
		if !IsPoll(c.Name()) || c.Result == nil {
			continue
		}
		if c.Result.PollTaskID() == agentID || c.Result.PollTaskID() == "" && c.TaskID() == agentID {
			out = append(out, c.Result)
		}
	}
	return out
}

// PollsByTask groups a transcript's output polls by the task they read, in
// call order: PollsByTask(t)[id] is Polls(t, id) for every non-empty id, in
// one pass over the tool calls instead of one per agent.
func PollsByTask(t *model.Transcript) map[string][]*model.ToolResult {
	out := map[string][]*model.ToolResult{}
	if t == nil {
		return out
	}
	for _, c := range t.ToolCalls {
		if !IsPoll(c.Name()) || c.Result == nil {
			continue
		}
		id := c.Result.PollTaskID()
		if id == "" {
			id = c.TaskID()
		}
		if id != "" {
			out[id] = append(out[id], c.Result)
		}
	}
	return out
}

// IsPoll reports whether a tool reads a background task's output and status.
func IsPoll(tool string) bool { return model.IsPollTool(tool) }

// userStoppedPrefixes begin the tool result of a call the user interrupted
// while it ran.
var userStoppedPrefixes = []string{
	"The user doesn't want to take this action right now",
	harness.KillSentinelPrefix,
}

// userRejectedPrefixes begin the tool result of a call the user declined at
// the permission prompt, before it ran.
var userRejectedPrefixes = []string{
	"The user doesn't want to proceed with this tool use",
	"User rejected tool use",
	"Error: The user doesn't want to proceed with this tool use",
}

// stoppedByUser: an error result that says the user interrupted the call.
func stoppedByUser(r *model.ToolResult) bool {
	return r.IsError() && (r.Interrupted() || hasAnyPrefix(r.ResultString(), userStoppedPrefixes)) ||
		hasAnyPrefix(r.Text, userStoppedPrefixes)
}

// refusedBeforeLaunch: an error result the harness writes instead of
// starting the agent: its <tool_use_error> wrapper (input validation, a
// missing prompt, a sibling call that failed), an unknown agent type, or the
// auto-mode safety check that could not run. A result that names an agent id
// is never one: that agent ran.
func refusedBeforeLaunch(r *model.ToolResult) bool {
	if !r.IsError() || r.AgentID() != "" || r.TailAgentID() != "" || r.StartsWithAPIErrorPrefix() {
		return false
	}
	text := strings.TrimSpace(r.Text)
	return strings.HasPrefix(text, "<tool_use_error>") || strings.HasPrefix(text, "InputValidationError") ||
		hasAnyPrefix(text, refusedPrefixes) || hasAnyPrefix(r.ResultString(), refusedPrefixes) ||
		strings.Contains(text, "auto mode cannot determine the safety of")
}

// refusedPrefixes begin the text (or the string toolUseResult) of a call
// refused before launch without the <tool_use_error> wrapper.
var refusedPrefixes = []string{"Agent type '", "Error: Agent type '", "InputValidationError"}

// declinedByUser: the permission-prompt answer "the user doesn't want to
// proceed" / "User rejected tool use".
func declinedByUser(r *model.ToolResult) bool {
	return r.IsError() && r.AgentID() == "" && r.TailAgentID() == "" &&
		(hasAnyPrefix(r.Text, userRejectedPrefixes) || hasAnyPrefix(r.ResultString(), userRejectedPrefixes))
}

// ran reports whether anything shows the call's agent started: an agent id
// named by any source (agent_progress rows, a sidecar, a notification) or
// its transcript.
func ran(sc *model.SubagentCall) bool { return sc.AgentID != "" || sc.Child != nil }

func hasAnyPrefix(s string, prefixes []string) bool {
	s = strings.TrimLeft(s, " \t\r\n")
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// TerminatedEarly reports whether an outcome means the subagent's work was
// cut off. A background agent still running when the session ended is not:
// that is the normal case a bare count of unanswered launches could not
// tell apart. A rejected call did no work.
func TerminatedEarly(outcome, mode string) bool {
	switch outcome {
	case OutcomeKilled, OutcomeFailed, OutcomeStopped, OutcomeTerminatedEarly, OutcomeUnknown:
		return true
	case OutcomeOpenAtEnd:
		// A foreground call with no result: the parent process died mid-call.
		return mode == model.ModeSync
	}
	return false
}

// QueueBalances is the reference resume gate's queue accounting of a
// transcript (Signature B) over the whole file: for each tool-use id a
// queue-operation's task-notification names, enqueues minus removes. A
// remove row without the notification names no agent and balances nothing.
func QueueBalances(t *model.Transcript) map[string]int {
	var out map[string]int
	if t == nil {
		return out
	}
	for _, op := range t.QueueOps {
		n := op.Notification
		if n == nil || n.ToolUseID == "" {
			continue
		}
		if out == nil {
			out = map[string]int{}
		}
		switch op.Operation {
		case "enqueue":
			out[n.ToolUseID]++
		case "remove":
			out[n.ToolUseID]--
		default:
			out[n.ToolUseID] += 0
		}
	}
	return out
}

// Consumed reports whether the parent consumed a background agent's report:
// its task-notification was enqueued and removed again (balances from
// QueueBalances of the call's owner), so the parent saw how it ended. The
// resume gate's design makes an async subagent that failed but whose report
// was consumed no hit; its work is not outstanding, for the gate and for
// check alike.
func Consumed(balances map[string]int, toolUseID string) bool {
	b, ok := balances[toolUseID]
	return ok && toolUseID != "" && b <= 0
}
