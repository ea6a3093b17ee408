package detect

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/pmcheck/pmcheck/analyze/detect/ship"
	"github.com/pmcheck/pmcheck/analyze/model"
)

// plainScanMax is how many plain analyses a run lists before it indexes
// them: most runs have one or two (a map of one cost each of a fleet's runs
// 300 bytes).
const plainScanMax = 8

type plainFound struct {
	k plainAnalysis
	i int32
}

// plainOf finds a plain analysis stored before.
func (a *analysis) plainOf(k plainAnalysis) (int32, bool) {
	if a.plain != nil {
		i, ok := a.plain[k]
		return i, ok
	}
	for _, p := range a.plains {
		if p.k == k {
			return p.i, true
		}
	}
	return 0, false
}

// plainAnalysis is a ship.Analysis without lists, as a map key.
type plainAnalysis struct {
	mayWrite      bool
	mayShip       bool
	commits       int
	parseError    string
	gitNotBuiltin bool
}

// preclassify fills the classification cache on every CPU before the
// serial walk: parsing the shell commands was most of the detectors' time
// and ran on one core. Classify is a pure function of the command and the
// options, so the cache holds exactly what classify would compute, and a
// command that recurs (an agent runs its tests dozens of times) is
// classified once.
func (a *analysis) preclassify() {
	if a.run == nil {
		return
	}
	var calls []*model.ToolCall
	for _, t := range a.transcripts() {
		for _, c := range t.ToolCalls {
			if c.Name() != "Bash" || c.CommandCut() { // a cut one: classify does it
				continue
			}
			if _, ok := a.stored(c); !ok {
				calls = append(calls, c)
			}
		}
	}
	workers := runtime.GOMAXPROCS(0)
	if workers < 2 || len(calls) < 256 {
		return // a small run: classify parses on demand
	}
	// The distinct commands, and each call's among them.
	of := make([]int32, len(calls))
	var commands []string
	index := map[string]int32{}
	for i, c := range calls {
		cmd := c.Command()
		j, ok := index[cmd]
		if !ok {
			j = int32(len(commands))
			index[cmd] = j
			commands = append(commands, cmd)
		}
		of[i] = j
	}
	index = nil
	out := make([]ship.Analysis, len(commands))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(64)) - 64
				if i >= len(commands) {
					return
				}
				for j := i; j < min(i+64, len(commands)); j++ {
					out[j] = a.classifyCommand(commands[j])
				}
			}
		}()
	}
	wg.Wait()
	stored := make([]int32, len(commands)) // where each command's analysis is in found, +1
	for i, c := range calls {
		j := of[i]
		if stored[j] == 0 {
			stored[j] = a.remember(c, out[j]) + 1
		} else {
			a.classified[c] = stored[j] - 1
		}
	}
}

// classify parses a Bash call's command once per analysis, unless the
// reader classified it already.
func (a *analysis) classify(c *model.ToolCall) ship.Analysis {
	if r, ok := a.stored(c); ok {
		return r
	}
	if i, ok := a.classified[c]; ok {
		return a.found[i]
	}
	cmd := c.Command()
	if c.CommandCut() {
		// Not by its text: a complete command may read the same.
		if countClassified != nil {
			countClassified(cmd)
		}
		r := a.opts.Classifications.classify(cmd, callShipOptions(c, a.shipOpts))
		a.remember(c, r)
		return r
	}
	if i, ok := a.byCommand[cmd]; ok {
		a.classified[c] = i
		return a.found[i]
	}
	r := a.classifyCommand(cmd)
	if a.byCommand == nil {
		a.byCommand = map[string]int32{}
	}
	a.byCommand[cmd] = a.remember(c, r)
	return r
}

// stored is the classification the transcript's reader made of c's
// command (transcript.Options.Shell), when it is what ship.Classify gives
// the command with this run's options: made with the same deploy labels,
// and the run's git aliases cannot change it (ship.Reuse decides).
func (a *analysis) stored(c *model.ToolCall) (ship.Analysis, bool) { return reused(c, a.shipOpts) }

// ShellReader reads a Bash call's command with opts as the detectors do:
// the reader's analysis when ship.Reuse accepts it for opts, else
// ship.Classify (a command the reader cut, as the head of what ran). The
// work ledger of a transcript outside an analysis (interpret.LedgerOf, for
// replay's KILL line) reads its commands with it.
func ShellReader(opts ship.Options) func(*model.ToolCall) ship.Analysis {
	return func(c *model.ToolCall) ship.Analysis {
		if r, ok := reused(c, opts); ok {
			return r
		}
		return ship.Classify(c.Command(), callShipOptions(c, opts))
	}
}

// reused is the reader's analysis of c's command when ship.Reuse accepts it
// for opts.
func reused(c *model.ToolCall, opts ship.Options) (ship.Analysis, bool) {
	r, labels, ok := c.ShellClass()
	if !ok || !ship.Reuse(r, labels, opts) {
		return ship.Analysis{}, false
	}
	return r, true
}

// callShipOptions are opts for classifying c's command: a command the
// reader cut at its cap is the head of what ran (ship.Options.Truncated).
func callShipOptions(c *model.ToolCall, opts ship.Options) ship.Options {
	opts.Truncated = c.CommandCut()
	return opts
}

// countClassified, when set (tests), is called with each command the
// detectors classify themselves rather than reuse the reader's analysis.
var countClassified func(cmd string)

// classifyCommand classifies a command with the run's options.
func (a *analysis) classifyCommand(cmd string) ship.Analysis {
	if countClassified != nil {
		countClassified(cmd)
	}
	return a.opts.Classifications.classify(cmd, a.shipOpts)
}

// remember caches a call's analysis and returns where it is in found.
func (a *analysis) remember(c *model.ToolCall, r ship.Analysis) int32 {
	if r.Actions == nil && r.Writes == nil {
		k := plainAnalysis{r.MayWrite, r.MayShip, r.Commits, r.ParseError, r.GitNotBuiltin}
		if i, ok := a.plainOf(k); ok {
			a.classified[c] = i
			return i
		}
		if len(a.plains) < plainScanMax {
			a.plains = append(a.plains, plainFound{k, int32(len(a.found))})
		} else {
			if a.plain == nil {
				a.plain = make(map[plainAnalysis]int32, 2*plainScanMax)
				for _, p := range a.plains {
					a.plain[p.k] = p.i
				}
			}
			a.plain[k] = int32(len(a.found))
		}
	}
	i := int32(len(a.found))
	a.classified[c] = i
	a.found = append(a.found, r)
	return i
}
