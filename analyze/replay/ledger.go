package replay

import (
	"regexp"
	"strings"

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

// LedgerFunc computes the ledger of one transcript. check wires the detectors'
// full work ledger here; the replay's default is DefaultLedger.
type LedgerFunc func(*model.Transcript) Ledger

var (
	commitIDRE   = regexp.MustCompile(`\[[^\]\n]*?\b([0-9a-f]{7,40})\]`)
	shellWriteRE = regexp.MustCompile(`(^|[^0-9&<>])>{1,2}[^&>]|\btee\b|\bsed\s+-i|\b(mv|cp|rm|touch|mkdir|install|patch|truncate|dd)\s|\bgit\s+(apply|checkout|restore|stash|reset|mv|rm)\b`)
)

// DefaultLedger is a small, self-contained ledger: distinct file paths of
// Write/Edit/MultiEdit/NotebookEdit calls; partial when a Bash command looks
// like it writes files; a `git commit` whose output names a commit id counts
// as a commit, one that succeeded without naming one as "count unknown".
func DefaultLedger(t *model.Transcript) Ledger {
	var l Ledger
	paths := map[string]bool{}
	for _, c := range t.ToolCalls {
		switch c.Name {
		case "Write", "Edit", "MultiEdit", "NotebookEdit":
			if c.FilePath != "" && !paths[c.FilePath] {
				paths[c.FilePath] = true
				l.Paths++
			}
		case "Bash":
			if shellWriteRE.MatchString(c.Command) {
				l.PathsPartial = true
			}
			if strings.Contains(c.Command, "git commit") && c.Result != nil && !c.Result.IsError {
				if commitIDRE.MatchString(c.Result.Text) {
					l.Commits++
				} else {
					l.CommitsWithoutID++
				}
			}
		}
	}
	return l
}
