package replay

import (
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

// LedgerFunc computes the ledger of one transcript (the detectors' work
// ledger, through Config.Ledgers, unless a test supplies another).
type LedgerFunc func(*model.Transcript) Ledger

// noLedger is the ledger of a replay given no ledger function: nothing
// counted.
func noLedger(*model.Transcript) Ledger { return Ledger{} }
