package detect

import (
	"math"

	"github.com/pmcheck/pmcheck/analyze/detect/ship"
	"github.com/pmcheck/pmcheck/analyze/interpret"
	"github.com/pmcheck/pmcheck/analyze/model"
)

// Gate is the resume gate's reading of a session as its transcript stands:
// what a ship action on the next row would find outstanding. It is the same
// reading check's ship facts make at a ship action's row (the items of the
// subagents and attempts steps, their review, outstandingAt), so the hook
// asks exactly when check reports ship-while-killed-outstanding there
// (internal/differential).
type Gate struct {
	// Scan is the resume-gate scan of the session's transcript: its marks
	// and the Signature A/B hits of its current segment.
	Scan interpret.Scan
	// Outstanding names the killed (or false-done) subagents and attempts
	// whose work is unreviewed at the end of the transcript, deduplicated,
	// from the first model.ListLimit items; Count counts every item.
	Outstanding []string
	Count       int
	// Ship are the options the run's commands are classified with: its
	// deploy labels and the git aliases its commands define.
	Ship ship.Options
	// MarkItems: the newest mark decodes and lists items (a resume that
	// finds nothing outstanding disarms it with an empty mark).
	MarkItems bool
	// MarkOnly are the newest mark's items that no subagent or attempt of
	// the run has (Knows), in the mark's order, each once. The mark is the
	// gate's own state, and a gate of another implementation (the
	// reference resume gate) may have written it with a reading of its
	// own: a ship action asks about them too, the one way the hook asks
	// where check does not (docs/architecture.md, deliberate differences).
	MarkOnly []string
	// known are the names of every item at risk, reviewed or not.
	known map[string]bool
}

// Knows reports whether name is one of the run's items at risk (a mark's
// item, whose separator characters the mark turned into spaces, included).
func (g *Gate) Knows(name string) bool {
	return g.known[name] || g.known[interpret.MarkItem(name)]
}

// gateStep is the gate's one step of its own: the items outstanding at the
// end of the session's transcript.
var gateStep = &step{name: "gate", requires: []*step{itemsStep, reviewStep}, run: gateOutstanding}

func gateOutstanding(a *pass) {
	g := &Gate{known: map[string]bool{}}
	rk := a.risk()
	for _, k := range rk.items {
		g.known[k.name] = true
		g.known[interpret.MarkItem(k.name)] = true
	}
	main := a.run.Main
	// After the last row: what the pending call would find.
	end := model.Evidence{File: main.File, Line: math.MaxInt32, Time: main.LastTime}
	outs, _ := outstandingAt(rk, []model.Evidence{end})
	o := outs[0]
	g.Count = o.count
	for _, n := range o.names {
		if !contains(g.Outstanding, n) {
			g.Outstanding = append(g.Outstanding, n)
		}
	}
	a.res.gate = g
}

// signaturesFirst orders names as the reference gate lists its items: the
// Signature A/B hits of the current segment first, in the scan's order,
// then the other items in fact order.
func signaturesFirst(names, scanned []string) []string {
	out := make([]string, 0, len(names))
	for _, s := range scanned {
		if contains(names, s) {
			out = append(out, s)
		}
	}
	for _, n := range names {
		if !contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// GateOf reads the gate of a session run (its Main is the transcript the
// hook was given).
func GateOf(run *model.Run, opts Options) *Gate {
	if run == nil || run.Main == nil {
		return &Gate{Scan: interpret.ScanTranscript(nil), known: map[string]bool{}}
	}
	a := &analysis{run: run, opts: opts.WithDefaults()}
	a.shipOpts = ShipOptions(run, a.opts.DeployLabels)
	a.classified = map[*model.ToolCall]int32{}
	g := a.runSteps(gateStep).gate
	g.Scan = interpret.ScanTranscript(run.Main)
	g.Outstanding = signaturesFirst(g.Outstanding, g.Scan.Items)
	g.Ship = a.shipOpts
	g.readMark()
	return g
}

// readMark sets MarkItems and MarkOnly from the newest mark of the scan.
func (g *Gate) readMark() {
	seg := g.Scan.Segments
	g.MarkItems = seg.State == interpret.MarkItems
	if !g.MarkItems {
		return
	}
	for _, it := range seg.Items {
		if !g.Knows(it) && !contains(g.MarkOnly, it) {
			g.MarkOnly = append(g.MarkOnly, it)
		}
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// GateIgnores reports whether the gate's reading (GateOf, with the gate's
// options: no review-file patterns, no git history) never reads a tool
// call of this kind or its result, so that a row holding only such calls
// and results cannot change what the gate finds: a shell command that
// defines no git alias (runAliases reads only those) and a file write
// (read only by the ledgers, which the gate reads only through review
// files). Every other call the reader keeps — spawns, polls, task control,
// Workflow and MCP calls, a command cut short — may. The hook's state
// (analyze.GateCarry) carries its reading over appended rows of these
// kinds alone.
func GateIgnores(c *model.ToolCall) bool {
	switch name := c.Name(); {
	case name == "Bash":
		return !c.CommandCut() && !mayDefineAliases(c.Command())
	default:
		return interpret.WritesFile(name)
	}
}
