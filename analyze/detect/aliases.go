package detect

import (
	"strings"

	"github.com/pmcheck/pmcheck/analyze/detect/ship"
	"github.com/pmcheck/pmcheck/analyze/model"
)

// ShipOptions are the options every Bash command of run is classified
// with: the deploy labels in effect (nil: ship's defaults) and the git
// aliases the run defines (runAliases). The detectors' facts and work
// ledgers and replay's KILL ledger all take them from here, so that they
// read each command alike (a commit made through `git ci` is one in both).
func ShipOptions(run *model.Run, deployLabels []string) ship.Options {
	return ship.Options{DeployLabels: deployLabels, Aliases: runAliases(run)}
}

// runAliases collects the git aliases every Bash command of the run defines
// with `git config alias.NAME VALUE`, so that `git NAME` anywhere in the run
// is classified as what it runs (a possible action). An alias defined in one
// file applies to all of them: the order of calls across files cannot always
// be known, and a config alias outlives the command that set it, so the
// union fails toward reporting. A Workflow run's agents work in the
// repository of the session that launched it, so that session's
// definitions count too (its transcript is the run's Main, which is not
// one of the run's own transcripts).
func runAliases(run *model.Run) map[string][]string {
	if run == nil {
		return nil
	}
	var u ship.AliasUnion
	ts := runTranscripts(run)
	if run.Kind == model.KindWorkflow && run.Main != nil {
		ts = append(ts, run.Main)
	}
	for _, t := range ts {
		for _, c := range t.ToolCalls {
			if c.Name() != "Bash" || !mayDefineAliases(c.Command()) {
				continue
			}
			u.Add(ship.ConfigAliases(c.Command()))
		}
	}
	return u.Map()
}

// mayDefineAliases reports whether a command may define a git alias
// (runAliases reads only those; GateIgnores the others).
func mayDefineAliases(command string) bool { return strings.Contains(command, "alias.") }
