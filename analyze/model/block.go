package model

import "slices"

// block hands out values of T from arrays that grow from blockMin to
// blockMax values. A transcript keeps tens of thousands of calls and
// results: allocated one by one, each would be rounded up to the
// allocator's next size class (a 40-byte result takes 48 bytes, a 56-byte
// call 64), and each would be one more object for the collector. The values
// of one array stay alive together as long as any of them is referenced,
// which a transcript's calls and results do anyway.
//
// A block must not be copied once it has handed out a value: the copy would
// hand out the same values again.
type block[T any] struct{ free []T }

const (
	blockMin = 4   // a small session's few calls
	blockMax = 512 // 20 KiB of results, 28 KiB of calls: whole size classes
)

func (b *block[T]) next() *T {
	if len(b.free) == cap(b.free) {
		n := min(max(2*cap(b.free), blockMin), blockMax)
		b.free = slices.Grow([]T(nil), n) // rounded up to a size class
	}
	b.free = b.free[:len(b.free)+1]
	return &b.free[len(b.free)-1]
}
