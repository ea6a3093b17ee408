package interpret

import (
	"strings"

	"github.com/pmcheck/pmcheck/analyze/model"
)

// Run endings (RunFact.Ending): how a run read from an Agent SDK message
// stream ended, as its result message says. Session files carry no such
// message, and their runs have none.
const (
	RunCompleted   = "completed"
	RunMaxTurns    = "max-turns"
	RunInterrupted = "interrupted"
	RunAPIError    = "api-error"
	RunFailed      = "failed"
	// RunNoResult: the stream ends without a result (the process died, the
	// job was cancelled before the runtime could say how it ended).
	RunNoResult = "no-result"
)

// RunEnd is how a run ended and the row that says so.
type RunEnd struct {
	Ending string
	// Detail quotes the result's subtype and terminal_reason (or says why
	// there is none).
	Detail string
	At     model.Evidence
}

// RunEnding decides how a stream's run ended from its result message:
// subtype, is_error and terminal_reason. main is the parent's transcript,
// whose interruptions tell an aborted execution from another error.
func RunEnding(rt *model.Runtime, main *model.Transcript) RunEnd {
	if rt == nil {
		return RunEnd{}
	}
	res := rt.Result
	if res == nil {
		end := RunEnd{Ending: RunNoResult, Detail: "the stream ends without a result message"}
		if main != nil && main.LastRowLine > 0 {
			end.At = model.Evidence{File: main.File, Line: main.LastRowLine, Time: main.LastTime}
		}
		return end
	}
	end := RunEnd{At: res.At, Detail: detail(res)}
	reason := strings.ToLower(res.TerminalReason)
	switch {
	case res.Subtype == "error_max_turns" || reason == "max_turns":
		end.Ending = RunMaxTurns
	case strings.Contains(reason, "abort") || strings.Contains(reason, "interrupt"):
		end.Ending = RunInterrupted
	case res.Subtype == "error_during_execution" && main != nil && len(main.Interrupts) > 0:
		// The user (or the SDK's abort) interrupted a turn, and the run
		// stopped there.
		end.Ending = RunInterrupted
	case reason == "api_error" || res.APIErrorStatus != "":
		end.Ending = RunAPIError
	case res.IsError || res.Subtype != "success" && res.Subtype != "":
		end.Ending = RunFailed
	default:
		end.Ending = RunCompleted
	}
	return end
}

func detail(res *model.RuntimeResult) string {
	var parts []string
	if res.Subtype != "" {
		parts = append(parts, "subtype "+res.Subtype)
	}
	if res.IsError {
		parts = append(parts, "is_error")
	}
	if res.TerminalReason != "" {
		parts = append(parts, "terminal_reason "+res.TerminalReason)
	}
	if res.APIErrorStatus != "" {
		parts = append(parts, "api_error_status "+res.APIErrorStatus)
	}
	if len(res.Errors) > 0 {
		parts = append(parts, "errors: "+res.Errors[0])
	}
	return strings.Join(parts, ", ")
}

// RefusedBySpawnLimit reports whether a call that never started was
// refused by one of the runtime's spawn limits (nesting depth, concurrent
// agents, budget), as its error result says: what subagent_stats counts
// under refused. A call refused for its input (an unknown agent type, a
// missing prompt) or declined at a permission prompt is not.
func RefusedBySpawnLimit(sc *model.SubagentCall) bool {
	r := sc.Result
	if r == nil || !r.IsError() || ran(sc) || sc.Denied != nil {
		return false
	}
	text := strings.ToLower(r.Text + " " + r.ResultString())
	for _, w := range []string{"depth", "nesting", "concurren", "budget", "too many agents", "limit"} {
		if strings.Contains(text, w) {
			return true
		}
	}
	return false
}

// Started reports whether a subagent ran, as the runtime's spawned count
// has it: its messages or an agent id say so, or a task_started row names
// its call (taskStarted).
func Started(sc *model.SubagentCall, taskStarted bool) bool { return ran(sc) || taskStarted }

// The counts of the runtime's subagent_stats a subagent that ran falls
// under (RuntimeTally).
const (
	TallyCompleted = "completed"
	TallyFailed    = "failed"
	TallyKilled    = "killed"
)

// RuntimeTally is how the runtime's subagent_stats counts a subagent that
// ran (started: a task_started row names its call; else its messages or an
// agent id say it ran), "" for one that never ran, given its outcome
// (SubagentOf's). The runtime counts by the Agent call's returned status:
// a subagent cut off by an API error whose partial output was recovered
// returns "completed" without is_error, and the runtime counts it
// completed (a real stream of CLI 2.1.278: completed 20, failed 1 for two
// such cuts); the fact's outcome stays terminated-early, only the tally
// follows the runtime's reading. Who killed a subagent is not in the
// messages: a kill is tallied as killed, the runtime's split by parent,
// user or system compared as a total.
func RuntimeTally(sc *model.SubagentCall, outcome string, started bool) string {
	if !Started(sc, started) {
		return ""
	}
	switch outcome {
	case OutcomeCompleted:
		return TallyCompleted
	case OutcomeTerminatedEarly:
		if sc.Result != nil && !sc.Result.IsError() && sc.Result.Status() == "completed" {
			return TallyCompleted
		}
		return TallyFailed
	case OutcomeFailed, OutcomeUnknown:
		return TallyFailed
	case OutcomeKilled, OutcomeStopped:
		return TallyKilled
	}
	return "" // open, rejected: ran, and counted as spawned only
}
