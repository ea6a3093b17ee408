package replay

import (
	"time"

	"github.com/pmcheck/pmcheck/analyze/clock"
	"github.com/pmcheck/pmcheck/analyze/model"
)

// Live is watch on a real clock: the watcher that replays a finished run,
// advanced one poll at a time over a World extended with what the run's files
// hold at each poll. Nothing is inferred about the future:
//
//   - a journal line's time is the poll that first saw it complete (an
//     unterminated last line is withheld until its newline arrives);
//   - a transcript is read as it stands, so the last user row, the silence
//     before it, the work ledger and the failure cause are those of the rows
//     written so far, and QUIET measures from the last row's timestamp;
//   - the parent's launch and lifecycle evidence are those written so far.
//
// On a run that was recorded, written into files at the times replay
// assigns to its rows, Live prints what Replay prints for the finished files.
type Live struct {
	w       *World
	s       *watcher
	ledgers func(*model.Run, []string) LedgerFunc
	seen    int // complete journal lines appended to w.Lines in this epoch
	printed int // events of s.out already returned
	done    bool
}

// NewLive starts a watch at instant start (the journal was found then).
// ledgers gives a killed attempt's work for the run as each Update gives
// it, with the default deploy labels (nil: nothing counted).
func NewLive(start time.Time, opt Options, ledgers func(*model.Run, []string) LedgerFunc) *Live {
	w := &World{RunID: "unknown-run", Start: start, HasJournal: true, JournalAt: start, Agents: map[string]*Agent{}}
	return &Live{w: w, s: newWatcher(w, opt), ledgers: ledgers}
}

// Update replaces what the watch sees with run, the Workflow run as its files
// stand now, at poll instant now. truncated says the journal was found
// smaller than at the previous read (truncated or replaced): the watch prints
// RESET and starts a new epoch.
func (l *Live) Update(now time.Time, run *model.Run, truncated bool) {
	w := l.w
	w.RunID = runIDOf(run.ID)
	// The aliases the run defines so far, as the detectors would read the
	// files as they stand.
	ledger := noLedger
	if l.ledgers != nil {
		ledger = l.ledgers(run, nil)
	}
	agents := make(map[string]*Agent, len(w.Agents))
	for id, t := range clock.AgentTranscripts(run) {
		agents[id] = agentOf(id, t, w.Start, ledger)
	}
	w.Agents = agents
	if truncated {
		w.Lines = append(w.Lines, journalLine{At: now, Kind: LineTruncate})
		l.seen = 0
	}
	if j := run.Journal; j != nil {
		lines := journalLines(j, make([]time.Time, len(j.Lines)), w.Start)
		n := len(lines)
		for n > 0 && lines[n-1].Kind == LineTorn {
			n-- // not written completely yet
		}
		for _, jl := range lines[min(l.seen, n):n] {
			jl.At = now
			w.Lines = append(w.Lines, jl)
		}
		l.seen = max(l.seen, n)
	}
	w.Launches, w.Terminals = nil, nil
	if la := run.Launch; la != nil {
		at := la.At.Time
		if at.IsZero() {
			at = w.Start
		}
		w.Launches = []time.Time{at.UTC()}
		w.Terminals = launchTerminals(la, 1)
	}
}

// Poll is one iteration of watch's loop at now, over what the last Update
// gave. It returns the lines printed at this poll, and whether the watch
// ended with its exit code.
func (l *Live) Poll(now time.Time) ([]Event, bool, int) {
	if l.done {
		return nil, true, 0
	}
	done, code := l.s.poll(now)
	events := l.s.out[l.printed:]
	l.printed = len(l.s.out)
	l.done = done
	return events, done, code
}

// Remaining is what is left of --max-hours at now, counted from the start:
// the loop sleeps at most this long, so a long --interval cannot overshoot
// the limit.
func (l *Live) Remaining(now time.Time) time.Duration {
	return l.s.opt.maxDuration() - now.Sub(l.w.Start)
}

// LiveWatchdogs are the ProgressWatch, executor-harness and Workflow-runtime
// replays run beside a live watch: each event is returned once, at the first
// poll at which the clock has reached its time and the files as they stand
// show it. What an event says is what was known then (a prediction's
// observed outcome is the attempt's outcome at that poll, "open" while it
// runs). An event is one the finished files show too — each stream ends at
// its last row so far, an attempt still open ends there rather than at the
// run's end, and no mismatch (a verdict on the finished run) is judged —
// so the live events are among replay's, with the same time, source, kind,
// agent and message. Events timed before the watch started are not live:
// they happened before anyone watched, and the section printed when the
// watch ends lists them with the rest (docs/watch.md).
type LiveWatchdogs struct {
	start   time.Time
	opt     WatchdogOptions
	pending []WatchdogEvent // computed at the last change, not yet returned
	shown   map[watchdogKey]bool
	memo    liveMemo
}

type watchdogKey struct {
	at                  time.Time
	source, kind, agent string
	key                 string
	attempt             int
}

// NewLiveWatchdogs starts the watchdogs of a watch started at start (the
// ProgressWatch grid's origin, as replay's).
func NewLiveWatchdogs(start time.Time, opt WatchdogOptions) *LiveWatchdogs {
	if opt == (WatchdogOptions{}) {
		opt = DefaultWatchdogOptions()
	}
	return &LiveWatchdogs{start: start, opt: opt, shown: map[watchdogKey]bool{}, memo: liveMemo{}}
}

// Poll returns, in replay's order, the events that fire at now. run is the
// run as its files stand, and changed says it differs from the previous
// poll's (only then are the watchdogs read further: each attempt's from
// where the previous change left it, see liveAttempt).
func (l *LiveWatchdogs) Poll(now time.Time, run *model.Run, changed bool) []WatchdogEvent {
	if changed && run != nil {
		l.pending = l.pending[:0]
		for _, e := range attemptWatchdogsMemo(run, l.start, l.start, l.opt, true, l.memo) {
			k := watchdogKey{e.At, e.Source, e.Kind, e.Agent, e.Key, e.Attempt}
			if !l.shown[k] && !e.At.Before(l.start) {
				l.pending = append(l.pending, e)
			}
		}
		sortEvents(l.pending)
	}
	var out []WatchdogEvent
	rest := l.pending[:0]
	for _, e := range l.pending {
		if e.At.After(now) {
			rest = append(rest, e)
			continue
		}
		l.shown[watchdogKey{e.At, e.Source, e.Kind, e.Agent, e.Key, e.Attempt}] = true
		out = append(out, e)
	}
	l.pending = rest
	return out
}

// liveAttempt is one attempt's three watchdogs over its transcript as a
// previous poll read it: where each stopped, and what they were computed
// from. When the transcript has only grown since (the same stream, its
// write-time steps and completions those read then with more appended,
// the same observed outcome), each goes on from where it stopped to the
// new last row, and what depends on the end (the harness's max duration,
// its first kill and the cold start checked against it, the runtime's stall
// after the last row until the window's end) is decided anew: the events
// are those of a replay of the attempt from its first row
// (TestLiveWatchdogsResumeIsAReplay). Any other change starts them again
// from the first row.
type liveAttempt struct {
	stream      agentStream // File and Completions aside: the events' fields
	origin      time.Time
	o           WatchdogOptions
	observed    string
	steps, done model.Staircase // as read: the transcript's Steps and Completions then
	progress    progressLoop
	harness     harnessScan
	stall       stallScan
}

// attemptEvents is attemptEvents, live, through the memo.
func (m liveMemo) attemptEvents(events []WatchdogEvent, a *model.Attempt, s agentStream, origin, until time.Time, o WatchdogOptions, observed string) []WatchdogEvent {
	h := handle{a.Key, a.Ordinal}
	t := a.Transcript
	if t == nil || !s.File.Timed() {
		delete(m, h)
		return attemptEvents(events, a, s, origin, until, o, true, observed)
	}
	st := m[h]
	if st == nil || !st.grownInto(t, s, origin, o, observed) {
		st = &liveAttempt{stream: s, origin: origin, o: o, observed: observed,
			progress: newProgressLoop(s, origin, o), harness: newHarnessScan(s)}
		st.stream.File, st.stream.Completions = clock.File{}, nil
		m[h] = st
	}
	st.steps, st.done = t.Steps, t.Completions
	st.progress.run(s, origin, o)
	st.harness.run(s, o)
	st.stall.run(s, o)
	events = append(events, st.progress.out...)
	from := len(events)
	events = st.harness.appendEvents(events, s, o)
	for i := from; i < len(events); i++ {
		if events[i].Predicted != "" {
			events[i].Observed = observed
		}
	}
	return appendStall(events, a, st.stall.predicted(s, until, o), observed, o)
}

// grownInto reports whether t, read as stream s, is the transcript st was
// computed from with rows appended, everything else the same.
func (st *liveAttempt) grownInto(t *model.Transcript, s agentStream, origin time.Time, o WatchdogOptions, observed string) bool {
	id := s
	id.File, id.Completions = clock.File{}, nil
	return id == st.stream && origin == st.origin && o == st.o && observed == st.observed &&
		t.Steps.Extends(&st.steps) && t.Completions.Extends(&st.done)
}
