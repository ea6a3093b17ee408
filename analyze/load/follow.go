package load

import (
	"os"
	"path"
	"sync"

	"github.com/pmcheck/pmcheck/analyze/discover"
	"github.com/pmcheck/pmcheck/analyze/layout"
)

// inventoryOf is the inventory a load of tgt under root works from: the
// walk of root (of one session's files for Options.SessionOnly). A followed
// load of a Workflow run keeps, of the walk, what linking the run reads
// (runInventory), and takes the last one's when its caller says nothing
// changed (ListingUnchanged).
func inventoryOf(root string, tgt Target, opts Options) (*discover.Inventory, error) {
	if opts.SessionOnly && tgt.Session != "" {
		return discover.WalkSession(root, layout.Stem(tgt.Session))
	}
	follow := opts.Follow != nil && tgt.Workflow != ""
	if !follow {
		return discover.WalkJobs(root, opts.Jobs)
	}
	key := root + "\x00" + tgt.Workflow
	if inv := opts.Follow.listingFor(key); inv != nil {
		return inv, nil
	}
	inv, err := discover.WalkJobs(root, opts.Jobs)
	if err != nil {
		return nil, err
	}
	inv = runInventory(inv, tgt.Workflow)
	opts.Follow.keepListing(key, inv)
	return inv, nil
}

// runInventory is inv as a load of the Workflow run in dir reads it: the
// agent transcripts and sidecars of the run directory only (linking the run
// reads no other: its agents are the files directly in it), everything else
// as walked (the run directories a launch is looked up among, the refusals
// a load reports). A project folder's thousands of agent files and sidecars
// were indexed, and the sidecars read, at every poll of a watch.
func runInventory(inv *discover.Inventory, dir string) *discover.Inventory {
	out := *inv
	out.AgentFiles = map[string][]string{}
	for id, files := range inv.AgentFiles {
		for _, f := range files {
			if path.Dir(f) == dir {
				out.AgentFiles[id] = append(out.AgentFiles[id], f)
			}
		}
	}
	out.Metas = map[string]bool{}
	for f, m := range inv.Metas {
		if path.Dir(f) == dir {
			out.Metas[f] = m
		}
	}
	return &out
}

// listing is the inventory of the last followed load's root, which the
// next load takes instead of walking the root again when its caller says
// nothing was created, removed or renamed there since (ListingUnchanged).
type listing struct {
	mu   sync.Mutex
	key  string // the root and run directory it lists
	inv  *discover.Inventory
	keep bool // the next load may take inv
	// stat is the stat handed over (SetStat), display each root's
	// displayRoot.
	stat    func(path string) (os.FileInfo, error)
	display map[string]string
	// agents is the agent index of the inventory agentsOf (the last one a
	// followed load indexed), which a load of the same inventory takes
	// rather than indexing it again at every poll.
	agents   *agentIndex
	agentsOf *discover.Inventory
	// joins are the paths a load joined (loader.show, loader.abs,
	// loader.osPath), by kind, base and relative path: the same few, at
	// every poll.
	joins [3]map[[2]string]string
}

// The kinds of joined paths (Followers.joined).
const (
	joinShown = iota
	joinAbs
	joinOS
)

// ListingUnchanged tells the next load through f that no file was created,
// removed or renamed in the directories it reads since the last load
// through f (a watch that lists the run directory when its modification
// time moves knows it): that load takes the last one's inventory rather
// than walking the root again, which for a Workflow run is its whole
// project folder. Only the next load: a later one walks again unless told.
func (f *Followers) ListingUnchanged() {
	f.listing.mu.Lock()
	f.listing.keep = f.listing.inv != nil
	f.listing.mu.Unlock()
}

// listingFor is the inventory a followed load (of the root and run
// directory key) takes without a walk (nil: walk), and forgets that it may
// (the next load walks unless told again).
func (f *Followers) listingFor(key string) *discover.Inventory {
	if f == nil {
		return nil
	}
	f.listing.mu.Lock()
	defer f.listing.mu.Unlock()
	if !f.listing.keep || f.listing.key != key {
		return nil
	}
	f.listing.keep = false
	return f.listing.inv
}

// keepListing remembers the inventory a followed load walked.
func (f *Followers) keepListing(key string, inv *discover.Inventory) {
	if f == nil || inv == nil {
		return
	}
	f.listing.mu.Lock()
	f.listing.key, f.listing.inv, f.listing.keep = key, inv, false
	f.listing.mu.Unlock()
}

// SetStat makes the loads through f stat a file's path with stat, a
// caller that has just stat-ed the files it is about to load handing its
// answers over (incr.Cache.SetStat); nil: os.Stat.
func (f *Followers) SetStat(stat func(path string) (os.FileInfo, error)) {
	f.transcripts.SetStat(stat)
	f.journals.SetStat(stat)
	f.listing.mu.Lock()
	f.listing.stat = stat
	f.listing.mu.Unlock()
}

// ResetProbes starts a poll's probes: the next loads through f take only
// what the Probes made after it read (incr.Cache.ResetProbes).
func (f *Followers) ResetProbes() {
	f.transcripts.ResetProbes()
	f.journals.ResetProbes()
}

// Probe reads what was appended to the file at path (cleaned) since the
// followers' last read of it, through the file they keep open, and returns
// its size; the next load reads no further (incr.Cache.Probe). ok is false
// when no follower reads the file through a file kept open, or one finds
// it truncated or rewritten before the point read: the caller stats it then.
// named is the file the caller knows path names (its device and inode
// must be those of the file kept open).
func (f *Followers) Probe(path string, named os.FileInfo) (size int64, ok bool) {
	ts, tok := f.transcripts.Probe(path, named)
	js, jok := f.journals.Probe(path, named)
	switch {
	case tok && jok:
		return ts, ts == js
	case tok:
		return ts, !f.journals.Has(path)
	case jok:
		return js, !f.transcripts.Has(path)
	}
	return 0, false
}

// stat is a load's stat of a path: the one handed over (SetStat), else
// os.Stat.
func (f *Followers) stat(path string) (os.FileInfo, error) {
	if f == nil {
		return os.Stat(path)
	}
	f.listing.mu.Lock()
	stat := f.listing.stat
	f.listing.mu.Unlock()
	if stat == nil {
		return os.Stat(path)
	}
	return stat(path)
}

// displayRoot is the package's displayRoot, worked out once per root for
// the loads through f (it asks for the working directory, two stats).
func (f *Followers) displayRoot(root string) string {
	if f == nil {
		return DisplayRoot(root)
	}
	f.listing.mu.Lock()
	defer f.listing.mu.Unlock()
	if d, ok := f.listing.display[root]; ok {
		return d
	}
	if f.listing.display == nil {
		f.listing.display = map[string]string{}
	}
	d := DisplayRoot(root)
	f.listing.display[root] = d
	return d
}

// agentIndexOf is the index kept for inv (nil: none).
func (f *Followers) agentIndexOf(inv *discover.Inventory) *agentIndex {
	if f == nil || inv == nil {
		return nil
	}
	f.listing.mu.Lock()
	defer f.listing.mu.Unlock()
	if f.listing.agentsOf != inv {
		return nil
	}
	return f.listing.agents
}

// keepAgentIndex keeps ix, the index of inv, for the next loads of inv.
func (f *Followers) keepAgentIndex(inv *discover.Inventory, ix *agentIndex) {
	if f == nil || inv == nil {
		return
	}
	f.listing.mu.Lock()
	f.listing.agents, f.listing.agentsOf = ix, inv
	f.listing.mu.Unlock()
}

// joined is join(base, rel), kept for the next loads through f (made
// afresh when f is nil) under kind. Each kind keeps up to maxJoined paths.
func (f *Followers) joined(kind int, base, rel string, join func(base, rel string) string) string {
	if f == nil {
		return join(base, rel)
	}
	k := [2]string{base, rel}
	f.listing.mu.Lock()
	memo := &f.listing.joins[kind]
	p, ok := (*memo)[k]
	f.listing.mu.Unlock()
	if ok {
		return p
	}
	p = join(base, rel)
	f.listing.mu.Lock()
	if *memo == nil {
		*memo = map[[2]string]string{}
	}
	if len(*memo) < maxJoined {
		(*memo)[k] = p
	}
	f.listing.mu.Unlock()
	return p
}

// maxJoined bounds each of the maps of joined paths.
const maxJoined = 4096
