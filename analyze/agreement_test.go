package analyze

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pmcheck/pmcheck/analyze/interpret"
	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/analyze/replay"
)

// TestCheckAndReplayAgree runs the detectors (what `check` reports) and the
// replay (what `replay` prints) over every fixture and every corpus folder,
// and asserts the same verdict per Workflow attempt: every attempt watch
// prints KILL for is a killed attempt fact (except watch's no-details
// fallback for an attempt whose transcript never appeared) and the reverse; every FAILED
// cause names the same runtime marker as the attempt fact's failure cause.
func TestCheckAndReplayAgree(t *testing.T) {
	roots := []string{}
	entries, err := os.ReadDir(fixtures)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		roots = append(roots, filepath.Join(fixtures, e.Name()))
	}
	if dir := os.Getenv("PMCHECK_CORPUS"); dir != "" {
		root := corpus(t)
		cs, err := os.ReadDir(root)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range cs {
			if e.IsDir() {
				roots = append(roots, filepath.Join(root, e.Name()))
			}
		}
	}
	// The fact phrase and watch's phrase of each marker.
	markerOfFact := map[string]string{}
	markerOfWatch := map[string]string{}
	for _, m := range []string{interpret.MarkerNone, interpret.MarkerKillSentinel, interpret.MarkerUsageLimit, interpret.MarkerAPIError, interpret.MarkerContext} {
		e := interpret.Ending{Marker: m}
		markerOfFact[e.Phrase()] = m
	}
	markerOfWatch[replay.CauseNotRecorded] = interpret.MarkerNone
	for _, c := range []struct{ marker, watch string }{
		{interpret.MarkerKillSentinel, replay.CauseInterrupted}, {interpret.MarkerUsageLimit, replay.CauseUsageLimit},
		{interpret.MarkerAPIError, replay.CauseAPIError}, {interpret.MarkerContext, replay.CauseContext},
	} {
		markerOfWatch[c.watch] = c.marker
	}
	markerOfFact[interpret.PhraseNotRecorded] = interpret.MarkerNone
	attempts, kills, causes := 0, 0, 0
	for _, root := range roots {
		res, err := Load([]string{root}, Options{})
		if err != nil {
			continue // inputs that fail to load are other tests' business
		}
		facts := Facts(res.Runs, FactsOptions{})
		for i, run := range res.Runs {
			if run.Kind != model.KindWorkflow || run.Journal == nil {
				continue
			}
			byAttempt := map[string]model.AttemptFact{}
			for _, f := range facts[i].Attempts {
				byAttempt[f.Key+"#"+strconv.Itoa(f.Ordinal)] = f
			}
			rep := replay.Workflow(run, replay.Config{})
			noTranscript := map[string]bool{}
			for _, a := range run.Attempts {
				noTranscript[a.Key+"#"+strconv.Itoa(a.Ordinal)] = a.Transcript == nil
			}
			for _, e := range rep.Outcome.Events {
				id := e.Key + "#" + strconv.Itoa(e.Attempt)
				f, ok := byAttempt[id]
				switch e.Kind {
				case replay.KindKill:
					kills++
					// watch's fallback KILL ("details unavailable") for an
					// attempt whose transcript never appeared is not evidence
					// of a kill; check keeps such an attempt open.
					if noTranscript[id] {
						continue
					}
					if !ok || f.Outcome != model.OutcomeKilled {
						t.Errorf("%s: replay prints KILL for %s, check says %q", run.Path, id, f.Outcome)
					}
				case replay.KindFailed:
					if !ok || f.Outcome != model.OutcomeFailed {
						continue // FAILED for a key watch never saw start, e.g.
					}
					causes++
					fact := f.FailureCause
					if i := strings.Index(fact, ": "); i >= 0 {
						fact = fact[:i]
					}
					watched, ok := markerOfWatch[e.Detail]
					if !ok || watched != markerOfFact[fact] {
						// watch reads the cause only once the transcript exists
						// at the FAILED instant; a later row is "not recorded".
						if e.Detail == replay.CauseNotRecorded {
							continue
						}
						t.Errorf("%s: %s FAILED %q, check says %q", run.Path, id, e.Detail, f.FailureCause)
					}
				}
			}
			for _, a := range run.Attempts {
				attempts++
				id := a.Key + "#" + strconv.Itoa(a.Ordinal)
				f := byAttempt[id]
				agent := rep.World.Agents[a.AgentID]
				replayKilled := agent != nil && interpret.AttemptKilled(a.SupersededBy > 0, a.ClosedBy, agent.LastUserKill)
				if (f.Outcome == model.OutcomeKilled) != replayKilled {
					t.Errorf("%s: attempt %s: check says %q, replay's world says killed=%v", run.Path, id, f.Outcome, replayKilled)
				}
				if agent != nil && a.ClosedBy == model.OutcomeFailed && markerOfFact[strings.SplitN(f.FailureCause, ": ", 2)[0]] != agent.Cause.Marker {
					t.Errorf("%s: attempt %s: check's cause %q, replay's %q", run.Path, id, f.FailureCause, agent.Cause.Phrase)
				}
			}
		}
	}
	t.Logf("compared %d attempts, %d KILLs, %d causes", attempts, kills, causes)
	if attempts < 10 || kills < 2 || causes < 3 {
		t.Fatalf("compared %d attempts, %d KILLs and %d causes: the test is not looking at the fixtures", attempts, kills, causes)
	}
}
