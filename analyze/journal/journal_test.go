package journal

import (
	"errors"
	"fmt"
	"github.com/pmcheck/pmcheck/internal/allocs"
	"strings"
	"testing"

	"github.com/pmcheck/pmcheck/analyze/jsonl"
	"github.com/pmcheck/pmcheck/analyze/model"
)

func parse(t *testing.T, in string) *model.Journal {
	t.Helper()
	j, err := Read(strings.NewReader(in), "journal.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// TestRetriesSupersedeAndResultsClose: a key started three times has
// ordinals 1..3, each superseded by the next; the result closes the open
// attempt of its agent only.
func TestRetriesSupersedeAndResultsClose(t *testing.T) {
	j := parse(t, `{"type":"started","key":"v2:k","agentId":"a1"}
{"type":"started","key":"v2:k","agentId":"a2"}
{"type":"started","key":"v2:other","agentId":"b1"}
{"type":"started","key":"v2:k","agentId":"a3"}
{"type":"result","key":"v2:k","agentId":"a3","result":{"ok":true}}
{"type":"failed","key":"v2:other","agentId":"b1"}
`)
	atts, orphans := Attempts(j)
	if len(orphans) != 0 || len(atts) != 4 {
		t.Fatalf("attempts %d orphans %d", len(atts), len(orphans))
	}
	want := []struct {
		key             string
		ord, superseded int
		closed          string
	}{{"v2:k", 1, 2, ""}, {"v2:k", 2, 3, ""}, {"v2:other", 1, 0, "failed"}, {"v2:k", 3, 0, "completed"}}
	for i, w := range want {
		a := atts[i]
		if a.Key != w.key || a.Ordinal != w.ord || a.SupersededBy != w.superseded || a.ClosedBy != w.closed {
			t.Errorf("attempt %d = %+v, want %+v", i, a, w)
		}
	}
	if atts[3].Closed == nil || atts[3].Closed.Line != 5 {
		t.Errorf("closing evidence = %+v", atts[3].Closed)
	}
}

// TestOrphanResultClosesNothing: a result whose agent has no open attempt
// (a respawned agent journaled under another key, or a second result) is an
// orphan and leaves every attempt as it was.
func TestOrphanResultClosesNothing(t *testing.T) {
	j := parse(t, `{"type":"started","key":"v2:k","agentId":"a1"}
{"type":"result","key":"v2:k","agentId":"zz"}
{"type":"result","key":"v2:k","agentId":"a1"}
{"type":"result","key":"v2:k","agentId":"a1"}
`)
	atts, orphans := Attempts(j)
	if len(atts) != 1 || atts[0].ClosedBy != "completed" || atts[0].Closed.Line != 3 {
		t.Fatalf("attempts = %+v", atts)
	}
	if len(orphans) != 2 || orphans[0].AgentID != "zz" || orphans[0].At.Line != 2 || orphans[1].At.Line != 4 {
		t.Fatalf("orphans = %+v", orphans)
	}
}

// TestKeylessLinesGroupByAgent: runs written before the v2 key scheme have no
// key; each agent is then its own key.
func TestKeylessLinesGroupByAgent(t *testing.T) {
	j := parse(t, `{"type":"started","agentId":"a1"}
{"type":"started","agentId":"a2"}
{"type":"result","agentId":"a1"}
`)
	atts, _ := Attempts(j)
	if len(atts) != 2 || atts[0].Key != "agent:a1" || atts[1].Key != "agent:a2" || atts[1].Ordinal != 1 {
		t.Fatalf("attempts = %+v", atts)
	}
}

// TestMalformedJournalLines: not JSON, not an object, blank lines (not
// counted), an over-long line, and unknown types (kept, ignored by Attempts).
func TestMalformedJournalLines(t *testing.T) {
	in := "{\"type\":\"started\",\"key\":\"k\",\"agentId\":\"a\"}\n\nnot json\n[1]\n" + `{"type":"launched","agentId":"a"}` + "\n" + `{"type":"result","key":"` + strings.Repeat("x", LineCap) + `"}` + "\n" + `{"type":"started","key":7,"agentId":"b"}` + "\n"
	j := parse(t, in)
	if len(j.Malformed) != 3 {
		t.Fatalf("malformed = %+v", j.Malformed)
	}
	want := []model.Malformed{{Line: 3, Reason: "not JSON", Skipped: true}, {Line: 4, Reason: "not a JSON object", Skipped: true}}
	for i, w := range want {
		if j.Malformed[i] != w {
			t.Errorf("malformed[%d] = %+v, want %+v", i, j.Malformed[i], w)
		}
	}
	if m := j.Malformed[2]; m.Line != 6 || m.Reason != "line longer than 1 MB" {
		t.Errorf("long line = %+v", m)
	}
	// Index counts non-blank lines, as watch numbers them.
	if len(j.Lines) != 3 || j.Lines[0].Index != 1 || j.Lines[1].Index != 4 || j.Lines[1].Type != "launched" {
		t.Errorf("lines = %+v", j.Lines)
	}
	if l := j.Lines[2]; l.HasKey || l.AgentID != "b" {
		t.Errorf("a number where the key belongs leaves the line keyless: %+v", l)
	}
}

// TestTornFinalLineIsMarked: a valid final line without its newline is read
// but marked, because a live watch would never have seen it.
func TestTornFinalLineIsMarked(t *testing.T) {
	j := parse(t, `{"type":"started","key":"k","agentId":"a"}`+"\n"+`{"type":"result","key":"k","agentId":"a"}`)
	if len(j.Lines) != 2 || j.Lines[0].Torn || !j.Lines[1].Torn {
		t.Fatalf("lines = %+v", j.Lines)
	}
}

// orphanJournal is n started lines that never return, then n result lines
// whose agent ids match none of them (orphans).
func orphanJournal(n int) *model.Journal {
	j := &model.Journal{File: "journal.jsonl"}
	for i := range n {
		j.Lines = append(j.Lines, model.JournalLine{Line: i + 1, Index: i + 1, Type: "started", Key: fmt.Sprintf("k%d", i), HasKey: true, AgentID: fmt.Sprintf("a%d", i)})
	}
	for i := range n {
		j.Lines = append(j.Lines, model.JournalLine{Line: n + i + 1, Index: n + i + 1, Type: "result", Key: fmt.Sprintf("x%d", i), HasKey: true, AgentID: fmt.Sprintf("z%d", i)})
	}
	return j
}

// BenchmarkAttemptsOrphanResults (issue 12, item 12): each result closes the
// latest open attempt of its agent from a stack, so n orphan results after n
// open attempts cost O(n); the backward scan they replaced was O(n²) (40,000
// took 23 s in check). Compare ns/op across the sizes: it grows about 4x
// from 10k to 40k, not 16x.
func BenchmarkAttemptsOrphanResults(b *testing.B) {
	for _, n := range []int{10000, 40000} {
		j := orphanJournal(n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, orphans := Attempts(j); len(orphans) != n {
					b.Fatalf("%d orphans, want %d", len(orphans), n)
				}
			}
		})
	}
}

// TestAttemptsCloseTheLatestOpenAttemptOfTheAgent pins the stack semantics:
// a result closes its agent's latest open attempt; another result for the
// same agent closes the one before; with none open it is an orphan.
func TestAttemptsCloseTheLatestOpenAttemptOfTheAgent(t *testing.T) {
	l := func(n int, typ, key, agent string) model.JournalLine {
		return model.JournalLine{Line: n, Index: n, Type: typ, Key: key, HasKey: key != "", AgentID: agent}
	}
	j := &model.Journal{File: "j", Lines: []model.JournalLine{
		l(1, "started", "k1", "a"), l(2, "started", "k2", "b"), l(3, "started", "k3", "a"),
		l(4, "result", "", "a"), l(5, "failed", "", "a"), l(6, "result", "", "a"), l(7, "result", "", "b"),
	}}
	atts, orphans := Attempts(j)
	if atts[2].ClosedBy != model.OutcomeCompleted || atts[2].Closed.Line != 4 ||
		atts[0].ClosedBy != model.OutcomeFailed || atts[0].Closed.Line != 5 ||
		atts[1].ClosedBy != model.OutcomeCompleted || atts[1].Closed.Line != 7 {
		t.Fatalf("attempts closed wrongly: %+v %+v %+v", atts[0], atts[1], atts[2])
	}
	if len(orphans) != 1 || orphans[0].At.Line != 6 {
		t.Fatalf("orphans %+v, want line 6", orphans)
	}
}

// TestGiveUpOnJunkJournal: with Options.GiveUp the reader stops at the
// first line where jsonl.GiveUp holds; a torn final line is not junk for
// the rule, and a journal whose junk never outnumbers its lines is read
// whole. The kept malformed lines have their reasons; the rest are counted.
func TestGiveUpOnJunkJournal(t *testing.T) {
	started := `{"type":"started","key":"k","agentId":"a"}` + "\n"
	in := started + started + "[1]\n" + strings.Repeat("x\n", 30000)
	j, err := ReadOptions(strings.NewReader(in), "journal.jsonl", Options{GiveUp: true})
	var gaveUp *jsonl.GaveUpError
	if !errors.As(err, &gaveUp) || j != nil {
		t.Fatalf("got %v, %v; want a give-up", j, err)
	}
	if want := (jsonl.GaveUpError{File: "journal.jsonl", Bad: jsonl.JunkMin, Good: 2, First: 3, Line: jsonl.JunkMin + 2}); *gaveUp != want {
		t.Errorf("gave up with %+v, want %+v", *gaveUp, want)
	}
	whole := parse(t, in)
	if whole.MalformedCount != 30001 || len(whole.Malformed) != model.MalformedExamples {
		t.Fatalf("read whole: %d counted, %d kept", whole.MalformedCount, len(whole.Malformed))
	}
	if whole.Malformed[0].Reason != "not a JSON object" || whole.Malformed[1].Reason != "not JSON" {
		t.Errorf("kept reasons: %+v", whole.Malformed[:2])
	}
	// Lines outnumber the junk throughout; the torn final junk line is kept.
	in = strings.Repeat(started, 12000) + strings.Repeat("x\n", 11000) + "x"
	j, err = ReadOptions(strings.NewReader(in), "journal.jsonl", Options{GiveUp: true})
	if err != nil || j.MalformedCount != 11001 || len(j.Lines) != 12000 || j.Malformed[len(j.Malformed)-1].Line != 23001 {
		t.Fatalf("read with GiveUp: %v; want the whole journal", err)
	}
	if j.Malformed[len(j.Malformed)-1].Reason != "torn final line (not JSON, no newline at end of file)" {
		t.Errorf("torn final line: %+v", j.Malformed[len(j.Malformed)-1])
	}
}

// BenchmarkReadJunkJournal: the cost of one junk line ("x") in a journal,
// read whole (as replay does) and with GiveUp (as check does).
func BenchmarkReadJunkJournal(b *testing.B) {
	data := `{"type":"started","key":"k","agentId":"a"}` + "\n" + strings.Repeat("x\n", 1<<20)
	for _, giveUp := range []bool{false, true} {
		name := "whole"
		if giveUp {
			name = "give-up"
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				ReadOptions(strings.NewReader(data), "journal.jsonl", Options{GiveUp: giveUp})
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(1<<20), "ns/junk-line")
		})
	}
}

// TestOrphanResultsCostOneLookupEach (issue 12, item 12;
// BenchmarkAttemptsOrphanResults shows the time): n attempts that never
// return, then n results that close none of them, then n that close each.
// A result used to scan back over every attempt (n² for orphans: 40,000
// took 23 s); it now looks at most at its agent's latest open attempt.
func TestOrphanResultsCostOneLookupEach(t *testing.T) {
	looked := 0
	countLooked = func(n int) { looked += n }
	defer func() { countLooked = nil }()
	for _, n := range []int{1000, 4000} {
		j := orphanJournal(n)
		for i := range n {
			j.Lines = append(j.Lines, model.JournalLine{Line: 2*n + i + 1, Index: 2*n + i + 1, Type: "result", AgentID: fmt.Sprintf("a%d", i)})
		}
		looked = 0
		atts, orphans := Attempts(j)
		if len(orphans) != n || atts[n-1].ClosedBy != model.OutcomeCompleted {
			t.Fatalf("n=%d: %d orphans, last attempt closed by %q", n, len(orphans), atts[n-1].ClosedBy)
		}
		if looked > n {
			t.Errorf("n=%d: %d attempts looked at for %d results: a result scans attempts", n, looked, 2*n)
		}
	}
}

// TestAttemptsAllocateNothingPerAttempt (issue 12, started-200k;
// BenchmarkAttemptsOrphanResults shows the time): the attempts come from one
// slab and the maps are sized for the journal; each agent's stack of open
// attempts is an index into the slab, where it was a slice allocated per
// agent: 8,086 allocations for 8,000 attempts, now 87 (what is left grows
// with the maps' tables and the orphans' list).
func TestAttemptsAllocateNothingPerAttempt(t *testing.T) {
	allocs.SkipUnderRace(t)
	allocs := func(n int) float64 {
		j := orphanJournal(n)
		return testing.AllocsPerRun(3, func() { Attempts(j) })
	}
	small, large := allocs(2000), allocs(8000)
	t.Logf("allocations: %.0f for 2,000 attempts, %.0f for 8,000", small, large)
	if per := large / 8000; per > 0.05 {
		t.Errorf("8,000 attempts made %.0f allocations (2,000 made %.0f): something is allocated per attempt", large, small)
	}
}
