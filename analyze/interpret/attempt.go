package interpret

import (
	"math"
	"time"

	"github.com/pmcheck/pmcheck/analyze/model"
)

// Attempt is the whole reading of how one Workflow attempt ended: its
// outcome (AttemptOutcome), a false done and its cause, why it failed, the
// silence before its kill, whether it never returned, the rows that decided
// it, and when its end became visible. Check's attempt facts read it here;
// replay's watcher makes the same decisions from what it has seen at each
// poll (AttemptKilled, KillSilence, EndingOf).
type Attempt struct {
	Outcome string
	// FalseDone: a journal result line closed it, but its transcript ends in
	// a failure.
	FalseDone bool
	// FailureCause phrases why it failed (a failed outcome, a false done).
	FailureCause string
	// SilenceSeconds is KillSilence rounded half to even (as Python rounds)
	// for a killed attempt, else -1.
	SilenceSeconds float64
	// NeverReturned: no journal line closed the agent's last attempt.
	NeverReturned bool
	// At is the row the attempt's fact cites: the line that closed it, else
	// its journal start (a killed or open attempt).
	At model.Evidence
	// Known is when its end became visible in the files (AttemptKnownAt).
	Known model.Evidence
	// Start and End bound it on the simulated clock: its journal start and
	// Known, else its transcript's first and last writes.
	Start, End time.Time
	// AtRisk: its work was left unaccepted (any outcome but completed, or a
	// false done).
	AtRisk bool
	// ending is how its transcript ends (EndingOf), for AppendReasons.
	ending Ending
}

// AppendReasons appends the rows that decided the outcome of at (at most
// four), r being its reading: its journal start, the line that closed it,
// and its transcript's last rows when they decide a kill or a false done.
// A caller that keeps many attempts appends them to a buffer of four of its
// own (a journal of 200,000 attempts made as many small lists).
func (r *Attempt) AppendReasons(out []model.Reason, at *model.Attempt) []model.Reason {
	return attemptReasons(out, at, at.Transcript, r.Outcome, r.ending)
}

// ReadAttempt reads how at ended.
func ReadAttempt(at *model.Attempt) Attempt {
	t := at.Transcript
	end := EndingOf(t)
	r := Attempt{Outcome: AttemptOutcome(at), SilenceSeconds: -1, At: at.Started, Start: at.Started.Time, ending: end}
	switch r.Outcome {
	case model.OutcomeCompleted:
		r.FalseDone = end.Failed()
		if r.FalseDone {
			r.FailureCause = end.Phrase()
		}
	case model.OutcomeFailed:
		r.FailureCause = failureCause(t, end)
	case model.OutcomeKilled:
		r.SilenceSeconds = killSilence(t)
	}
	r.NeverReturned = at.ClosedBy == "" && at.Last()
	if at.Closed != nil && r.Outcome != model.OutcomeOpen && r.Outcome != model.OutcomeKilled {
		r.At = *at.Closed
	}
	r.Known = AttemptKnownAt(at)
	r.End = r.Known.Time
	if t != nil {
		// A journal without timestamps: the transcript's writes bound the
		// attempt on the simulated clock.
		if r.Start.IsZero() {
			r.Start = t.FirstTime
		}
		if r.End.IsZero() {
			r.End = t.LastTime
		}
	}
	r.AtRisk = r.Outcome != model.OutcomeCompleted || r.FalseDone
	return r
}

// AttemptKnownAt is when an attempt's end became visible: the journal line
// that closed it, else the last row of its transcript, else its journal
// start.
func AttemptKnownAt(at *model.Attempt) model.Evidence {
	if at.Closed != nil {
		return *at.Closed
	}
	if t := at.Transcript; t != nil && t.Tail.LastEvent != nil {
		return model.Evidence{File: t.File, Line: t.Tail.LastEvent.Line, Time: t.Tail.LastEvent.WriteTime}
	}
	return at.Started
}

// killSilence runs from the last meaningful row before the sentinel to the
// sentinel (row timestamps), rounded half to even like Python's round; -1
// when a timestamp is missing or the difference is negative.
func killSilence(t *model.Transcript) float64 {
	d, ok := KillSilence(t)
	if !ok {
		return -1
	}
	return math.RoundToEven(d)
}

// failureCause phrases why a failed attempt failed, from its transcript's end.
func failureCause(t *model.Transcript, end Ending) string {
	switch {
	case t == nil || !end.Failed():
		return PhraseNotRecorded
	case end.Marker == MarkerKillSentinel || end.Detail == "":
		return end.Phrase()
	}
	return end.Phrase() + ": " + end.Detail
}

// attemptReasons lists the rows that decided an attempt's outcome: its
// journal start, the line that closed it, and its transcript's last rows
// when they decide a kill or a false done.
//
// out is where they are appended (at most four).
func attemptReasons(out []model.Reason, at *model.Attempt, t *model.Transcript, outcome string, end Ending) []model.Reason {
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
