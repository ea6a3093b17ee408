package replay

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/pmcheck/pmcheck/analyze/clock"
)

var t0 = time.Date(2026, 5, 6, 9, 0, 0, 0, time.UTC)

// randomWorld builds a Workflow run from a seed: keys with retries, attempts
// that are killed, fail, return or stay open, transcripts with bursts and
// long silences, malformed, torn and over-long journal lines, truncations,
// parent terminals of every kind. Times are in whole and half seconds so
// rounding ties and grid coincidences happen often.
func randomWorld(seed uint64) (*World, Options) {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	opt := DefaultOptions()
	switch r.IntN(4) {
	case 0:
		opt.Interval = time.Duration(1+r.IntN(20)) * time.Second
	case 1:
		opt.Interval = time.Duration(1+r.IntN(90)) * 500 * time.Millisecond
	}
	if r.IntN(3) == 0 {
		opt.QuietAfter = time.Duration(20+r.IntN(400)) * time.Second
	}
	if r.IntN(3) == 0 {
		opt.DoneGrace = time.Duration(r.IntN(120)) * time.Second
	}
	if r.IntN(3) == 0 {
		opt.MaxHours = []float64{0.05, 0.25, 0.5, 1, 2}[r.IntN(5)]
	}
	w := &World{RunID: "wf_rand", Start: t0, Agents: map[string]*Agent{}, HasJournal: r.IntN(20) != 0}
	at := t0.Add(time.Duration(r.IntN(90)) * time.Second)
	step := func() time.Duration {
		switch r.IntN(6) {
		case 0:
			return 0
		case 1:
			return time.Duration(r.IntN(2000)) * time.Second
		default:
			return time.Duration(r.IntN(120)) * 500 * time.Millisecond
		}
	}
	keys := 1 + r.IntN(4)
	agentN := 0
	var lines []journalLine
	for k := 0; k < keys; k++ {
		key := fmt.Sprintf("v2:k%d", k)
		attempts := 1 + r.IntN(4)
		for n := 1; n <= attempts; n++ {
			agentN++
			id := fmt.Sprintf("a%016d", agentN)
			if r.IntN(12) == 0 {
				id = "" // no identity: a positional name
			}
			at = at.Add(step())
			first := at
			lines = append(lines, journalLine{At: first, Kind: LineStarted, Key: key, AgentID: id})
			// its transcript
			var writes []time.Time
			wt := first
			if r.IntN(10) == 0 {
				wt = wt.Add(time.Duration(r.IntN(100)) * time.Second) // transcript lags its started line
			}
			rows := 1 + r.IntN(8)
			for i := 0; i < rows; i++ {
				if i > 0 {
					wt = wt.Add(step())
				}
				if len(writes) == 0 || wt.After(writes[len(writes)-1]) {
					writes = append(writes, wt)
				}
			}
			a := &Agent{ID: id, File: clock.Writes(writes...)}
			if r.IntN(8) == 0 {
				a.File = clock.File{} // no transcript on disk
			}
			last := writes[len(writes)-1]
			a.HasLastUser = r.IntN(6) != 0
			a.LastUserAt = last
			if r.IntN(5) == 0 {
				a.LastUserAt = last.Add(time.Duration(r.IntN(300)) * time.Second)
			}
			a.LastUserKill = n < attempts && r.IntN(3) != 0
			a.SilenceKnown = r.IntN(5) != 0
			a.SilenceSeconds = float64(r.IntN(800)) / 2
			a.Ledger = Ledger{Paths: r.IntN(4), PathsPartial: r.IntN(4) == 0, Commits: r.IntN(3), CommitsWithoutID: r.IntN(2)}
			a.HasLast = true
			a.LastEventAt = last
			a.Cause = []Cause{{Phrase: CauseNotRecorded}, {Phrase: CauseInterrupted}, {Phrase: CauseUsageLimit, ResetTime: "3pm (UTC)"}, {Phrase: CauseAPIError}}[r.IntN(4)]
			if id != "" {
				w.Agents[id] = a
			}
			close := r.IntN(4)
			if n < attempts && close > 1 {
				continue // superseded while open (a kill)
			}
			switch close {
			case 0:
				// stays open
			case 1:
				lines = append(lines, journalLine{At: last, Kind: LineFailed, Key: key, AgentID: id})
			default:
				lines = append(lines, journalLine{At: last, Kind: LineResult, Key: key, AgentID: id})
			}
		}
		if r.IntN(10) == 0 {
			lines = append(lines, journalLine{At: at, Kind: LineResult, Key: "v2:orphan", AgentID: "a-orphan"})
		}
	}
	// sort by time (stable), then sprinkle odd lines
	for i := 1; i < len(lines); i++ {
		for j := i; j > 0 && lines[j].At.Before(lines[j-1].At); j-- {
			lines[j], lines[j-1] = lines[j-1], lines[j]
		}
	}
	if r.IntN(6) == 0 && len(lines) > 0 {
		i := r.IntN(len(lines))
		lines = append(lines[:i], append([]journalLine{{At: lines[i].At, Kind: LineMalformed}}, lines[i:]...)...)
	}
	if r.IntN(8) == 0 && len(lines) > 0 {
		i := r.IntN(len(lines))
		lines = append(lines[:i], append([]journalLine{{At: lines[i].At, Kind: LineOther}}, lines[i:]...)...)
	}
	if r.IntN(10) == 0 && len(lines) > 1 {
		i := 1 + r.IntN(len(lines)-1)
		lines = append(lines[:i], append([]journalLine{{At: lines[i].At, Kind: LineTruncate}}, lines[i:]...)...)
	}
	if r.IntN(12) == 0 {
		lines = append(lines, journalLine{At: at.Add(step()), Kind: LineTooLong})
	} else if r.IntN(12) == 0 {
		lines = append(lines, journalLine{At: at.Add(step()), Kind: LineTorn})
	}
	w.Lines = lines
	w.JournalAt = t0
	if len(lines) > 0 {
		w.JournalAt = lines[0].At
	}
	// parent lifecycle evidence
	w.Launches = []time.Time{t0}
	if r.IntN(6) == 0 {
		w.Launches = append(w.Launches, t0.Add(time.Duration(r.IntN(3000))*time.Second))
	}
	if r.IntN(2) == 0 {
		n := 1 + r.IntN(2)
		for i := 0; i < n; i++ {
			w.Terminals = append(w.Terminals, lifecycleTerminal{At: at.Add(time.Duration(r.IntN(600)-200) * time.Second),
				Status: []string{"completed", "failed", "stopped", "unknown"}[r.IntN(4)], Generation: 1 + r.IntN(len(w.Launches))})
		}
		for i := 1; i < len(w.Terminals); i++ {
			if w.Terminals[i].At.Before(w.Terminals[i-1].At) {
				w.Terminals[i], w.Terminals[i-1] = w.Terminals[i-1], w.Terminals[i]
			}
		}
	}
	return w, opt
}

func render(o Outcome, jsonMode bool) string {
	return fmt.Sprintf("exit %d\n%s\n%s", o.Exit, o.Stderr, strings.Join(Lines(o.Events, jsonMode, true), "\n"))
}

// TestEnginesAgree: on random runs the event-driven engine prints exactly
// the lines (with their times) and exits exactly as the reference poller.
func TestEnginesAgree(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 300
	}
	kinds := map[string]int{}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		w, opt := randomWorld(seed)
		ref := replayReference(w, opt, nil)
		fast := replayWorld(w, opt, nil)
		if a, b := render(ref, false), render(fast, false); a != b {
			t.Fatalf("seed %d: engines disagree\nreference:\n%s\nevent-driven:\n%s", seed, a, b)
		}
		if a, b := render(ref, true), render(fast, true); a != b {
			t.Fatalf("seed %d: engines disagree in --json\nreference:\n%s\nevent-driven:\n%s", seed, a, b)
		}
		if fast.Polls > ref.Polls {
			t.Fatalf("seed %d: the event-driven engine visited %d polls, more than the reference's %d", seed, fast.Polls, ref.Polls)
		}
		for _, e := range ref.Events {
			kinds[e.Kind+"/"+e.Detail]++
		}
		kinds[fmt.Sprintf("exit %d", ref.Exit)]++
	}
	// The generator must reach every event kind, or agreement is vacuous.
	for _, k := range []string{"START/", "KILL/", "KILL/details unavailable", "FAILED/" + CauseUsageLimit, "OK/", "QUIET/",
		"LIMIT/hours", "LIMIT/malformed", "MALFORMED/not JSON", "MALFORMED/line longer than 1 MB", "RESET/",
		"exit 0", "exit 2", "exit 3", "exit 4"} {
		if kinds[k] == 0 && !strings.HasPrefix(k, "DONE") {
			t.Errorf("no random run produced %q; widen the generator", k)
		}
	}
	done := 0
	for k, v := range kinds {
		if strings.HasPrefix(k, "DONE/") {
			done += v
		}
	}
	if done == 0 {
		t.Error("no random run produced DONE")
	}
}

// TestResetWipesStateAndEpoch: a journal truncated and rewritten prints one
// RESET, counts START's line numbers afresh (MALFORMED line 1 of the new
// content), and a completion notification of the launch before the reset
// no longer ends the new epoch: DONE waits for the new content's grace.
func TestResetWipesStateAndEpoch(t *testing.T) {
	s := func(n float64) time.Time { return t0.Add(time.Duration(n * float64(time.Second))) }
	file := func(ws ...float64) clock.File {
		var writes []time.Time
		for _, w := range ws {
			writes = append(writes, s(w))
		}
		return clock.Writes(writes...)
	}
	w := &World{RunID: "wf_reset", Start: t0, HasJournal: true, JournalAt: s(1), Agents: map[string]*Agent{
		"a1": {ID: "a1", File: file(1, 20), Cause: Cause{Phrase: CauseNotRecorded}},
		"a2": {ID: "a2", File: file(40, 100), Cause: Cause{Phrase: CauseNotRecorded}},
	}, Launches: []time.Time{t0}, Terminals: []lifecycleTerminal{{At: s(42), Status: "completed", Generation: 1}}}
	w.Lines = []journalLine{
		{At: s(1), Kind: LineStarted, Key: "k", AgentID: "a1"},
		{At: s(20), Kind: LineResult, Key: "k", AgentID: "a1"},
		{At: s(40), Kind: LineTruncate},
		{At: s(40), Kind: LineMalformed},
		{At: s(40), Kind: LineStarted, Key: "k", AgentID: "a2"},
		{At: s(100), Kind: LineResult, Key: "k", AgentID: "a2"},
	}
	for _, o := range []Outcome{replayWorld(w, DefaultOptions(), nil), replayReference(w, DefaultOptions(), nil)} {
		got := strings.Join(Lines(o.Events, false, true), "\n")
		want := strings.Join([]string{
			"2026-05-06T09:00:05Z START  wf_rand: 1 agents started so far, 1 attempts.",
			"2026-05-06T09:00:20Z OK     a:a1 attempt 1 returned a result.",
			"2026-05-06T09:00:40Z RESET  journal was truncated or replaced; state cleared.",
			"2026-05-06T09:00:40Z MALFORMED journal line 1 is not JSON",
			"2026-05-06T09:01:40Z OK     a:a2 attempt 1 returned a result.",
			"2026-05-06T09:02:10Z LIMIT  journal has malformed lines; run state unknown.",
		}, "\n")
		want = strings.ReplaceAll(want, "wf_rand", "wf_reset")
		if got != want || o.Exit != ExitLimit {
			t.Errorf("exit %d\n%s\nwant\n%s", o.Exit, got, want)
		}
	}
}
