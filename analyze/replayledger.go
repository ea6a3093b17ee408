package analyze

import (
	"github.com/pmcheck/pmcheck/analyze/detect"
	"github.com/pmcheck/pmcheck/analyze/detect/ship"
	"github.com/pmcheck/pmcheck/analyze/interpret"
	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/analyze/replay"
)

// Ledgers is the ledger function replay's KILL lines count a killed
// attempt's work with: the work ledger interpret.LedgerOf reads of the run's
// transcripts (the one the facts read), their shell commands read as the
// detectors read the run's (detect.ShellReader with detect.ShipOptions: the
// deploy labels and the git aliases defined anywhere in the run), so the
// replay and the findings count the same paths and commits. The aliases are gathered when
// the first ledger is asked for: most runs have no killed attempt. Replay
// itself decides timing only and never imports the detectors.
func Ledgers(run *model.Run, deployLabels []string) replay.LedgerFunc {
	var opts *ship.Options
	return func(t *model.Transcript) replay.Ledger {
		if opts == nil {
			o := detect.ShipOptions(run, deployLabels)
			opts = &o
		}
		l := interpret.LedgerOf(t, detect.ShellReader(*opts))
		return replay.Ledger{
			Paths:            len(l.Paths),
			PathsPartial:     l.Partial,
			Commits:          len(l.Commits),
			CommitsWithoutID: l.CommitsWithoutID(),
		}
	}
}
