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
	start, end := s.File.First(), s.File.Last()
	var out []WatchdogEvent
	lastGrowth, snap := start, start
	stalled, verdict := false, "none"
	tick := ceilGrid(origin, start, o.PWTick)
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
	return out
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
	start, end := s.File.First(), s.File.Last()
	var out []WatchdogEvent
	type kill struct {
		at         time.Time
		cause, msg string
		silence    float64
		order      int
	}
	var kills []kill

	// Inactivity: the first gap between rows longer than the window.
	last := start
	for i, w := range s.File.All() {
		if i == 0 {
			continue
		}
		if w.Sub(last) > o.HarnessInactivity {
			at := last.Add(o.HarnessInactivity)
			kills = append(kills, kill{at: at, cause: "inactivity-timeout", order: 0, silence: o.HarnessInactivity.Seconds(),
				msg: fmt.Sprintf("Aborted: no agent activity for %ds", int(o.HarnessInactivity/time.Second))})
			break
		}
		last = w
	}
	// Max duration: fires even while output keeps flowing.
	if end.Sub(start) > o.HarnessMaxDuration {
		at := start.Add(o.HarnessMaxDuration)
		m, _ := s.File.MtimeAt(at)
		kills = append(kills, kill{at: at, cause: "max-duration", order: 1, silence: at.Sub(m).Seconds(),
			msg: fmt.Sprintf("Aborted: exceeded max duration of %ds", int(o.HarnessMaxDuration/time.Second))})
	}
	// Tool silence.
	if win := o.ToolSilence(); win > 0 {
		armed := start
		done := completions(s.Completions)
		for {
			expiry := armed.Add(win)
			if !expiry.Before(end) {
				break
			}
			c, ok := done.after(armed)
			if ok && !c.After(expiry) {
				armed = c
				continue
			}
			if m, _ := s.File.MtimeAt(expiry); m.After(armed) {
				kills = append(kills, kill{at: expiry, cause: "no-tool-progress", order: 2, silence: expiry.Sub(m).Seconds(),
					msg: fmt.Sprintf("Aborted: the agent produced output but completed no tool call for %ds", int(win/time.Second))})
				break
			}
			// Elapsed in total silence: re-arm, skipping every window that
			// also ends before the next row.
			w, ok := s.File.NextWriteAfter(armed)
			if !ok {
				break
			}
			k := (w.Sub(armed) - 1) / win
			if k < 1 {
				k = 1
			}
			armed = armed.Add(k * win)
		}
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

func completions(s *model.Staircase) completionCursor {
	if s == nil {
		return completionCursor{}
	}
	return completionCursor{s.Cursor()}
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
