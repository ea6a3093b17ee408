package incr

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// recorder is an Appender that keeps every byte it is given.
type recorder struct{ bytes.Buffer }

func (r *recorder) Size() int64 { return int64(r.Len()) }

// TestCacheReadsOnlyWhatWasAppended: an append is read alone; a file that
// shrank, was replaced, or was rewritten before the offset is read again
// from its start, so the appender always holds the file's bytes.
func TestCacheReadsOnlyWhatWasAppended(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.jsonl")
	var c Cache[*recorder]
	read := func() string {
		t.Helper()
		var got string
		if err := c.Read(p, "k", func() *recorder { return &recorder{} }, func(r *recorder) error {
			got = r.String()
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if want, _ := os.ReadFile(p); got != string(want) {
			t.Fatalf("the appender holds %q, the file %q", got, want)
		}
		return got
	}
	appendTo := func(s string) {
		f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o600)
		f.WriteString(s)
		f.Close()
	}
	appendTo(string(rows(200, "a")))
	read()
	first := c.Appended
	appendTo("{\"x\":1}\n")
	read()
	if c.Appended-first != 8 || c.Fresh != 1 {
		t.Fatalf("an append of 8 bytes: %d bytes read, %d fresh reads", c.Appended-first, c.Fresh)
	}
	read() // unchanged: nothing read
	if c.Appended-first != 8 {
		t.Fatalf("an unchanged file was read again")
	}
	os.Truncate(p, 10)
	appendTo(string(rows(300, "b")))
	read()
	if c.Fresh != 2 {
		t.Fatalf("a truncated and regrown file was not read afresh (%d)", c.Fresh)
	}
	q := filepath.Join(dir, "new")
	data, _ := os.ReadFile(p)
	os.WriteFile(q, append(data, "{}\n"...), 0o600)
	os.Rename(q, p)
	read()
	if c.Fresh != 3 {
		t.Fatalf("a replaced file was not read afresh (%d)", c.Fresh)
	}
	f, _ := os.OpenFile(p, os.O_WRONLY, 0)
	f.WriteAt([]byte("Z"), int64(len(data)-20))
	f.Close()
	appendTo("{}\n")
	read()
	if c.Fresh != 4 {
		t.Fatalf("a file rewritten before the offset was not read afresh (%d)", c.Fresh)
	}
	// The head window, and the tail window after many appends smaller
	// than a window (the tail kept from the bytes appended, not read
	// again), catch a rewrite too.
	f, _ = os.OpenFile(p, os.O_WRONLY, 0)
	f.WriteAt([]byte("Y"), 5)
	f.Close()
	appendTo("{}\n")
	read()
	if c.Fresh != 5 {
		t.Fatalf("a file rewritten in its first bytes was not read afresh (%d)", c.Fresh)
	}
	for i := 0; i < 3000; i++ {
		appendTo("{\"i\":1}\n")
		if i%97 == 0 {
			read()
		}
	}
	read()
	data, _ = os.ReadFile(p)
	f, _ = os.OpenFile(p, os.O_WRONLY, 0)
	f.WriteAt([]byte("X"), int64(len(data)-Window+3))
	f.Close()
	appendTo("{}\n")
	read()
	if c.Fresh != 6 {
		t.Fatalf("a file rewritten at the start of its tail window was not read afresh (%d)", c.Fresh)
	}
	// The file is kept open between reads (and a replaced one was closed);
	// once the cache is closed, a read opens it again.
	if runtime.GOOS != "windows" && c.open != 1 {
		t.Fatalf("%d files kept open, want 1", c.open)
	}
	c.Close()
	appendTo("{}\n")
	read()
	if c.Fresh != 6 {
		t.Fatalf("a read after Close started afresh (%d)", c.Fresh)
	}
	if err := c.Read(dir, "k", func() *recorder { return &recorder{} }, func(*recorder) error { return nil }); err != ErrNotRegular {
		t.Fatalf("a directory: %v", err)
	}
}

// TestCacheStatsThroughSetStat: a read stats the path through the function
// SetStat gives (a watch hands over the stat of its change check), so an
// unchanged answer means the file is not even opened; os.Stat otherwise.
func TestCacheStatsThroughSetStat(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f.jsonl")
	os.WriteFile(p, rows(50, "a"), 0o600)
	var c Cache[*recorder]
	read := func() string {
		t.Helper()
		var got string
		if err := c.Read(p, "k", func() *recorder { return &recorder{} }, func(r *recorder) error {
			got = r.String()
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return got
	}
	read()
	var stale os.FileInfo
	stats := 0
	c.SetStat(func(path string) (os.FileInfo, error) {
		stats++
		if stale != nil {
			return stale, nil
		}
		return os.Stat(path)
	})
	stale, _ = os.Stat(p)
	f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("{\"x\":1}\n")
	f.Close()
	if got, want := read(), string(rows(50, "a")); got != want || stats != 1 {
		t.Fatalf("with the stat handed over saying unchanged: %d stats, read %d bytes, want %d", stats, len(got), len(want))
	}
	stale = nil
	if got, want := read(), string(rows(50, "a"))+"{\"x\":1}\n"; got != want || stats != 2 {
		t.Fatalf("with the stat handed over saying grown: %d stats, read %q", stats, got[len(got)-10:])
	}
	c.SetStat(nil)
	f, _ = os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("{}\n")
	f.Close()
	if got := read(); !strings.HasSuffix(got, "{}\n") || stats != 2 {
		t.Fatalf("after SetStat(nil): %d stats through the function, read %q", stats, got[len(got)-10:])
	}
}

// TestCacheProbeReadsWhatWasAppended: a probe of a file kept open reads what
// was appended (the read that follows takes those bytes: no stat, no other
// read), and says nothing (ok false) for a file truncated, rewritten before
// the offset in either window, or not the file named, after which a read
// goes as without a probe; a probe made before ResetProbes is not taken.
func TestCacheProbeReadsWhatWasAppended(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no identity to name a file by")
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "f.jsonl")
	os.WriteFile(p, rows(300, "a"), 0o600)
	var c Cache[*recorder]
	stats := 0
	c.SetStat(func(path string) (os.FileInfo, error) {
		stats++
		return os.Stat(path)
	})
	read := func() {
		t.Helper()
		var got string
		if err := c.Read(p, "k", func() *recorder { return &recorder{} }, func(r *recorder) error {
			got = r.String()
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if want, _ := os.ReadFile(p); got != string(want) {
			t.Fatalf("the appender holds %d bytes, the file %d", len(got), len(want))
		}
	}
	appendTo := func(b []byte) {
		f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
		f.Write(b)
		f.Close()
	}
	named, _ := os.Stat(p)
	probe := func(wantOK bool) {
		t.Helper()
		c.ResetProbes()
		size, ok := c.Probe(p, named)
		st, _ := os.Stat(p)
		if ok != wantOK || (ok && size != st.Size()) {
			t.Fatalf("probe: size %d ok %v, want ok %v (size %d)", size, ok, wantOK, st.Size())
		}
	}
	if _, ok := c.Probe(p, named); ok {
		t.Fatal("a file never read was probed")
	}
	read()
	fresh, s0 := c.Fresh, stats
	for i, n := range []int{0, 1, 40, 2000} { // 2000 rows: more than a buffer
		appendTo(rows(n, "b"+string(rune('0'+i))))
		probe(true)
		read()
	}
	if c.Fresh != fresh || stats != s0 {
		t.Fatalf("reads after probes: %d fresh, %d stats", c.Fresh-fresh, stats-s0)
	}
	// A probe not taken before ResetProbes is forgotten: the read stats.
	appendTo(rows(3, "c"))
	probe(true)
	appendTo(rows(3, "d"))
	c.ResetProbes()
	read()
	if stats != s0+1 || c.Fresh != fresh {
		t.Fatalf("a read after ResetProbes: %d stats, %d fresh", stats-s0, c.Fresh-fresh)
	}
	// Another file named: no probe.
	other := filepath.Join(dir, "g")
	os.WriteFile(other, nil, 0o600)
	if st, _ := os.Stat(other); true {
		if _, ok := c.Probe(p, st); ok {
			t.Fatal("a probe of a file named by another's identity")
		}
	}
	data, _ := os.ReadFile(p)
	for _, change := range []func(){
		func() { os.Truncate(p, int64(len(data)-10)) },
		func() { // rewritten in the tail window, then appended to
			f, _ := os.OpenFile(p, os.O_WRONLY, 0)
			f.WriteAt([]byte("Z"), int64(len(data)-20))
			f.Close()
			appendTo([]byte("{}\n"))
		},
		func() { // rewritten in the head window, the size unchanged
			f, _ := os.OpenFile(p, os.O_WRONLY, 0)
			f.WriteAt([]byte("Y"), 5)
			f.Close()
		},
	} {
		change()
		probe(false)
		fresh = c.Fresh
		read()
		if c.Fresh != fresh+1 {
			t.Fatal("a changed file was not read afresh after its probe failed")
		}
		data, _ = os.ReadFile(p)
		appendTo(nil)
	}
}

// TestCacheSeed: an appender seeded with the mark of the bytes it holds
// is given only what was appended since by the next read; one whose mark
// no longer holds (the file rewritten before the offset, or shorter), or
// whose size is not the mark's offset, seeds nothing, and the next read
// starts afresh.
func TestCacheSeed(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f.jsonl")
	head := bytes.Repeat([]byte("row\n"), 3000) // more than both windows
	write := func(b []byte) {
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	markOf := func(n int64) Mark {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		st, _ := f.Stat()
		m, err := MarkOf(f, st, n)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	read := func(c *Cache[*recorder]) string {
		var got string
		err := c.Read(p, "k", func() *recorder { return &recorder{} }, func(r *recorder) error {
			got = r.String()
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	for _, tc := range []struct {
		name   string
		change func()
		size   int // the seeded appender's bytes (0: the mark's)
		fresh  int64
	}{
		{"appended", func() { write(append(bytes.Clone(head), "new\n"...)) }, 0, 0},
		{"rewritten before the offset", func() {
			b := append(bytes.Clone(head), "new\n"...)
			b[len(head)-2] = 'X'
			write(b)
		}, 0, 1},
		{"shorter", func() { write(head[:100]) }, 0, 1},
		{"an appender of other bytes", func() { write(append(bytes.Clone(head), "new\n"...)) }, 10, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			write(head)
			m := markOf(int64(len(head)))
			seeded := &recorder{}
			seeded.Write(head[:len(head)-tc.size])
			tc.change()
			var c Cache[*recorder]
			err := c.Seed(p, "k", seeded, m)
			if (err == nil) != (tc.fresh == 0) {
				t.Fatalf("seed: %v", err)
			}
			want, _ := os.ReadFile(p)
			if got := read(&c); got != string(want) || c.Fresh != tc.fresh {
				t.Fatalf("read %d bytes (want %d), %d fresh (want %d)", len(got), len(want), c.Fresh, tc.fresh)
			}
			if tc.fresh == 0 && c.Appended != 4 {
				t.Fatalf("%d bytes appended, want the 4 written after the mark", c.Appended)
			}
		})
	}
}

// TestCacheEachMarksWhatWasRead: the mark Each gives with an appender is
// the mark of the bytes the appender was given (MarkOf at its size), from
// a short file and a long one, after a first read and after an append,
// whatever the file holds since.
func TestCacheEachMarksWhatWasRead(t *testing.T) {
	for _, size := range []int{100, 3 * Window} {
		p := filepath.Join(t.TempDir(), "f.jsonl")
		data := bytes.Repeat([]byte("row\n"), size/4)
		os.WriteFile(p, data, 0o644)
		var c Cache[*recorder]
		for round := range 2 {
			if err := c.Read(p, "k", func() *recorder { return &recorder{} }, func(*recorder) error { return nil }); err != nil {
				t.Fatal(err)
			}
			f, _ := os.Open(p)
			st, _ := f.Stat()
			want, err := MarkOf(f, st, st.Size())
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			// Bytes the appender has not been given yet change nothing.
			g, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
			g.WriteString("more\n")
			g.Close()
			visits := 0
			c.Each(func(path, key string, r *recorder, mark Mark) {
				visits++
				if path != p || key != "k" || mark != want || r.Size() != want.Offset {
					t.Errorf("size %d, round %d: mark %+v of %d bytes, want %+v", size, round, mark, r.Size(), want)
				}
			})
			if visits != 1 {
				t.Fatalf("%d visits", visits)
			}
		}
	}
}
