package replay

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/pmcheck/pmcheck/analyze/clock"
	"github.com/pmcheck/pmcheck/analyze/model"
)

func sec(n float64) time.Duration { return time.Duration(n * float64(time.Second)) }

func stream(writes []float64, completions []float64) agentStream {
	s := agentStream{Agent: "a:test", AgentID: "test"}
	var ws []time.Time
	for _, w := range writes {
		at := t0.Add(sec(w))
		if n := len(ws); n == 0 || at.After(ws[n-1]) {
			ws = append(ws, at)
		}
	}
	s.File = clock.Writes(ws...)
	s.Completions = new(model.Staircase)
	for i, c := range completions {
		s.Completions.Append(i+1, t0.Add(sec(c)))
	}
	return s
}

func kinds(es []WatchdogEvent) string {
	out := ""
	for _, e := range es {
		out += fmt.Sprintf("%s@%g ", e.Kind, e.At.Sub(t0).Seconds())
	}
	return out
}

// ProgressWatch, on bernstein's own test shapes (inactivity 60, kill-after
// 120): no stall before the window, one stall at it, no re-emit while idle,
// growth clears the sticky state and the verdict, and a fresh stall after
// another window; sigkill is measured from the last growth.
func TestProgressWatchLikeBernstein(t *testing.T) {
	o := DefaultWatchdogOptions()
	o.PWInactivity, o.PWKillAfter, o.PWTick = sec(60), sec(120), sec(30)
	// registered at 0; idle until a write at 200 (noticed at tick 210);
	// idle again until the stream ends at 400.
	got := kinds(progressWatch(stream([]float64{0, 200, 400}, nil), t0, o))
	want := "stall@60 sigterm@60 sigkill@120 none@210 stall@270 sigterm@270 sigkill@330 "
	if got != want {
		t.Errorf("events %s\nwant   %s", got, want)
	}
	// A log that keeps growing between ticks never stalls.
	if got := kinds(progressWatch(stream([]float64{0, 20, 50, 80, 110, 140, 170, 200}, nil), t0, o)); got != "" {
		t.Errorf("growing log: %s", got)
	}
	// Registration seeds the snapshot: a tick right after it reports nothing.
	if got := kinds(progressWatch(stream([]float64{0, 1}, nil), t0, o)); got != "" {
		t.Errorf("fresh registration: %s", got)
	}
}

// naiveProgressWatch visits every tick; the real one jumps. They must agree.
func naiveProgressWatch(s agentStream, origin time.Time, o WatchdogOptions) string {
	start, end := s.File.First(), s.File.Last()
	out := ""
	lastGrowth, snap, stalled, verdict := start, start, false, "none"
	for tick := ceilGrid(origin, start, o.PWTick); tick.Before(end); tick = tick.Add(o.PWTick) {
		if s.File.WroteIn(snap, tick) {
			lastGrowth, stalled = tick, false
		}
		snap = tick
		idle := tick.Sub(lastGrowth)
		if idle >= o.PWInactivity && !stalled {
			stalled = true
			out += fmt.Sprintf("stall@%g ", tick.Sub(t0).Seconds())
		}
		v := "none"
		if idle >= o.PWKillAfter {
			v = "sigkill"
		} else if idle >= o.PWInactivity {
			v = "sigterm"
		}
		if v != verdict {
			verdict = v
			out += fmt.Sprintf("%s@%g ", v, tick.Sub(t0).Seconds())
		}
	}
	return out
}

func TestProgressWatchJumpsLikeEveryTick(t *testing.T) {
	for seed := uint64(1); seed <= 500; seed++ {
		r := rand.New(rand.NewPCG(seed, 7))
		o := DefaultWatchdogOptions()
		o.PWTick = sec(float64(1 + r.IntN(40)))
		o.PWInactivity = sec(float64(10 + r.IntN(200)))
		o.PWKillAfter = o.PWInactivity + sec(float64(r.IntN(300)))
		var ws []float64
		at := float64(r.IntN(50))
		for i := 0; i < 1+r.IntN(30); i++ {
			ws = append(ws, at)
			at += float64(r.IntN(400)) / 2
		}
		s := stream(ws, nil)
		origin := t0.Add(-sec(float64(r.IntN(30))))
		if a, b := kinds(progressWatch(s, origin, o)), naiveProgressWatch(s, origin, o); a != b {
			t.Fatalf("seed %d: jumped %q, every tick %q", seed, a, b)
		}
	}
}

// The executor-harness watchdogs on the shapes cat-factory's runner tests use.
func TestHarness(t *testing.T) {
	o := DefaultWatchdogOptions()
	every := func(step, until float64) []float64 {
		var out []float64
		for x := 0.0; x <= until; x += step {
			out = append(out, x)
		}
		return out
	}
	cases := []struct {
		name        string
		o           func(*WatchdogOptions)
		writes      []float64
		completions []float64
		want        string
	}{
		{"chatty run with no tool calls is no-tool-progress", func(o *WatchdogOptions) { o.HarnessMaxDuration = sec(36000); o.HarnessToolSilence = sec(1800) },
			every(60, 7200), nil, "no-tool-progress@1800 "},
		{"tool calls keep it alive (until max duration)", func(o *WatchdogOptions) { o.HarnessToolSilence = sec(1800) },
			every(60, 7200), every(60, 7200), "max-duration@3600 "},
		{"max duration fires while output flows", nil, every(30, 4000), every(30, 4000), "max-duration@3600 "},
		{"a quiet run is an inactivity kill even with a shorter tool window", func(o *WatchdogOptions) { o.HarnessToolSilence = sec(300) },
			[]float64{0, 2000}, nil, "cold-start@120 inactivity-timeout@600 "},
		{"quiet then chatty is caught one full window later", func(o *WatchdogOptions) { o.HarnessToolSilence = sec(300); o.HarnessInactivity = sec(1000) },
			append([]float64{0}, every(10, 900)[50:]...), nil, "cold-start@120 no-tool-progress@600 "},
		{"a zero window disables tool silence", func(o *WatchdogOptions) { o.HarnessToolSilence = 0; o.HarnessMaxDuration = sec(36000) },
			every(60, 7200), nil, ""},
		{"cold start is a diagnostic, not a kill", nil, []float64{0, 130, 200}, []float64{200}, "cold-start@120 "},
		{"no cold start when output arrives promptly", nil, []float64{0, 5, 200}, nil, ""},
		{"cold start disabled with 0", func(o *WatchdogOptions) { o.HarnessColdStart = 0 }, []float64{0, 130}, nil, ""},
		{"activity exactly at the inactivity expiry resets it", nil, []float64{0, 600, 1200}, nil, "cold-start@120 "},
	}
	for _, c := range cases {
		oo := o
		if c.o != nil {
			c.o(&oo)
		}
		if got := kinds(harnessEvents(stream(c.writes, c.completions), oo)); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}

func TestToolSilenceDefault(t *testing.T) {
	o := DefaultWatchdogOptions()
	if got := o.ToolSilence(); got != sec(1800) {
		t.Errorf("default tool silence %s, want 30m", got)
	}
	o.HarnessMaxDuration = sec(1200)
	if got := o.ToolSilence(); got != sec(600) {
		t.Errorf("with max duration 20m: %s, want the inactivity floor 10m", got)
	}
	o.HarnessToolSilence = sec(60)
	if got := o.ToolSilence(); got != sec(60) {
		t.Errorf("an explicit value is not floored: %s", got)
	}
	o.PWKillAfter = sec(10)
	if o.Validate() == nil {
		t.Error("kill-after below inactivity must be refused, as ProgressWatch refuses it")
	}
}

func TestRuntimeStall(t *testing.T) {
	o := DefaultWatchdogOptions()
	s := stream([]float64{0, 10, 190}, nil)
	if e := runtimeStall(s, s.File.Last(), o); e == nil || e.At.Sub(t0) != sec(190) {
		t.Errorf("a 180s gap is a stall at its end: %+v", e)
	}
	s = stream([]float64{0, 10, 189}, nil)
	if e := runtimeStall(s, s.File.Last(), o); e != nil {
		t.Errorf("179s is not a stall: %+v", e)
	}
	if e := runtimeStall(s, t0.Add(sec(400)), o); e == nil || e.At.Sub(t0) != sec(369) {
		t.Errorf("an attempt still running after its last row stalls 180s later: %+v", e)
	}
	if e := runtimeStall(agentStream{File: clock.File{}}, t0, o); e != nil {
		t.Error("no transcript, no prediction")
	}
}
