package detect

import (
	"slices"
	"strings"
	"sync"

	"github.com/pmcheck/pmcheck/analyze/detect/ship"
)

// Classifications is a cache of shell-command classifications shared by
// the runs of one check (Options.Classifications). A fleet's sessions run
// the same commands over and over (the same test, commit and status
// lines), and each run parsed them again: parsing was half of the
// detectors' time on 20,000 small sessions. Classify is a pure function of
// the command and the options, so a cached analysis is exactly what
// classify would compute. Only runs without git aliases of their own use it
// (the aliases are options of their run alone), and only with the deploy
// labels of its first use. Entries own their strings (a command is not
// kept with the row it was read from), and the cache stops growing at
// maxClassificationBytes, so its memory does not grow with the input. It is
// safe for concurrent use.
type Classifications struct {
	mu     sync.RWMutex
	m      map[string]ship.Analysis
	labels []string // the deploy labels of the entries
	set    bool     // labels is set
	bytes  int
}

// maxClassificationBytes bounds what a Classifications keeps: commands and
// their analyses' strings, and a fixed cost per entry.
const maxClassificationBytes = 8 << 20

// classificationEntryCost is what an entry costs beside its strings (its
// map slot, the analysis and its lists' headers), roughly.
const classificationEntryCost = 160

// NewClassifications returns an empty cache.
func NewClassifications() *Classifications {
	return &Classifications{m: map[string]ship.Analysis{}}
}

// Len is the number of cached commands.
func (c *Classifications) Len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.m)
}

// Bytes is what the cache counts it keeps.
func (c *Classifications) Bytes() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.bytes
}

// classify is ship.Classify(cmd, opts), from the cache when it can be.
func (c *Classifications) classify(cmd string, opts ship.Options) ship.Analysis {
	r, _ := c.lookup(cmd, opts)
	return r
}

// lookup is classify that also says whether the analysis shares no memory
// with cmd (a cached entry, or a copy made to cache it).
func (c *Classifications) lookup(cmd string, opts ship.Options) (ship.Analysis, bool) {
	if c == nil || len(opts.Aliases) > 0 || opts.Truncated {
		// Cached by text alone: a truncated head may read like a
		// complete command.
		return ship.Classify(cmd, opts), false
	}
	c.mu.RLock()
	same := !c.set || sameLabels(c.labels, opts.DeployLabels)
	r, ok := c.m[cmd]
	used := c.bytes
	c.mu.RUnlock()
	if ok && same {
		return r, true
	}
	r = ship.Classify(cmd, opts)
	// The size is known before the copy: an analysis that does not fit is
	// handed back as made, not copied for nothing.
	size := r.Footprint() + len(cmd) + classificationEntryCost
	if !same || used+size > maxClassificationBytes {
		return r, false
	}
	own := ownedAnalysis(r)
	c.mu.Lock()
	if !c.set {
		c.labels, c.set = slices.Clone(opts.DeployLabels), true
		if opts.DeployLabels != nil && c.labels == nil {
			c.labels = []string{}
		}
	}
	// Another goroutine may have filled the room or kept cmd meanwhile:
	// the copy is then still what the caller is given.
	if _, dup := c.m[cmd]; !dup && c.bytes+size <= maxClassificationBytes && sameLabels(c.labels, opts.DeployLabels) {
		c.m[strings.Clone(cmd)] = own
		c.bytes += size
	}
	c.mu.Unlock()
	return own, true
}

// ReaderClassifier is the classifier a transcript reader calls for each Bash
// command (transcript.ShellOptions): ship.Classify with these deploy labels
// and no run aliases, from c when it can be (c may be nil). The command is
// a view of the line being read, so what it returns shares no memory with
// it (a cached entry, or a copy). The detectors reuse it (ship.Reuse).
// Safe for concurrent use.
func (c *Classifications) ReaderClassifier(labels []string) func(string) ship.Analysis {
	opts := ship.Options{DeployLabels: labels}
	return func(cmd string) ship.Analysis {
		r, owned := c.lookup(cmd, opts)
		if !owned {
			r = ownedAnalysis(r)
		}
		return r
	}
}

// sameLabels: nil deploy labels mean the defaults, and an empty list none.
func sameLabels(a, b []string) bool {
	return (a == nil) == (b == nil) && slices.Equal(a, b)
}

// ownedAnalysis is a copy of r whose strings share no memory with the
// command it was made from (r.Footprint is what it holds).
func ownedAnalysis(r ship.Analysis) ship.Analysis {
	out := ship.Analysis{MayWrite: r.MayWrite, MayShip: r.MayShip, Commits: r.Commits, ParseError: strings.Clone(r.ParseError), GitNotBuiltin: r.GitNotBuiltin}
	if r.Actions != nil {
		out.Actions = make([]ship.Action, len(r.Actions))
		for i, a := range r.Actions {
			out.Actions[i] = ship.Action{Kind: strings.Clone(a.Kind), Branch: strings.Clone(a.Branch), Target: strings.Clone(a.Target),
				Command: strings.Clone(a.Command), RefKind: strings.Clone(a.RefKind), Possible: a.Possible}
		}
	}
	if r.Writes != nil {
		out.Writes = make([]string, len(r.Writes))
		for i, w := range r.Writes {
			out.Writes[i] = strings.Clone(w)
		}
	}
	return out
}
