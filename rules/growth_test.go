package rules

import (
	"encoding/hex"
	"errors"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/internal/allocs"
)

// neverReturned is a run of n attempts that never returned, each a finding
// of the default agent-never-returned rule.
func neverReturned(n int) []model.Facts {
	f := model.Facts{Run: workflow("wf1")}
	f.Attempts = make([]model.AttemptFact, n)
	for i := range f.Attempts {
		id := "as" + strconv.Itoa(100000000+i)
		f.Attempts[i] = model.AttemptFact{
			RunID: "wf1", Key: "v2:" + id, Agent: id, AgentID: id, Ordinal: 1, Outcome: model.OutcomeOpen,
			NeverReturned: true, SilenceSeconds: -1, At: at("s/subagents/workflows/wf1/journal.jsonl", i+1),
		}
	}
	return []model.Facts{f}
}

// TestEvaluateAllocatesLittlePerFinding (issue 12, the cost of a journal of
// 200,000 attempts that never returned; BenchmarkEvaluateNeverReturned shows
// the time): a finding's evidence and fact reference come from shared
// chunks, its fingerprint is hashed from a stack buffer, the findings grow
// once to the number of matches and the collapse index is keyed by the
// hash. What is left per finding is its message and fingerprint text and
// what the expression machine allocates to read fields (about four). It
// was 10 allocations and 1,205 bytes per finding, now 7 and about 530; 4x
// the findings must stay 4x the cost.
func TestEvaluateAllocatesLittlePerFinding(t *testing.T) {
	allocs.SkipUnderRace(t)
	pack, err := Defaults()
	if err != nil {
		t.Fatal(err)
	}
	measure := func(n int) (bytes, mallocs uint64) {
		facts := neverReturned(n)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		got, err := Evaluate(pack, facts)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != n || got[n-1].RuleID != "agent-never-returned" {
			t.Fatalf("n=%d: %d findings, want one per attempt", n, len(got))
		}
		return after.TotalAlloc - before.TotalAlloc, after.Mallocs - before.Mallocs
	}
	sb, sm := measure(5000)
	lb, lm := measure(20000)
	t.Logf("5,000 findings: %d bytes, %d allocations; 20,000: %d bytes, %d allocations", sb, sm, lb, lm)
	if per := float64(lm) / 20000; per > 8 {
		t.Errorf("%.2f allocations per finding, want at most 8", per)
	}
	if per := float64(lb) / 20000; per > 700 {
		t.Errorf("%.0f bytes per finding, want at most 700", per)
	}
	if r := float64(lb) / float64(sb); r > 5 {
		t.Errorf("4x the findings allocated %.1fx the bytes", r)
	}
}

// BenchmarkEvaluateNeverReturned: the default rules over 20,000 attempts
// that never returned (20,000 findings).
func BenchmarkEvaluateNeverReturned(b *testing.B) {
	pack, err := Defaults()
	if err != nil {
		b.Fatal(err)
	}
	facts := neverReturned(20000)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Evaluate(pack, facts); err != nil {
			b.Fatal(err)
		}
	}
}

// TestEvaluateErrorsInFactOrder: conditions are evaluated over every fact
// before the matching facts' findings are made, but errors are reported as
// a fact-by-fact evaluation meets them: a message that fails on a fact comes
// before a condition that fails on a later fact, and the other way round.
func TestEvaluateErrorsInFactOrder(t *testing.T) {
	p := mustParse(t, `version: 1
rules:
  - id: r1
    title: T
    severity: error
    select: attempt
    where: paths[0] == "a"
    message: "second path {{ paths[1] }}"
`)
	attempt := func(line int, paths ...string) model.AttemptFact {
		return model.AttemptFact{Key: "k" + strconv.Itoa(line), Ordinal: 1, Paths: paths, At: at("j.jsonl", line)}
	}
	cases := []struct {
		name     string
		attempts []model.AttemptFact
		want     string // the error's location and index: the message reads paths[1], the condition paths[0]
	}{
		{"message first", []model.AttemptFact{attempt(1, "a", "b"), attempt(2, "a"), attempt(3)}, "at j.jsonl:2: index out of range: 1 "},
		{"condition first", []model.AttemptFact{attempt(1, "a", "b"), attempt(2), attempt(3, "a")}, "at j.jsonl:2: index out of range: 0 "},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Evaluate(p, []model.Facts{{Run: workflow("wf1"), Attempts: c.attempts}})
			var ee *EvalError
			if !errors.As(err, &ee) {
				t.Fatalf("got %v, want an *EvalError", err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %s\nwant it to say %q", err, c.want)
			}
		})
	}
}

// TestFactFingerprintIsFingerprint: the fingerprint hashed from a fact's
// identity appended on the stack is Fingerprint of the identity spelt out
// (the parts joined by \x1f), for every fact kind.
func TestFactFingerprintIsFingerprint(t *testing.T) {
	j := func(parts ...string) string { return strings.Join(parts, "\x1f") }
	cases := []struct {
		kind     string
		fact     any
		identity string
	}{
		{model.FactRun, &model.RunFact{ID: "s1"}, "run"},
		{model.FactAttempt, &model.AttemptFact{Key: "v2:k", Ordinal: 12, AgentID: "a1"}, j("v2:k", "12", "a1")},
		{model.FactSubagent, &model.SubagentFact{ToolUseID: "toolu_1", AgentID: "a1"}, "toolu_1"},
		{model.FactSubagent, &model.SubagentFact{AgentID: "a1", Description: "Fix it"}, j("agent", "a1", "Fix it")},
		{model.FactShip, &model.ShipFact{Tool: "Bash", Kind: "push", Branch: "main", Command: "git push"}, j("Bash", "push", "main", "git push")},
		{model.FactWatchdog, &model.WatchdogFact{Source: "watch", Kind: "KILL", Agent: "a1", Predicted: "p", Observed: "o"}, j("watch", "KILL", "a1", "p", "o")},
		{model.FactAttempt, &model.AttemptFact{Key: strings.Repeat("k", 600), Ordinal: 1}, j(strings.Repeat("k", 600), "1", "")},
	}
	// The hash of the spelt-out parts, as sha256sum prints it (first 16 bytes).
	if got := Fingerprint("r1", "s/x.jsonl", "s1", model.FactAttempt, j("v2:k", "12", "a1")); got != "41ca2415a68ed4f6f3d056d7aaf9ee8e" {
		t.Fatalf("Fingerprint changed: %s", got)
	}
	for _, c := range cases {
		sum := fingerprintSum("r1", "s/x.jsonl", "s1", c.kind, c.fact)
		want := Fingerprint("r1", "s/x.jsonl", "s1", c.kind, c.identity)
		if got := hex.EncodeToString(sum[:]); got != want {
			t.Errorf("%s %+v: %s, want %s", c.kind, c.fact, got, want)
		}
	}
}

// TestOneFindingKeepsLittle (issue 12: a fleet of 20,000 runs of one finding
// each must stay far below 512 MiB): what the findings of a run keep after
// Evaluate grows with the findings, not a fixed chunk per run (a chunk of
// 256 evidence lists and fact references kept ~25 KB per run, 500 MB for
// the fleet).
func TestOneFindingKeepsLittle(t *testing.T) {
	pack, err := Defaults()
	if err != nil {
		t.Fatal(err)
	}
	const runs = 200
	facts := make([][]model.Facts, runs)
	for i := range facts {
		facts[i] = neverReturned(1)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	kept := make([][]Finding, runs)
	for i := range facts {
		if kept[i], err = Evaluate(pack, facts[i]); err != nil || len(kept[i]) != 1 {
			t.Fatalf("%v: %d findings, want 1", err, len(kept[i]))
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	per := (int64(after.HeapAlloc) - int64(before.HeapAlloc)) / runs
	t.Logf("%d bytes kept per run of one finding", per)
	if per > 4<<10 {
		t.Errorf("a run of one finding keeps %d bytes, want at most 4 KiB", per)
	}
	runtime.KeepAlive(kept)
	runtime.KeepAlive(facts)
}

// samePushes is one run of n pushes of one command, each on its own line
// of the transcript, and the same n pushes again (a resumed copy's rows):
// one fingerprint, n distinct locations.
func samePushes(n int) []model.Facts {
	f := model.Facts{Run: session("s1")}
	f.Ships = make([]model.ShipFact, 0, 2*n)
	for range 2 {
		for i := range n {
			f.Ships = append(f.Ships, model.ShipFact{Kind: "push", Tool: "Bash", Command: "git push", Branch: "main", Outstanding: true, At: at("s1.jsonl", i+1)})
		}
	}
	return []model.Facts{f}
}

const pushRule = `version: 1
rules:
  - id: pushed
    title: P
    severity: error
    select: ship
    where: outstanding
    message: "{{ command }}"
`

// TestIdenticalFactsMergeInLinearTime (issue 29, item 12): facts that share
// a fingerprint collapse into one finding that lists at most MaxEvidence
// distinct locations and counts the rest in EvidenceMore, each location
// once however often it repeats. The merge looked each location up in the
// finding's whole evidence list (the same push N times: 1.8 s at 5.6 MB,
// 105 s at 45 MB); the bytes allocated for n and 4n pushes now grow 4x at
// most 5x, where listing every location grew with the list.
func TestIdenticalFactsMergeInLinearTime(t *testing.T) {
	p := mustParse(t, pushRule)
	measure := func(n int) uint64 {
		facts := samePushes(n)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		got, err := Evaluate(p, facts)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 {
			t.Fatalf("n=%d: %d findings, want 1", n, len(got))
		}
		f := got[0]
		if len(f.Evidence) != MaxEvidence || f.EvidenceMore != n-MaxEvidence {
			t.Fatalf("n=%d: %d locations listed and %d more, want %d and %d", n, len(f.Evidence), f.EvidenceMore, MaxEvidence, n-MaxEvidence)
		}
		for i, e := range f.Evidence {
			if e.Line != i+1 {
				t.Fatalf("n=%d: location %d is line %d, want the first %d in fact order", n, i, e.Line, MaxEvidence)
			}
		}
		return after.TotalAlloc - before.TotalAlloc
	}
	small, large := measure(5000), measure(20000)
	t.Logf("bytes allocated: %d for 5,000 pushes (twice), %d for 20,000 (%.1fx)", small, large, float64(large)/float64(small))
	if large > 5*small {
		t.Errorf("4x the pushes: %d → %d bytes (%.1fx), want at most 5x", small, large, float64(large)/float64(small))
	}
	// A finding of few locations is unchanged: each listed once, none more.
	got, err := Evaluate(p, samePushes(3))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || len(got[0].Evidence) != 3 || got[0].EvidenceMore != 0 {
		t.Errorf("3 pushes twice: %+v", got)
	}
}

// BenchmarkEvaluateSamePushes: n and 4n pushes of one command.
func BenchmarkEvaluateSamePushes(b *testing.B) {
	p, err := Parse("bench.yaml", []byte(pushRule))
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{25000, 100000} {
		facts := samePushes(n)
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			for b.Loop() {
				if _, err := Evaluate(p, facts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
