package analyze

import (
	"github.com/pmcheck/pmcheck/analyze/detect"
	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/analyze/replay"
)

// FactsOptions configure the detectors and the replays.
type FactsOptions struct {
	Detect detect.Options
	// Replay configures watch and the watchdogs.
	Replay replay.Config
}

// Facts runs the detectors and the replays over every run, in run order: the
// one step between the model and the rules, shared by `pmcheck check` and the
// tests that check rules on fixtures.
func Facts(runs []*model.Run, opts FactsOptions) []model.Facts {
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
