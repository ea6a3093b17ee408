package replay

import (
	"fmt"
	"github.com/pmcheck/pmcheck/internal/allocs"
	"runtime"
	"testing"
	"time"

	"github.com/pmcheck/pmcheck/analyze/clock"
	"github.com/pmcheck/pmcheck/analyze/model"
)

// stretchedWorld is the same run (keys × attempts × rows, a kill and retry
// on every key) laid out over span: only the gaps between rows change.
func stretchedWorld(span time.Duration) *World {
	const keys, rows = 20, 50
	w := &World{RunID: "wf_bench", Start: t0, Agents: map[string]*Agent{}, HasJournal: true}
	gap := span / time.Duration(keys*2*rows+10)
	at := t0.Add(gap)
	var lines []journalLine
	for k := 0; k < keys; k++ {
		key := fmt.Sprintf("v2:bench%02d", k)
		for n := 1; n <= 2; n++ {
			id := fmt.Sprintf("ab%02d%014d", k, n)
			var writes []time.Time
			for r := 0; r < rows; r++ {
				writes = append(writes, at)
				at = at.Add(gap)
			}
			f := clock.Writes(writes...)
			a := &Agent{ID: id, File: f, HasLastUser: true, LastUserAt: f.Last(), HasLast: true, LastEventAt: f.Last(),
				SilenceKnown: true, SilenceSeconds: gap.Seconds(), Cause: Cause{Phrase: CauseNotRecorded}}
			a.LastUserKill = n == 1
			w.Agents[id] = a
			lines = append(lines, journalLine{At: f.First(), Kind: LineStarted, Key: key, AgentID: id})
			if n == 2 {
				lines = append(lines, journalLine{At: f.Last(), Kind: LineResult, Key: key, AgentID: id})
			}
		}
	}
	// started lines of attempt 2 come after attempt 1's rows; keep file order by time
	for i := 1; i < len(lines); i++ {
		for j := i; j > 0 && lines[j].At.Before(lines[j-1].At); j-- {
			lines[j], lines[j-1] = lines[j-1], lines[j]
		}
	}
	w.Lines, w.JournalAt = lines, lines[0].At
	return w
}

// TestSixHoursCostLikeSixMinutes: the event-driven engine visits about as
// many polls for a run stretched over six hours as for the same rows in six
// minutes, and prints the same lines apart from their times, while the
// reference poller's cost grows sixtyfold.
func TestSixHoursCostLikeSixMinutes(t *testing.T) {
	opt := DefaultOptions()
	opt.MaxHours = 7
	short, long := stretchedWorld(6*time.Minute), stretchedWorld(6*time.Hour)
	a, b := replayWorld(short, opt, nil), replayWorld(long, opt, nil)
	// Compressed, several rows share a poll, so the order of lines within a
	// poll and the rate limit differ; the same events must still be printed.
	bag := func(o Outcome) map[string]int {
		m := map[string]int{}
		for _, e := range o.Events {
			m[e.Kind+" "+e.Agent]++
		}
		return m
	}
	if fmt.Sprint(bag(a)) != fmt.Sprint(bag(b)) || a.Exit != b.Exit {
		t.Fatalf("the stretched run prints other events:\n%v\n%v", bag(a), bag(b))
	}
	if float64(b.Polls) > 1.2*float64(a.Polls)+2 {
		t.Errorf("six hours visit %d polls, six minutes %d: cost grows with duration", b.Polls, a.Polls)
	}
	ref := replayReference(long, opt, nil)
	if ref.Polls < 10*b.Polls {
		t.Errorf("reference %d polls vs event-driven %d: the benchmark shape does not exercise skipping", ref.Polls, b.Polls)
	}
	t.Logf("polls: 6 min %d, 6 h %d (reference poller: 6 h %d); events %d", a.Polls, b.Polls, ref.Polls, len(b.Events))
}

func BenchmarkReplaySixMinutes(b *testing.B) {
	w, opt := stretchedWorld(6*time.Minute), DefaultOptions()
	opt.MaxHours = 7
	for b.Loop() {
		replayWorld(w, opt, nil)
	}
}

func BenchmarkReplaySixHours(b *testing.B) {
	w, opt := stretchedWorld(6*time.Hour), DefaultOptions()
	opt.MaxHours = 7
	for b.Loop() {
		replayWorld(w, opt, nil)
	}
}

func BenchmarkReferenceSixHours(b *testing.B) {
	w, opt := stretchedWorld(6*time.Hour), DefaultOptions()
	opt.MaxHours = 7
	for b.Loop() {
		replayReference(w, opt, nil)
	}
}

// orphanWorld is n attempts that never return, then n result lines that
// close none of them (orphans), one second apart.
func orphanWorld(n int) *World {
	w := &World{RunID: "wf_orphans", Start: t0, Agents: map[string]*Agent{}, HasJournal: true}
	at := t0
	for i := range n {
		w.Lines = append(w.Lines, journalLine{At: at, Kind: LineStarted, Key: fmt.Sprintf("k%d", i), AgentID: fmt.Sprintf("a%d", i)})
	}
	for i := range n {
		at = at.Add(time.Millisecond)
		w.Lines = append(w.Lines, journalLine{At: at, Kind: LineResult, Key: fmt.Sprintf("x%d", i), AgentID: fmt.Sprintf("z%d", i)})
	}
	w.JournalAt = t0
	return w
}

// BenchmarkReplayOrphanResults (issue 12, item 12): the watcher closes an
// agent's latest open occurrence from a per-agent stack, so orphan results
// cost O(1) each instead of a scan back over every occurrence. ns/op grows
// about linearly from 5k to 20k.
func BenchmarkReplayOrphanResults(b *testing.B) {
	opt := DefaultOptions()
	for _, n := range []int{5000, 20000} {
		w := orphanWorld(n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				replayWorld(w, opt, nil)
			}
		})
	}
}

// TestOrphanResultsCostOneLookupEach (issue 12, item 12;
// BenchmarkReplayOrphanResults shows the time): the replayed watcher closes
// a result's agent's latest open occurrence from a stack; it used to scan
// back over every occurrence for each result (n² for orphans).
func TestOrphanResultsCostOneLookupEach(t *testing.T) {
	looked := 0
	countLooked = func(n int) { looked += n }
	defer func() { countLooked = nil }()
	for _, n := range []int{1000, 4000} {
		w := orphanWorld(n)
		at := w.Lines[len(w.Lines)-1].At
		for i := range n {
			at = at.Add(time.Millisecond)
			w.Lines = append(w.Lines, journalLine{At: at, Kind: LineResult, Key: fmt.Sprintf("k%d", i), AgentID: fmt.Sprintf("a%d", i)})
		}
		looked = 0
		replayWorld(w, DefaultOptions(), nil)
		if looked != n {
			t.Errorf("n=%d: %d occurrences looked at for %d results (%d closing): want one per closing result", n, looked, 2*n, n)
		}
	}
}

// TestReplayAllocatesLittlePerStartedLine (issue 12, started-200k): the
// watcher makes its occurrences in chunks, keeps each agent's open ones as a
// stack linked through them, and finds each key's newest occurrence in a
// list, where it allocated an occurrence and a one-element stack per
// started line (2.03 allocations per line; now 0.03). 4x the lines must
// stay 4x the cost, and well under one allocation per line.
func TestReplayAllocatesLittlePerStartedLine(t *testing.T) {
	allocs.SkipUnderRace(t)
	allocs := func(n int) float64 {
		w := orphanWorld(n)
		return testing.AllocsPerRun(3, func() { replayWorld(w, DefaultOptions(), nil) })
	}
	small, large := allocs(2000), allocs(8000)
	t.Logf("allocations: %.0f for 2,000 started lines (and as many orphan results), %.0f for 8,000", small, large)
	if per := large / 8000; per > 0.2 {
		t.Errorf("%.2f allocations per started line, want at most 0.2", per)
	}
}

// oneKeyRun is a Workflow run whose journal started one key n times, each
// attempt superseding the one before (no transcripts).
func oneKeyRun(n int) *model.Run {
	run := &model.Run{Kind: model.KindWorkflow, ID: "wf_one", Path: "s/subagents/workflows/wf_one"}
	slab := make([]model.Attempt, n)
	for i := range slab {
		slab[i] = model.Attempt{Key: "v2:one", Ordinal: i + 1, AgentID: fmt.Sprintf("a%015d", i), Started: model.Evidence{File: "j", Line: i + 1, Time: t0}}
		if i+1 < n {
			slab[i].SupersededBy = i + 2
		}
		run.Attempts = append(run.Attempts, &slab[i])
	}
	return run
}

// BenchmarkWatchdogsOneKey (issue 12): a superseded attempt's stall window
// ends where its successor's transcript starts; the successor is looked up
// by key and ordinal. It was found by a pass over every attempt, so one key
// started n times cost n² (20,000 took 2.4 s in check). ns/op grows about
// 4x from 5k to 20k.
func BenchmarkWatchdogsOneKey(b *testing.B) {
	for _, n := range []int{5000, 20000} {
		run := oneKeyRun(n)
		w := &World{RunID: run.ID, Start: t0, Agents: map[string]*Agent{}}
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				workflowWatchdogs(run, w, DefaultWatchdogOptions())
			}
		})
	}
}

// oneKeyWorld is a journal that starts one key n times (no transcripts): each
// attempt supersedes the one before, and watch prints a KILL for each (the
// details-unavailable fallback).
func oneKeyWorld(n int) *World {
	w := &World{RunID: "wf_one", Start: t0, Agents: map[string]*Agent{}, HasJournal: true}
	for i := range n {
		w.Lines = append(w.Lines, journalLine{At: t0, Kind: LineStarted, Key: "v2:one", AgentID: fmt.Sprintf("a%015d", i)})
	}
	w.JournalAt = t0
	return w
}

// TestReplayKillsAllocateLittle (issue 12, bench/hostile retries-200k): a
// KILL line's JSON was built in one builder (a string per key and value
// before) and the events double their list instead of growing it by a
// quarter: 54.9 allocations and 2,973 bytes per KILL before, then 16.9 and
// about 1,520. An event's lines and JSON are now made only when printed:
// 2.0 allocations and about 1,030 bytes (the event in its list, the agent's
// name).
func TestReplayKillsAllocateLittle(t *testing.T) {
	allocs.SkipUnderRace(t)
	measure := func(n int) (float64, float64) {
		w := oneKeyWorld(n)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		out := replayWorld(w, DefaultOptions(), nil)
		runtime.ReadMemStats(&after)
		if kills := countKind(out.Events, KindKill); kills != n-1 {
			t.Fatalf("n=%d: %d KILL events, want %d", n, kills, n-1)
		}
		return float64(after.Mallocs-before.Mallocs) / float64(n), float64(after.TotalAlloc-before.TotalAlloc) / float64(n)
	}
	measure(100)
	allocs, bytes := measure(8000)
	t.Logf("per KILL: %.1f allocations, %.0f bytes", allocs, bytes)
	if allocs > 4 || bytes > 1300 {
		t.Errorf("per KILL: %.1f allocations and %.0f bytes, want at most 4 and 1,300", allocs, bytes)
	}
}

func countKind(es []Event, kind string) int {
	n := 0
	for _, e := range es {
		if e.Kind == kind {
			n++
		}
	}
	return n
}
