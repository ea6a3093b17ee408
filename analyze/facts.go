package analyze

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/pmcheck/pmcheck/analyze/detect"
	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/analyze/replay"
)

// FactsOptions configure the detectors and the replays.
type FactsOptions struct {
	Detect detect.Options
	// Replay configures watch and the watchdogs.
	Replay replay.Config
	// Jobs is how many runs are analysed at once (GOMAXPROCS when 0).
	Jobs int
}

// Facts runs the detectors and the replays over every run: the one step
// between the model and the rules, shared by `pmcheck check` and the tests
// that check rules on fixtures. Runs are independent (the detectors and
// replays only read the model), so Jobs of them are analysed at once; the
// facts are in run order whatever Jobs is.
func Facts(runs []*model.Run, opts FactsOptions) []model.Facts {
	out := make([]model.Facts, len(runs))
	jobs := opts.Jobs
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	if jobs == 1 || len(runs) < 2 {
		for i, run := range runs {
			out[i] = runFacts(run, opts)
		}
		return out
	}
	factsOnJobs(runs, opts, jobs, out)
	return out
}

// factsOnJobs fills out on jobs goroutines. It is apart from Facts so that
// a check's one-run calls (20,000 of them for a fleet) do not move their
// options to the heap for goroutines they do not start.
func factsOnJobs(runs []*model.Run, opts FactsOptions, jobs int, out []model.Facts) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(jobs, len(runs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(runs) {
					return
				}
				out[i] = runFacts(runs[i], opts)
			}
		}()
	}
	wg.Wait()
}

// runFacts is the facts of one run.
//
// A Workflow run's replay runs first: what it holds while it runs (the
// journal's times, the watcher's state) is garbage before the detectors
// make their facts, so the two do not add up (a journal of 200,000
// attempts: 90 MB of replay beside 85 MB of attempt facts). A session's
// replay holds little; with many subagents it runs beside the detectors.
func runFacts(run *model.Run, opts FactsOptions) model.Facts {
	f := detectorFacts(run, opts)
	withRuntime(&f, run) // runtime_facts.go
	return f
}

// detectorFacts is the detectors' and the replay's facts of one run.
func detectorFacts(run *model.Run, opts FactsOptions) model.Facts {
	var (
		watchdogs []model.WatchdogFact
		verdict   string
	)
	switch run.Kind {
	case model.KindWorkflow:
		// The KILL ledger classifies shell commands as the detectors do.
		// Only the facts are kept: a watch event's printed lines are for
		// replay and watch.
		cfg := opts.Replay
		cfg.DeployLabels = opts.Detect.DeployLabels
		cfg.Ledgers = Ledgers
		cfg.FactsOnly = true
		rep := replay.Workflow(run, cfg)
		watchdogs, verdict = rep.Facts, rep.Outcome.Verdict
	default:
		if len(run.Subagents) >= concurrentReplayAgents {
			// A session with many subagents is most often the one run of a
			// check, analysed while the other core has nothing left to
			// read: its replay (about 60 µs a subagent) runs beside the
			// detectors. Both only read the model.
			var wg sync.WaitGroup
			wg.Add(1)
			go func() {
				defer wg.Done()
				watchdogs = replay.Session(run, opts.Replay)
			}()
			f := detect.Analyze(run, opts.Detect)
			wg.Wait()
			return withWatchdogs(f, watchdogs, verdict)
		}
		watchdogs = replay.Session(run, opts.Replay)
	}
	return withWatchdogs(detect.Analyze(run, opts.Detect), watchdogs, verdict)
}

// concurrentReplayAgents is the number of subagents from which a session's
// replay runs beside its detectors. Below it the two take well under a
// millisecond together, and a fleet's runs already keep every core busy.
const concurrentReplayAgents = 16

// withWatchdogs adds the replay's facts and verdict to the detectors'.
func withWatchdogs(f model.Facts, watchdogs []model.WatchdogFact, verdict string) model.Facts {
	if len(f.Watchdogs) == 0 && len(watchdogs) > 0 {
		f.Watchdogs = watchdogs // handed over, not copied
	} else {
		f.Watchdogs = append(f.Watchdogs, watchdogs...)
	}
	if f.Run.Verdict == "" {
		f.Run.Verdict = verdict
	}
	return f
}
