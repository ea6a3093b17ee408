package replay_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/pmcheck/pmcheck/analyze"
	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/analyze/replay"
)

func loadFixture(t *testing.T, name string) []*model.Run {
	t.Helper()
	res, err := analyze.Load([]string{filepath.Join("../../fixtures/runs", name)}, analyze.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res.Runs
}

func workflowRun(t *testing.T, name string) *model.Run {
	t.Helper()
	for _, r := range loadFixture(t, name) {
		if r.Kind == model.KindWorkflow {
			return r
		}
	}
	t.Fatalf("%s: no workflow run", name)
	return nil
}

// TestEnginesAgreeOnFixtures: on every Workflow fixture the event-driven
// engine prints what the reference poller prints, in text and in --json.
func TestEnginesAgreeOnFixtures(t *testing.T) {
	matches, _ := filepath.Glob("../../fixtures/runs/*")
	n := 0
	for _, dir := range matches {
		for _, run := range loadFixture(t, filepath.Base(dir)) {
			if run.Kind != model.KindWorkflow {
				continue
			}
			n++
			fast := replay.Workflow(run, replay.Config{Ledgers: analyze.Ledgers})
			ref := replay.Workflow(run, replay.Config{Ledgers: analyze.Ledgers, Reference: true})
			for _, js := range []bool{false, true} {
				a := strings.Join(replay.Lines(fast.Outcome.Events, js, true), "\n")
				b := strings.Join(replay.Lines(ref.Outcome.Events, js, true), "\n")
				if a != b || fast.Outcome.Exit != ref.Outcome.Exit {
					t.Errorf("%s: engines disagree\nevent-driven (exit %d):\n%s\nreference (exit %d):\n%s", dir, fast.Outcome.Exit, a, ref.Outcome.Exit, b)
				}
			}
		}
	}
	if n < 15 {
		t.Fatalf("only %d workflow fixtures found", n)
	}
}

// TestWorkflowFacts: the API check uses returns the watch events, the DONE
// verdict and watchdog facts from every source, with a mismatch where the
// runtime's predicted kill and the observed outcome disagree.
func TestWorkflowFacts(t *testing.T) {
	rep := replay.Workflow(workflowRun(t, "replay-kill-retry"), replay.Config{Ledgers: analyze.Ledgers})
	if rep.Outcome.Verdict != "clean after 1 retry" || rep.Outcome.Exit != 0 {
		t.Fatalf("verdict %q exit %d", rep.Outcome.Verdict, rep.Outcome.Exit)
	}
	var kill *model.WatchdogFact
	sources := map[string]int{}
	for i, f := range rep.Facts {
		sources[f.Source]++
		if f.Source == replay.SourceWatch && f.Kind == replay.KindKill {
			kill = &rep.Facts[i]
		}
		if f.Kind == "mismatch" {
			t.Errorf("kill-retry: the observed kill matches the runtime's prediction, but got a mismatch: %+v", f)
		}
	}
	if kill == nil || kill.Agent != "a:ak00000000000001" || kill.SilenceSeconds != 200 || kill.Observed != model.OutcomeKilled ||
		!strings.HasSuffix(kill.At.File, "agent-ak00000000000001.jsonl") || kill.At.Line != 9 {
		t.Fatalf("KILL fact = %+v", kill)
	}
	if sources[replay.SourceWatch] != 5 || sources[replay.SourceProgressWatch] == 0 || sources[replay.SourceWorkflowRuntime] == 0 {
		t.Errorf("facts by source: %v", sources)
	}

	// A 25-minute silence the runtime would have killed, but the agent
	// returned: predicted and observed disagree.
	rep = replay.Workflow(workflowRun(t, "replay-quiet-doubling"), replay.Config{Ledgers: analyze.Ledgers})
	var mismatch *model.WatchdogFact
	for i, f := range rep.Facts {
		if f.Kind == "mismatch" {
			mismatch = &rep.Facts[i]
		}
	}
	if mismatch == nil || mismatch.Source != replay.SourceWorkflowRuntime || mismatch.Predicted != "killed" || mismatch.Observed != model.OutcomeCompleted {
		t.Fatalf("mismatch fact = %+v", mismatch)
	}

	// The failed fixture: verdict begins FAILED, exit 3.
	rep = replay.Workflow(workflowRun(t, "replay-failed-causes"), replay.Config{Ledgers: analyze.Ledgers})
	if !strings.HasPrefix(rep.Outcome.Verdict, "FAILED") || rep.Outcome.Exit != replay.ExitFailed {
		t.Errorf("failed-causes: verdict %q exit %d", rep.Outcome.Verdict, rep.Outcome.Exit)
	}
	// JSON of a FAILED with a reset time.
	var withReset string
	for _, e := range rep.Outcome.Events {
		if e.Kind == replay.KindFailed && strings.Contains(e.JSON(), "reset_time\": \"3pm") {
			withReset = e.JSON()
		}
	}
	if withReset != `{"event": "FAILED", "agent": "a:af00000000000001", "attempt": 1, "cause": "hit a usage limit", "reset_time": "3pm (Europe/Amsterdam)"}` {
		t.Errorf("usage-limit FAILED json = %s", withReset)
	}
}

// TestSessionFacts: per-subagent watchdog facts of a session, and none for a
// subagent that kept writing.
func TestSessionFacts(t *testing.T) {
	var sess *model.Run
	for _, r := range loadFixture(t, "session-sync-and-async") {
		if r.Kind == model.KindSession {
			sess = r
		}
	}
	if sess == nil {
		t.Fatal("no session")
	}
	facts := replay.Session(sess, replay.Config{Ledgers: analyze.Ledgers})
	// child 2 is silent 80s before its last row: under every threshold but
	// the ProgressWatch tick grid; child 1 is silent 70s. No kill anywhere.
	for _, f := range facts {
		if f.Kind == "inactivity-timeout" || f.Kind == "sigkill" || f.Kind == "max-duration" {
			t.Errorf("unexpected kill fact %+v", f)
		}
		if f.Source != replay.SourceProgressWatch && f.Source != replay.SourceHarness {
			t.Errorf("session fact from %s", f.Source)
		}
	}
	// Lower the thresholds: now ProgressWatch must stall and the harness
	// must time out both children.
	cfg := replay.Config{Ledgers: analyze.Ledgers, Watchdogs: replay.DefaultWatchdogOptions()}
	cfg.Watchdogs.PWInactivity, cfg.Watchdogs.PWKillAfter, cfg.Watchdogs.PWTick = 30e9, 60e9, 5e9
	cfg.Watchdogs.HarnessInactivity = 50e9
	facts = replay.Session(sess, cfg)
	kinds := map[string]int{}
	for _, f := range facts {
		kinds[f.Source+"/"+f.Kind]++
		if f.At.File == "" || f.Time.IsZero() {
			t.Errorf("fact without evidence or time: %+v", f)
		}
	}
	if kinds["progresswatch/stall"] != 2 || kinds["harness/inactivity-timeout"] != 2 {
		t.Errorf("facts by kind: %v", kinds)
	}
}
