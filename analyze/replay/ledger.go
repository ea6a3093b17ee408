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

// LedgerFunc computes the ledger of one transcript (defaultLedger unless a
// test supplies another).
type LedgerFunc func(*model.Transcript) Ledger

// defaultLedger is the detectors' work ledger (detect.LedgerOf) in the
// shape the KILL line reports, so the replay and the findings always count
// the same paths and commits.
func defaultLedger(t *model.Transcript) Ledger {
	l := detect.LedgerOf(t, ship.Options{})
	return Ledger{
		Paths:            len(l.Paths),
		PathsPartial:     l.Partial,
		Commits:          len(l.Commits),
		CommitsWithoutID: max(l.CommitCommands-len(l.Commits), 0),
	}
}
