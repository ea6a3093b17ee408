package model

import (
	"math/rand/v2"
	"testing"
	"time"
	"unsafe"
)

// A Staircase gives back exactly the steps appended, in order (All, a
// Cursor), at random (At), and searched (SearchLine, SearchTime, against a
// linear scan), whatever the gaps: whole milliseconds, nanoseconds, zero,
// centuries, a leading zero instant, and steps that go back (kept exactly).
func TestStaircaseIsASlice(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	t0 := time.Date(2026, 5, 6, 9, 0, 0, 0, time.UTC)
	for round := range 300 {
		var s Staircase
		var want []Step
		monotone := round%3 != 0
		n := rng.IntN(400)
		line, at := 0, t0
		if round%5 == 0 {
			at = time.Time{} // a leading run at the zero instant
		}
		for i := range n {
			line += rng.IntN(3)
			if i == 0 || rng.IntN(4) != 0 {
				line++
			}
			switch rng.IntN(7) {
			case 0:
				at = at.Add(time.Duration(rng.IntN(5000)) * time.Millisecond)
			case 1:
				at = at.Add(time.Duration(rng.Int64N(int64(3 * time.Second))))
			case 2:
				if at.IsZero() {
					at = t0
				}
			case 3:
				at = at.AddDate(rng.IntN(400), 0, 0) // past the delta limit at times
			case 4:
				if !monotone {
					at = at.Add(-time.Duration(rng.Int64N(int64(time.Hour))))
					line -= rng.IntN(3)
				}
			default:
				at = at.Add(time.Duration(1+rng.IntN(40)) * time.Millisecond)
			}
			st := NewStep(line, at)
			want = append(want, st)
			s.Append(line, at)
		}
		if s.Len() != len(want) {
			t.Fatalf("round %d: Len %d, want %d", round, s.Len(), len(want))
		}
		for i, st := range s.All() {
			if st != want[i] {
				t.Fatalf("round %d: step %d is %v/%d, want %v/%d", round, i, st.At(), st.Line(), want[i].At(), want[i].Line())
			}
		}
		for i := range want {
			if got := s.At(i); got != want[i] {
				t.Fatalf("round %d: At(%d) is %v/%d, want %v/%d", round, i, got.At(), got.Line(), want[i].At(), want[i].Line())
			}
		}
		if n > 0 && (s.First() != want[0] || s.Last() != want[n-1]) {
			t.Fatalf("round %d: First/Last differ", round)
		}
		if !monotone {
			continue
		}
		for range 50 {
			var q Step
			if n > 0 {
				q = want[rng.IntN(n)]
			}
			qline := q.Line() + rng.IntN(3) - 1
			qat := q.At().Add(time.Duration(rng.IntN(3)-1) * time.Millisecond)
			wl, wt := 0, 0
			for _, st := range want {
				if st.Line() <= qline {
					wl++
				}
				if !st.At().After(qat) {
					wt++
				}
			}
			if got := s.SearchLine(qline); got != wl {
				t.Fatalf("round %d: SearchLine(%d) = %d, want %d", round, qline, got, wl)
			}
			if got := s.SearchTime(qat); got != wt {
				t.Fatalf("round %d: SearchTime(%v) = %d, want %d", round, qat, got, wt)
			}
		}
	}
}

// A cursor peeks without moving and stops after the last step.
func TestStaircaseCursor(t *testing.T) {
	var s Staircase
	t0 := time.Date(2026, 5, 6, 9, 0, 0, 0, time.UTC)
	for i := range 200 {
		s.Append(i+1, t0.Add(time.Duration(i)*time.Second))
	}
	c := s.Cursor()
	for i := range 200 {
		p, ok := c.Peek()
		if !ok || p.Line() != i+1 {
			t.Fatalf("peek %d: %v %v", i, p.Line(), ok)
		}
		n, ok := c.Next()
		if !ok || n != p {
			t.Fatalf("next %d differs from its peek", i)
		}
	}
	if _, ok := c.Peek(); ok {
		t.Fatal("peek past the end")
	}
	if _, ok := c.Next(); ok {
		t.Fatal("next past the end")
	}
	var empty Staircase
	if _, ok := empty.Cursor().Next(); ok || empty.Len() != 0 || empty.SearchLine(5) != 0 || empty.SearchTime(t0) != 0 {
		t.Fatal("an empty staircase has steps")
	}
}

// Rows one line and a few milliseconds apart cost a few bytes each.
func TestStaircaseIsSmall(t *testing.T) {
	var s Staircase
	t0 := time.Date(2026, 5, 6, 9, 0, 0, 0, time.UTC)
	for i := range 100000 {
		s.Append(i+1, t0.Add(time.Duration(i*37)*time.Millisecond))
	}
	size := cap(s.data) + cap(s.marks)*int(unsafe.Sizeof(staircaseMark{}))
	if per := float64(size) / 100000; per > 5 {
		t.Errorf("%.1f bytes per step, want at most 5", per)
	}
}

// A Staircase extends each copy taken of it as it grew (sharing its
// storage) and an equal one built apart, and no staircase that differs in
// a step below the copy's length or is shorter; a cursor made at step i
// walks on from i+1 as one moved there by Next.
func TestStaircaseExtendsItsPast(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	t0 := time.Date(2026, 5, 6, 9, 0, 0, 0, time.UTC)
	for round := range 100 {
		var s Staircase
		var past []Staircase
		var want []Step
		line, at := 0, t0
		for range rng.IntN(200) {
			line += 1 + rng.IntN(3)
			at = at.Add(time.Duration(1+rng.IntN(5000)) * time.Millisecond)
			if rng.IntN(20) == 0 {
				at = at.Add(-time.Hour) // back in time: a mark
			}
			s.Append(line, at)
			want = append(want, NewStep(line, at))
			past = append(past, s)
		}
		for k, p := range past {
			var apart, other Staircase
			changed := rng.IntN(k + 1)
			for i, st := range want[:k+1] {
				apart.Add(st)
				if i == changed {
					st = NewStep(st.Line(), st.At().Add(time.Millisecond))
				}
				other.Add(st)
			}
			if !s.Extends(&p) || !s.Extends(&apart) || !p.Extends(&p) || (k+1 < s.Len() && p.Extends(&s)) {
				t.Fatalf("round %d: the staircase at %d steps is not extended by itself grown, or extends it grown", round, k+1)
			}
			if s.Extends(&other) || other.Extends(&apart) {
				t.Fatalf("round %d: a staircase that differs in one of %d steps is extended", round, k+1)
			}
		}
		for i := -1; i < len(want); i++ {
			c := s.CursorAt(i)
			if c.Index() != i || (i >= 0 && c.cur != want[i]) {
				t.Fatalf("round %d: CursorAt(%d) is on step %d", round, i, c.Index())
			}
			for j := i + 1; j < len(want); j++ {
				if st, ok := c.Next(); !ok || st != want[j] {
					t.Fatalf("round %d: from CursorAt(%d), step %d differs", round, i, j)
				}
			}
		}
	}
}
