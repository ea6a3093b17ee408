package transcript

import "slices"

// uuidSet is the set of the row uuid hashes (hashUUID) of one file: an
// open-addressed table of the 64-bit hashes themselves with linear probing,
// so two hashes that land in the same slot are told apart by comparing the
// whole hash, never by a lossy bucket. A Go map of the same hashes costs
// about 28 bytes per row of a large file (21 MiB for 771,622 rows); this
// table costs 8 bytes per slot at a load of at most three quarters, and
// becomes the file's sorted Transcript.UUIDs in place when the file ends.
type uuidSet struct {
	slots   []uint64 // 0 is an empty slot; the hash 0 is held by zero
	n       int      // hashes held, zero included
	hasZero bool
}

// add inserts h and reports whether it was new.
func (s *uuidSet) add(h uint64) bool {
	if h == 0 {
		if s.hasZero {
			return false
		}
		s.hasZero = true
		s.n++
		return true
	}
	if (s.n+1)*4 > len(s.slots)*3 {
		s.grow()
	}
	mask := uint64(len(s.slots) - 1)
	for i := mix(h) & mask; ; i = (i + 1) & mask {
		switch s.slots[i] {
		case h:
			return false
		case 0:
			s.slots[i] = h
			s.n++
			return true
		}
	}
}

// grow doubles the table (16 slots at first).
func (s *uuidSet) grow() {
	old := s.slots
	s.slots = make([]uint64, max(16, 2*len(old)))
	mask := uint64(len(s.slots) - 1)
	for _, h := range old {
		if h == 0 {
			continue
		}
		i := mix(h) & mask
		for s.slots[i] != 0 {
			i = (i + 1) & mask
		}
		s.slots[i] = h
	}
}

// mix spreads every bit of a hash over the low bits that index the table
// (murmur3's finaliser), so keys that differ only in their high bits do not
// pile up in one run of slots.
func mix(h uint64) uint64 {
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	return h
}

// sorted returns the hashes in increasing order, reusing the table's memory
// (the set is empty afterwards).
func (s *uuidSet) sorted() []uint64 {
	// Compact the non-empty slots to the front: the write index never
	// passes the read index. The table is at most three quarters full, so
	// the hash 0, when held, fits after them.
	out := s.slots[:0]
	for _, h := range s.slots {
		if h != 0 {
			out = append(out, h)
		}
	}
	if s.hasZero {
		out = append(out, 0)
	}
	slices.Sort(out)
	s.slots, s.n, s.hasZero = nil, 0, false
	return out
}
