package transcript

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// The set answers as a map does, for the hash 0, for hashes that share a
// slot, and across growth, and sorted() lists each hash once, in order.
func TestUUIDSetIsAMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var s uuidSet
	m := map[uint64]bool{}
	keys := []uint64{0, 1, 1 << 63, 0, 1}
	for range 20000 {
		switch rng.IntN(3) {
		case 0:
			keys = append(keys, rng.Uint64())
		case 1:
			keys = append(keys, uint64(rng.IntN(64))) // small: many repeats
		default:
			if len(keys) > 0 {
				keys = append(keys, keys[rng.IntN(len(keys))]) // a repeat
			}
		}
	}
	for i, k := range keys {
		if got, want := s.add(k), !m[k]; got != want {
			t.Fatalf("add #%d (%#x) = %v, a map says %v", i, k, got, want)
		}
		m[k] = true
	}
	want := make([]uint64, 0, len(m))
	for k := range m {
		want = append(want, k)
	}
	slices.Sort(want)
	if got := s.sorted(); !slices.Equal(got, want) {
		t.Fatalf("sorted() has %d hashes, want %d", len(got), len(want))
	}
	var empty uuidSet
	if got := empty.sorted(); len(got) != 0 {
		t.Fatalf("empty set sorted() = %v", got)
	}
}

// Keys that land in the same slot are still told apart.
func TestUUIDSetSameSlot(t *testing.T) {
	var s uuidSet
	s.grow()
	mask := uint64(len(s.slots) - 1)
	var same []uint64
	for k := uint64(1); len(same) < 8; k++ {
		if mix(k)&mask == mix(1)&mask {
			same = append(same, k)
		}
	}
	for _, k := range same {
		if !s.add(k) {
			t.Fatalf("%d: reported as a repeat of a key in the same slot", k)
		}
	}
	for _, k := range same {
		if s.add(k) {
			t.Fatalf("%d: a repeat reported as new", k)
		}
	}
}
