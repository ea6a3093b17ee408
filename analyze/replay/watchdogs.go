package replay

import (
	"fmt"
	"sort"
	"time"

	"github.com/pmcheck/pmcheck/analyze/clock"
	"github.com/pmcheck/pmcheck/analyze/model"
)

// Watchdog sources, as WatchdogFact.Source names them.
const (
	SourceWatch           = "watch"
	SourceProgressWatch   = "progresswatch"
	SourceHarness         = "harness"
	SourceWorkflowRuntime = "workflow-runtime"
)

// WatchdogOptions are the other watchdogs' settings, with
// their own defaults in DefaultWatchdogOptions.
type WatchdogOptions struct {
	// ProgressWatch (bernstein's dispatch-loop watchdog): the loop's tick, the
	// stall threshold (sigterm verdict) and the sigkill threshold.
	PWTick, PWInactivity, PWKillAfter time.Duration
	// Executor-harness (cat-factory's watchdogs). ToolSilence < 0 means the
	// harness's derived default max(round(MaxDuration/2), Inactivity); 0
	// disables that watchdog, as does ColdStart 0.
	HarnessInactivity, HarnessMaxDuration, HarnessColdStart, HarnessToolSilence time.Duration
	// Workflow runtime: a stall window and the attempts per agent.
	RuntimeStall       time.Duration
	RuntimeMaxAttempts int
}

// DefaultWatchdogOptions: ProgressWatch 30s/120s/300s; harness 600s
// inactivity, 3600s max duration, 120s cold start, derived tool silence;
// Workflow runtime 180s, 6 attempts.
func DefaultWatchdogOptions() WatchdogOptions {
	return WatchdogOptions{
		PWTick: 30 * time.Second, PWInactivity: 120 * time.Second, PWKillAfter: 300 * time.Second,
		HarnessInactivity: 600 * time.Second, HarnessMaxDuration: 3600 * time.Second, HarnessColdStart: 120 * time.Second,
		HarnessToolSilence: -1,
		RuntimeStall:       180 * time.Second, RuntimeMaxAttempts: 6,
	}
}

// Validate rejects settings the watchdogs themselves refuse.
func (o WatchdogOptions) Validate() error {
	switch {
	case o.PWTick <= 0:
		return fmt.Errorf("--pw-tick must be positive (got %s)", o.PWTick)
	case o.PWInactivity <= 0:
		return fmt.Errorf("--pw-inactivity must be positive (ProgressWatch: inactivity_seconds must be positive)")
	case o.PWKillAfter < o.PWInactivity:
		return fmt.Errorf("--pw-kill-after must be >= --pw-inactivity (ProgressWatch: kill_after_inactivity_seconds must be >= inactivity_seconds)")
	case o.HarnessInactivity <= 0 || o.HarnessMaxDuration <= 0:
		return fmt.Errorf("--harness-inactivity and --harness-max-duration must be positive")
	case o.HarnessColdStart < 0:
		return fmt.Errorf("--harness-cold-start must not be negative (0 disables it)")
	case o.RuntimeStall <= 0 || o.RuntimeMaxAttempts <= 0:
		return fmt.Errorf("--runtime-stall and --runtime-max-attempts must be positive")
	}
	return nil
}

// ToolSilence is the effective tool-silence window.
func (o WatchdogOptions) ToolSilence() time.Duration {
	if o.HarnessToolSilence >= 0 {
		return o.HarnessToolSilence
	}
	half := (o.HarnessMaxDuration + time.Millisecond/2) / 2 / time.Millisecond * time.Millisecond
	return max(half, o.HarnessInactivity)
}

// WatchdogEvent is one event of a replayed watchdog on the simulated clock.
type WatchdogEvent struct {
	At      time.Time `json:"time"`
	Source  string    `json:"source"`
	Kind    string    `json:"kind"`
	Agent   string    `json:"agent"`
	AgentID string    `json:"agent_id,omitempty"`
	Key     string    `json:"key,omitempty"`
	Attempt int       `json:"attempt,omitempty"`
	// Silence in seconds at the event, -1 when not applicable.
	Silence   float64        `json:"silence_seconds"`
	Predicted string         `json:"predicted,omitempty"`
	Observed  string         `json:"observed,omitempty"`
	Message   string         `json:"message"`
	Where     model.Evidence `json:"where,omitzero"`
}

// agentStream is one attempt's transcript as the watchdogs see it: it starts at
// its first row, ends at its last, every later row is activity, and a user
// row carrying a tool_result completes a tool call.
type agentStream struct {
	Agent   string
	AgentID string
	Key     string
	Attempt int
	Path    string
	File    clock.File
	// Completions are the write times of rows carrying a tool_result, read
	// in place from the transcript (nil: none).
	Completions *model.Staircase
}

// streamOf builds the stream of one transcript.
func streamOf(t *model.Transcript, agent, key string, attempt int) agentStream {
	return agentStream{Agent: agent, AgentID: t.AgentID, Key: key, Attempt: attempt, Path: t.File, File: clock.FileOf(t), Completions: &t.Completions}
}

func (s agentStream) event(at time.Time, source, kind string, silence float64, msg string) WatchdogEvent {
	return WatchdogEvent{At: at, Source: source, Kind: kind, Agent: s.Agent, AgentID: s.AgentID, Key: s.Key, Attempt: s.Attempt,
		Silence: silence, Message: msg, Where: model.Evidence{File: s.Path, Line: s.File.LineAt(at), Time: at}}
}

// ceilGrid is the first instant origin + k·tick at or after t.
func ceilGrid(origin, t time.Time, tick time.Duration) time.Time {
	d := t.Sub(origin)
	if d <= 0 {
		return origin.Add(-(-d / tick) * tick)
	}
	return origin.Add((d + tick - 1) / tick * tick)
}

// progressWatch replays bernstein's ProgressWatch over one stream: the loop
// ticks at origin + k·tick; the stream is registered at its first row (the
// snapshot is the file then, and its last growth is that instant) and
// unregistered at its last. Growth is noticed only at a tick and the last
// growth becomes that tick. A stall fires at the first tick with idle ≥
// inactivity, once per idle stretch; after each tick the kill verdict is
// none, sigterm (idle ≥ inactivity) or sigkill (idle ≥ kill-after, measured
// from the last growth). Each stall and each verdict change is an event.
// Only ticks at which something can change are visited.
func progressWatch(s agentStream, origin time.Time, o WatchdogOptions) []WatchdogEvent {
	if !s.File.Timed() {
		return nil
	}
	p := newProgressLoop(s, origin, o)
	p.run(s, origin, o)
	return p.out
}

// progressLoop is ProgressWatch's loop over one stream between two ticks:
// the next tick to visit and what the loop knows then. Run to the stream's
// last row, it stops at the first tick at or after it; the stream read
// further (rows appended, later than every row before), the loop goes on
// from there and visits the ticks a run over the longer stream from its
// first row visits, with the same events: until that tick no decision of
// the loop read a row after it (each jump is to a write it had, or a
// threshold, before the old last row).
type progressLoop struct {
	tick, lastGrowth, snap time.Time
	stalled                bool
	verdict                string
	out                    []WatchdogEvent
}

func newProgressLoop(s agentStream, origin time.Time, o WatchdogOptions) progressLoop {
	start := s.File.First()
	return progressLoop{tick: ceilGrid(origin, start, o.PWTick), lastGrowth: start, snap: start, verdict: "none"}
}

// run visits the ticks before the stream's last row.
func (p *progressLoop) run(s agentStream, origin time.Time, o WatchdogOptions) {
	end := s.File.Last()
	tick, lastGrowth, snap, stalled, verdict, out := p.tick, p.lastGrowth, p.snap, p.stalled, p.verdict, p.out
	for tick.Before(end) {
		if s.File.WroteIn(snap, tick) {
			lastGrowth, stalled = tick, false
		}
		snap = tick
		idle := tick.Sub(lastGrowth)
		if idle >= o.PWInactivity && !stalled {
			stalled = true
			out = append(out, s.event(tick, SourceProgressWatch, "stall", idle.Seconds(),
				fmt.Sprintf("agent.progress_stalled: log idle %ds (last growth %s)", pyRound(idle.Seconds()), clock.Format(lastGrowth))))
		}
		v := "none"
		switch {
		case idle >= o.PWKillAfter:
			v = "sigkill"
		case idle >= o.PWInactivity:
			v = "sigterm"
		}
		if v != verdict {
			verdict = v
			msg := map[string]string{"none": "log still growing", "sigterm": "inactivity threshold crossed", "sigkill": "kill-after threshold crossed"}[v]
			out = append(out, s.event(tick, SourceProgressWatch, v, idle.Seconds(), "kill_if_stale: "+v+" ("+msg+")"))
		}
		// Jump to the next tick at which growth is noticed or a threshold is crossed.
		next := end
		if w, ok := s.File.NextWriteAfter(snap); ok && w.Before(next) {
			next = w
		}
		for _, thr := range []time.Duration{o.PWInactivity, o.PWKillAfter} {
			if t := lastGrowth.Add(thr); t.After(tick) && t.Before(next) {
				next = t
			}
		}
		nt := ceilGrid(origin, next, o.PWTick)
		if !nt.After(tick) {
			nt = tick.Add(o.PWTick)
		}
		tick = nt
	}
	p.tick, p.lastGrowth, p.snap, p.stalled, p.verdict, p.out = tick, lastGrowth, snap, stalled, verdict, out
}

// harnessEvents replays the executor-harness watchdogs over one stream: inactivity
// (armed at the stream start, reset by every row), max duration, the cold
// start diagnostic (never a kill), and tool silence (a window opened at the
// stream start, re-armed by each completed tool call; on expiry it fires
// only when activity arrived after it was armed, else it re-arms). The first
// watchdog to fire names the cause. Rows written at an instant are seen
// before a timer expiring at that same instant.
func harnessEvents(s agentStream, o WatchdogOptions) []WatchdogEvent {
	if !s.File.Timed() {
		return nil
	}
	h := newHarnessScan(s)
	h.run(s, o)
	return h.appendEvents(nil, s, o)
}

// harnessKill is one of the harness's watchdogs firing: the first to fire
// (the earliest, by order at the same instant) kills the agent.
type harnessKill struct {
	at         time.Time
	cause, msg string
	silence    float64
	order      int
}

// harnessScan is the executor harness's watchdogs over a stream read up to
// some row: the inactivity scan's position and its kill once found, and
// the tool-silence window's arming, its completions read and its kill once
// found. What depends on the stream's end (max duration, which of the kills
// comes first, the cold start checked against it) is decided from it by
// appendEvents, for the stream as it stands; run over the stream read
// further goes on from there, with the answer a scan from the first row
// gives (no step of either scan read a row after the old end).
type harnessScan struct {
	// Inactivity: the next write to compare with the last one.
	next           int
	last           time.Time
	inactivity     harnessKill
	inactive, tool bool // a kill was found
	// Tool silence: the window's start, the completions read (the cursor's
	// index) and its kill.
	armed   time.Time
	read    int
	silence harnessKill
}

func newHarnessScan(s agentStream) harnessScan {
	start := s.File.First()
	return harnessScan{next: 1, last: start, armed: start, read: -1}
}

// run reads the stream's rows after those read before.
func (h *harnessScan) run(s agentStream, o WatchdogOptions) {
	if !h.inactive {
		h.scanInactivity(s, o)
	}
	if win := o.ToolSilence(); win > 0 && !h.tool && h.armed.Add(win).Before(s.File.Last()) {
		h.scanToolSilence(s, win)
	}
}

// scanInactivity looks for the first gap between rows longer than the window.
func (h *harnessScan) scanInactivity(s agentStream, o WatchdogOptions) {
	for i, w := range s.File.From(h.next) {
		h.next = i + 1
		if w.Sub(h.last) > o.HarnessInactivity {
			at := h.last.Add(o.HarnessInactivity)
			h.inactivity, h.inactive = harnessKill{at: at, cause: "inactivity-timeout", order: 0, silence: o.HarnessInactivity.Seconds(),
				msg: fmt.Sprintf("Aborted: no agent activity for %ds", int(o.HarnessInactivity/time.Second))}, true
			return
		}
		h.last = w
	}
}

// scanToolSilence moves the tool-silence window over the rows before the
// stream's last: it fires at the first expiry with activity since it was
// armed and no completed tool call.
func (h *harnessScan) scanToolSilence(s agentStream, win time.Duration) {
	end := s.File.Last()
	done := completionsFrom(s.Completions, h.read)
	defer func() { h.read = done.index() }()
	for {
		expiry := h.armed.Add(win)
		if !expiry.Before(end) {
			return
		}
		c, ok := done.after(h.armed)
		if ok && !c.After(expiry) {
			h.armed = c
			continue
		}
		if m, _ := s.File.MtimeAt(expiry); m.After(h.armed) {
			h.silence, h.tool = harnessKill{at: expiry, cause: "no-tool-progress", order: 2, silence: expiry.Sub(m).Seconds(),
				msg: fmt.Sprintf("Aborted: the agent produced output but completed no tool call for %ds", int(win/time.Second))}, true
			return
		}
		// Elapsed in total silence: re-arm, skipping every window that
		// also ends before the next row.
		w, ok := s.File.NextWriteAfter(h.armed)
		if !ok {
			return
		}
		k := (w.Sub(h.armed) - 1) / win
		if k < 1 {
			k = 1
		}
		h.armed = h.armed.Add(k * win)
	}
}

// appendEvents appends the harness's events over the stream as it stands
// (read by run up to its last row): the cold start diagnostic, and the kill
// of the first watchdog to fire.
func (h *harnessScan) appendEvents(out []WatchdogEvent, s agentStream, o WatchdogOptions) []WatchdogEvent {
	start, end := s.File.First(), s.File.Last()
	var kills []harnessKill
	if h.inactive {
		kills = append(kills, h.inactivity)
	}
	// Max duration: fires even while output keeps flowing.
	if end.Sub(start) > o.HarnessMaxDuration {
		at := start.Add(o.HarnessMaxDuration)
		m, _ := s.File.MtimeAt(at)
		kills = append(kills, harnessKill{at: at, cause: "max-duration", order: 1, silence: at.Sub(m).Seconds(),
			msg: fmt.Sprintf("Aborted: exceeded max duration of %ds", int(o.HarnessMaxDuration/time.Second))})
	}
	if h.tool {
		kills = append(kills, h.silence)
	}
	sort.SliceStable(kills, func(i, j int) bool {
		if !kills[i].at.Equal(kills[j].at) {
			return kills[i].at.Before(kills[j].at)
		}
		return kills[i].order < kills[j].order
	})
	// Cold start: a diagnostic when no activity by then (never a kill).
	if o.HarnessColdStart > 0 && s.File.Len() > 1 {
		if first := s.File.Write(1); first.Sub(start) > o.HarnessColdStart && (len(kills) == 0 || !kills[0].at.Before(start.Add(o.HarnessColdStart))) {
			out = append(out, s.event(start.Add(o.HarnessColdStart), SourceHarness, "cold-start", o.HarnessColdStart.Seconds(),
				fmt.Sprintf("agent produced no output %ds after start; possible onboarding/auth wedge", int(o.HarnessColdStart/time.Second))))
		}
	}
	if len(kills) > 0 {
		k := kills[0]
		e := s.event(k.at, SourceHarness, k.cause, k.silence, k.msg)
		e.Predicted = "kill"
		out = append(out, e)
	}
	return out
}

// completionCursor walks a stream's completions forward: the transcript's
// staircase, whose instants never go down (a completion is at its row's write
// time). Completions above the file's first timestamp have none and are
// skipped.
type completionCursor struct{ c *model.Cursor }

// completionsFrom is a cursor on the completion of index read (before the
// first when read < 0).
func completionsFrom(s *model.Staircase, read int) completionCursor {
	if s == nil {
		return completionCursor{}
	}
	return completionCursor{s.CursorAt(read)}
}

// index is the index of the last completion moved past (-1: none).
func (cc completionCursor) index() int {
	if cc.c == nil {
		return -1
	}
	return cc.c.Index()
}

// after returns the first completion strictly after at, moving past every
// completion at or before it; false when there is none. at must not go
// down between calls.
func (cc completionCursor) after(at time.Time) (time.Time, bool) {
	if cc.c == nil {
		return time.Time{}, false
	}
	for {
		st, ok := cc.c.Peek()
		if !ok {
			return time.Time{}, false
		}
		if t := st.At(); !t.IsZero() && t.After(at) {
			return t, true
		}
		cc.c.Next()
	}
}
