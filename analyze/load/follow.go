package load

import (
	"os"
	"sync"

	"github.com/pmcheck/pmcheck/analyze/discover"
)

// listing is the inventory of the last followed load's root, which the
// next load takes instead of walking the root again when its caller says
// nothing was created, removed or renamed there since (ListingUnchanged).
type listing struct {
	mu   sync.Mutex
	root string
	inv  *discover.Inventory
	keep bool // the next load may take inv
}

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

// listingFor is the inventory a followed load of root takes without a
// walk (nil: walk), and forgets that it may (the next load walks unless
// told again).
func (f *Followers) listingFor(root string) *discover.Inventory {
	if f == nil {
		return nil
	}
	f.listing.mu.Lock()
	defer f.listing.mu.Unlock()
	if !f.listing.keep || f.listing.root != root {
		return nil
	}
	f.listing.keep = false
	return f.listing.inv
}

// keepListing remembers the inventory a followed load walked.
func (f *Followers) keepListing(root string, inv *discover.Inventory) {
	if f == nil || inv == nil {
		return
	}
	f.listing.mu.Lock()
	f.listing.root, f.listing.inv, f.listing.keep = root, inv, false
	f.listing.mu.Unlock()
}

// SetStat makes the reads through f stat a file's path with stat, a
// caller that has just stat-ed the files it is about to load handing its
// answers over (incr.Cache.SetStat); nil: os.Stat.
func (f *Followers) SetStat(stat func(path string) (os.FileInfo, error)) {
	f.transcripts.SetStat(stat)
	f.journals.SetStat(stat)
}
