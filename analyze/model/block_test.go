package model

import "testing"

// A block hands out distinct values that stay put, zeroed, in arrays that
// leave little unused: 83,077 results (the 1 GiB benchmark transcript's) in
// arrays of at most blockMax (a few more when the size class rounds up),
// with no more than an eighth of what was allocated unused at the end, and
// the first values each alone, as they were allocated before.
func TestBlockHandsOutDistinctValues(t *testing.T) {
	var b block[ToolResult]
	seen := map[*ToolResult]int{}
	var all []*ToolResult
	const n = 83077
	arrays, slots := 0, 0
	for i := range n {
		r := b.next()
		if len(b.free) == 1 { // a new array
			arrays++
			slots += cap(b.free)
			if c := cap(b.free); c > blockMax+blockMax/4 {
				t.Errorf("an array of %d values, want at most about %d", c, blockMax)
			}
		}
		if i < 8 && arrays != i+1 {
			t.Errorf("the first values are not each alone: %d arrays for %d values", arrays, i+1)
		}
		if *r != (ToolResult{}) {
			t.Fatalf("value %d is not zero: %+v", i, *r)
		}
		if j, ok := seen[r]; ok {
			t.Fatalf("value %d is value %d again", i, j)
		}
		seen[r] = i
		r.line = uint32(i)
		all = append(all, r)
	}
	for i, r := range all {
		if r.line != uint32(i) {
			t.Fatalf("value %d was overwritten: line %d", i, r.line)
		}
	}
	if unused := slots - n; unused > n/8 {
		t.Errorf("%d of %d values allocated are unused", unused, slots)
	}
	if arrays > 250 {
		t.Errorf("%d values in %d arrays, want at most 250", n, arrays)
	}
	t.Logf("%d values in %d arrays of %d slots", n, arrays, slots)
}
