package detect

import (
	"path"
	"sort"
	"strings"

	"github.com/pmcheck/pmcheck/analyze/detect/ship"
	"github.com/pmcheck/pmcheck/analyze/model"
)

// shipFacts is the ships step: every ship action in the run's transcripts,
// with the items outstanding when it ran, and which items a named ship
// action came after (shippedAfter). A command
// that names no ship action but is not proven harmless (ship.ShipActions)
// is a possible ship action only while a killed item is outstanding: it is
// kept only then, and marks nothing shipped (what shipped is what the
// classifier could name).
func shipFacts(a *pass) {
	res := &shipResult{ships: []model.ShipFact{}}
	rk := a.risk()
	killed := rk.items
	var facts []model.ShipFact
	var copied []bool
	// unproven[i]: facts[i] is a possible ship of the command of calls[i].
	var unproven []bool
	var calls []*model.ToolCall
	anyUnproven := false
	for _, t := range a.transcripts() {
		for _, c := range t.ToolCalls {
			var acts []ship.Action
			maybe := false
			switch {
			case c.Name() == "Bash":
				r := a.classify(c)
				acts = r.Actions
				if len(acts) == 0 && r.MayShip && len(killed) > 0 {
					// Its command is shown only if it is kept (below).
					acts, maybe = []ship.Action{{Kind: ship.KindShip, Possible: true}}, true
					anyUnproven = true
				}
			case a.isPublishTool(c.Name()):
				acts = []ship.Action{{Kind: ship.KindPublish, Command: c.Name()}}
			}
			for _, act := range acts {
				f := model.ShipFact{RunID: a.run.ID, Kind: act.Kind, Command: act.Command, Tool: c.Name(),
					Branch: act.Branch, RefKind: act.RefKind, Possible: act.Possible, Time: c.At().Time, At: c.At(), OutstandingKilled: []string{}}
				if act.RefKind == ship.RefTag {
					f.Tag = act.Target
				}
				if f.Branch == "" && act.Kind == ship.KindPush && act.RefKind == ship.RefBranch {
					f.Branch = t.GitBranch
				}
				facts = append(facts, f)
				copied = append(copied, c.Copied())
				unproven = append(unproven, maybe)
				calls = append(calls, c)
			}
		}
	}
	// The killed items outstanding at each action, and those an action came
	// after.
	at := make([]model.Evidence, len(facts))
	for i := range facts {
		at[i] = facts[i].At
	}
	outs, shipped := outstandingAt(rk, at)
	for i, o := range outs {
		f := &facts[i]
		f.OutstandingCount = o.count
		f.OutstandingKilled = append(f.OutstandingKilled, o.names...)
		f.Outstanding = f.OutstandingCount > 0
		if unproven[i] {
			if !f.Outstanding {
				continue
			}
			f.Command = ship.ShipActions(ship.Analysis{MayShip: true}, calls[i].Command())[0].Command
		}
		// A resume's copy of an earlier file's action is that file's ship
		// fact; it still ships the work killed above it.
		if !copied[i] {
			res.ships = append(res.ships, *f)
		}
	}
	if anyUnproven {
		// Only the actions the classifier named mark items shipped.
		var named []model.Evidence
		for i := range facts {
			if !unproven[i] {
				named = append(named, at[i])
			}
		}
		shipped = make([]bool, len(killed))
		markShipped(rk, named, shipped)
	}
	if len(killed) > 0 && shipped == nil {
		shipped = make([]bool, len(killed)) // no actions
	}
	res.shippedAfter = shipped
	sort.SliceStable(res.ships, func(i, j int) bool {
		x, y := res.ships[i].At, res.ships[j].At
		if !x.Time.Equal(y.Time) {
			return x.Time.Before(y.Time)
		}
		if x.File != y.File {
			return x.File < y.File
		}
		return x.Line < y.Line
	})
	for _, s := range res.ships {
		if s.Kind == ship.KindPush || s.Kind == ship.KindMerge {
			res.shipped = true
		}
	}
	if a.opts.Git != nil {
		res.shipped = true
	}
	a.res.ships = res
}

func (a *analysis) isPublishTool(name string) bool { return IsPublishTool(name, a.opts.PublishTools) }

// IsPublishTool reports whether a non-Bash tool call publishes: its name is
// one of patterns (exact, or a path.Match pattern such as "mcp__*__publish*").
// The CI check's ship facts and the resume-gate hook both ask it.
func IsPublishTool(name string, patterns []string) bool {
	for _, p := range patterns {
		if p == name {
			return true
		}
		// path.Match matches the pattern's literal start (up to its first
		// special character) literally: a name without it cannot match,
		// and a pattern without special characters only matches itself.
		// Most tool names are tried against literal patterns, and
		// path.Match was a fifth of the ships step.
		if i := strings.IndexAny(p, `*?[\`); i < 0 || !strings.HasPrefix(name, p[:i]) {
			continue
		}
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}
