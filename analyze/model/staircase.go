package model

import (
	"bytes"
	"encoding/binary"
	"iter"
	"slices"
	"time"
)

// Staircase is a sequence of Steps whose lines and instants never go down:
// a transcript's write-time steps (one per row whose timestamp raises the
// file's running maximum) and its completions (one per row carrying a
// tool_result, at the row's write time). A large transcript has one step
// per row, so they are stored delta-encoded: every staircaseBlock-th step in
// full (a mark), each other step as the varint differences of its line and
// its instant from the step before (most rows are one line and a few
// milliseconds after the last: 3 bytes instead of 16). Readers walk it in
// order (All, a Cursor) or search it (SearchLine, SearchTime) without
// expanding it; the zero Staircase is empty and ready to use.
type Staircase struct {
	data  []byte
	marks []staircaseMark
	n     int
	last  Step
}

// staircaseMark is a step stored in full: the i-th step, whose successors'
// deltas start at data[off:].
type staircaseMark struct {
	i, off int
	at     Step
}

// staircaseBlock is how many steps a mark starts at most: a search decodes
// at most this many deltas after its binary search over the marks. Replay
// searches at every tick it visits; at 64 a six-hour replay cost 1.2x the
// same rows in six minutes, at 16 about 1.05x, for 2 bytes a step of marks.
const staircaseBlock = 16

// maxDeltaSec bounds the seconds between two consecutive steps stored as a
// delta (about 272 years), so the delta in nanoseconds, shifted left once,
// fits in 64 bits; a larger jump, or one that goes back, starts a mark.
const maxDeltaSec = 1 << 33

// Append adds a step "from line on, the write time is at" (as NewStep).
// Steps must not go down in line or instant for the searches to hold; a
// step that does is still stored exactly (as a mark).
func (s *Staircase) Append(line int, at time.Time) { s.Add(NewStep(line, at)) }

// Add adds a step (see Append).
func (s *Staircase) Add(st Step) {
	prev := s.last
	s.last = st
	s.n++
	if s.n == 1 || (s.n-1)%staircaseBlock == 0 {
		s.mark(st)
		return
	}
	dl := int64(st.lineNanos>>stepNanoBits) - int64(prev.lineNanos>>stepNanoBits)
	dsec := st.sec - prev.sec
	if dl < 0 || dsec < 0 || dsec >= maxDeltaSec {
		s.mark(st)
		return
	}
	dns := uint64(dsec)*1e9 + uint64(st.lineNanos&stepNanoMask) - uint64(prev.lineNanos&stepNanoMask)
	if int64(dns) < 0 || dsec == 0 && st.lineNanos&stepNanoMask < prev.lineNanos&stepNanoMask {
		s.mark(st) // back in time within a second
		return
	}
	s.data = binary.AppendUvarint(s.data, uint64(dl))
	// Timestamps are mostly whole milliseconds: the low bit says whether
	// the difference is stored in milliseconds (0) or nanoseconds (1).
	if dns%1e6 == 0 {
		s.data = binary.AppendUvarint(s.data, dns/1e6<<1)
	} else {
		s.data = binary.AppendUvarint(s.data, dns<<1|1)
	}
}

// mark stores st in full as the s.n-th step (1-based).
func (s *Staircase) mark(st Step) {
	s.marks = append(s.marks, staircaseMark{i: s.n - 1, off: len(s.data), at: st})
}

const stepNanoMask = 1<<stepNanoBits - 1

// Len is the number of steps.
func (s *Staircase) Len() int { return s.n }

// First is the first step (the zero Step when empty).
func (s *Staircase) First() Step {
	if s.n == 0 {
		return Step{}
	}
	return s.marks[0].at
}

// Last is the last step (the zero Step when empty).
func (s *Staircase) Last() Step { return s.last }

// At returns the i-th step (0-based).
func (s *Staircase) At(i int) Step {
	c := s.cursorAt(s.markOf(i))
	for c.i < i {
		c.next()
	}
	return c.cur
}

// CursorAt returns a cursor on the i-th step (0-based, i < Len), as i+1
// calls of Next leave one; before the first step when i < 0.
func (s *Staircase) CursorAt(i int) *Cursor {
	if i < 0 {
		return s.Cursor()
	}
	c := s.cursorAt(s.markOf(i))
	for c.i < i {
		c.next()
	}
	return c
}

// Extends reports whether s begins with the steps of p: whether s is p with
// steps appended (a transcript read further), so that every step p has is
// the same in s, at the same index. It compares the encoded steps, in O(1)
// when s shares p's storage (a snapshot of the same reader), else in the
// size of p's.
func (s *Staircase) Extends(p *Staircase) bool {
	if s.n < p.n || len(s.marks) < len(p.marks) || len(s.data) < len(p.data) {
		return false
	}
	if p.n == 0 {
		return true
	}
	// The steps below p.n are decoded from p's marks and p's bytes alone
	// when s has no other mark below p.n.
	if len(s.marks) > len(p.marks) && s.marks[len(p.marks)].i < p.n {
		return false
	}
	if !bytes.Equal(s.data[:len(p.data)], p.data) {
		return false
	}
	return &s.marks[0] == &p.marks[0] || slices.Equal(s.marks[:len(p.marks)], p.marks)
}

// markOf is the index of the last mark at or before step i.
func (s *Staircase) markOf(i int) int {
	lo, hi := 0, len(s.marks)
	for lo < hi {
		mid := (lo + hi) / 2
		if s.marks[mid].i <= i {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo - 1
}

// All yields the steps in order with their indexes.
func (s *Staircase) All() iter.Seq2[int, Step] {
	return func(yield func(int, Step) bool) {
		c := s.Cursor()
		for st, ok := c.Next(); ok; st, ok = c.Next() {
			if !yield(c.i, st) {
				return
			}
		}
	}
}

// SearchLine is the number of steps whose line is at most line (the index
// of the first step past it).
func (s *Staircase) SearchLine(line int) int {
	return s.search(func(st Step) bool { return st.Line() > line })
}

// SearchTime is the number of steps whose instant is at most at (the index
// of the first step after it).
func (s *Staircase) SearchTime(at time.Time) int {
	return s.search(func(st Step) bool { return st.At().After(at) })
}

// search is the index of the first step for which past holds, or Len;
// past must be false for a prefix of the steps and true for the rest.
func (s *Staircase) search(past func(Step) bool) int {
	// The last mark whose step is not past, then its block.
	lo, hi := 0, len(s.marks)
	for lo < hi {
		mid := (lo + hi) / 2
		if !past(s.marks[mid].at) {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo == 0 {
		return 0
	}
	c := s.cursorAt(lo - 1)
	end := s.n
	if lo < len(s.marks) {
		end = s.marks[lo].i
	}
	for c.i+1 < end {
		c.next()
		if past(c.cur) {
			return c.i
		}
	}
	return end
}

// Cursor walks a Staircase forward from its first step.
type Cursor struct {
	s    *Staircase
	i    int // index of cur; -1 before the first Next
	off  int // where the next delta starts
	mark int // the next mark's index in s.marks
	cur  Step
}

// Cursor returns a cursor before the first step.
func (s *Staircase) Cursor() *Cursor { return &Cursor{s: s, i: -1} }

// cursorAt returns a cursor on the step of mark m.
func (s *Staircase) cursorAt(m int) *Cursor {
	mk := s.marks[m]
	return &Cursor{s: s, i: mk.i, off: mk.off, mark: m + 1, cur: mk.at}
}

// Next moves to the next step and returns it; false past the last.
func (c *Cursor) Next() (Step, bool) {
	if c.i+1 >= c.s.n {
		c.i = c.s.n
		return Step{}, false
	}
	c.next()
	return c.cur, true
}

// Index is the index of the cursor's step: -1 before the first, Len past
// the last.
func (c *Cursor) Index() int { return c.i }

// Peek returns the next step without moving; false past the last.
func (c *Cursor) Peek() (Step, bool) {
	if c.i+1 >= c.s.n {
		return Step{}, false
	}
	d := *c
	d.next()
	return d.cur, true
}

// next decodes step i+1 (which exists).
func (c *Cursor) next() {
	c.i++
	if c.mark < len(c.s.marks) && c.s.marks[c.mark].i == c.i {
		mk := c.s.marks[c.mark]
		c.cur, c.off = mk.at, mk.off
		c.mark++
		return
	}
	dl, n := binary.Uvarint(c.s.data[c.off:])
	c.off += n
	v, n := binary.Uvarint(c.s.data[c.off:])
	c.off += n
	dns := v >> 1
	if v&1 == 0 {
		dns *= 1e6
	}
	prev := c.cur
	ns := prev.lineNanos&stepNanoMask + dns%1e9
	sec := prev.sec + int64(dns/1e9)
	if ns >= 1e9 {
		ns -= 1e9
		sec++
	}
	line := prev.lineNanos>>stepNanoBits + dl
	c.cur = Step{sec: sec, lineNanos: line<<stepNanoBits | ns}
}
