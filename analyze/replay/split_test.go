package replay_test

import (
	"fmt"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/pmcheck/pmcheck/analyze"
	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/analyze/replay"
	"github.com/pmcheck/pmcheck/internal/testcorpus"
)

// A session's replay in two halves at once gives the facts of one loop over
// its subagents. Every fixture and corpus session with a subagent is
// checked, its subagents repeated (each a copy of its transcript, so none
// is skipped as already seen) up to twice the threshold. Run with -race,
// it also shows the halves share nothing they write.
func TestSessionReplayInHalvesIsOneLoop(t *testing.T) {
	roots := testcorpus.With(t, filepath.Join("..", "..", "fixtures", "runs"))
	checked, facts := 0, 0
	for _, root := range roots {
		res, err := analyze.Load([]string{root}, analyze.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, run := range res.Runs {
			if run.Kind == model.KindWorkflow || len(run.Subagents) == 0 {
				continue
			}
			many := *run
			many.Subagents = nil
			for len(many.Subagents) < 40 {
				for _, sc := range run.Subagents {
					c := *sc
					// Same agent, same times, another file: the copies'
					// events tie in the sort and their facts differ, so
					// their order shows.
					if sc.Child != nil {
						child := *sc.Child
						child.File = fmt.Sprintf("%s.copy%d", child.File, len(many.Subagents))
						c.Child = &child
					}
					many.Subagents = append(many.Subagents, &c)
				}
			}
			// The defaults, and watchdogs tight enough to fire on the
			// fixtures' minutes-long sessions.
			tight := replay.Config{Watchdogs: replay.WatchdogOptions{PWTick: time.Second, PWInactivity: 3 * time.Second, PWKillAfter: 6 * time.Second,
				HarnessInactivity: 5 * time.Second, HarnessMaxDuration: 20 * time.Second, HarnessColdStart: 2 * time.Second, HarnessToolSilence: -1,
				RuntimeStall: 10 * time.Second, RuntimeMaxAttempts: 6}}
			for _, cfg := range []replay.Config{{}, tight} {
				halves := replay.Session(&many, cfg)
				restore := replay.SetSplitAgents(1 << 30)
				loop := replay.Session(&many, cfg)
				restore()
				if !reflect.DeepEqual(halves, loop) {
					t.Fatalf("%s: the replay in halves differs from one loop", run.ID)
				}
				facts += len(loop)
			}
			checked++
		}
	}
	if checked == 0 || facts == 0 {
		t.Fatalf("%d sessions with a subagent, %d watchdog facts: the test checks nothing", checked, facts)
	}
}
