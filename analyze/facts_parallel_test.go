package analyze_test

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/pmcheck/pmcheck/analyze"
	"github.com/pmcheck/pmcheck/internal/testcorpus"
)

// TestFactsInParallelAreSerial: analysing runs at once gives the facts of
// one at a time, in run order, on every fixture run and (with
// PMCHECK_CORPUS) the corpus. Run with -race, it also shows the detectors
// and replays share nothing they write.
func TestFactsInParallelAreSerial(t *testing.T) {
	roots := testcorpus.With(t, filepath.Join("..", "fixtures", "runs"))
	for _, root := range roots {
		res, err := analyze.Load([]string{root}, analyze.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Runs) < 2 {
			t.Fatalf("%s: %d runs", root, len(res.Runs))
		}
		serial := analyze.Facts(res.Runs, analyze.FactsOptions{Jobs: 1})
		for _, jobs := range []int{2, 5} {
			if got := analyze.Facts(res.Runs, analyze.FactsOptions{Jobs: jobs}); !reflect.DeepEqual(got, serial) {
				t.Fatalf("%s: facts with %d jobs differ from one job", root, jobs)
			}
		}
	}
}
