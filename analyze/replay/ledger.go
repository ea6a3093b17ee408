package replay

import (
	"github.com/pmcheck/pmcheck/analyze/detect"
	"github.com/pmcheck/pmcheck/analyze/detect/ship"
	"github.com/pmcheck/pmcheck/analyze/model"
)

// Ledger is the work a killed attempt left behind, as KILL's second line
// states it ("attempt 1 wrote 3 paths, reported 1 commit.").
type Ledger struct {
	Paths int
	// PathsPartial: a shell command may have written files too, so Paths is a
	// lower bound ("3+ paths").
	PathsPartial bool
	// Commits with an id reported; CommitsWithoutID counts commit commands
	// that succeeded but reported no id.
	Commits          int
	CommitsWithoutID int
}

// LedgerFunc computes the ledger of one transcript (runLedger's unless a
// test supplies another).
type LedgerFunc func(*model.Transcript) Ledger

// runLedger is the detectors' work ledger (detect.LedgerOf) of run's
// transcripts in the shape the KILL line reports. Their shell commands are
// classified with the options the detectors classify run's with
// (detect.ShipOptions: the deploy labels and the git aliases defined
// anywhere in the run), so the replay and the findings count the same paths
// and commits. The aliases are gathered when the first ledger is asked for:
// most runs have no killed attempt.
func runLedger(run *model.Run, deployLabels []string) LedgerFunc {
	var opts *ship.Options
	return func(t *model.Transcript) Ledger {
		if opts == nil {
			o := detect.ShipOptions(run, deployLabels)
			opts = &o
		}
		l := detect.LedgerOf(t, *opts)
		return Ledger{
			Paths:            len(l.Paths),
			PathsPartial:     l.Partial,
			Commits:          len(l.Commits),
			CommitsWithoutID: max(l.CommitCommands-len(l.Commits), 0),
		}
	}
}
