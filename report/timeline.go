package report

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/pmcheck/pmcheck/analyze/model"
)

// A timeline is one run on the simulated clock: a lane per subagent or
// Workflow attempt (and one for the run itself, which carries the ship
// actions and the events not tied to an agent), with markers for launches,
// ends, kills, quiet stretches, watchdog events and reviews. It is built
// from the Document's facts only.
type timeline struct {
	t0, t1 time.Time
	// clipped is set when replayed watchdog events run far past the run's
	// last write (a watcher counting silence for hours): the axis stops
	// shortly after the run, and later events sit at its right edge.
	clipped bool
	lanes   []*lane
}

type lane struct {
	id      string // DOM id: the fact's anchor
	label   string // transcript text: escaped when written
	title   string // hover text
	kind    string // run | subagent | attempt
	outcome string
	start   time.Time
	end     time.Time
	killed  bool
	// interesting lanes are always drawn: killed, not completed, with a
	// finding, or with a watchdog event other than QUIET.
	interesting bool
	markers     []marker
}

type marker struct {
	id    string // DOM id when a fact or finding links here
	kind  string // launch | end | kill | quiet | watchdog | ship | review
	cls   string // CSS class: source or outcome
	t     time.Time
	from  time.Time // start of a stretch (quiet)
	title string
}

// buildTimeline lays out one run's facts. ri is the run's index in
// Document.Facts; findingFacts lists the facts findings point at.
//
// A killed or unfinished lane with no finding says why in its tooltip:
// whyNot (Document.WhyNoFinding) names each rule's false conditions.
func buildTimeline(rf *RunFacts, ri int, findingFacts map[string]bool, whyNot func(kind string, fact any) []WhyNot) *timeline {
	b := &timelineBuilder{tl: &timeline{t0: rf.Run.Start, t1: rf.Run.End}, rf: rf, ri: ri, findingFacts: findingFacts, whyNot: whyNot,
		byAgent: map[string]*lane{}}
	b.main = &lane{id: fmt.Sprintf("r%d", ri), kind: "run", label: runLaneLabel(rf.Run), start: rf.Run.Start, end: rf.Run.End, interesting: true}
	b.main.title = fmt.Sprintf("%s %s", rf.Run.Kind, rf.Run.ID)
	b.tl.lanes = append(b.tl.lanes, b.main)
	b.addSubagents()
	b.addAttempts()
	b.addShips()
	// The run's own activity ends here: watchdog events may run far past it.
	activity := b.tl.t1
	events := b.addWatchdogs()
	b.tl.fitAxis(activity, events)
	b.tl.sortMarkers()
	return b.tl
}

// timelineBuilder holds what each step of buildTimeline shares: the run's
// lane, and the lane of each agent id (subagents by agent and tool-use id,
// attempts by agent id and name) that watchdog events are drawn on.
type timelineBuilder struct {
	tl           *timeline
	rf           *RunFacts
	ri           int
	findingFacts map[string]bool
	whyNot       func(kind string, fact any) []WhyNot
	main         *lane
	byAgent      map[string]*lane
}

// widen stretches the axis to cover ts (unknown times aside).
func (tl *timeline) widen(ts ...time.Time) {
	for _, t := range ts {
		if t.IsZero() {
			continue
		}
		if tl.t0.IsZero() || t.Before(tl.t0) {
			tl.t0 = t
		}
		if t.After(tl.t1) {
			tl.t1 = t
		}
	}
}

// addLane adds an agent's lane, known by each of its non-empty keys (the
// first lane to claim a key keeps it).
func (b *timelineBuilder) addLane(l *lane, keys ...string) {
	for _, k := range keys {
		if k != "" && b.byAgent[k] == nil {
			b.byAgent[k] = l
		}
	}
	b.tl.widen(l.start, l.end)
	b.tl.lanes = append(b.tl.lanes, l)
}

func (b *timelineBuilder) addSubagents() {
	for i, s := range b.rf.Subagents {
		id := fmt.Sprintf("r%d-subagent%d", b.ri, i)
		l := &lane{id: id, kind: "subagent", label: s.Description, outcome: s.Outcome, start: s.Time, end: s.End, killed: s.Killed}
		if l.label == "" {
			l.label = s.ToolUseID
		}
		l.title = fmt.Sprintf("%s subagent %q: %s", s.Mode, s.Description, s.Outcome)
		l.interesting = s.Killed || s.FalseDone || s.Outcome != "completed" || b.findingFacts[id]
		noFinding(l, b.findingFacts, b.whyNot, model.FactSubagent, &b.rf.Subagents[i])
		l.markers = append(l.markers, marker{kind: "launch", cls: s.Mode, t: s.Time, title: "spawned (" + s.Mode + ") at " + clockLabel(s.Time)})
		l.markers = append(l.markers, endMarker(l)...)
		for _, r := range s.Reasons {
			if strings.HasPrefix(r.What, "review subagent") {
				l.markers = append(l.markers, marker{kind: "review", cls: "review", t: r.At.Time, title: r.What})
			}
		}
		b.addLane(l, s.AgentID, s.ToolUseID)
	}
}

func (b *timelineBuilder) addAttempts() {
	for i, a := range b.rf.Attempts {
		id := fmt.Sprintf("r%d-attempt%d", b.ri, i)
		label := fmt.Sprintf("%s #%d", a.Agent, a.Ordinal)
		l := &lane{id: id, kind: "attempt", label: label, outcome: a.Outcome, start: a.Time, end: a.End, killed: a.Killed()}
		l.title = fmt.Sprintf("attempt %d of %s (key %s): %s", a.Ordinal, a.Agent, a.Key, a.Outcome)
		if a.FailureCause != "" {
			l.title += " (" + a.FailureCause + ")"
		}
		l.interesting = l.killed || a.FalseDone || a.Outcome != "completed" || b.findingFacts[id]
		noFinding(l, b.findingFacts, b.whyNot, model.FactAttempt, &b.rf.Attempts[i])
		l.markers = append(l.markers, marker{kind: "launch", cls: "attempt", t: a.Time, title: "journal started at " + clockLabel(a.Time)})
		l.markers = append(l.markers, endMarker(l)...)
		b.addLane(l, a.AgentID, a.Agent)
	}
}

// addShips marks the ship actions on the run's lane.
func (b *timelineBuilder) addShips() {
	for i, s := range b.rf.Ships {
		b.main.markers = append(b.main.markers, marker{id: fmt.Sprintf("r%d-ship%d", b.ri, i), kind: "ship", cls: s.Kind, t: s.Time,
			title: fmt.Sprintf("%s at %s: %s", s.Kind, clockLabel(s.Time), s.Command)})
		b.tl.widen(s.Time)
	}
}

// addWatchdogs marks each watchdog event (and the quiet stretch before it)
// on its agent's lane, or the run's, and returns the latest event's time.
func (b *timelineBuilder) addWatchdogs() (events time.Time) {
	for i, w := range b.rf.Watchdogs {
		l := b.laneOf(w.Agent)
		id := fmt.Sprintf("r%d-watchdog%d", b.ri, i)
		if w.Source == "watch" && (w.Kind == "OK" || w.Kind == "START") && !b.findingFacts[id] {
			continue // the lane's own launch and end marks say as much
		}
		title := watchdogTitle(w)
		if w.SilenceSeconds > 0 && !w.Time.IsZero() {
			from := w.Time.Add(-time.Duration(w.SilenceSeconds * float64(time.Second)))
			l.markers = append(l.markers, marker{kind: "quiet", cls: w.Source, from: from, t: w.Time, title: "quiet stretch: " + title})
			b.tl.widen(from)
		}
		if w.Time.After(events) {
			events = w.Time
		}
		l.markers = append(l.markers, marker{id: id, kind: "watchdog", cls: w.Source, t: w.Time, title: title})
		if w.Kind != "QUIET" || b.findingFacts[id] {
			l.interesting = true
		}
	}
	return events
}

// laneOf is the lane of the agent a watchdog event names (with or without
// its "a:" prefix), or the run's lane.
func (b *timelineBuilder) laneOf(agent string) *lane {
	if l := b.byAgent[strings.TrimPrefix(agent, "a:")]; l != nil {
		return l
	}
	if l := b.byAgent[agent]; l != nil {
		return l
	}
	return b.main
}

func watchdogTitle(w model.WatchdogFact) string {
	title := fmt.Sprintf("%s %s at %s", w.Source, w.Kind, clockLabel(w.Time))
	if w.SilenceSeconds >= 0 {
		title += fmt.Sprintf(" after %gs of silence", w.SilenceSeconds)
	}
	if w.Predicted != "" || w.Observed != "" {
		title += fmt.Sprintf("; predicted %q, observed %q", w.Predicted, w.Observed)
	}
	if w.Message != "" {
		title += ": " + w.Message
	}
	return title
}

// fitAxis ends the axis past the latest watchdog event, unless the events
// run far past the run's activity (more than three times its span): then
// the axis stops a quarter span after the activity and is marked clipped.
// An instant run gets a second.
func (tl *timeline) fitAxis(activity, events time.Time) {
	if span := activity.Sub(tl.t0); !tl.t0.IsZero() && !activity.IsZero() && span > 0 && events.Sub(tl.t0) > 3*span {
		tl.t1 = activity.Add(span / 4)
		tl.clipped = true
	} else {
		tl.widen(events)
	}
	if !tl.t1.After(tl.t0) {
		tl.t1 = tl.t0.Add(time.Second)
	}
}

// sortMarkers puts each lane's marks in time order (marks at one time keep
// the order they were added in).
func (tl *timeline) sortMarkers() {
	for _, l := range tl.lanes {
		slices.SortStableFunc(l.markers, func(a, b marker) int { return a.t.Compare(b.t) })
	}
}

func endMarker(l *lane) []marker {
	if l.end.IsZero() {
		return nil
	}
	if l.killed {
		return []marker{{kind: "kill", cls: "kill", t: l.end, title: l.outcome + " (killed) at " + clockLabel(l.end)}}
	}
	switch l.outcome {
	case model.OutcomeOpen, "launched-never-returned", "open-at-end":
		// It never returned: the bar ends at its last write, with no end mark.
		return nil
	}
	return []marker{{kind: "end", cls: l.outcome, t: l.end, title: l.outcome + " at " + clockLabel(l.end)}}
}

func runLaneLabel(r model.RunFact) string {
	if r.Kind == model.KindWorkflow {
		return "journal " + r.ID
	}
	return "main agent"
}

func clockLabel(t time.Time) string {
	if t.IsZero() {
		return "unknown time"
	}
	return t.UTC().Format("15:04:05")
}

// tick picks an axis step that gives at most about ten ticks.
func tick(span time.Duration) time.Duration {
	for _, d := range []time.Duration{time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 15 * time.Second, 30 * time.Second,
		time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute, 30 * time.Minute,
		time.Hour, 2 * time.Hour, 3 * time.Hour, 6 * time.Hour, 12 * time.Hour, 24 * time.Hour} {
		if span/d <= 10 {
			return d
		}
	}
	return (span/10 + 24*time.Hour - 1).Truncate(24 * time.Hour)
}

// A timeline's axis is linear unless long idle stretches would squeeze
// the agents into dots (subagents of minutes in a session of hours): then
// each stretch with no agent activity is folded into a narrow band marked
// as folded, and the rest of the plot is shared by the active time.
const (
	foldW        = 16.0             // plot width of a folded stretch
	foldMinGap   = 10 * time.Minute // no shorter stretch is folded
	foldMinShare = 0.10             // nor one under this share of the span
	foldMinTotal = 0.30             // fold only when this share of the span goes
)

// segment is one piece of the axis: [t0, t1] drawn over [x0, x1].
type segment struct {
	t0, t1 time.Time
	x0, x1 float64
	folded bool
}

type segments []segment

// x is where t falls on the plot.
func (ss segments) x(t time.Time) float64 {
	for i, sg := range ss {
		if t.After(sg.t1) && i < len(ss)-1 {
			continue
		}
		d := sg.t1.Sub(sg.t0)
		if d <= 0 {
			return sg.x0
		}
		return sg.x0 + float64(t.Sub(sg.t0))/float64(d)*(sg.x1-sg.x0)
	}
	return labelW
}

// scale lays the axis out: one linear piece, or the active stretches and
// the folded idle ones between them.
func (tl *timeline) scale() segments {
	linear := segments{{t0: tl.t0, t1: tl.t1, x0: labelW, x1: labelW + plotW}}
	span := tl.t1.Sub(tl.t0)
	if span <= 0 || tl.clipped {
		return linear
	}
	// Activity: the agents' bars and every mark (a quiet stretch counts
	// only at its end: it is idle time by definition).
	type iv struct{ a, b time.Time }
	var act []iv
	add := func(a, b time.Time) {
		if a.IsZero() {
			return
		}
		if b.Before(a) {
			b = a
		}
		act = append(act, iv{a, b})
	}
	add(tl.t0, tl.t0)
	add(tl.t1, tl.t1)
	for _, l := range tl.lanes {
		if l.kind != "run" {
			add(l.start, l.end)
		}
		for _, m := range l.markers {
			add(m.t, m.t)
		}
	}
	slices.SortFunc(act, func(p, q iv) int { return p.a.Compare(q.a) })
	pad := max(span/200, time.Second)
	minGap := max(foldMinGap, time.Duration(float64(span)*foldMinShare))
	var gaps []iv
	var folded time.Duration
	end := act[0].b.Add(pad)
	for _, v := range act[1:] {
		if start := v.a.Add(-pad); start.Sub(end) >= minGap {
			gaps = append(gaps, iv{end, start})
			folded += start.Sub(end)
		}
		if e := v.b.Add(pad); e.After(end) {
			end = e
		}
	}
	if len(gaps) == 0 || float64(folded) < float64(span)*foldMinTotal {
		return linear
	}
	kept := span - folded
	perUnit := (plotW - foldW*float64(len(gaps))) / float64(kept)
	var out segments
	x, t := labelW, tl.t0
	for _, g := range gaps {
		w := float64(g.a.Sub(t)) * perUnit
		out = append(out, segment{t0: t, t1: g.a, x0: x, x1: x + w})
		x += w
		out = append(out, segment{t0: g.a, t1: g.b, x0: x, x1: x + foldW, folded: true})
		x += foldW
		t = g.b
	}
	out = append(out, segment{t0: t, t1: tl.t1, x0: x, x1: labelW + plotW})
	return out
}

// foldedLength says how long a folded stretch is, to the minute.
func foldedLength(d time.Duration) string {
	d = d.Round(time.Minute)
	h, m := int(d.Hours()), int(d.Minutes())%60
	switch {
	case h == 0:
		return fmt.Sprintf("%dm", m)
	case m == 0:
		return fmt.Sprintf("%dh", h)
	}
	return fmt.Sprintf("%dh %dm", h, m)
}

// noFinding adds to a killed or unfinished lane's tooltip why no rule
// reported its fact (whyNot: Document.WhyNoFinding).
func noFinding(l *lane, findingFacts map[string]bool, whyNot func(kind string, fact any) []WhyNot, kind string, fact any) {
	if findingFacts[l.id] || (!l.killed && (l.outcome == "" || l.outcome == "completed")) || whyNot == nil {
		return
	}
	ws := whyNot(kind, fact)
	if len(ws) == 0 {
		return
	}
	l.title += ". No finding; for each rule that selects it, what was false:"
	for _, w := range ws {
		l.title += " " + w.Sentence() + "."
	}
}
