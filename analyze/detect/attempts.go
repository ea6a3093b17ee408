package detect

import (
	"math"
	"strings"

	"github.com/pmcheck/pmcheck/analyze/harness"
	"github.com/pmcheck/pmcheck/analyze/model"
)

// OutcomeOrphan marks an AttemptFact built from an orphan journal line: a
// result or failed line that closed no open attempt.
const OutcomeOrphan = "orphan-result"

// attemptFacts derives one fact per Workflow attempt, then one per orphan line.
func (a *analysis) attemptFacts() {
	run := a.run
	last := map[string]int{} // key -> ordinal of its last attempt
	for _, at := range run.Attempts {
		if at.Ordinal > last[at.Key] {
			last[at.Key] = at.Ordinal
		}
	}
	for _, at := range run.Attempts {
		f := model.AttemptFact{
			RunID: run.ID, Key: at.Key, AgentID: at.AgentID, Agent: agentName(at),
			Ordinal: at.Ordinal, SupersededBy: at.SupersededBy, SilenceSeconds: -1,
			Time: at.Started.Time, At: at.Started,
		}
		t := at.Transcript
		cause, detail := Ending(t)
		switch at.ClosedBy {
		case "completed":
			f.Outcome = model.OutcomeCompleted
			f.FalseDone = cause != ""
			if f.FalseDone {
				f.FailureCause = cause
			}
		case "failed":
			f.Outcome = model.OutcomeFailed
			f.FailureCause = failureCause(t, cause, detail)
		default:
			f.Outcome = model.OutcomeOpen
			if at.SupersededBy > 0 && endsInSentinel(t) {
				// KILL: the runtime restarted the key and this attempt's last
				// user row is the kill sentinel.
				f.Outcome = model.OutcomeKilled
				f.SilenceSeconds = killSilence(t)
			}
			f.NeverReturned = at.Ordinal == last[at.Key]
		}
		if at.Closed != nil && f.Outcome != model.OutcomeOpen && f.Outcome != model.OutcomeKilled {
			f.At = *at.Closed
		}
		l := ledgerOf(t, a.classify)
		f.Paths, f.PathsPartial, f.Commits = l.Paths, l.Partial, l.Commits
		f.CommitsReported, f.CommitsUnknown = len(l.Commits), l.CommitsUnknown
		// Every attempt that did not return cleanly left work nobody accepted:
		// killed, failed, superseded without a sentinel, never returned, false done.
		if f.Outcome != model.OutcomeCompleted || f.FalseDone {
			item := &killedItem{
				kind: "attempt", id: at.AgentID, name: f.Agent, key: at.Key, ledger: l,
				known: attemptKnownAt(at, t),
			}
			a.killed = append(a.killed, item)
			a.attemptItems = append(a.attemptItems, item)
		} else {
			a.attemptItems = append(a.attemptItems, nil)
		}
		a.facts.Attempts = append(a.facts.Attempts, f)
	}
	for _, o := range run.Orphans {
		a.facts.Attempts = append(a.facts.Attempts, model.AttemptFact{
			RunID: run.ID, Key: o.Key, AgentID: o.AgentID, Agent: o.AgentID, Outcome: OutcomeOrphan,
			SilenceSeconds: -1, Paths: []string{}, Commits: []string{}, Time: o.At.Time, At: o.At,
			FailureCause: "journal " + o.Type + " line matches no open attempt",
		})
		a.attemptItems = append(a.attemptItems, nil)
	}
}

// agentName is how reports name an attempt's agent.
func agentName(at *model.Attempt) string {
	if at.AgentID != "" {
		return at.AgentID
	}
	k := strings.TrimPrefix(at.Key, "v2:")
	if len(k) > 12 {
		k = k[:12]
	}
	return "key " + k
}

// attemptKnownAt is when the attempt's end became visible: the sentinel or
// last row of its transcript, else its journal start.
func attemptKnownAt(at *model.Attempt, t *model.Transcript) model.Evidence {
	if at.Closed != nil {
		return *at.Closed
	}
	if t != nil && t.Tail.LastEvent != nil {
		return model.Evidence{File: t.File, Line: t.Tail.LastEvent.Line, Time: t.Tail.LastEvent.WriteTime}
	}
	return at.Started
}

// endsInSentinel: the last user row begins with the kill sentinel.
func endsInSentinel(t *model.Transcript) bool {
	return t != nil && t.Tail.LastUser != nil && strings.HasPrefix(strings.TrimSpace(t.Tail.LastUser.Text), harness.KillSentinelPrefix)
}

// killSilence runs from the last meaningful row before the sentinel to the
// sentinel (row timestamps), rounded half to even like Python's round; -1
// when a timestamp is missing or the difference is negative.
func killSilence(t *model.Transcript) float64 {
	from, to := t.Tail.MeaningfulBeforeLastUser, t.Tail.LastUser
	if from == nil || to == nil || from.Timestamp.IsZero() || to.Timestamp.IsZero() {
		return -1
	}
	d := to.Timestamp.Sub(from.Timestamp).Seconds()
	if d < 0 {
		return -1
	}
	return math.RoundToEven(d)
}

// failureCause phrases why a failed attempt failed, from its transcript's end.
func failureCause(t *model.Transcript, cause, detail string) string {
	switch {
	case t == nil:
		return CauseNotRecorded
	case cause == "":
		return CauseNotRecorded
	case cause == CauseInterrupted:
		return cause
	case detail != "":
		return cause + ": " + detail
	}
	return cause
}
