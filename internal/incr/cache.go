package incr

import (
	"bytes"
	"errors"
	"io"
	"os"
	"sync"
	"time"
)

// Appender is an incremental reader of one file: it is given the file's
// bytes in order, a piece at a time, and knows how many it was given.
type Appender interface {
	io.Writer
	Size() int64
}

// Cache keeps one Appender per file and key between reads of files that
// grow (a live watch): a read gives the appender only the bytes appended
// since the last, when the file's Mark still holds; otherwise (truncated,
// replaced, rewritten before the offset) a fresh appender reads the file
// from its start. It is safe for concurrent use; one file is read by one
// goroutine at a time.
type Cache[A Appender] struct {
	mu sync.Mutex
	m  map[string]*cached[A]
	// Fresh counts the reads that started from the beginning of a file,
	// and Appended the bytes given to appenders (tests and benchmarks).
	Fresh, Appended int64
	open            int // files kept open (keptOpen)
}

type cached[A Appender] struct {
	mu  sync.Mutex
	a   A
	ok  bool
	win windows
	// f, when not nil, is the file kept open since a read (fid its
	// identity): a later read of the same path whose stat shows the same
	// identity reads through it.
	f   *os.File
	fid Identity
	// mtime is the file's modification time at the last read: a file of
	// the same identity, size and modification time is taken as unchanged
	// without hashing its windows again (most files of a run do not change
	// between two polls).
	mtime time.Time
}

// filler is an Appender that reads a whole file faster than piece by
// piece (transcript.Follower.Fill: on every core); Read uses it for a
// file's first read.
type filler interface {
	Fill(r io.ReaderAt, size int64) error
}

// ErrNotRegular is Read's error for a path that is not a regular file.
var ErrNotRegular = errors.New("not a regular file")

// readPiece is how much of the appended bytes is read at once.
const readPiece = 256 << 10

// Read brings the appender of path (under key: one per set of reading
// options) up to the file's current size and calls use with it, while no
// other read of the same file and key runs. open makes a fresh appender.
// An error opening or reading the file is returned as is (the appender is
// dropped: the next read starts afresh).
func (c *Cache[A]) Read(path, key string, open func() A, use func(A) error) error {
	c.mu.Lock()
	if c.m == nil {
		c.m = map[string]*cached[A]{}
	}
	e := c.m[key+"\x00"+path]
	if e == nil {
		e = &cached[A]{}
		c.m[key+"\x00"+path] = e
	}
	c.mu.Unlock()

	e.mu.Lock()
	defer e.mu.Unlock()
	var f *os.File
	var st os.FileInfo
	if e.ok {
		// Unchanged since the last read: not even opened.
		pst, err := os.Stat(path)
		if err == nil && e.unchanged(pst) {
			return use(e.a)
		}
		// The same file as the one kept open: read through it.
		if err == nil && e.f != nil && pst.Mode().IsRegular() && IdentityOf(pst) != (Identity{}) && IdentityOf(pst) == e.fid {
			f, st = e.f, pst
		}
	}
	if f == nil {
		e.closeFile(c)
		var err error
		if f, err = os.OpenFile(path, os.O_RDONLY|openFlags, 0); err != nil {
			e.ok = false
			return err
		}
		if st, err = f.Stat(); err != nil {
			f.Close()
			e.ok = false
			return err
		}
		if !st.Mode().IsRegular() {
			f.Close()
			e.ok = false
			return ErrNotRegular
		}
		e.keepFile(c, f, st)
	}
	if e.f != f {
		defer f.Close()
	}
	size := st.Size()
	if !e.ok || !e.win.hold(f, st) {
		e.a, e.ok, e.win = open(), true, windows{}
		c.count(&c.Fresh, 1)
	}
	e.win.tailAt = e.win.offset
	from := e.a.Size()
	if fl, ok := any(e.a).(filler); ok && from == 0 && size > 0 {
		if err := fl.Fill(f, size); err != nil {
			e.ok = false
			return err
		}
		c.count(&c.Appended, e.a.Size())
	} else if from < size {
		r := io.NewSectionReader(f, from, size-from)
		buf := make([]byte, min(readPiece, size-from))
		for {
			n, rerr := io.ReadFull(r, buf)
			e.a.Write(buf[:n])
			e.win.appended(buf[:n])
			if rerr == io.EOF || rerr == io.ErrUnexpectedEOF {
				break
			}
			if rerr != nil {
				e.ok = false
				return rerr
			}
		}
		c.count(&c.Appended, e.a.Size()-from)
	}
	if err := e.win.extend(f, st, e.a.Size()); err != nil {
		e.ok = false
		return err
	}
	e.mtime = st.ModTime()
	return use(e.a)
}

// windows are a Mark kept in memory: the same two windows (the first Window
// bytes read and the Window bytes before the offset), held as the bytes
// themselves rather than their hashes. A poll compares them with what the
// file holds now (two reads, no hashing), and the tail window follows the
// appended bytes as they are read rather than being read again.
type windows struct {
	id         Identity
	offset     int64
	head, tail []byte
	// tailAt is the offset the appended bytes seen by appended lead up to
	// (tail is the Window bytes before it).
	tailAt int64
}

// hold reports whether the windows still hold for f (whose stat is st),
// as Mark.Check does: the same identity, at least offset bytes, and the
// same bytes in both windows.
func (w *windows) hold(f io.ReaderAt, st os.FileInfo) bool {
	if IdentityOf(st) != w.id || st.Size() < w.offset || int64(len(w.head)) != min(Window, w.offset) || int64(len(w.tail)) != min(Window, w.offset) {
		return false
	}
	if !sameBytes(f, 0, w.head) {
		return false
	}
	return w.offset <= Window || sameBytes(f, w.offset-int64(len(w.tail)), w.tail)
}

func sameBytes(f io.ReaderAt, at int64, want []byte) bool {
	if len(want) == 0 {
		return true
	}
	buf := make([]byte, len(want))
	n, _ := f.ReadAt(buf, at)
	return n == len(buf) && bytes.Equal(buf, want)
}

// appended takes the next bytes read after the offset into the tail window.
func (w *windows) appended(p []byte) {
	if len(p) >= Window {
		w.tail = append(w.tail[:0], p[len(p)-Window:]...)
	} else {
		w.tail = append(w.tail, p...)
		if len(w.tail) > Window {
			w.tail = append(w.tail[:0], w.tail[len(w.tail)-Window:]...)
		}
	}
	w.tailAt += int64(len(p))
}

// extend makes the windows those of the same file read up to offset. The
// tail is the bytes appended read, when they lead up to offset; otherwise
// (a first read by Fill) both windows are read.
func (w *windows) extend(f io.ReaderAt, st os.FileInfo, offset int64) error {
	w.id = IdentityOf(st)
	want := min(Window, offset)
	if w.tailAt != offset || int64(len(w.tail)) != want {
		w.tail = make([]byte, want)
		if n, err := f.ReadAt(w.tail, offset-want); n < len(w.tail) {
			return shortRead(err)
		}
	}
	if int64(len(w.head)) != want {
		w.head = make([]byte, want)
		if n, err := f.ReadAt(w.head, 0); n < len(w.head) {
			return shortRead(err)
		}
	}
	w.offset, w.tailAt = offset, offset
	return nil
}

func shortRead(err error) error {
	if err == nil || err == io.EOF {
		return ErrChanged // shorter than it was a moment ago
	}
	return err
}

// keptOpen is how many files a Cache keeps open between reads (a poll
// then stats a changed file and reads it, rather than opening, stat-ing
// and closing it every time); files beyond are opened for each read.
const keptOpen = 64

// keepFile keeps f open for the next reads when the cache may keep one
// more.
func (e *cached[A]) keepFile(c *Cache[A], f *os.File, st os.FileInfo) {
	id := IdentityOf(st)
	if id == (Identity{}) {
		return // no identity to tell the file kept from another
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.open < keptOpen {
		c.open++
		e.f, e.fid = f, id
	}
}

func (e *cached[A]) closeFile(c *Cache[A]) {
	if e.f == nil {
		return
	}
	e.f.Close()
	e.f = nil
	c.mu.Lock()
	c.open--
	c.mu.Unlock()
}

// Close closes the files kept open. The cache can still be used: a file is
// opened again by its next read.
func (c *Cache[A]) Close() {
	c.mu.Lock()
	entries := make([]*cached[A], 0, len(c.m))
	for _, e := range c.m {
		entries = append(entries, e)
	}
	c.mu.Unlock()
	for _, e := range entries {
		e.mu.Lock()
		e.closeFile(c)
		e.mu.Unlock()
	}
}

func (c *Cache[A]) count(v *int64, n int64) {
	c.mu.Lock()
	*v += n
	c.mu.Unlock()
}

// unchanged: the file read last has the same identity, size and
// modification time, and is regular.
func (e *cached[A]) unchanged(st os.FileInfo) bool {
	return st.Mode().IsRegular() && st.Size() == e.a.Size() && st.Size() == e.win.offset &&
		st.ModTime().Equal(e.mtime) && IdentityOf(st) == e.win.id
}
