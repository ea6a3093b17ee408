package detect

import (
	"strings"

	"github.com/pmcheck/pmcheck/analyze/detect/ship"
)

// runAliases collects the git aliases every Bash command of the run defines
// with `git config alias.NAME VALUE`, so that `git NAME` anywhere in the run
// is classified as what it runs (a possible action). An alias defined in one
// file applies to all of them: the order of calls across files cannot always
// be known, and a config alias outlives the command that set it, so the
// union fails toward reporting.
func (a *analysis) runAliases() map[string][]string {
	if a.run == nil {
		return nil
	}
	var u ship.AliasUnion
	for _, t := range a.transcripts() {
		for _, c := range t.ToolCalls {
			if c.Name() != "Bash" || !strings.Contains(c.Command(), "alias.") {
				continue
			}
			u.Add(ship.ConfigAliases(c.Command()))
		}
	}
	return u.Map()
}
