package replay_test

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/analyze/replay"
)

// TestLiveWatchdogsMemoIsAReplay: the live watchdogs' memo (an attempt
// whose inputs did not change is not replayed again) gives, on every
// Workflow fixture, the events a replay without it gives, when it is
// filled and when every attempt is answered from it; and it tells apart a
// run whose attempts changed (another fixture's run through the same memo).
func TestLiveWatchdogsMemoIsAReplay(t *testing.T) {
	matches, _ := filepath.Glob("../../fixtures/runs/*")
	events := 0
	shared := replay.LiveMemo{}
	for _, dir := range matches {
		for _, run := range loadFixture(t, filepath.Base(dir)) {
			if run.Kind != model.KindWorkflow {
				continue
			}
			origin := replay.Workflow(run, replay.Config{}).Start.At
			fresh := replay.AttemptWatchdogsLive(run, origin, nil)
			memo := replay.LiveMemo{}
			filled := replay.AttemptWatchdogsLive(run, origin, memo)
			answered := replay.AttemptWatchdogsLive(run, origin, memo)
			through := replay.AttemptWatchdogsLive(run, origin, shared)
			if !reflect.DeepEqual(filled, fresh) || !reflect.DeepEqual(answered, fresh) || !reflect.DeepEqual(through, fresh) {
				t.Errorf("%s: through the memo:\n%v\n%v\n%v\nwithout:\n%v", dir, filled, answered, through, fresh)
			}
			events += len(fresh)
		}
	}
	if events < 10 {
		t.Fatalf("only %d live watchdog events in all the fixtures: the comparison proves little", events)
	}
}
