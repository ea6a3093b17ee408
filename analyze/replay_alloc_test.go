package analyze

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/internal/allocs"
)

// retriesRun writes a Workflow run whose journal starts one key n times,
// each attempt superseding the one before and none with a transcript
// (bench/hostile's retries-200k): watch prints a KILL for every attempt but
// the last.
func retriesRun(t *testing.T, n int) *model.Run {
	dir := filepath.Join(t.TempDir(), "wf_retries")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "{\"type\":\"started\",\"key\":\"v2:one\",\"agentId\":\"as%014d\"}\n", i)
	}
	if err := os.WriteFile(filepath.Join(dir, "journal.jsonl"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Load([]string{dir}, Options{Jobs: 1})
	if err != nil || len(res.Runs) != 1 || res.Runs[0].Kind != model.KindWorkflow {
		t.Fatalf("%v, %d runs", err, len(res.Runs))
	}
	return res.Runs[0]
}

// TestCheckReplayKeepsOnlyFacts (issue 12, bench/hostile retries-200k): check
// keeps a watch event as a fact, so the replay it runs turns each event into
// its fact as it is made; it neither keeps the events nor renders their
// printed lines and --json objects, which only `replay` and `watch` print.
// Check allocated 2,811 bytes per KILL of such a journal when every event
// kept its lines and its JSON in a list (reading the journal, the attempts'
// facts and the KILL's fact itself are most of it); 1,991 with each event
// made a fact as it comes; 1,697 without the journal lines' explained times
// (LineTimes: only replay --explain prints them).
func TestCheckReplayKeepsOnlyFacts(t *testing.T) {
	opts := FactsOptions{Jobs: 1, Detect: DetectOptions{Classifications: NewClassifications()}}
	measure := func(n int) (uint64, model.Facts) {
		run := retriesRun(t, n)
		var f model.Facts
		b, _ := allocs.Measure(func() { f = runFacts(run, opts) })
		return b, f
	}
	const small, large = 2000, 8000
	bs, _ := measure(small)
	bl, f := measure(large)
	kills := 0
	for _, w := range f.Watchdogs {
		if w.Source == "watch" && w.Kind == "KILL" {
			kills++
		}
	}
	if kills != large-1 {
		t.Fatalf("%d KILL facts, want %d", kills, large-1)
	}
	per := float64(bl-bs) / (large - small)
	t.Logf("check allocates %.0f bytes per KILL", per)
	if per > 1850 {
		t.Errorf("check allocates %.0f bytes per KILL, want at most 1,850: are the events kept, their lines made, or the lines' times explained?", per)
	}
}
