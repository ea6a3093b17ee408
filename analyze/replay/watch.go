package replay

import (
	"fmt"
	"sort"
	"time"

	"github.com/pmcheck/pmcheck/analyze/discover"
	"github.com/pmcheck/pmcheck/analyze/interpret"
	"github.com/pmcheck/pmcheck/analyze/journal"
	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/internal/exitcode"
)

// Options are watch's flags, with watch's defaults in DefaultOptions.
type Options struct {
	Interval   time.Duration
	QuietAfter time.Duration
	DoneGrace  time.Duration
	MaxHours   float64
	// NextCommand, when set, is the follow-up command KILL and DONE lines
	// name instead of watch's own ("agent-postmortem rescue plan RUN",
	// "agent-postmortem run RUN"). Empty keeps watch's wording, which is
	// what comparisons with watch need.
	NextCommand string
}

// DefaultOptions are watch's defaults: --interval 5 --quiet-after 300
// --done-grace 30 --max-hours 6.
func DefaultOptions() Options {
	return Options{Interval: 5 * time.Second, QuietAfter: 300 * time.Second, DoneGrace: 30 * time.Second, MaxHours: 6}
}

// Validate rejects options watch could not run with.
func (o Options) Validate() error {
	switch {
	case o.Interval <= 0:
		return fmt.Errorf("--interval must be positive (got %s)", o.Interval)
	case o.QuietAfter <= 0:
		return fmt.Errorf("--quiet-after must be positive (got %s)", o.QuietAfter)
	case o.DoneGrace < 0:
		return fmt.Errorf("--done-grace must not be negative (got %s)", o.DoneGrace)
	case !(o.MaxHours > 0) || o.MaxHours > 1e5:
		return fmt.Errorf("--max-hours must be a positive number of hours (got %g)", o.MaxHours)
	}
	return nil
}

func (o Options) maxDuration() time.Duration {
	return time.Duration(o.MaxHours * float64(time.Hour))
}

// Watch's fixed constants (watch.py).
const (
	journalWait      = 60 * time.Second
	rateLimit        = 60 * time.Second
	maxPendingPolls  = 12
	NoJournalMessage = "no journal appeared within 60 s: watch follows a Workflow run while it is " +
		"running (the plugin hands you this command when one starts); agent-postmortem scan lists past runs"
)

// Exit codes of watch.
const (
	ExitDone      = exitcode.WatchDone      // DONE with a clean verdict
	ExitNoJournal = exitcode.WatchNoJournal // no journal appeared within 60 s
	ExitFailed    = exitcode.WatchFailed    // DONE with a verdict that begins FAILED
	ExitLimit     = exitcode.WatchLimit     // LIMIT, MALFORMED (too long), or DONE with an unknown lifecycle terminal
)

// Outcome is a whole replay: the events, the exit code, and the DONE verdict.
type Outcome struct {
	Events []Event `json:"events"`
	Exit   int     `json:"exit"`
	// Verdict is the DONE verdict ("" when the watch ended otherwise).
	Verdict string `json:"verdict,omitempty"`
	// Stderr is what watch printed on stderr (the missing-journal message).
	Stderr string `json:"stderr,omitempty"`
	// Polls counts the polls the engine actually evaluated (a cost measure).
	Polls int `json:"-"`
}

// occ is one occurrence of a journal key (reader._run_journal_state_machine).
type occ struct {
	key      string
	ordinal  int
	agentID  string
	closedBy string // "", model.OutcomeCompleted, model.OutcomeFailed (as check's Attempt.ClosedBy)
	started  model.Evidence
	closed   model.Evidence
	index    int // position in the watcher's occurrence list
	prev     int // index of the occurrence it supersedes, -1 for none
	// superseded is true once a later occurrence of the key started.
	superseded bool
	keyIndex   int // position of its key in the watcher's lasts
}

type handle struct {
	key     string
	ordinal int
}

type pending struct {
	h        handle
	previous *occ // KILL: the superseded occurrence
	current  *occ // KILL: its successor; FAILED/OK: the occurrence
	polls    int
}

// watcher is the state of one watch, advanced one poll at a time. Both
// engines drive the same watcher; they differ only in which polls they visit.
type watcher struct {
	w   *World
	opt Options

	consumed int // journal lines of w.Lines read so far
	occs     []*occ
	slab     []occ  // where the next occurrences are made
	lasts    []*occ // each key's newest occurrence, keys in order of first start
	// machine is the journal's attempt state machine, which check's
	// attempts run too (journal.Machine): occs[i] is its occurrence i.
	machine   *journal.Machine
	openLast  int    // keys whose newest occurrence is open
	newSucc   []*occ // occurrences that superseded another, this poll
	newClosed []*occ // occurrences closed this poll
	openBuf   []*occ
	lineNo    int
	malformed bool

	names      *names
	lastPrint  map[string]time.Time
	pendKill   []*pending
	pendFail   []*pending
	pendOK     []*pending
	quietThr   map[handle]time.Duration
	resolvedAt *time.Time
	startedN   int
	started    bool

	knownNewestLaunch int
	watermark         int

	// out is the events printed so far, unless sink takes each instead.
	out     []Event
	sink    func(Event)
	verdict string // of the last DONE
}

func newWatcher(w *World, opt Options) *watcher {
	// The maps are sized for the journal: growing them one rehash at a
	// time was a third of a 200,000-line replay.
	n := len(w.Lines)
	return &watcher{w: w, opt: opt, names: newNames(), lastPrint: map[string]time.Time{}, machine: journal.NewMachine(n),
		quietThr: map[handle]time.Duration{}}
}

func (s *watcher) reset() {
	s.occs, s.lineNo, s.malformed = nil, 0, false
	s.lasts, s.openLast, s.newSucc, s.newClosed = nil, 0, nil, nil
	s.machine = journal.NewMachine(0)
	s.lastPrint = map[string]time.Time{}
	s.pendKill, s.pendFail, s.pendOK = nil, nil, nil
	s.quietThr = map[handle]time.Duration{}
	s.resolvedAt, s.startedN = nil, 0
	s.watermark = s.knownNewestLaunch
}

func (s *watcher) emit(e Event) {
	e.runID, e.nextCommand = s.w.RunID, s.opt.NextCommand
	if e.Kind == KindDone {
		s.verdict = e.Detail
	}
	if s.sink != nil {
		s.sink(e)
		return
	}
	// Doubled, not grown by a quarter as append grows a long slice: a
	// replay of 200,000 KILL lines copied its events over and over.
	s.out = appendDoubling(s.out, e)
}

// readJournal reads the journal's appended lines (those written by now)
// through the state machine and prints START, RESET and MALFORMED as they
// come due; it reports whether the watch ends here (a line over the cap).
func (s *watcher) readJournal(now time.Time) (ended bool) {
	// Read the journal's appended lines (those written by now): the fresh
	// ones are s.w.Lines[from:s.consumed] after the last truncation, less
	// the torn ones (a range, not a copy: one poll of a 200,000-line
	// journal copied every line).
	from := s.consumed
	truncated := false
	for s.consumed < len(s.w.Lines) && !s.w.Lines[s.consumed].At.After(now) {
		l := &s.w.Lines[s.consumed]
		switch l.Kind {
		case LineTruncate:
			truncated, from = true, s.consumed+1
		case LineTooLong:
			// An immediate, final verdict: a first poll that ends here prints
			// no START, since the journal was never parsed.
			s.emit(Event{At: now, Kind: KindMalformed, Silence: -1, Detail: malformedTooLong, Where: l.Where})
			return true
		}
		s.consumed++
	}
	if truncated {
		s.reset()
		s.emit(Event{At: now, Kind: KindReset, Silence: -1})
	}
	malformedNotice := 0
	for i := from; i < s.consumed; i++ {
		l := &s.w.Lines[i]
		if l.Kind == LineTorn || l.Kind == LineTruncate {
			continue // withheld: the offset never moves past an unterminated line
		}
		s.lineNo++
		if l.Kind == LineMalformed {
			if !s.malformed {
				s.malformed, malformedNotice = true, s.lineNo
			}
			continue
		}
		s.apply(*l)
	}
	if !s.started {
		s.started = true
		s.emit(Event{At: now, Kind: KindStart, Silence: -1, counts: [2]int{len(s.lasts), len(s.occs)}})
	}
	if malformedNotice > 0 {
		s.emit(Event{At: now, Kind: KindMalformed, Silence: -1, Detail: "not JSON", counts: [2]int{malformedNotice}})
	}
	return false
}

// poll is one iteration of watch_run's loop at simulated instant now. It
// returns done and the exit code when the watch ends at this poll.
func (s *watcher) poll(now time.Time) (bool, int) {
	if s.readJournal(now) {
		return true, ExitLimit
	}

	// KILL: a successor occurrence of a key supersedes its predecessor.
	// watch rescans every occurrence each poll; a transition can only be new
	// at the poll whose lines created it, so only those are looked at.
	for _, o := range s.newSucc {
		p := s.occs[o.prev]
		s.pendKill = append(s.pendKill, &pending{h: handle{o.key, p.ordinal}, previous: p, current: o})
	}
	s.newSucc = s.newSucc[:0]
	s.pendKill = s.resolve(s.pendKill, now, s.tryKill, s.forceKill)

	// FAILED and OK: journal lines that closed an occurrence, taken in
	// occurrence order as watch's scan takes them.
	sort.Slice(s.newClosed, func(i, j int) bool { return s.newClosed[i].index < s.newClosed[j].index })
	for _, o := range s.newClosed {
		if o.closedBy == model.OutcomeFailed {
			s.pendFail = append(s.pendFail, &pending{h: handle{o.key, o.ordinal}, current: o})
		}
	}
	s.pendFail = s.resolve(s.pendFail, now, s.tryFailed, s.forceFailed)
	for _, o := range s.newClosed {
		if o.closedBy == model.OutcomeCompleted {
			s.pendOK = append(s.pendOK, &pending{h: handle{o.key, o.ordinal}, current: o})
		}
	}
	s.newClosed = s.newClosed[:0]
	s.pendOK = s.resolve(s.pendOK, now, s.tryOK, s.forceOK)

	// DONE: at once on an immediate lifecycle terminal, or after the grace
	// once every key is resolved; never while a KILL/FAILED/OK is pending.
	resolved := s.journalResolved()
	if len(s.occs) != s.startedN {
		s.startedN = len(s.occs)
		s.resolvedAt = nil
	}
	if resolved {
		if s.resolvedAt == nil {
			t := now
			s.resolvedAt = &t
		}
	} else {
		s.resolvedAt = nil
	}
	terminal, parentUnknown := s.lifecycle(now, resolved)
	eligible := terminal == interpret.TerminalCompleted || terminal == interpret.TerminalFailed || terminal == interpret.TerminalStopped ||
		(terminal == "journal_resolved" && s.resolvedAt != nil && now.Sub(*s.resolvedAt) >= s.opt.DoneGrace)
	for g, at := range s.w.Launches {
		if !at.After(now) && g+1 > s.knownNewestLaunch {
			s.knownNewestLaunch = g + 1
		}
	}
	if eligible && len(s.pendKill) == 0 && len(s.pendFail) == 0 && len(s.pendOK) == 0 {
		if s.malformed {
			s.emit(Event{At: now, Kind: KindLimit, Silence: -1, Detail: limitMalformed})
			return true, ExitLimit
		}
		return true, s.done(now, parentUnknown)
	}

	// QUIET: the open last occurrence of every key.
	for _, o := range s.lastOpen() {
		s.maybeQuiet(o, now)
	}

	if now.Sub(s.w.Start) >= s.opt.maxDuration() {
		s.emit(Event{At: now, Kind: KindLimit, Silence: -1, Detail: "hours", hours: s.opt.MaxHours})
		return true, ExitLimit
	}
	return false, 0
}

// apply runs one journal entry through the state machine: started opens the
// next occurrence of its key; result/failed closes the open occurrence of its
// agent id (the latest one), or is an orphan that closes nothing.
func (s *watcher) apply(l journalLine) {
	switch l.Kind {
	case LineStarted:
		// Occurrences are made in chunks: one allocation per started
		// line was most of a 200,000-line replay's garbage.
		if len(s.slab) == 0 {
			s.slab = make([]occ, min(max(len(s.occs), 16), 1024))
		}
		o := &s.slab[0]
		s.slab = s.slab[1:]
		i, ordinal, prev := s.machine.Start(l.Key, l.AgentID)
		*o = occ{key: l.Key, ordinal: ordinal, agentID: l.AgentID, started: l.Where, index: i, prev: prev}
		if prev >= 0 {
			last := s.occs[prev]
			last.superseded = true
			o.keyIndex = last.keyIndex
			s.lasts[o.keyIndex] = o
			if last.closedBy != "" {
				s.openLast++
			}
			s.newSucc = append(s.newSucc, o)
		} else {
			o.keyIndex = len(s.lasts)
			s.lasts = append(s.lasts, o)
			s.openLast++
		}
		s.occs = append(s.occs, o)
	case LineResult, LineFailed:
		i, ok := s.machine.Close(l.AgentID)
		if !ok {
			return // an orphan: it closes nothing
		}
		if countLooked != nil {
			countLooked(1)
		}
		o := s.occs[i]
		o.closedBy, o.closed = model.OutcomeCompleted, l.Where
		if l.Kind == LineFailed {
			o.closedBy = model.OutcomeFailed
		}
		if !o.superseded { // the key's newest occurrence
			s.openLast--
		}
		s.newClosed = append(s.newClosed, o)
	}
}

// countLooked, when set (by tests), receives how many occurrences the
// watcher looked at to close a result or failed line (one: the top of the
// agent's stack; TestOrphanResultsCostOneLookupEach bounds it).
var countLooked func(int)

// resolve retries every pending item of one kind, in the order detected; an
// item still unresolved after maxPendingPolls polls is forced out.
func (s *watcher) resolve(ps []*pending, now time.Time,
	try func(*pending, time.Time) string, force func(*pending, time.Time)) []*pending {
	keep := ps[:0]
	for _, p := range ps {
		if try(p, now) == "retry" {
			p.polls++
			if p.polls < maxPendingPolls {
				keep = append(keep, p)
				continue
			}
			force(p, now)
		}
	}
	for i := len(keep); i < len(ps); i++ {
		ps[i] = nil
	}
	return keep
}

func (s *watcher) rateLimited(key string, now time.Time) bool {
	last, ok := s.lastPrint[key]
	return ok && now.Sub(last) < rateLimit
}

func (s *watcher) tryKill(p *pending, now time.Time) string {
	prev := p.previous
	if prev.agentID == "" {
		return "not_a_kill"
	}
	a := s.w.Agents[prev.agentID]
	if a == nil || !a.File.ExistsAt(now) {
		return "retry"
	}
	// The transcript as it stands now: its last user row must be written by
	// now and be the kill sentinel (docs/replay.md: a later last user row
	// means watch saw an earlier, ordinary one); and no journal line read by
	// now may have closed the attempt (interpret.AttemptKilled decides).
	if !interpret.AttemptKilled(true, prev.closedBy, a.HasLastUser && !a.LastUserAt.After(now) && a.LastUserKill) {
		return "not_a_kill"
	}
	if s.rateLimited(prev.key, now) {
		return "retry"
	}
	agent := s.names.name(prev)
	silence := -1.0
	if a.SilenceKnown {
		silence = a.SilenceSeconds
	}
	// The agent is not changed once made (a live watch makes new ones), so
	// its ledger is the one at this poll.
	s.emit(Event{At: now, Kind: KindKill, Key: prev.key, Attempt: prev.ordinal, Agent: agent, AgentID: prev.agentID, Silence: silence,
		Where:  model.Evidence{File: a.Path, Line: a.LastUserLine, Time: a.LastUserAt},
		counts: [2]int{p.current.ordinal}, ledger: &a.Ledger, silenceKnown: a.SilenceKnown})
	s.lastPrint[prev.key] = now
	return "emitted"
}

// forceKill is watch's _emit_kill_fallback: printed without the transcript's
// details so a kill is never dropped. Like watch, it does not touch the rate
// limit's clock.
func (s *watcher) forceKill(p *pending, now time.Time) {
	prev := p.previous
	agent := s.names.name(prev)
	s.emit(Event{At: now, Kind: KindKill, Key: prev.key, Attempt: prev.ordinal, Agent: agent, AgentID: prev.agentID, Silence: -1,
		Where: p.current.started, Detail: "details unavailable", counts: [2]int{p.current.ordinal}})
}

func (s *watcher) tryFailed(p *pending, now time.Time) string {
	if s.rateLimited(p.current.key, now) {
		return "retry"
	}
	s.forceFailed(p, now)
	return "emitted"
}

func (s *watcher) forceFailed(p *pending, now time.Time) {
	o := p.current
	cause := Cause{Phrase: CauseNotRecorded}
	if a := s.w.Agents[o.agentID]; o.agentID != "" && a != nil && a.File.ExistsAt(now) {
		if a.HasLast && !a.LastEventAt.After(now) {
			cause = a.Cause
		}
	}
	agent := s.names.name(o)
	s.emit(Event{At: now, Kind: KindFailed, Key: o.key, Attempt: o.ordinal, Agent: agent, AgentID: o.agentID, Silence: -1, Detail: cause.Phrase, Where: o.closed,
		resetTime: cause.ResetTime})
	s.lastPrint[o.key] = now
}

func (s *watcher) tryOK(p *pending, now time.Time) string {
	if s.rateLimited(p.current.key, now) {
		return "retry"
	}
	s.forceOK(p, now)
	return "emitted"
}

func (s *watcher) forceOK(p *pending, now time.Time) {
	o := p.current
	agent := s.names.name(o)
	s.emit(Event{At: now, Kind: KindOK, Key: o.key, Attempt: o.ordinal, Agent: agent, AgentID: o.agentID, Silence: -1, Where: o.closed})
	s.lastPrint[o.key] = now
}

// journalResolved: every key's last occurrence is closed (and at least one
// key has started: an empty journal is not a finished run).
func (s *watcher) journalResolved() bool {
	return len(s.occs) > 0 && s.openLast == 0
}

// lifecycle is the run's terminal as watch evaluates it at this poll: the
// parent's newest terminal evidence written by now (of a launch after the
// epoch watermark) when it is completed, failed or stopped; else
// journal_resolved or running. parentUnknown reports parent evidence with a
// status watch does not know as terminal (DONE then exits 4).
func (s *watcher) lifecycle(now time.Time, resolved bool) (string, bool) {
	var latest *lifecycleTerminal
	for i := range s.w.Terminals {
		t := &s.w.Terminals[i]
		if t.At.After(now) || t.Generation <= s.watermark {
			continue
		}
		latest = t
	}
	if latest != nil && latest.Status != "unknown" {
		return latest.Status, false
	}
	unknown := latest != nil
	if resolved {
		return "journal_resolved", unknown
	}
	return "running", unknown
}

func (s *watcher) lastOpen() []*occ {
	s.openBuf = s.openBuf[:0]
	for _, o := range s.lasts {
		if o.closedBy == "" {
			s.openBuf = append(s.openBuf, o)
		}
	}
	return s.openBuf
}

func (s *watcher) threshold(o *occ) time.Duration {
	if t, ok := s.quietThr[handle{o.key, o.ordinal}]; ok {
		return t
	}
	return s.opt.QuietAfter
}

func (s *watcher) maybeQuiet(o *occ, now time.Time) {
	if o.agentID == "" {
		return
	}
	a := s.w.Agents[o.agentID]
	if a == nil {
		return
	}
	mtime, ok := a.File.MtimeAt(now)
	if !ok {
		return
	}
	silence := now.Sub(mtime)
	thr := s.threshold(o)
	if silence < 0 || silence < thr || s.rateLimited(o.key, now) {
		return
	}
	agent := s.names.name(o)
	s.emit(Event{At: now, Kind: KindQuiet, Key: o.key, Attempt: o.ordinal, Agent: agent, AgentID: o.agentID, Silence: silence.Seconds(),
		Where: model.Evidence{File: a.Path, Line: a.File.LineAt(mtime), Time: mtime}})
	s.lastPrint[o.key] = now
	s.quietThr[handle{o.key, o.ordinal}] = thr * 2
}

// done prints DONE and returns its exit code: 3 for a FAILED verdict, else 4
// when the parent's evidence names a terminal watch does not know, else 0.
func (s *watcher) done(now time.Time, parentUnknown bool) int {
	agents, attempts, verdict := verdictOf(s.occs)
	s.emit(Event{At: now, Kind: KindDone, Silence: -1, Detail: verdict, counts: [2]int{agents, attempts}})
	switch {
	case len(verdict) >= 6 && verdict[:6] == "FAILED":
		return ExitFailed
	case parentUnknown:
		return ExitLimit
	}
	return ExitDone
}

// verdictOf is pmcheck's DONE verdict (watch's report.verdict_of is not
// public; docs/replay.md): "FAILED: N agent(s) returned no result" exactly
// when some key's last occurrence did not return a result, else "clean",
// "clean after 1 retry" or "clean after N retries".
//
// A key's first occurrence supersedes none and its last is superseded by
// none, so the keys are counted without a map of them (a cache miss per
// occurrence on a journal of 200,000 started lines).
func verdictOf(occs []*occ) (agents, attempts int, verdict string) {
	failed := 0
	for _, o := range occs {
		if o.prev < 0 {
			agents++
		}
		if !o.superseded && o.closedBy != model.OutcomeCompleted {
			failed++
		}
	}
	attempts = len(occs)
	switch {
	case failed > 0:
		verdict = fmt.Sprintf("FAILED: %d %s returned no result", failed, plural(failed, "agent"))
	case attempts > agents:
		r := attempts - agents
		verdict = fmt.Sprintf("clean after %d %s", r, map[bool]string{true: "retry", false: "retries"}[r == 1])
	default:
		verdict = "clean"
	}
	return
}

// names is the agent-name book (watch's _AgentNames). An attempt with a
// valid agent id is named by its stable alias "a:<agentId>"; one without (or
// with an id that is not a valid one) by a positional "agent-N", numbered
// within this watch in the order first named. Registration cannot fail
// offline, so the degraded mode and its stderr line never occur.
type names struct {
	positional map[handle]int
}

func newNames() *names { return &names{positional: map[handle]int{}} }

func (n *names) name(o *occ) string {
	if discover.CanonicalAgentID(o.agentID) {
		return "a:" + o.agentID
	}
	h := handle{o.key, o.ordinal}
	if _, ok := n.positional[h]; !ok {
		n.positional[h] = len(n.positional) + 1
	}
	return fmt.Sprintf("agent-%d", n.positional[h])
}
