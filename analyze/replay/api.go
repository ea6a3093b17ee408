package replay

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/pmcheck/pmcheck/analyze/clock"
	"github.com/pmcheck/pmcheck/analyze/discover"
	"github.com/pmcheck/pmcheck/analyze/interpret"
	"github.com/pmcheck/pmcheck/analyze/model"
)

// Config gathers every setting of a replay; the zero Config means watch's
// and the watchdogs' defaults.
type Config struct {
	Watch     Options
	Watchdogs WatchdogOptions
	// Start overrides the watch start (--start) when non-zero.
	Start time.Time
	// DeployLabels are the labels a killed attempt's shell commands are
	// classified with for its ledger (nil: the defaults); the façade's
	// Ledgers read them. They cannot change a ledger, only whether the
	// reader's classification is reused; analyze.Facts sets the detectors'
	// own.
	DeployLabels []string
	// Ledger computes a killed attempt's work; when nil, Ledgers gives it
	// for the run, and with neither every ledger is empty.
	Ledger LedgerFunc
	// Ledgers gives the ledger function of a run: the detectors' work
	// ledger, which the analyze façade supplies (replay decides timing
	// only, never what a command wrote).
	Ledgers func(run *model.Run, deployLabels []string) LedgerFunc
	// Reference selects the poll-every-interval engine (tests only).
	Reference bool
	// FactsOnly turns each watch event into its fact as it is made and keeps
	// no events (Outcome.Events is empty), nor the journal lines' times
	// (Times): what check keeps of a replay.
	FactsOnly bool
}

func (c Config) withDefaults() Config {
	if c.Watch == (Options{}) {
		c.Watch = DefaultOptions()
	}
	if c.Watchdogs == (WatchdogOptions{}) {
		c.Watchdogs = DefaultWatchdogOptions()
	}
	return c
}

// Report is the replay of one Workflow run.
type Report struct {
	World   *World           `json:"-"`
	Start   clock.Start      `json:"start"`
	Times   []clock.LineTime `json:"journal_times"`
	Outcome Outcome          `json:"outcome"`
	// Watchdogs are the other watchdogs' events, by time.
	Watchdogs []WatchdogEvent `json:"watchdogs"`
	// Facts are the watch events and the watchdog events as rule facts.
	Facts []model.WatchdogFact `json:"facts"`
}

// Workflow replays a loaded Workflow run. A run whose journal is missing gives
// watch's exit 2 and its message in Outcome.Stderr.
func Workflow(run *model.Run, cfg Config) *Report {
	cfg = cfg.withDefaults()
	ledger := cfg.Ledger
	switch {
	case ledger == nil && cfg.Ledgers != nil:
		ledger = cfg.Ledgers(run, cfg.DeployLabels)
	case ledger == nil:
		ledger = noLedger
	}
	w, start := buildWorld(run, buildOptions{Start: cfg.Start, Ledger: ledger})
	rep := &Report{World: w, Start: start}
	if !cfg.FactsOnly {
		rep.Times = clock.JournalTimes(run, start.At)
	}
	var sink func(Event)
	if cfg.FactsOnly {
		rep.Facts = make([]model.WatchdogFact, 0, watchEventsHint(run))
		sink = func(e Event) { rep.Facts = appendDoubling(rep.Facts, watchFact(run.ID, &e, w)) }
	}
	if cfg.Reference {
		rep.Outcome = replayReference(w, cfg.Watch, sink)
	} else {
		rep.Outcome = replayWorld(w, cfg.Watch, sink)
	}
	rep.Watchdogs = workflowWatchdogs(run, w, cfg.Watchdogs)
	// Sized once: a replay of 200,000 KILL lines grew its facts a quarter at
	// a time.
	if n := len(rep.Facts) + len(rep.Outcome.Events) + len(rep.Watchdogs); n > 0 {
		rep.Facts = slices.Grow(rep.Facts, n-len(rep.Facts))
	}
	for i := range rep.Outcome.Events {
		rep.Facts = append(rep.Facts, watchFact(run.ID, &rep.Outcome.Events[i], w))
	}
	for _, e := range rep.Watchdogs {
		rep.Facts = append(rep.Facts, factOf(run.ID, e))
	}
	return rep
}

// watchEventsHint is about how many events watch prints for run, QUIETs
// aside: a KILL for each superseded attempt, a FAILED or OK for each closed
// one, and a few for the run. The facts are made in a list of that size
// (doubling a list of 200,000 KILL facts as they came was a tenth of check's
// time).
func watchEventsHint(run *model.Run) int {
	n := 4
	for _, a := range run.Attempts {
		if !a.Last() {
			n++
		}
		if a.ClosedBy != "" {
			n++
		}
	}
	return n
}

// appendDoubling appends v to s, doubling a full s rather than growing it by
// a quarter as append grows a long slice (200,000 KILL facts were copied over
// and over).
func appendDoubling[T any](s []T, v T) []T {
	if len(s) == cap(s) {
		s = slices.Grow(s, max(len(s), 16))
	}
	return append(s, v)
}

// Session returns the ProgressWatch and executor-harness facts of every
// subagent of a session whose transcript was found, ticking from the main
// transcript's first row.
func Session(run *model.Run, cfg Config) []model.WatchdogFact {
	cfg = cfg.withDefaults()
	var origin time.Time
	if run.Main != nil {
		// The first write is the first timestamp (write times only rise);
		// no need to copy the main transcript's whole staircase for it.
		origin = run.Main.FirstTime.UTC()
	}
	var agents []*model.SubagentCall
	seen := map[*model.Transcript]bool{}
	for _, sc := range run.Subagents {
		if sc.Child == nil || seen[sc.Child] || model.CopiedCall(sc) {
			continue
		}
		seen[sc.Child] = true
		agents = append(agents, sc)
	}
	replayAgents := func(agents []*model.SubagentCall) []WatchdogEvent {
		var events []WatchdogEvent
		for _, sc := range agents {
			s := streamOf(sc.Child, agentName(sc.AgentID, sc.Description), sc.ToolUseID, 0)
			o := origin
			if o.IsZero() {
				o = s.File.First()
			}
			events = append(events, progressWatch(s, o, cfg.Watchdogs)...)
			events = append(events, harnessEvents(s, cfg.Watchdogs)...)
		}
		return events
	}
	events := replayHalves(agents, replayAgents, len(agents) >= splitAgents)
	sortEvents(events)
	facts := make([]model.WatchdogFact, 0, len(events))
	for _, e := range events {
		facts = append(facts, factOf(run.ID, e))
	}
	return facts
}

// replayHalves is replay(agents), in two halves at once when split: each
// subagent's stream is replayed on its own, and the halves' events are
// joined in order, as one loop makes them.
func replayHalves(agents []*model.SubagentCall, replay func([]*model.SubagentCall) []WatchdogEvent, split bool) []WatchdogEvent {
	var events []WatchdogEvent
	if half := len(agents) / 2; split && half > 0 {
		var second []WatchdogEvent
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			second = replay(agents[half:])
		}()
		events = replay(agents[:half])
		wg.Wait()
		return append(events, second...)
	}
	return replay(agents)
}

// splitAgents is the number of subagents from which a session's replay
// runs in two halves at once (about 60 µs a subagent: 16 are a millisecond).
var splitAgents = 16

func agentName(id, fallback string) string {
	if discover.CanonicalAgentID(id) {
		return "a:" + id
	}
	if fallback != "" {
		return fallback
	}
	return "agent"
}

// sortEvents orders events by time, source and agent, keeping the order of
// those equal in all three (a stable sort gives one order whatever its
// algorithm; the generic one moves the events without reflection, which
// made it most of a live poll's time on a run with many events).
func sortEvents(es []WatchdogEvent) {
	slices.SortStableFunc(es, func(a, b WatchdogEvent) int {
		if c := a.At.Compare(b.At); c != 0 {
			return c
		}
		if c := strings.Compare(a.Source, b.Source); c != 0 {
			return c
		}
		return strings.Compare(a.Agent, b.Agent)
	})
}

// workflowWatchdogs runs the three watchdog replays over every attempt that
// has a transcript, and compares the runtime's predicted kills with the
// observed ones.
func workflowWatchdogs(run *model.Run, w *World, o WatchdogOptions) []WatchdogEvent {
	runEnd := w.Start
	for _, l := range w.Lines {
		if l.At.After(runEnd) {
			runEnd = l.At
		}
	}
	for _, t := range w.Terminals {
		if t.At.After(runEnd) {
			runEnd = t.At
		}
	}
	return attemptWatchdogs(run, w.Start, runEnd, o, false)
}

// attemptWatchdogs is the three watchdog replays over every attempt, the
// ProgressWatch grid from origin. Finished (replay), an attempt the journal
// leaves open runs until runEnd, and each prediction is compared with what
// was observed. live (watch, over the files as they stand) says what the
// files show so far and nothing they may still withdraw: an open attempt,
// or one whose successor has no transcript yet, ends at its last row so
// far, and no mismatch is judged (a verdict on the finished run).
func attemptWatchdogs(run *model.Run, origin, runEnd time.Time, o WatchdogOptions, live bool) []WatchdogEvent {
	return attemptWatchdogsMemo(run, origin, runEnd, o, live, nil)
}

// liveMemo keeps, between the polls of a live watch, each attempt's
// watchdogs where they stopped (liveAttempt): an attempt whose transcript
// only grew since is read from its old last row on, not from its first.
type liveMemo map[handle]*liveAttempt

// attemptWatchdogsMemo is attemptWatchdogs; memo (live only) keeps each
// attempt's watchdogs from one call to the next, to go on from there.
func attemptWatchdogsMemo(run *model.Run, origin, runEnd time.Time, o WatchdogOptions, live bool, memo liveMemo) []WatchdogEvent {
	var events []WatchdogEvent
	withTranscript := attemptsWithTranscript(run)
	var attemptsByKey map[string]int // made when an attempt is over the runtime's limit
	for _, a := range run.Attempts {
		s, observed := attemptStream(a)
		until := stallWindowEnd(a, s, runEnd, live, withTranscript)
		if memo != nil && live {
			events = memo.attemptEvents(events, a, s, origin, until, o, observed)
			continue
		}
		events = attemptEvents(events, a, s, origin, until, o, live, observed)
		if a.Ordinal == o.RuntimeMaxAttempts+1 && !live {
			if attemptsByKey == nil {
				attemptsByKey = map[string]int{}
				for _, a := range run.Attempts {
					attemptsByKey[a.Key]++
				}
			}
			events = append(events, tooManyAttempts(a, s, attemptsByKey[a.Key], o))
		}
	}
	sortEvents(events)
	return events
}

// attemptsWithTranscript are the attempts that have a transcript, by key
// and ordinal: a superseded attempt's stall window ends where its
// successor's transcript starts. Looking the successor up among every
// attempt was quadratic (20,000 started lines of one key took 2.4 s,
// 200,000 would take minutes).
func attemptsWithTranscript(run *model.Run) map[handle]*model.Attempt {
	withTranscript := map[handle]*model.Attempt{}
	for _, a := range run.Attempts {
		if a.Transcript != nil {
			withTranscript[handle{a.Key, a.Ordinal}] = a
		}
	}
	return withTranscript
}

// attemptStream is an attempt's stream as the watchdogs see it, and its
// observed outcome.
func attemptStream(a *model.Attempt) (agentStream, string) {
	name := "a:" + a.AgentID
	if !discover.CanonicalAgentID(a.AgentID) {
		name = agentName(a.AgentID, fmt.Sprintf("%s#%d", shortKey(a.Key), a.Ordinal))
	}
	if a.Transcript != nil {
		return streamOf(a.Transcript, name, a.Key, a.Ordinal), observedOutcome(a)
	}
	return agentStream{Agent: name, AgentID: a.AgentID, Key: a.Key, Attempt: a.Ordinal}, observedOutcome(a)
}

// stallWindowEnd is where an attempt's stall window ends: its last row when
// the journal closed it (or live, as the files stand), its successor's
// first row when it was superseded by an attempt with a transcript, else
// the run's end.
func stallWindowEnd(a *model.Attempt, s agentStream, runEnd time.Time, live bool, withTranscript map[handle]*model.Attempt) time.Time {
	until := runEnd
	if live {
		until = s.File.Last()
	}
	switch {
	case a.Closed != nil:
		until = s.File.Last()
	case a.SupersededBy > 0:
		if b := withTranscript[handle{a.Key, a.SupersededBy}]; b != nil {
			if f := clock.FileOf(b.Transcript).First(); !f.IsZero() {
				until = f
			}
		}
	}
	return until
}

// attemptEvents appends to events the three watchdogs' events over one
// attempt: ProgressWatch and the executor harness over its transcript, the
// Workflow runtime's stall kill (and give-up on the last attempt), and,
// finished (not live), the mismatch of that prediction with what happened.
func attemptEvents(events []WatchdogEvent, a *model.Attempt, s agentStream, origin, until time.Time, o WatchdogOptions, live bool, observed string) []WatchdogEvent {
	if a.Transcript != nil {
		events = append(events, progressWatch(s, origin, o)...)
		for _, e := range harnessEvents(s, o) {
			if e.Predicted != "" {
				e.Observed = observed
			}
			events = append(events, e)
		}
	}
	predicted := runtimeStall(s, until, o)
	events = appendStall(events, a, predicted, observed, o)
	if live {
		return events
	}
	if m := stallMismatch(a, s, predicted, observed, o); m != nil {
		events = append(events, *m)
	}
	return events
}

// appendStall appends the Workflow runtime's predicted stall kill of an
// attempt, if any, with the outcome observed, and its give-up on the last
// attempt it gives an agent.
func appendStall(events []WatchdogEvent, a *model.Attempt, predicted *WatchdogEvent, observed string, o WatchdogOptions) []WatchdogEvent {
	if predicted == nil {
		return events
	}
	predicted.Observed = observed
	events = append(events, *predicted)
	if a.Ordinal >= o.RuntimeMaxAttempts {
		g := *predicted
		g.Kind, g.Message = "give-up", fmt.Sprintf("agent stalled on all %d attempts (no progress for %dms each)", o.RuntimeMaxAttempts, o.RuntimeStall.Milliseconds())
		events = append(events, g)
	}
	return events
}

// stallMismatch is the runtime's stall prediction against what happened:
// a predicted kill of an attempt that was not killed, or a kill without
// the stall the runtime acts on; nil when they agree.
func stallMismatch(a *model.Attempt, s agentStream, predicted *WatchdogEvent, observed string, o WatchdogOptions) *WatchdogEvent {
	switch {
	case predicted != nil && observed != model.OutcomeKilled:
		m := *predicted
		m.Kind, m.Predicted, m.Observed = "mismatch", model.OutcomeKilled, observed
		m.Message = fmt.Sprintf("the Workflow runtime would have killed this attempt at %s (no progress for %ds); observed: %s", clock.Format(predicted.At), int(o.RuntimeStall/time.Second), observed)
		return &m
	case predicted == nil && observed == model.OutcomeKilled:
		m := agentStream.event(s, s.File.Last(), SourceWorkflowRuntime, "mismatch", -1, "")
		if tr := a.Transcript; tr != nil && tr.Tail.LastUser != nil {
			m.Where = model.Evidence{File: tr.File, Line: tr.Tail.LastUser.Line, Time: tr.Tail.LastUser.WriteTime}
		}
		m.Predicted, m.Observed = "not killed", model.OutcomeKilled
		m.Message = fmt.Sprintf("killed without a %ds stall the Workflow runtime would act on", int(o.RuntimeStall/time.Second))
		return &m
	}
	return nil
}

// tooManyAttempts is the mismatch of a key started more times (attempts)
// than the runtime gives an agent, on its first attempt over the limit.
func tooManyAttempts(a *model.Attempt, s agentStream, attempts int, o WatchdogOptions) WatchdogEvent {
	m := agentStream.event(s, s.File.First(), SourceWorkflowRuntime, "mismatch", -1, "")
	m.Where = a.Started
	m.Predicted, m.Observed = fmt.Sprintf("at most %d attempts", o.RuntimeMaxAttempts), fmt.Sprintf("%d attempts", attempts)
	m.Message = fmt.Sprintf("key %s was started %d times; the Workflow runtime gives an agent at most %d attempts", shortKey(a.Key), attempts, o.RuntimeMaxAttempts)
	return m
}

// runtimeStall predicts the Workflow runtime's stall kill: the first gap of
// at least the stall window between consecutive rows (or after the last row,
// while the attempt was still running, until `until`).
func runtimeStall(s agentStream, until time.Time, o WatchdogOptions) *WatchdogEvent {
	if !s.File.Timed() {
		return nil
	}
	var g stallScan
	g.run(s, o)
	return g.predicted(s, until, o)
}

// stallScan is the runtime's stall scan over a stream read up to some row:
// the next write to compare with the one before, and the stall kill in a
// gap between rows once found (the first; rows appended later cannot come
// before it). The gap after the last row depends on where the window ends,
// and is read by predicted for the stream as it stands.
type stallScan struct {
	next  int
	prev  time.Time
	found bool
	kill  WatchdogEvent
}

// run reads the stream's rows after those read before.
func (g *stallScan) run(s agentStream, o WatchdogOptions) {
	if g.found {
		return
	}
	for i, w := range s.File.From(g.next) {
		g.next = i + 1
		if i > 0 {
			if e := stallAfter(s, g.prev, w, o); e != nil {
				g.found, g.kill = true, *e
				return
			}
		}
		g.prev = w
	}
}

// predicted is the stall kill of the stream read by run up to its last
// row, whose window ends at until: in a gap between rows, or after the last.
func (g *stallScan) predicted(s agentStream, until time.Time, o WatchdogOptions) *WatchdogEvent {
	if g.found {
		e := g.kill
		return &e
	}
	return stallAfter(s, g.prev, until, o)
}

// stallAfter is the runtime's stall kill in the gap from write w to next,
// if the gap is at least the stall window.
func stallAfter(s agentStream, w, next time.Time, o WatchdogOptions) *WatchdogEvent {
	if next.Sub(w) < o.RuntimeStall {
		return nil
	}
	at := w.Add(o.RuntimeStall)
	e := s.event(at, SourceWorkflowRuntime, "stall-kill", o.RuntimeStall.Seconds(),
		fmt.Sprintf("stalled — no progress for %dms; retrying", o.RuntimeStall.Milliseconds()))
	e.Predicted = "kill"
	return &e
}

// observedOutcome is what the files say happened to an attempt (the same
// reading the detectors use).
func observedOutcome(a *model.Attempt) string { return interpret.AttemptOutcome(a) }

func shortKey(k string) string {
	if len(k) > 14 {
		return k[:14]
	}
	return k
}

func factOf(runID string, e WatchdogEvent) model.WatchdogFact {
	return model.WatchdogFact{RunID: runID, Source: e.Source, Kind: e.Kind, Agent: e.Agent, SilenceSeconds: e.Silence,
		Predicted: e.Predicted, Observed: e.Observed, Message: e.Message, Time: e.At, At: e.Where}
}

// watchFact turns a watch event into a fact, with the evidence that proves it.
func watchFact(runID string, e *Event, w *World) model.WatchdogFact {
	f := model.WatchdogFact{RunID: runID, Source: SourceWatch, Kind: e.Kind, Agent: e.Agent, SilenceSeconds: e.Silence,
		Message: e.message(), Time: e.At, At: e.Where}
	if f.At.IsZero() {
		if a := w.Agents[e.AgentID]; a != nil && a.Path != "" {
			f.At = model.Evidence{File: a.Path, Line: a.File.LineAt(e.At)}
		}
	}
	if f.At.File != "" && f.At.Time.IsZero() {
		f.At.Time = e.At
	}
	if e.Kind == KindKill {
		f.Observed = model.OutcomeKilled
	}
	return f
}
