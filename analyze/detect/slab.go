package detect

// slab hands out values and short slices from shared chunks, so that a run
// with many facts costs a few large allocations instead of one or more per
// fact (a journal of 200,000 attempts made 200,000 items and as many reason
// lists). Chunks start small and double, so a run with few facts allocates
// little.
type slab[T any] struct {
	free []T
	next int // size of the next chunk
}

const slabMaxChunk = 1024

func (s *slab[T]) grow(need int) {
	if s.next == 0 {
		// Small first: a run's reasons are kept with its facts, so a
		// fleet of runs of one attempt each keeps one chunk per run.
		s.next = 4
	}
	n := max(s.next, need)
	s.free = make([]T, n)
	s.next = min(s.next*2, slabMaxChunk)
}

// new returns a pointer to a zero T.
func (s *slab[T]) new() *T {
	if len(s.free) == 0 {
		s.grow(1)
	}
	p := &s.free[0]
	s.free = s.free[1:]
	return p
}

// copy returns a copy of v held by the slab, with no spare capacity: an
// append to it copies it instead of writing over the next one.
func (s *slab[T]) copy(v []T) []T {
	if len(v) > len(s.free) {
		s.grow(len(v))
	}
	out := s.free[:len(v):len(v)]
	copy(out, v)
	s.free = s.free[len(v):]
	return out
}
