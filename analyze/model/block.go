package model

import "slices"

// block hands out values of T from arrays it allocates. A transcript keeps
// tens of thousands of calls and results: allocated one by one, each would
// be one more object for the allocator and the collector, and a result
// would be rounded up to the allocator's next size class (40 bytes take 48). An array holds an eighth of the values handed out so far (one
// while they are few, at most blockMax), so at most about an eighth of
// what a transcript allocates for them is left unused at its end: a small
// session's calls cost what they cost alone, a large file's their size. The
// values of one array stay alive together as long as any of them is
// referenced, which a transcript's calls and results do anyway.
//
// A block must not be copied once it has handed out a value: the copy would
// hand out the same values again.
type block[T any] struct {
	free []T // the current array: handed out up to len
	n    int // values handed out
}

// blockMax caps an array at 20 KiB of results or 24 KiB of calls (whole
// size classes).
const blockMax = 512

func (b *block[T]) next() *T {
	if len(b.free) == cap(b.free) {
		b.free = slices.Grow([]T(nil), min(max(b.n/8, 1), blockMax)) // rounded up to a size class
	}
	b.n++
	b.free = b.free[:len(b.free)+1]
	return &b.free[len(b.free)-1]
}
