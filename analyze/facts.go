package analyze

import (
	"github.com/pmcheck/pmcheck/analyze/detect"
	"github.com/pmcheck/pmcheck/analyze/detect/ship"
	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/analyze/replay"
)

// FactsOptions configure the detectors and the replays.
type FactsOptions struct {
	Detect detect.Options
	// Replay configures watch and the watchdogs; its Ledger defaults to the
	// detectors' work ledger, so a KILL line and the findings count the same
	// paths and commits.
	Replay replay.Config
}

// Facts runs the detectors and the replays over every run, in run order: the
// one step between the model and the rules, shared by `pmcheck check` and the
// tests that check rules on fixtures.
func Facts(runs []*model.Run, opts FactsOptions) []model.Facts {
	if opts.Replay.Ledger == nil {
		shipOpts := ship.Options{DeployLabels: opts.Detect.DeployLabels}
		opts.Replay.Ledger = func(t *model.Transcript) replay.Ledger { return ReplayLedger(t, shipOpts) }
	}
	out := make([]model.Facts, 0, len(runs))
	for _, run := range runs {
		f := detect.Analyze(run, opts.Detect)
		switch run.Kind {
		case model.KindWorkflow:
			rep := replay.Workflow(run, opts.Replay)
			f.Watchdogs = append(f.Watchdogs, rep.Facts...)
			if f.Run.Verdict == "" {
				f.Run.Verdict = rep.Outcome.Verdict
			}
		default:
			f.Watchdogs = append(f.Watchdogs, replay.Session(run, opts.Replay)...)
		}
		out = append(out, f)
	}
	return out
}

// ReplayLedger is the detectors' work ledger in the shape watch's KILL line
// reports it.
func ReplayLedger(t *model.Transcript, opts ship.Options) replay.Ledger {
	l := detect.LedgerOf(t, opts)
	return replay.Ledger{
		Paths:            len(l.Paths),
		PathsPartial:     l.Partial,
		Commits:          len(l.Commits),
		CommitsWithoutID: max(l.CommitCommands-len(l.Commits), 0),
	}
}
