package detect

import (
	"math"
	"strings"

	"github.com/pmcheck/pmcheck/analyze/interpret"
	"github.com/pmcheck/pmcheck/analyze/model"
)

// OutcomeOrphan marks an AttemptFact built from an orphan journal line: a
// result or failed line that closed no open attempt.
const OutcomeOrphan = "orphan-result"

// attemptFacts is the attempts step: one fact per Workflow attempt, then one
// per orphan line.
func attemptFacts(a *pass) {
	run := a.run
	// One fact per attempt and orphan, written in place into a slice sized
	// once; items and reasons come from slabs (a journal of 200,000 attempts
	// made as many small allocations of each).
	n := len(run.Attempts) + len(run.Orphans)
	res := &attemptResult{facts: make([]model.AttemptFact, n), items: make([]*killedItem, n)}
	var items slab[killedItem]
	var reasons slab[model.Reason]
	var ledgers slab[Ledger]
	for i, at := range run.Attempts {
		f := &res.facts[i]
		*f = model.AttemptFact{
			RunID: run.ID, Key: at.Key, AgentID: at.AgentID, Agent: agentName(at),
			Ordinal: at.Ordinal, SupersededBy: at.SupersededBy, SilenceSeconds: -1,
			Time: at.Started.Time, At: at.Started,
		}
		t := at.Transcript
		end := interpret.EndingOf(t)
		f.Outcome = interpret.AttemptOutcome(at)
		switch f.Outcome {
		case model.OutcomeCompleted:
			f.FalseDone = end.Failed()
			if f.FalseDone {
				f.FailureCause = end.Phrase()
			}
		case model.OutcomeFailed:
			f.FailureCause = failureCause(t, end)
		case model.OutcomeKilled:
			f.SilenceSeconds = killSilence(t)
		}
		if at.ClosedBy == "" {
			f.NeverReturned = at.Last()
		}
		if at.Closed != nil && f.Outcome != model.OutcomeOpen && f.Outcome != model.OutcomeKilled {
			f.At = *at.Closed
		}
		var buf [4]model.Reason
		f.Reasons = reasons.copy(attemptReasons(buf[:0], at, t, f.Outcome, end))
		f.End = attemptKnownAt(at, t).Time
		if t != nil {
			// A journal without timestamps: the transcript's writes bound
			// the attempt on the simulated clock.
			if f.Time.IsZero() {
				f.Time = t.FirstTime
			}
			if f.End.IsZero() {
				f.End = t.LastTime
			}
		}
		l := ledgerOf(t, a.classify)
		f.Paths, f.PathsPartial, f.Commits = l.Paths, l.Partial, l.Commits
		f.CommitsReported, f.CommitsUnknown = len(l.Commits), l.CommitsUnknown
		// Every attempt that did not return cleanly left work nobody accepted:
		// killed, failed, superseded without a sentinel, never returned, false done.
		if f.Outcome != model.OutcomeCompleted || f.FalseDone {
			k := items.new()
			*k = killedItem{
				kind: "attempt", id: at.AgentID, name: f.Agent, key: at.Key, ledger: &noWork,
				known: attemptKnownAt(at, t),
			}
			if t != nil {
				k.ledger = ledgers.new()
				*k.ledger = l
			}
			res.items[i] = k
		}
	}
	for i, o := range run.Orphans {
		res.facts[len(run.Attempts)+i] = model.AttemptFact{
			RunID: run.ID, Key: o.Key, AgentID: o.AgentID, Agent: o.AgentID, Outcome: OutcomeOrphan,
			SilenceSeconds: -1, Paths: []string{}, Commits: []string{}, Time: o.At.Time, At: o.At,
			Reasons:      reasons.copy([]model.Reason{{What: "journal " + o.Type + " line with no open attempt", At: o.At}}),
			FailureCause: "journal " + o.Type + " line matches no open attempt",
		}
	}
	a.res.attempts = res
}

// noWork is the ledger of an attempt without a transcript, which wrote
// nothing anyone can see (ledgerOf(nil)); its items share it.
var noWork = Ledger{Paths: []string{}, Commits: []string{}}

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

// killSilence runs from the last meaningful row before the sentinel to the
// sentinel (row timestamps), rounded half to even like Python's round; -1
// when a timestamp is missing or the difference is negative.
func killSilence(t *model.Transcript) float64 {
	d, ok := interpret.KillSilence(t)
	if !ok {
		return -1
	}
	return math.RoundToEven(d)
}

// failureCause phrases why a failed attempt failed, from its transcript's end.
func failureCause(t *model.Transcript, end interpret.Ending) string {
	switch {
	case t == nil || !end.Failed():
		return interpret.PhraseNotRecorded
	case end.Marker == interpret.MarkerKillSentinel || end.Detail == "":
		return end.Phrase()
	}
	return end.Phrase() + ": " + end.Detail
}

// attemptReasons lists the rows that decided an attempt's outcome: its
// journal start, the line that closed it, and its transcript's last rows
// when they decide a kill or a false done.
//
// out is where they are appended (at most four).
func attemptReasons(out []model.Reason, at *model.Attempt, t *model.Transcript, outcome string, end interpret.Ending) []model.Reason {
	out = append(out, model.Reason{What: "journal started", At: at.Started})
	if at.Closed != nil {
		out = append(out, model.Reason{What: "journal " + at.ClosedBy, At: *at.Closed})
	}
	if t != nil && outcome == model.OutcomeKilled {
		if m := t.Tail.MeaningfulBeforeLastUser; m != nil {
			out = append(out, model.Reason{What: "last meaningful row before the kill", At: model.Evidence{File: t.File, Line: m.Line, Time: m.WriteTime}})
		}
		if u := t.Tail.LastUser; u != nil {
			out = append(out, model.Reason{What: "kill sentinel", At: model.Evidence{File: t.File, Line: u.Line, Time: u.WriteTime}})
		}
	} else if end.Failed() {
		out = append(out, model.Reason{What: "transcript ends: " + end.Phrase(), At: end.At})
	}
	return out
}
