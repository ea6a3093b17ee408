//go:build linux || darwin || freebsd || netbsd || openbsd

package incr

import (
	"os"
	"path/filepath"
	"testing"
)

// TestHeadMapShowsRewritesAndSurvivesTruncation: the mapping of a file's
// head shows a write in place made after it was mapped, and a file
// truncated under it answers "not the same" rather than crashing (the
// fault past the file's end is caught).
func TestHeadMapShowsRewritesAndSurvivesTruncation(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f.jsonl")
	data := rows(300, "a")
	os.WriteFile(p, data, 0o600)
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m := mapHead(f)
	if m == nil {
		t.Fatal("the file could not be mapped")
	}
	defer unmapHead(m)
	head := data[:Window]
	if !sameMapped(m, head) {
		t.Fatal("the mapping does not show the file's head")
	}
	w, _ := os.OpenFile(p, os.O_WRONLY, 0)
	w.WriteAt([]byte("Y"), 7)
	w.Close()
	if sameMapped(m, head) {
		t.Fatal("a write in place after the mapping is not seen")
	}
	os.Truncate(p, 0)
	if sameMapped(m, head) {
		t.Fatal("a truncated file answered the same head")
	}
	os.WriteFile(p, data, 0o600) // the same inode, written again
	if !sameMapped(m, head) {
		t.Fatal("the file written again is not seen")
	}
}

// TestCacheComparesTheHeadInItsMapping: a file kept open between reads has
// its head compared in a mapping, made at its first check and dropped with
// the file.
func TestCacheComparesTheHeadInItsMapping(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f.jsonl")
	os.WriteFile(p, rows(300, "a"), 0o600)
	var c Cache[*recorder]
	read := func() {
		t.Helper()
		if err := c.Read(p, "k", func() *recorder { return &recorder{} }, func(*recorder) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	read()
	f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("{}\n")
	f.Close()
	read()
	e := c.entry(p, "k")
	if e.head == nil || c.Fresh != 1 {
		t.Fatalf("after an append: mapped %v, %d fresh reads", e.head != nil, c.Fresh)
	}
	c.Close()
	if e.head != nil {
		t.Fatal("the mapping outlived its file")
	}
}
