package transcript

import "github.com/pmcheck/pmcheck/analyze/model"

// Shell commands classified while reading. Parsing a Bash command is the
// costliest step of analysing a call, and it depends on nothing but the
// command and the deploy labels (a run's git aliases aside, which the
// detectors apply: ship.Reuse), so the reader asks the classifier it is
// given (Options.Shell) while a line is decoded: on the decoding goroutines
// of a large file (parallel.go), on the reading job of a small one. The
// builder then keeps each distinct analysis once in the transcript
// (model.ShellClasses) and gives the call its place.

// ShellOptions ask the reader to classify Bash commands.
type ShellOptions struct {
	// Classify is the shell classifier (ship.Classify with Labels, through a
	// cache): safe for concurrent use. It is given a view of the line being
	// decoded, whose bytes are reused: what it returns must share no memory
	// with the command.
	Classify func(command string) model.ShellAnalysis
	// Labels are the deploy labels Classify uses (nil: its defaults),
	// recorded with the analyses so that the detectors can tell whether
	// they are theirs.
	Labels []string
}

// shellCall is the classification of a Bash block's command (capped as
// the call keeps it), made where the line was decoded.
type shellCall struct {
	blk *block
	a   model.ShellAnalysis
}

// classifyShell classifies the Bash calls of a decoded row into out: rows
// the builder turns into calls (user and assistant rows) only.
func classifyShell(r *row, sh *ShellOptions, out []shellCall) []shellCall {
	if r.Message == nil || r.Type != "user" && r.Type != "assistant" {
		return out
	}
	blocks := r.Message.Content.blocks
	for i := range blocks {
		blk := &blocks[i]
		if (blk.Type == "tool_use" || blk.Type == "server_tool_use") && blk.Name == "Bash" {
			cmd := cutString(blk.Input.Command, model.CommandLimit)
			out = append(out, shellCall{blk: blk, a: sh.Classify(cmd)})
		}
	}
	return out
}

// shellOf is the classification made of blk while its line was decoded.
func (b *builder) shellOf(blk *block) *shellCall {
	for i := range b.lineShells {
		if b.lineShells[i].blk == blk {
			return &b.lineShells[i]
		}
	}
	return nil
}

// plainShell is an analysis without lists, as a map key: most commands'
// analyses are one of a few such (nothing found, may write), and they are
// kept once per transcript whatever the commands.
type plainShell struct {
	mayWrite      bool
	commits       int
	parseError    string
	gitNotBuiltin bool
}

// shellScanMax is how many analyses of each kind a transcript finds by
// scanning a list before it indexes them in a map: most files hold a few
// (a map for each of a fleet's files cost more than all its lookups).
const shellScanMax = 8

type plainShellAt struct {
	k plainShell
	i int
}

type commandShellAt struct {
	command string
	i       int
}

// internShell returns where s's analysis is in the transcript's list,
// adding it when it is new: an analysis without lists is shared by value,
// one with lists by command (the call's copy; -1 when the list is full).
func (b *builder) internShell(s *shellCall, command string) int {
	a := s.a
	if a.Actions == nil && a.Writes == nil {
		k := plainShell{a.MayWrite, a.Commits, a.ParseError, a.GitNotBuiltin}
		if b.plainShells != nil {
			if i, ok := b.plainShells[k]; ok {
				return i
			}
		} else {
			for _, p := range b.plainShellList {
				if p.k == k {
					return p.i
				}
			}
		}
		i := b.t.AddShellClass(b.shell.Labels, a)
		if i < 0 {
			return i
		}
		if b.plainShells == nil && len(b.plainShellList) < shellScanMax {
			b.plainShellList = append(b.plainShellList, plainShellAt{k, i})
			return i
		}
		if b.plainShells == nil {
			b.plainShells = make(map[plainShell]int, 2*shellScanMax)
			for _, p := range b.plainShellList {
				b.plainShells[p.k] = p.i
			}
		}
		b.plainShells[k] = i
		b.keys++
		return i
	}
	if b.shellByCommand != nil {
		if i, ok := b.shellByCommand[command]; ok {
			return i
		}
	} else {
		for _, c := range b.commandShellList {
			if c.command == command {
				return c.i
			}
		}
	}
	i := b.t.AddShellClass(b.shell.Labels, a)
	if i < 0 {
		return i
	}
	if b.shellByCommand == nil && len(b.commandShellList) < shellScanMax {
		b.commandShellList = append(b.commandShellList, commandShellAt{command, i})
		return i
	}
	if b.shellByCommand == nil {
		b.shellByCommand = make(map[string]int, 2*shellScanMax)
		for _, c := range b.commandShellList {
			b.shellByCommand[c.command] = c.i
		}
	}
	b.shellByCommand[command] = i
	b.keys++
	return i
}
