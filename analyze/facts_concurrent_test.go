package analyze

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/pmcheck/pmcheck/analyze/detect"
	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/analyze/replay"
	"github.com/pmcheck/pmcheck/internal/testcorpus"
)

// A session with many subagents has its replay run beside its detectors;
// its facts are those of the two run one after the other. Every fixture and
// corpus session with a subagent is checked, its subagent list repeated up
// to the threshold where it has fewer. Run with -race, this also shows the
// replay and the detectors write nothing they share.
func TestSessionReplayBesideDetectorsIsSerial(t *testing.T) {
	roots := testcorpus.With(t, filepath.Join("..", "fixtures", "runs"))
	checked := 0
	for _, root := range roots {
		res, err := Load([]string{root}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, run := range res.Runs {
			if run.Kind == model.KindWorkflow || len(run.Subagents) == 0 {
				continue
			}
			many := *run
			many.Subagents = nil
			for len(many.Subagents) < concurrentReplayAgents {
				many.Subagents = append(many.Subagents, run.Subagents...)
			}
			opts := FactsOptions{}
			got := detectorFacts(&many, opts)
			want := withWatchdogs(detect.Analyze(&many, opts.Detect), replay.Session(&many, opts.Replay), "")
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: facts with the replay beside the detectors differ from one after the other", run.ID)
			}
			checked++
		}
	}
	if checked == 0 {
		t.Fatal("no session with a subagent: the test checks nothing")
	}
}
