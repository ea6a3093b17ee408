package model

import (
	"testing"
	"unsafe"
)

// A block hands out distinct values that stay put, zeroed, in arrays of at
// most blockMax values: 2,000 results take a handful of allocations, not
// 2,000 of a rounded-up size.
func TestBlockHandsOutDistinctValues(t *testing.T) {
	var b block[ToolResult]
	seen := map[*ToolResult]int{}
	var all []*ToolResult
	for i := range 2000 {
		r := b.next()
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
	arrays := 1
	for i, r := range all {
		if r.line != uint32(i) {
			t.Fatalf("value %d was overwritten: line %d", i, r.line)
		}
		if i > 0 && uintptr(unsafe.Pointer(r)) != uintptr(unsafe.Pointer(all[i-1]))+unsafe.Sizeof(ToolResult{}) {
			arrays++
		}
	}
	if arrays > 12 {
		t.Errorf("2,000 values in %d arrays, want at most 12 (4, 8, …, 512, then 512 each)", arrays)
	}
	allocs := testing.AllocsPerRun(10, func() {
		var b block[ToolCall]
		for range 1024 {
			b.next()
		}
	})
	if allocs > 9 {
		t.Errorf("1,024 calls took %v allocations, want at most 9", allocs)
	}
}
