package report

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/internal/allocs"
)

// randomFill sets every field of v (a pointer) at random, through
// reflection, so that a field added to the facts' types and not to
// appendRunFacts makes TestAppendRunFactsIsEncodingJSON fail.
func randomFill(rng *rand.Rand, v reflect.Value, str func() string, tm func() time.Time, depth int) {
	switch v.Kind() {
	case reflect.Pointer:
		if rng.IntN(3) == 0 {
			v.SetZero()
			return
		}
		v.Set(reflect.New(v.Type().Elem()))
		randomFill(rng, v.Elem(), str, tm, depth)
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(tm()))
			return
		}
		for i := range v.NumField() {
			randomFill(rng, v.Field(i), str, tm, depth)
		}
	case reflect.Slice:
		switch n := rng.IntN(5); {
		case n == 0:
			v.SetZero()
		case n == 1 || depth > 2:
			v.Set(reflect.MakeSlice(v.Type(), 0, 0))
		default:
			v.Set(reflect.MakeSlice(v.Type(), n-1, n-1))
			for i := range n - 1 {
				randomFill(rng, v.Index(i), str, tm, depth+1)
			}
		}
	case reflect.String:
		v.SetString(str())
	case reflect.Map: // only in fields reports leave out (RunFact.RuntimeStats)
		v.SetZero()
	case reflect.Int:
		v.SetInt([]int64{0, -1, 1, 42, math.MaxInt64, math.MinInt64}[rng.IntN(6)] * int64(rng.IntN(2)))
	case reflect.Bool:
		v.SetBool(rng.IntN(2) == 0)
	case reflect.Float64:
		v.SetFloat([]float64{0, -1, 1.5, 1e-7, 1e-6, 123456789.125, 1e20, 1e21, 1.5e300, -2.5e-9, 5e-324, math.Copysign(0, -1)}[rng.IntN(12)])
	default:
		panic("randomFill: no case for " + v.Type().String())
	}
}

// Run facts and run summaries are written as encoding/json writes them,
// over random facts that set every field (nil and empty lists, the omitted
// counts, floats on both sides of encoding/json's exponent switch, times in
// and out of UTC), and facts encoding/json refuses are left to it.
func TestAppendRunFactsIsEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	pieces := []string{"", "a", "plain text", `"q"`, `back\slash`, "<b>&amp;</b>", "\u2028", "é日本", "\xff", "tab\there", "\x00\x1f\x7f", "a longer string of plain ASCII text"}
	str := func() string {
		var b strings.Builder
		for range rng.IntN(3) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		return b.String()
	}
	tm := func() time.Time {
		switch rng.IntN(5) {
		case 0:
			return time.Time{}
		case 1:
			return time.Date(2026, 5, 6, 9, rng.IntN(60), rng.IntN(60), rng.IntN(3)*500_000_000, time.UTC)
		case 2:
			return time.Date(2026, 5, 6, 9, 0, 0, 123456789, time.FixedZone("x", 5400))
		case 3:
			return time.Date(1, 1, 1, 0, 0, 0, 1, time.UTC)
		}
		return time.Unix(rng.Int64N(1<<31), rng.Int64N(1e9)).UTC()
	}
	for i := range 2000 {
		var rf RunFacts
		randomFill(rng, reflect.ValueOf(&rf).Elem(), str, tm, 0)
		rf.Commits = nil // a range's commit facts are in the coverage, never among a run's (NewRunFacts)
		for _, prefix := range []string{"", "    "} {
			got, ok := appendRunFacts(nil, &rf, prefix)
			if want := encodeIndented(t, &rf, prefix); !ok || string(got) != want {
				t.Fatalf("facts %d, prefix %q: appendRunFacts wrote (%v)\n%s\nencoding/json\n%s", i, prefix, ok, got, want)
			}
		}
		var s RunSummary
		randomFill(rng, reflect.ValueOf(&s).Elem(), str, tm, 0)
		if got, want := string(appendRunSummary(nil, &s, "    ")), encodeIndented(t, &s, "    "); got != want {
			t.Fatalf("summary %d: appendRunSummary wrote\n%s\nencoding/json\n%s", i, got, want)
		}
	}
	for _, bad := range []RunFacts{
		{Facts: model.Facts{Run: model.RunFact{Start: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}}},
		{Facts: model.Facts{Watchdogs: []model.WatchdogFact{{SilenceSeconds: math.NaN()}}}},
		{Facts: model.Facts{Attempts: []model.AttemptFact{{SilenceSeconds: math.Inf(1)}}}},
	} {
		if out, ok := appendRunFacts([]byte("x"), &bad, ""); ok || string(out) != "x" {
			t.Errorf("facts encoding/json refuses: appendRunFacts reported %v and wrote %q", ok, out)
		}
		if _, err := JSON(&Document{Facts: []RunFacts{bad}}); err == nil {
			t.Errorf("a report with facts encoding/json refuses encoded without error")
		}
	}
}

// fleetFacts is a Document of n runs, each a session with one subagent,
// the shape of a fleet of small sessions.
func fleetFacts(n int) *Document {
	doc := &Document{Kind: Kind, SchemaVersion: SchemaVersion, Root: ".", StaleBaseline: []BaselineEntry{}}
	at := time.Date(2026, 5, 6, 9, 0, 0, 0, time.UTC)
	for i := range n {
		path := "p/s" + strings.Repeat("x", i%7) + ".jsonl"
		f := model.Facts{Run: model.RunFact{Kind: "session", ID: "s", Path: path, Agents: 1, Start: at, End: at.Add(time.Minute), Segments: 1, At: model.Evidence{File: path, Line: 1, Time: at}}}
		f.Subagents = []model.SubagentFact{{RunID: "s", ToolUseID: "toolu_1", Description: "a helper", Mode: "sync", Outcome: "completed", Segment: 1, InLastSegment: true,
			Time: at, End: at.Add(time.Second), Reasons: []model.Reason{{What: "result", At: model.Evidence{File: path, Line: 3, Time: at}}}, At: model.Evidence{File: path, Line: 2, Time: at}}}
		doc.Runs = append(doc.Runs, RunSummaryFromFact(f.Run))
		doc.Facts = append(doc.Facts, NewRunFacts(f))
	}
	return doc
}

// Writing a run's facts and summary into the JSON report allocates at most
// twice (their indents; encoding/json's Encoder allocated 14 times per run
// of this shape), however many runs there are.
func TestRunFactsJSONAllocationsPerRun(t *testing.T) {
	allocs := func(n int) float64 {
		doc := fleetFacts(n)
		return testing.AllocsPerRun(3, func() {
			if err := writeJSON(io.Discard, doc); err != nil {
				t.Fatal(err)
			}
		})
	}
	small, large := allocs(500), allocs(2000)
	if per := (large - small) / 1500; per > 2.05 {
		t.Errorf("writing a run's facts and summary allocates %.2f times (500 runs: %.0f, 2,000 runs: %.0f); want at most 2", per, small, large)
	}
}

// TestRunFactsAreStreamed (issue 12, bench/hostile killed-x-pushes): the
// facts of one run go out as they are written, not built whole first. One
// session of 40,329 killed subagents has 48 MB of facts; built in one
// buffer grown by doubling, they were a sixth of check --format json's
// time. Writing the facts of 20,000 subagents (16.7 MB) allocated 102.8 MB
// before; 0.47 MB now.
func TestRunFactsAreStreamed(t *testing.T) {
	const n = 20000
	rf := RunFacts{Facts: model.Facts{Run: model.RunFact{Kind: "session", ID: "s"}}}
	for i := range n {
		rf.Subagents = append(rf.Subagents, model.SubagentFact{RunID: "s", ToolUseID: fmt.Sprintf("toolu_%06d", i),
			Description: "Harden the login flow", Mode: "sync", Outcome: "killed", Paths: []string{"a.go", "b.go"}})
	}
	doc := &Document{Kind: Kind, SchemaVersion: SchemaVersion, Facts: []RunFacts{rf}}
	var out countingWriter
	b, _ := allocs.Measure(func() {
		if err := writeJSON(&out, doc); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("%d bytes of JSON, %d bytes allocated", out.n, b)
	if b > out.n/8 {
		t.Errorf("writing %d bytes of facts allocated %d: the run's facts were built whole", out.n, b)
	}
}
