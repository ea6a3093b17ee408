package detect

import (
	"strings"

	"github.com/pmcheck/pmcheck/analyze/harness"
	"github.com/pmcheck/pmcheck/analyze/model"
)

// Ending causes: how a transcript's last row says the agent stopped. These are
// pmcheck's choice for the failure markers watch keeps in a module that is not
// public (docs/detectors.md lists them).
const (
	CauseInterrupted  = "interrupted before finishing"
	CauseUsageLimit   = "usage limit reached"
	CauseAPIError     = "API error"
	CauseNotRecorded  = "cause not recorded"
	CauseNoTranscript = "no transcript"
)

// usageLimitMarkers are the usage-limit texts the runtime writes
// (research/transcript-format.md §10), matched case-insensitively.
var usageLimitMarkers = []string{
	"usage limit reached",
	"limit reached ∙ resets",
	"limit reached · resets",
	"you've hit your",
	"you’ve hit your",
	"you've reached your",
	"you’ve reached your",
}

// Ending classifies the end of a transcript: "" when it ends normally,
// otherwise one of CauseInterrupted, CauseUsageLimit or CauseAPIError, with
// the text of the row that says so.
func Ending(t *model.Transcript) (cause, detail string) {
	if t == nil || t.Tail.LastEvent == nil {
		return "", ""
	}
	ev := t.Tail.LastEvent
	text := strings.TrimSpace(ev.Text)
	switch {
	case ev.Role == "user" && strings.HasPrefix(text, harness.KillSentinelPrefix):
		return CauseInterrupted, firstLine(text)
	case ev.Role == "assistant" && isUsageLimit(text):
		return CauseUsageLimit, firstLine(text)
	case ev.Role == "assistant" && ev.APIError != "":
		return CauseAPIError, firstLine(text)
	}
	return "", ""
}

func isUsageLimit(text string) bool {
	low := strings.ToLower(text)
	for _, m := range usageLimitMarkers {
		if strings.Contains(low, strings.ToLower(m)) {
			return true
		}
	}
	return false
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		s = s[:200]
	}
	return s
}

// Subagent outcomes (SubagentFact.Outcome).
const (
	OutcomeCompleted       = "completed"
	OutcomeKilled          = "killed"
	OutcomeFailed          = "failed"
	OutcomeStopped         = "stopped"
	OutcomeNeverReturned   = "launched-never-returned"
	OutcomeTerminatedEarly = "terminated-early"
	// OutcomeUnknown: a notification arrived without a readable status; it
	// counts as terminated early (fail toward reporting).
	OutcomeUnknown = "unknown"
)

// rejectedPrefix begins the tool result of a call the user interrupted.
const rejectedPrefix = "The user doesn't want to"

// subagentOutcome decides how one Agent/Task call ended, from the most
// authoritative evidence: the last notification for background agents, the
// tool result for foreground ones. The Evidence is the row that decided it.
func subagentOutcome(sc *model.SubagentCall) (string, model.Evidence) {
	if n := sc.LastNotification; n != nil {
		switch {
		case !n.HasStatus:
			return OutcomeUnknown, n.At
		case n.Status == "completed":
			return OutcomeCompleted, n.At
		case n.Status == "killed" || n.Status == "stopped" || n.Status == "failed":
			return n.Status, n.At
		default:
			return OutcomeFailed, n.At
		}
	}
	r := sc.Result
	if r == nil {
		return OutcomeNeverReturned, sc.At
	}
	if sc.Mode == model.ModeAsync || r.IsAsync || r.Status() == "async_launched" {
		return OutcomeNeverReturned, r.At
	}
	switch {
	case r.StartsWithAPIErrorPrefix:
		return OutcomeTerminatedEarly, r.At
	case r.IsError && (r.Interrupted || strings.HasPrefix(strings.TrimSpace(r.Text), rejectedPrefix) || strings.HasPrefix(strings.TrimSpace(r.ResultString()), rejectedPrefix)):
		return OutcomeStopped, r.At
	case r.IsError:
		return OutcomeFailed, r.At
	}
	return OutcomeCompleted, r.At
}

// terminatedEarly reports whether an outcome means the subagent's work was
// cut off. A background agent still running when the session ended is not:
// that is the normal case the bare-imbalance rule could not tell apart.
func terminatedEarly(outcome, mode string) bool {
	switch outcome {
	case OutcomeKilled, OutcomeFailed, OutcomeStopped, OutcomeTerminatedEarly, OutcomeUnknown:
		return true
	case OutcomeNeverReturned:
		// A foreground call with no result: the parent process died mid-call.
		return mode == model.ModeSync
	}
	return false
}
