package analyze

import (
	"path/filepath"
	"testing"

	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/internal/allocs"
)

// Facts of one run on one job allocates what the run's analysis does and
// its result, nothing more: check calls it once per run (20,000 times for a
// fleet), and its options used to move to the heap each time for the
// goroutines of the many-runs path.
func TestOneRunFactsAllocatesOnlyItsResult(t *testing.T) {
	allocs.SkipUnderRace(t)
	res, err := Load([]string{filepath.Join("..", "fixtures", "runs", "detect-sync-killed")}, Options{})
	if err != nil || len(res.Runs) == 0 {
		t.Fatalf("%v, %d runs", err, len(res.Runs))
	}
	runs := []*model.Run{res.Runs[0]}
	opts := FactsOptions{Jobs: 1, Detect: DetectOptions{Classifications: NewClassifications()}}
	Facts(runs, opts)
	one := testing.AllocsPerRun(50, func() { runFacts(runs[0], opts) })
	facts := testing.AllocsPerRun(50, func() { Facts(runs, opts) })
	if facts > one+1 {
		t.Errorf("Facts of one run allocated %.0f times, the run's analysis %.0f: want one more (its result)", facts, one)
	}
}
