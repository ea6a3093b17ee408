package replay_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/pmcheck/pmcheck/analyze"
	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/analyze/replay"
	"github.com/pmcheck/pmcheck/analyze/transcript"
	"github.com/pmcheck/pmcheck/fixtures/gen/fleet"
)

// How a growth feeds the attempts' transcripts: a row at a time, a few rows
// at a time, pieces of bytes that end mid-row (a torn last row is read in
// full, into a transcript that shares nothing with the previous one), and
// a few rows at a time with twists: an attempt's outcome changed for a
// poll, its transcript rewritten shorter, or replaced for a poll by another
// attempt's rows under its name.
const (
	growRows = iota
	growChunks
	growBytes
	growTwists
)

var growModes = []string{"rows", "chunks", "bytes", "twists"}

// tightWatchdogs fire on the fixtures' seconds-apart rows: every watchdog's
// window is a few rows wide.
func tightWatchdogs() replay.WatchdogOptions {
	return replay.WatchdogOptions{
		PWTick: 7 * time.Second, PWInactivity: 20 * time.Second, PWKillAfter: 45 * time.Second,
		HarnessInactivity: 50 * time.Second, HarnessMaxDuration: 400 * time.Second, HarnessColdStart: 5 * time.Second,
		HarnessToolSilence: -1, RuntimeStall: 30 * time.Second, RuntimeMaxAttempts: 2,
	}
}

// growth is one finished Workflow run fed to the live watchdogs as its
// attempts' transcripts are written, through transcript followers as watch
// reads them.
type growth struct {
	t      *testing.T
	rng    *rand.Rand
	name   string
	run    *model.Run
	origin time.Time
	o      replay.WatchdogOptions
	mode   int
	data   [][]byte // each attempt's transcript file (nil: none)
	fed    []int    // bytes of it fed so far
	fol    []*transcript.Follower
	memo   replay.LiveMemo
	closed []string // each attempt's ClosedBy at the last poll
	// What the polls proved: polls compared, attempt polls whose
	// watchdogs went on from the previous poll's, and ones started again
	// from the first row after a twist.
	polls, resumed, restarted int
}

func newGrowth(t *testing.T, name string, run *model.Run, origin time.Time, o replay.WatchdogOptions, mode int, seed uint64) *growth {
	g := &growth{t: t, rng: rand.New(rand.NewPCG(seed, uint64(mode))), name: name, run: run, origin: origin, o: o, mode: mode,
		data: make([][]byte, len(run.Attempts)), fed: make([]int, len(run.Attempts)), fol: make([]*transcript.Follower, len(run.Attempts)),
		memo: replay.LiveMemo{}, closed: make([]string, len(run.Attempts))}
	for i, a := range run.Attempts {
		if a.Transcript == nil {
			continue
		}
		b, err := os.ReadFile(a.Transcript.File)
		if err != nil {
			t.Fatal(err)
		}
		g.data[i] = b
		g.fol[i] = transcript.NewFollower(a.Transcript.File, transcript.Options{})
	}
	return g
}

// piece is how many bytes of attempt i to feed next: whole rows, or any
// number of bytes.
func (g *growth) piece(i int) int {
	rest := g.data[i][g.fed[i]:]
	if g.mode == growBytes {
		return 1 + g.rng.IntN(min(len(rest), 400))
	}
	rows := 1
	if g.mode != growRows {
		rows = 1 + g.rng.IntN(6)
	}
	n := 0
	for ; rows > 0 && n < len(rest); rows-- {
		if nl := bytes.IndexByte(rest[n:], '\n'); nl >= 0 {
			n += nl + 1
		} else {
			n = len(rest)
		}
	}
	return n
}

// snapshot is attempt i's transcript as the bytes fed so far read (nil
// before its first byte).
func (g *growth) snapshot(i int) *model.Transcript {
	if g.fol[i] == nil || g.fed[i] == 0 {
		return nil
	}
	tr, err := g.fol[i].Snapshot()
	if errors.Is(err, transcript.ErrFullRead) {
		tr, err = transcript.Read(bytes.NewReader(g.data[i][:g.fed[i]]), g.run.Attempts[i].Transcript.File, transcript.Options{})
	}
	if err != nil {
		g.t.Fatalf("%s: attempt %d after %d bytes: %v", g.name, i, g.fed[i], err)
	}
	return tr
}

// rewrite starts attempt i's file again, shorter: its first rows, at most
// half of those fed.
func (g *growth) rewrite(i int) {
	keep := bytes.LastIndexByte(g.data[i][:g.fed[i]/2], '\n') + 1
	g.fol[i] = transcript.NewFollower(g.run.Attempts[i].Transcript.File, transcript.Options{})
	g.fol[i].Write(g.data[i][:keep])
	g.fed[i] = keep
}

// prefix is the run as its files stand: each attempt with its transcript
// so far, open until its transcript is written whole, then as it ended.
func (g *growth) prefix() *model.Run {
	r := *g.run
	r.Attempts = make([]*model.Attempt, len(g.run.Attempts))
	for i, a := range g.run.Attempts {
		c := *a
		if g.data[i] != nil {
			c.Transcript = g.snapshot(i)
			if g.fed[i] < len(g.data[i]) {
				c.ClosedBy, c.Closed, c.SupersededBy = "", nil, 0
			}
		}
		r.Attempts[i] = &c
	}
	return &r
}

// twist changes the run of one poll, or attempt i's file for good; it says
// whether attempt i is expected to start again.
func (g *growth) twist(r *model.Run, i int) (string, bool) {
	a := r.Attempts[i]
	switch g.rng.IntN(3) {
	case 0:
		if a.ClosedBy == model.OutcomeCompleted {
			a.ClosedBy = model.OutcomeFailed
		} else {
			a.ClosedBy = model.OutcomeCompleted
		}
		return "outcome changed", a.ClosedBy != g.closed[i]
	case 1:
		g.rewrite(i)
		a.Transcript = g.snapshot(i)
		return "rewritten shorter", false // a shorter file may have the same write times
	}
	for j := range r.Attempts {
		if j != i && g.data[j] != nil && !bytes.Equal(g.data[j], g.data[i]) {
			tr, err := transcript.Read(bytes.NewReader(g.data[j][:len(g.data[j])/2]), g.run.Attempts[i].Transcript.File, transcript.Options{})
			if err != nil {
				g.t.Fatal(err)
			}
			a.Transcript = tr
			return "replaced by another attempt's rows", false
		}
	}
	return "", false
}

// poll compares the live watchdogs through the memo with a replay of the
// run as it stands from every attempt's first row.
func (g *growth) poll(r *model.Run, grown int, twisted string, restart bool) {
	g.t.Helper()
	var before []any
	for _, a := range r.Attempts {
		before = append(before, replay.LiveState(g.memo, a.Key, a.Ordinal))
	}
	got := replay.AttemptWatchdogsLiveWith(r, g.origin, g.o, g.memo)
	for i, a := range r.Attempts {
		g.closed[i] = a.ClosedBy
	}
	want := replay.AttemptWatchdogsLiveWith(r, g.origin, g.o, nil)
	g.polls++
	if !reflect.DeepEqual(got, want) {
		g.t.Fatalf("%s (%s, %s): after %d bytes of attempt %d (%s):\nresumed:\n%s\nfrom the first row:\n%s", g.name, growModes[g.mode], optionsName(g.o),
			g.fed[grown], grown, twisted, eventLines(got), eventLines(want))
	}
	a := r.Attempts[grown]
	after := replay.LiveState(g.memo, a.Key, a.Ordinal)
	switch {
	case before[grown] == nil || after == nil:
	case after == before[grown]:
		if restart {
			g.t.Fatalf("%s: attempt %d was resumed after its %s", g.name, grown, twisted)
		}
		g.resumed++
	case twisted != "":
		g.restarted++
	}
}

func (g *growth) grow() {
	for {
		var open []int
		for i := range g.data {
			if g.fed[i] < len(g.data[i]) {
				open = append(open, i)
			}
		}
		if len(open) == 0 {
			break
		}
		i := open[g.rng.IntN(len(open))]
		n := g.piece(i)
		g.fol[i].Write(g.data[i][g.fed[i] : g.fed[i]+n])
		g.fed[i] += n
		r := g.prefix()
		var twisted string
		var restart bool
		if g.mode == growTwists && g.rng.IntN(3) == 0 {
			twisted, restart = g.twist(r, i)
		}
		g.poll(r, i, twisted, restart)
	}
}

func optionsName(o replay.WatchdogOptions) string {
	if o == tightWatchdogs() {
		return "tight watchdogs"
	}
	return "default watchdogs"
}

func eventLines(es []replay.WatchdogEvent) string {
	var b bytes.Buffer
	for _, e := range es {
		fmt.Fprintf(&b, "  %s %s %s %s att%d silence=%v %s/%s %q line %d\n", e.At.Format(time.RFC3339Nano), e.Source, e.Kind, e.Agent, e.Attempt,
			e.Silence, e.Predicted, e.Observed, e.Message, e.Where.Line)
	}
	return b.String()
}

// growAll grows run in every mode with both option sets and returns the
// totals.
func growAll(t *testing.T, name string, run *model.Run, origin time.Time) (polls, resumed, restarted, events int) {
	for _, o := range []replay.WatchdogOptions{replay.DefaultWatchdogOptions(), tightWatchdogs()} {
		for mode := range growModes {
			g := newGrowth(t, name, run, origin, o, mode, uint64(len(name)))
			g.grow()
			polls, resumed, restarted = polls+g.polls, resumed+g.resumed, restarted+g.restarted
		}
		events += len(replay.AttemptWatchdogsLiveWith(run, origin, o, nil))
	}
	return polls, resumed, restarted, events
}

// TestLiveWatchdogsResumeIsAReplay: on every Workflow fixture run, its
// attempts' transcripts written a row at a time, a few rows at a time and
// in pieces that end mid-row, in a random order across the attempts, the
// live watchdogs that go on from where the previous poll left each attempt
// give at every poll exactly the events of a replay of the run as it
// stands from every attempt's first row — with the default watchdogs and
// with windows a few rows wide, through the outcome each attempt takes when
// its transcript is whole, and through twists that must start an attempt
// again (its outcome changed for a poll, its file rewritten shorter, another
// attempt's rows under its name). Most polls resume.
func TestLiveWatchdogsResumeIsAReplay(t *testing.T) {
	matches, _ := filepath.Glob("../../fixtures/runs/*")
	var polls, resumed, restarted, events, runs int
	for _, dir := range matches {
		for _, run := range loadFixture(t, filepath.Base(dir)) {
			if run.Kind != model.KindWorkflow {
				continue
			}
			runs++
			origin := replay.Workflow(run, replay.Config{}).Start.At
			p, r, s, e := growAll(t, filepath.Base(dir), run, origin)
			polls, resumed, restarted, events = polls+p, resumed+r, restarted+s, events+e
		}
	}
	t.Logf("%d runs, %d polls, %d attempt polls resumed, %d started again after a twist, %d events when written whole", runs, polls, resumed, restarted, events)
	if runs < 15 || events < 50 || resumed < polls/2 || restarted < 10 {
		t.Fatalf("%d runs, %d polls, %d resumed, %d started again, %d events: the comparison proves little", runs, polls, resumed, restarted, events)
	}
}

// TestLiveWatchdogsResumeIsAReplayOnLongRuns: the same on generated
// Workflow runs (the watch benchmark's shape, small), whose agents all
// write until the end: rows minutes apart over six hours, and seconds
// apart over an hour.
func TestLiveWatchdogsResumeIsAReplayOnLongRuns(t *testing.T) {
	for _, c := range []struct {
		span         time.Duration
		agents, rows int
	}{{6 * time.Hour, 4, 40}, {time.Hour, 3, 80}} {
		dir := t.TempDir()
		if err := fleet.WriteWorkflow(dir, c.span, c.agents, c.rows); err != nil {
			t.Fatal(err)
		}
		run, err := analyze.LoadWorkflowRun(filepath.Join(dir, "60000000-0000-4000-8000-000000000006", "subagents", "workflows", "wf_bench0001"))
		if err != nil {
			t.Fatal(err)
		}
		origin := replay.Workflow(run, replay.Config{}).Start.At
		name := fmt.Sprintf("fleet %s %d×%d", c.span, c.agents, c.rows)
		polls, resumed, restarted, events := growAll(t, name, run, origin)
		t.Logf("%s: %d polls, %d resumed, %d started again after a twist, %d events when written whole", name, polls, resumed, restarted, events)
		if events < 10 || resumed < polls/2 {
			t.Fatalf("%s: %d polls, %d resumed, %d events: the comparison proves little", name, polls, resumed, events)
		}
	}
}
