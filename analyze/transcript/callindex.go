package transcript

import (
	"hash/maphash"

	"github.com/pmcheck/pmcheck/analyze/model"
)

// callIndex maps a retained call's id to the first call with it: an
// open-addressed table of the calls themselves, probed linearly and told
// apart by comparing the whole id, so it answers exactly what a map from
// id to call would. A Go map of the ids held about 50 bytes per call of a
// large file (4.2 MiB for 83,077 calls, while the file is read); this
// table holds 8 bytes per slot at a load of at most three quarters.
type callIndex struct {
	slots []*model.ToolCall // nil is an empty slot
	n     int
}

// callSeed seeds the ids' hashes. It only places calls in the table;
// what get answers does not depend on it.
var callSeed = maphash.MakeSeed()

// get is the call added with id, or nil.
func (x *callIndex) get(id string) *model.ToolCall {
	if x.n == 0 {
		return nil
	}
	mask := uint64(len(x.slots) - 1)
	for i := maphash.String(callSeed, id) & mask; ; i = (i + 1) & mask {
		c := x.slots[i]
		if c == nil || c.ID() == id {
			return c
		}
	}
}

// add inserts c, whose id get does not find.
func (x *callIndex) add(c *model.ToolCall) {
	if (x.n+1)*4 > len(x.slots)*3 {
		old := x.slots
		x.slots = make([]*model.ToolCall, max(16, 2*len(old)))
		for _, o := range old {
			if o != nil {
				x.place(o)
			}
		}
	}
	x.place(c)
	x.n++
}

// place puts c in the first empty slot from its hash on.
func (x *callIndex) place(c *model.ToolCall) {
	mask := uint64(len(x.slots) - 1)
	i := maphash.String(callSeed, c.ID()) & mask
	for x.slots[i] != nil {
		i = (i + 1) & mask
	}
	x.slots[i] = c
}
