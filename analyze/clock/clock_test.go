package clock

import (
	"strings"
	"testing"
	"time"

	"github.com/pmcheck/pmcheck/analyze/model"
)

var t0 = time.Date(2026, 5, 6, 9, 0, 0, 0, time.UTC)

func at(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }

// transcript builds a Transcript whose staircase has a step per given
// (line, seconds) pair, as the reader records running maxima.
func transcript(id string, steps ...[2]float64) *model.Transcript {
	t := &model.Transcript{File: "run/agent-" + id + ".jsonl", AgentID: id, Rows: 1}
	for _, s := range steps {
		t.Steps.Append(int(s[0]), at(s[1]))
	}
	if len(steps) > 0 {
		t.FirstRowLine, t.LastRowLine = 1, int(steps[len(steps)-1][0])+2
	}
	return t
}

func TestFile(t *testing.T) {
	f := FileOf(transcript("a", [2]float64{1, 10}, [2]float64{3, 20}, [2]float64{7, 35}))
	if f.ExistsAt(at(9.9)) || !f.ExistsAt(at(10)) {
		t.Error("a file exists from its first row's write time, not before")
	}
	if m, ok := f.MtimeAt(at(34)); !ok || !m.Equal(at(20)) {
		t.Errorf("mtime at 34 = %v", m)
	}
	if m, _ := f.MtimeAt(at(99)); !m.Equal(at(35)) {
		t.Errorf("mtime after the last row = %v", m)
	}
	if w, ok := f.NextWriteAfter(at(20)); !ok || !w.Equal(at(35)) {
		t.Errorf("next write after 20 = %v", w)
	}
	if !f.WroteIn(at(20), at(35)) || f.WroteIn(at(20), at(34.9)) || f.WroteIn(at(35), at(99)) {
		t.Error("WroteIn is the half-open span (from, to]")
	}
	if f.LineAt(at(21)) != 3 {
		t.Errorf("line at 21 = %d, want the line that reached 20", f.LineAt(at(21)))
	}
	if (File{}).Timed() || (File{}).ExistsAt(at(0)) {
		t.Error("an untimed file never exists on the clock")
	}
}

// TestJournalTimes walks through every inference rule of PRODUCT.md §3.
func TestJournalTimes(t *testing.T) {
	a := transcript("a1", [2]float64{1, 10}, [2]float64{4, 50})
	b := transcript("b1", [2]float64{1, 30}, [2]float64{2, 40})
	c := transcript("c1", [2]float64{1, 5}) // started after b, but its first row is earlier
	run := &model.Run{Agents: []*model.Transcript{a, b, c}, Journal: &model.Journal{File: "run/journal.jsonl", Lines: []model.JournalLine{
		{Line: 1, Index: 1, Type: "started", AgentID: "ghost"}, // no transcript, first line: the watch start
		{Line: 2, Index: 2, Type: "started", AgentID: "a1"},    // first row of a1: 10
		{Line: 3, Index: 3, Type: "started", AgentID: "b1"},    // 30
		{Line: 4, Index: 4, Type: "started", AgentID: "c1"},    // 5, raised to 30
		{Line: 5, Index: 5, Type: "result", AgentID: "a1"},     // last row of a1: 50
		{Line: 7, Index: 6, Type: "other"},                     // inherits 50
		{Line: 8, Index: 7, Type: "failed", AgentID: "b1"},     // 40, raised to 50
	}}}
	got := JournalTimes(run, at(2))
	want := []struct {
		at     float64
		rule   string
		raised bool
	}{{2, "watch-start", false}, {10, "first-row", false}, {30, "first-row", false}, {30, "first-row", true},
		{50, "last-row", false}, {50, "inherited", false}, {50, "last-row", true}}
	for i, w := range want {
		if !got[i].At.Equal(at(w.at)) || got[i].Rule != w.rule || got[i].Raised != w.raised {
			t.Errorf("line %d: %v %s raised=%v, want %v %s %v", i+1, got[i].At.Sub(t0), got[i].Rule, got[i].Raised, w.at, w.rule, w.raised)
		}
	}
	if e := got[3].Explain(); !strings.Contains(e, "first row of agent-c1.jsonl (run/agent-c1.jsonl:1)") || !strings.Contains(e, "raised") {
		t.Errorf("explain: %s", e)
	}
	times := JournalInstants(run, at(2))
	for i := range got {
		if !times[i].Equal(got[i].At) {
			t.Errorf("line %d: JournalInstants %v, JournalTimes %v", i+1, times[i].Sub(t0), got[i].At.Sub(t0))
		}
	}
	if TimeAfterLine(run.Journal, times, 6, at(2)) != at(50) || TimeAfterLine(run.Journal, times, 0, at(2)) != at(2) {
		t.Error("a malformed line inherits the time of the parsed line above it")
	}
}

func TestWatchStart(t *testing.T) {
	parent := transcript("", [2]float64{1, 0}, [2]float64{5, 7})
	run := &model.Run{Main: parent, Launch: &model.WorkflowLaunch{At: model.Evidence{File: "p.jsonl", Line: 6}},
		Agents:  []*model.Transcript{transcript("a1", [2]float64{1, 12})},
		Journal: &model.Journal{Lines: []model.JournalLine{{Line: 1, Index: 1, Type: "started", AgentID: "a1"}}}}
	if s := WatchStart(run, time.Time{}); s.Source != "launch" || !s.At.Equal(at(7)) {
		t.Errorf("launch row without evidence time: the parent's write time at its line: %+v", s)
	}
	run.Launch.At.Time = at(3)
	if s := WatchStart(run, time.Time{}); !s.At.Equal(at(3)) {
		t.Errorf("launch evidence time wins: %+v", s)
	}
	if s := WatchStart(run, at(100)); s.Source != "flag" || !s.At.Equal(at(100)) {
		t.Errorf("--start overrides: %+v", s)
	}
	run.Launch = nil
	if s := WatchStart(run, time.Time{}); s.Source != "journal" || !s.At.Equal(at(12)) {
		t.Errorf("no launch: the first journal line's time: %+v", s)
	}
	run.Agents = nil
	if s := WatchStart(run, time.Time{}); s.Source != "epoch" || !s.At.Equal(Epoch) {
		t.Errorf("nothing timed: %+v", s)
	}
}

func TestFormat(t *testing.T) {
	if got := Format(time.Date(2026, 5, 6, 11, 4, 55, 0, time.FixedZone("x", 7200))); got != "2026-05-06T09:04:55Z" {
		t.Errorf("Format = %s", got)
	}
	if got := Format(at(0.5)); got != "2026-05-06T09:00:00.5Z" {
		t.Errorf("Format = %s", got)
	}
}
