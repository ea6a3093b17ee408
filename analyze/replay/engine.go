package replay

import (
	"time"
)

// replayWorld runs the event-driven engine: it visits only the polls at which
// something can change (a journal line or a parent row becomes visible, a
// QUIET threshold or the rate limit runs out, the done grace expires, a
// pending event needs its next retry, the limit), so its cost grows with the
// number of rows and events, not with how long the run lasted. Every visited
// poll is evaluated exactly as watch evaluates it; the polls it skips are
// provably ones at which watch prints nothing and changes no state, which
// TestEnginesAgree checks against replayReference on every fixture and on
// random Worlds.
//
// sink, when not nil, takes each event as it is made, and the Outcome has
// none (the same for replayReference).
func replayWorld(w *World, opt Options, sink func(Event)) Outcome {
	found, ok := journalFound(w, opt)
	if !ok {
		return Outcome{Exit: ExitNoJournal, Stderr: NoJournalMessage}
	}
	s := newWatcher(w, opt)
	s.sink = sink
	limitAt := w.Start.Add(opt.maxDuration())
	now, polls := found, 0
	for {
		polls++
		if done, code := s.poll(now); done {
			return outcome(s, code, polls)
		}
		next := s.nextInstant(now, limitAt)
		now = nextPoll(now, next, opt.Interval, limitAt)
	}
}

// replayReference is the plain implementation kept for tests: it sleeps
// --interval between polls like watch does and evaluates every one.
func replayReference(w *World, opt Options, sink func(Event)) Outcome {
	if !w.HasJournal {
		return Outcome{Exit: ExitNoJournal, Stderr: NoJournalMessage}
	}
	// _wait_for_journal: check, then sleep min(interval, what is left of 60 s).
	now := w.Start
	for w.JournalAt.After(now) {
		remaining := journalWait - now.Sub(w.Start)
		if remaining <= 0 {
			return Outcome{Exit: ExitNoJournal, Stderr: NoJournalMessage}
		}
		now = now.Add(min(opt.Interval, remaining))
	}
	s := newWatcher(w, opt)
	s.sink = sink
	polls := 0
	for {
		polls++
		if done, code := s.poll(now); done {
			return outcome(s, code, polls)
		}
		remaining := opt.maxDuration() - now.Sub(w.Start)
		now = now.Add(min(opt.Interval, remaining))
	}
}

func outcome(s *watcher, code, polls int) Outcome {
	return Outcome{Events: s.out, Exit: code, Polls: polls, Verdict: s.verdict}
}

// journalFound is when _wait_for_journal first sees the journal: the first
// check instant (start + k·interval, and start + 60 s) at or after it exists.
func journalFound(w *World, opt Options) (time.Time, bool) {
	if !w.HasJournal {
		return time.Time{}, false
	}
	d := w.JournalAt.Sub(w.Start)
	if d <= 0 {
		return w.Start, true
	}
	if d > journalWait {
		return time.Time{}, false
	}
	k := (d + opt.Interval - 1) / opt.Interval
	t := time.Duration(k) * opt.Interval
	if t > journalWait {
		t = journalWait
	}
	return w.Start.Add(t), true
}

// nextPoll is the first poll at or after instant c, on watch's grid from the
// current poll: now + k·interval, the last one capped at the limit.
func nextPoll(now, c time.Time, interval time.Duration, limitAt time.Time) time.Time {
	d := c.Sub(now)
	k := time.Duration(1)
	if d > interval {
		k = (d + interval - 1) / interval
	}
	t := now.Add(k * interval)
	if !t.Before(limitAt) {
		return limitAt
	}
	return t
}

// nextInstant is the earliest instant after now at which the next poll could
// print something or change the watcher's state.
func (s *watcher) nextInstant(now, limitAt time.Time) time.Time {
	best := limitAt
	consider := func(t time.Time) {
		if t.After(now) && t.Before(best) {
			best = t
		}
	}
	if len(s.pendKill)+len(s.pendFail)+len(s.pendOK) > 0 {
		return now.Add(1) // retries count polls: visit the very next one
	}
	if s.consumed < len(s.w.Lines) {
		consider(s.w.Lines[s.consumed].At)
	}
	for _, t := range s.w.Terminals {
		if t.At.After(now) {
			consider(t.At)
			break
		}
	}
	for _, at := range s.w.Launches {
		consider(at)
	}
	if s.resolvedAt != nil {
		consider(s.resolvedAt.Add(s.opt.DoneGrace))
	}
	for _, o := range s.lastOpen() {
		if t, ok := s.quietCandidate(o, now); ok {
			consider(t)
		}
	}
	return best
}

// quietCandidate is the earliest instant after now at which occurrence o
// could print QUIET: its transcript exists, has been silent for its
// threshold, and the key's rate limit has run out.
func (s *watcher) quietCandidate(o *occ, now time.Time) (time.Time, bool) {
	if o.agentID == "" {
		return time.Time{}, false
	}
	a := s.w.Agents[o.agentID]
	if a == nil || !a.File.Timed() {
		return time.Time{}, false
	}
	lower := now.Add(1)
	if last, ok := s.lastPrint[o.key]; ok && last.Add(rateLimit).After(lower) {
		lower = last.Add(rateLimit)
	}
	if first := a.File.First(); first.After(lower) {
		lower = first
	}
	thr := s.threshold(o)
	m, _ := a.File.MtimeAt(lower)
	for {
		t := m.Add(thr)
		if lower.After(t) {
			t = lower
		}
		w, ok := a.File.NextWriteAfter(m)
		if !ok || w.After(t) {
			return t, true
		}
		m = w
	}
}
