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
// table holds 9 bytes per slot at a load of at most three quarters.
//
// Each slot has a tag, eight bits of its call's hash (0: empty), in an
// array of their own: a probe passes a slot whose tag differs without
// reading its call. A lookup of a new id (every call's, to find a reused
// one) probes several slots at this load, and each call it read was a
// cache miss and a comparison of two ids of the same length: a watch,
// which applies a few rows of one file between rows of others, spent a
// fourteenth of its decoding in these lookups (0.12 of 1.69 s).
type callIndex struct {
	slots []*model.ToolCall
	tags  []uint8
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
	h := maphash.String(callSeed, id)
	tag := tagOf(h)
	mask := uint64(len(x.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		switch x.tags[i] {
		case 0:
			return nil
		case tag:
			if c := x.slots[i]; c.ID() == id {
				return c
			}
		}
	}
}

// emptied is the index with no call, in the same memory (a pooled
// builder's).
func (x *callIndex) emptied() callIndex {
	clear(x.slots)
	clear(x.tags)
	return callIndex{slots: x.slots, tags: x.tags}
}

// tagOf is the tag of a call whose id hashes to h: its top eight bits
// (the table's index takes the low ones), never 0.
func tagOf(h uint64) uint8 { return max(uint8(h>>56), 1) }

// add inserts c, whose id get does not find.
func (x *callIndex) add(c *model.ToolCall) {
	if (x.n+1)*4 > len(x.slots)*3 {
		old := x.slots
		x.slots = make([]*model.ToolCall, max(16, 2*len(old)))
		x.tags = make([]uint8, len(x.slots))
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
	h := maphash.String(callSeed, c.ID())
	mask := uint64(len(x.slots) - 1)
	i := h & mask
	for x.tags[i] != 0 {
		i = (i + 1) & mask
	}
	x.slots[i], x.tags[i] = c, tagOf(h)
}
