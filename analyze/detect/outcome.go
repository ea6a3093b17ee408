package detect

import (
	"time"

	"github.com/pmcheck/pmcheck/analyze/interpret"
	"github.com/pmcheck/pmcheck/analyze/model"
)

// Subagent outcomes (SubagentFact.Outcome); package interpret decides them.
const (
	OutcomeCompleted       = interpret.OutcomeCompleted
	OutcomeTerminatedEarly = interpret.OutcomeTerminatedEarly
	OutcomeOpenAtEnd       = interpret.OutcomeOpenAtEnd
	OutcomeRejected        = interpret.OutcomeRejected
)

// subagentReasons lists the rows behind a subagent's outcome: the spawn, its
// tool result, its last notification and the output poll or row that
// decided it, as far as they exist.
func subagentReasons(sc *model.SubagentCall, end interpret.SubagentEnd) []model.Reason {
	out := []model.Reason{{What: "spawned (" + sc.Mode + ")", At: sc.At}}
	if sc.ResultAt != nil {
		what := "tool result"
		if s := sc.Result.Status(); s != "" {
			what += ", status " + s
		}
		if sc.Result != nil && sc.Result.StartsWithAPIErrorPrefix() {
			what += ", starts with the API-error prefix"
		}
		if sc.Result != nil && sc.Result.HasPartialNotice() {
			what += ", carries the partial-output notice"
		}
		out = append(out, model.Reason{What: what, At: *sc.ResultAt})
	}
	if n := sc.LastNotification; n != nil {
		what := "last notification, no status"
		if n.HasStatus {
			what = "last notification, status " + n.Status
		}
		out = append(out, model.Reason{What: what, At: n.At})
	}
	switch end.By {
	case "poll":
		out = append(out, model.Reason{What: "output poll says " + end.Outcome, At: end.At})
	case "none":
		out = append(out, model.Reason{What: "no tool result and no notification follow", At: end.At})
	case "permission_denials":
		out = append(out, model.Reason{What: "the runtime's result lists the call among its permission denials", At: end.At})
	}
	return out
}

// subagentEnd is when a subagent's end became visible: the row that decided
// its outcome or its kill, else the child transcript's last write.
func subagentEnd(sc *model.SubagentCall, known model.Evidence) time.Time {
	end := known.Time
	later := func(t time.Time) {
		if t.After(end) {
			end = t
		}
	}
	if sc.LastNotification != nil {
		later(sc.LastNotification.At.Time)
	} else if sc.ResultAt != nil {
		later(sc.ResultAt.Time)
	}
	// A background agent without a notification, or a call with no result,
	// ran at least until its transcript's last write.
	if sc.Child != nil && sc.LastNotification == nil && (sc.ResultAt == nil || sc.Mode == model.ModeAsync) {
		later(sc.Child.LastTime)
	}
	return end
}
