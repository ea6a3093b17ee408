package transcript

import (
	"strings"
	"sync"
	"sync/atomic"

	"github.com/pmcheck/pmcheck/analyze/model"
)

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
	// Inert, when set, is ship.Inert, given by the caller (the reader
	// imports no classifier): whether the classifier finds nothing in a
	// command whatever its options (deploy labels, the run's git aliases).
	// Nothing reads such a command's output, so none of it is kept
	// (shell.OutputOf), with Classify or without. The call of such a
	// command keeps its classification and not the command: whoever
	// classifies the empty command it is left with finds the same nothing.
	Inert func(command string) bool
	// Labels are the deploy labels Classify uses (nil: its defaults),
	// recorded with the analyses so that the detectors can tell whether
	// they are theirs.
	Labels []string
}

// shellReader is one read's classifier: the options, and the analyses of
// the commands classified so far, by command, up to shellMemoBytes. A
// command an agent ran a thousand times in a file is classified once in it
// even when the check's cache does not keep it (full, or an analysis too
// large), as the detectors did when they deduplicated a run's commands; the
// memo is freed with the builder. The decoding goroutines share it.
type shellReader struct {
	opts ShellOptions
	// full is set once the transcript's list holds all the analyses a
	// call can name: the decoding goroutines then classify no more (the
	// detectors classify the calls left without one).
	full  atomic.Bool
	mu    sync.Mutex
	n     int // entries in small; then m
	small [shellScanMax]memoShell
	m     map[string]model.ShellAnalysis
	bytes int // what the entries cost (memoCost), at most shellMemoBytes
}

// shellMemoBytes bounds what a read's memo keeps; a command first met past
// it is classified at each of its calls without being kept. The memo serves
// the repeats of one file's commands when the check's cache (8 MiB for all
// files, detect.Classifications) does not keep them. Real sessions run
// hundreds to a few thousand distinct commands (the corpus's largest file,
// 61), and 2 MiB holds about 11,000 of 48 bytes, 7,000 of 150. Only a made
// file runs more (300,000 distinct commands grew an unbounded memo to 300,000
// entries: 288-291 MiB peak RSS against 250-262 without it), and its later
// commands are then parsed at each call, as the detectors did before the
// memo with those the cache refused. A memo lives while its file is read,
// so a check holds at most one per file in flight.
const shellMemoBytes = 2 << 20

// shellMemoEntryCost is what a memo entry costs beside its command and its
// analysis's strings: a map slot (the command's header and the 80-byte
// analysis, at the map's load) and the rounding of the command's copy.
const shellMemoEntryCost = 128

func memoCost(cmd string, a *model.ShellAnalysis) int {
	return len(cmd) + shellMemoEntryCost + a.Footprint()
}

type memoShell struct {
	command string
	a       model.ShellAnalysis
}

// classify is opts.Classify(cmd), once per distinct command of the file
// while the memo has room (shellMemoBytes); cmd may be a view (it is
// copied when kept).
func (s *shellReader) classify(cmd string) model.ShellAnalysis {
	s.mu.Lock()
	a, ok := s.lookup(cmd)
	s.mu.Unlock()
	if ok {
		return a
	}
	a = s.opts.Classify(cmd)
	cost := memoCost(cmd, &a)
	s.mu.Lock()
	// Another goroutine may have kept the same command meanwhile.
	if _, ok := s.lookup(cmd); !ok && s.bytes+cost <= shellMemoBytes {
		s.keep(strings.Clone(cmd), a)
		s.bytes += cost
	}
	s.mu.Unlock()
	return a
}

// keep adds a command the memo does not hold; s.mu is held.
func (s *shellReader) keep(cmd string, a model.ShellAnalysis) {
	switch {
	case s.m != nil:
		s.m[cmd] = a
	case s.n < len(s.small):
		s.small[s.n] = memoShell{cmd, a}
		s.n++
	default:
		s.m = make(map[string]model.ShellAnalysis, 2*len(s.small))
		for _, e := range s.small[:s.n] {
			s.m[e.command] = e.a
		}
		s.m[cmd] = a
	}
}

func (s *shellReader) lookup(cmd string) (model.ShellAnalysis, bool) {
	if s.m != nil {
		a, ok := s.m[cmd]
		return a, ok
	}
	for i := range s.small[:s.n] {
		if s.small[i].command == cmd {
			return s.small[i].a, true
		}
	}
	return model.ShellAnalysis{}, false
}

// shellCall is the classification of a Bash block's command (capped as
// the call keeps it), made where the line was decoded.
type shellCall struct {
	blk *block
	a   model.ShellAnalysis
	// inert: the command is one ShellOptions.Inert accepts, and the call
	// need not keep it.
	inert bool
}

// classifyShell classifies the Bash calls of a decoded row into out: rows
// the builder turns into calls (user and assistant rows) only.
func classifyShell(r *row, sh *shellReader, out []shellCall) []shellCall {
	if r.Message == nil || r.Type != "user" && r.Type != "assistant" || sh.full.Load() {
		return out
	}
	blocks := r.Message.Content.blocks
	for i := range blocks {
		blk := &blocks[i]
		if (blk.Type == "tool_use" || blk.Type == "server_tool_use") && blk.Name == "Bash" {
			cmd := cutString(blk.Input.Command, model.CommandLimit)
			if len(cmd) < len(blk.Input.Command) {
				// A cut command is classified with the fact that it was
				// cut (ship.Options.Truncated), by the detectors: the
				// reader's classifier and memo know commands by their text,
				// and a complete command may have the same text as the
				// head of a cut one.
				continue
			}
			a := sh.classify(cmd)
			// Only an empty analysis can be an inert command's: the scan
			// is skipped for the rest.
			inert := sh.opts.Inert != nil && a.Actions == nil && a.Writes == nil && !a.MayWrite && !a.MayShip && a.Commits == 0 &&
				a.ParseError == "" && !a.GitNotBuiltin && sh.opts.Inert(cmd)
			out = append(out, shellCall{blk: blk, a: a, inert: inert})
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
	mayShip       bool
	commits       int
	parseError    string
	gitNotBuiltin bool
}

// shellScanMax is how many analyses of each kind a transcript finds by
// scanning a list before it indexes them in a map: most files hold a few
// (a map for each of a fleet's files cost more than all its lookups).
const shellScanMax = 8

// smallIndex finds where a transcript holds an analysis, by its key: a list
// scanned in order while it holds at most shellScanMax keys, then a map.
type smallIndex[K comparable] struct {
	list []smallAt[K]
	m    map[K]int
}

type smallAt[K comparable] struct {
	k K
	i int
}

func (x *smallIndex[K]) get(k K) (int, bool) {
	if x.m != nil {
		i, ok := x.m[k]
		return i, ok
	}
	for _, e := range x.list {
		if e.k == k {
			return e.i, true
		}
	}
	return 0, false
}

// put records k at i and reports whether it went into the map (the
// builder counts map entries: a pooled builder drops large maps).
func (x *smallIndex[K]) put(k K, i int) bool {
	if x.m == nil && len(x.list) < shellScanMax {
		x.list = append(x.list, smallAt[K]{k, i})
		return false
	}
	if x.m == nil {
		x.m = make(map[K]int, 2*shellScanMax)
		for _, e := range x.list {
			x.m[e.k] = e.i
		}
	}
	x.m[k] = i
	return true
}

// emptied returns the index emptied for the next file: the list's array
// is kept (cleared, so that it holds no commands), the map dropped.
func (x *smallIndex[K]) emptied() smallIndex[K] {
	clear(x.list)
	return smallIndex[K]{list: x.list[:0]}
}

// shellsFull records that the transcript's list of analyses is full: from
// here on no call is given one (the builder decides, in file order, so a
// parallel read gives the calls what a serial one does), and the decoding
// goroutines stop classifying.
func (b *builder) shellsFull() {
	b.shellFull = true
	b.shell.full.Store(true)
}

// internShell returns where s's analysis is in the transcript's list,
// adding it when it is new: an analysis without lists is shared by value,
// one with lists by command (the call's copy; -1 when the list is full).
func (b *builder) internShell(s *shellCall, command string) int {
	a := s.a
	if a.Actions == nil && a.Writes == nil {
		return internShellBy(b, &b.plainShells, plainShell{a.MayWrite, a.MayShip, a.Commits, a.ParseError, a.GitNotBuiltin}, a)
	}
	return internShellBy(b, &b.shellByCommand, command, a)
}

// internShellBy is internShell with the index and key of a's kind.
func internShellBy[K comparable](b *builder, x *smallIndex[K], k K, a model.ShellAnalysis) int {
	if i, ok := x.get(k); ok {
		return i
	}
	i := b.t.AddShellClass(b.shell.opts.Labels, a)
	if i < 0 {
		b.shellsFull()
		return i
	}
	if x.put(k, i) {
		b.keys++
	}
	return i
}
