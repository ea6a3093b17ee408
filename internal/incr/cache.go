package incr

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"io"
	"os"
	"path/filepath"
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
	m  map[entryKey]*cached[A]
	// Fresh counts the reads that started from the beginning of a file,
	// and Appended the bytes given to appenders (tests and benchmarks).
	Fresh, Appended int64
	open            int // files kept open (keptOpen)
	// byPath are the entries of each cleaned path (Probe), probes the
	// generation of the probes a read may take (ResetProbes).
	byPath map[string][]*cached[A]
	probes uint64
	// stat, when set (SetStat), is how a read stats a file's path.
	stat func(path string) (os.FileInfo, error)
}

type entryKey struct{ key, path string }

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
	// head, when not nil, maps the first Window bytes of f (mapHead): the
	// head window is compared there, without a read. noMap: f could not
	// be mapped (it is read then).
	head  []byte
	noMap bool
	// mtime is the file's modification time at the last read: a file of
	// the same identity, size and modification time is taken as unchanged
	// without hashing its windows again (most files of a run do not change
	// between two polls).
	mtime time.Time
	// buf is kept between reads for the windows' check and the appended
	// bytes, when it is small (keptBuf): a poll's few rows need no new one.
	buf []byte
	// probe is what the last Probe of the entry found, for the next read
	// of the same generation.
	probe probed
}

// probed is a Probe's finding: the windows held in the file kept open,
// which ended at size, the bytes after the offset being ahead (in buf).
type probed struct {
	gen   uint64
	ok    bool
	size  int64
	ahead []byte
}

// keptBuf is the largest read buffer an entry keeps between reads.
const keptBuf = 32 << 10

// SetStat makes the reads stat a file's path with stat rather than os.Stat:
// a caller that has just stat-ed the files it is about to read (a watch's
// change check) hands its answers over, so that a poll stats each file once.
// stat must answer as os.Stat would have, a moment earlier; nil restores
// os.Stat.
func (c *Cache[A]) SetStat(stat func(path string) (os.FileInfo, error)) {
	c.mu.Lock()
	c.stat = stat
	c.mu.Unlock()
}

func (c *Cache[A]) statPath(path string) (os.FileInfo, error) {
	c.mu.Lock()
	stat := c.stat
	c.mu.Unlock()
	if stat == nil {
		return os.Stat(path)
	}
	return stat(path)
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
	e := c.entry(path, key)
	e.mu.Lock()
	defer e.mu.Unlock()
	if p := e.takeProbe(c); p.ok {
		return e.readProbed(c, p, use)
	}
	f, st, err := e.file(c, path)
	if err != nil {
		e.ok = false
		return err
	}
	if f == nil {
		return use(e.a) // unchanged since the last read: not even opened
	}
	if e.f != f {
		defer f.Close()
	}
	// The windows are checked with one read that also takes the first
	// appended bytes (ahead); a file that no longer holds them is read
	// from its start by a fresh appender.
	var ahead []byte
	held := false
	if e.ok {
		ahead, held = e.hold(f, st)
	}
	if !held {
		e.a, e.ok, e.win, ahead = open(), true, windows{}, nil
		c.count(&c.Fresh, 1)
	}
	from := e.a.Size()
	if err := e.feed(f, st.Size(), ahead); err != nil {
		e.ok = false
		return err
	}
	c.count(&c.Appended, e.a.Size()-from)
	if err := e.win.extend(f, IdentityOf(st), e.a.Size()); err != nil {
		e.ok = false
		return err
	}
	e.mtime = st.ModTime()
	return use(e.a)
}

// Seed makes a the appender of path under key, as if a read had given it
// the file's first a.Size() bytes, when mark (made of the file when a was
// given them, at that offset) still holds: the next Read gives a only the
// bytes appended since. So a short-lived process that kept an appender's
// state (the hook: transcript.Follower.Freeze) reads on from it. A mark
// that does not hold (ErrChanged), or a file that cannot be read, seeds
// nothing: the next Read starts afresh.
func (c *Cache[A]) Seed(path, key string, a A, mark Mark) error {
	if mark.Offset != a.Size() {
		return ErrChanged
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return ErrNotRegular
	}
	if err := mark.Check(f, st); err != nil {
		return err
	}
	e := c.entry(path, key)
	e.mu.Lock()
	defer e.mu.Unlock()
	e.closeFile(c)
	e.a, e.win = a, windows{}
	if err := e.win.extend(f, mark.ID, mark.Offset); err != nil {
		e.ok = false
		return err
	}
	// No modification time: the next read compares the windows.
	e.ok, e.mtime = true, time.Time{}
	return nil
}

// Each calls visit with every appender the cache holds that read its file
// without error, the path and key it was read under, and the mark of the
// bytes it was given: made from the windows the cache kept of them (the
// bytes the appender read, not the file's now), so nothing is read again.
func (c *Cache[A]) Each(visit func(path, key string, a A, mark Mark)) {
	c.mu.Lock()
	keys := make([]entryKey, 0, len(c.m))
	for k := range c.m {
		keys = append(keys, k)
	}
	c.mu.Unlock()
	for _, k := range keys {
		e := c.entry(k.path, k.key)
		e.mu.Lock()
		if w := &e.win; e.ok && w.offset == e.a.Size() && int64(len(w.head)) == min(Window, w.offset) && int64(len(w.tail)) == min(Window, w.offset) {
			visit(k.path, k.key, e.a, Mark{ID: w.id, Offset: w.offset, Head: sha256.Sum256(w.head), Tail: sha256.Sum256(w.tail)})
		}
		e.mu.Unlock()
	}
}

// entry is the cache's entry of path under key, made on first use.
func (c *Cache[A]) entry(path, key string) *cached[A] {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[entryKey]*cached[A]{}
	}
	k := entryKey{key, path}
	e := c.m[k]
	if e == nil {
		e = &cached[A]{}
		c.m[k] = e
		if c.byPath == nil {
			c.byPath = map[string][]*cached[A]{}
		}
		clean := filepath.Clean(path)
		c.byPath[clean] = append(c.byPath[clean], e)
	}
	return e
}

// ResetProbes forgets what the probes made so far found: a read takes only
// what a Probe made after the last ResetProbes found. A caller probes its
// files at each poll, after ResetProbes, and the reads of the load that
// follows take what the probes read.
func (c *Cache[A]) ResetProbes() {
	c.mu.Lock()
	c.probes++
	c.mu.Unlock()
}

// Probe reads the file at path (cleaned) through the file each of its
// entries keeps open, from the tail window to its end, in one pread: when
// the windows hold there (the same bytes before the offset read, the head
// compared in the mapping, as a read compares them), it returns the file's
// size with ok, and the next read of the entry (until ResetProbes) gives
// the appender the bytes the probe read, without a stat or another read.
// So a poll costs a watch one system call per file, changed or not, where a
// stat of each and then a read of the changed ones cost one or two.
//
// named is the file the caller knows path names (a watch knows it from the
// directory's listing: nothing was created, removed or renamed there since
// its last stat of the path, which named); only a file kept open that is
// named (the same device and inode) is probed. ok is false when any entry
// of path keeps no such file open, or has not read it, or finds it
// truncated or rewritten before the offset: the caller stats the path
// then, and the reads go as without a probe. Probe does not see a change of
// the modification time alone (the bytes unchanged), which changes no read.
func (c *Cache[A]) Probe(path string, named os.FileInfo) (size int64, ok bool) {
	id := IdentityOf(named)
	if id == (Identity{}) {
		return 0, false
	}
	c.mu.Lock()
	entries, gen := c.byPath[path], c.probes
	c.mu.Unlock()
	for i, e := range entries {
		e.mu.Lock()
		n, held := e.probeFile(gen, id)
		e.mu.Unlock()
		if !held || (i > 0 && n != size) {
			return 0, false
		}
		size = n
	}
	return size, len(entries) > 0
}

// Has reports whether the cache has an entry for path (cleaned).
func (c *Cache[A]) Has(path string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.byPath[path]) > 0
}

// probeFile is Probe of one entry: its kept file's size, when the windows
// hold there.
func (e *cached[A]) probeFile(gen uint64, id Identity) (int64, bool) {
	e.probe = probed{}
	w := &e.win
	if !e.ok || e.f == nil || e.fid != id || w.id != id || w.offset != e.a.Size() ||
		int64(len(w.head)) != min(Window, w.offset) || int64(len(w.tail)) != min(Window, w.offset) {
		return 0, false
	}
	if w.offset > Window && !e.headHolds(e.f) {
		return 0, false
	}
	from := w.offset - int64(len(w.tail))
	buf := e.scratch(keptBuf)
	// One pread (File.ReadAt would make a second to find the end): a
	// regular file's read is short only at its end.
	n, err := preadOnce(e.f, buf, from)
	if n < len(w.tail) || err != nil || !bytes.Equal(buf[:len(w.tail)], w.tail) {
		return 0, false
	}
	size := from + int64(n)
	if n == len(buf) {
		// More than the buffer was appended: the size from a stat, the
		// rest read by the read that takes the probe.
		st, err := e.f.Stat()
		if err != nil || st.Size() < size {
			return 0, false
		}
		size = st.Size()
	}
	e.probe = probed{gen: gen, ok: true, size: size, ahead: buf[len(w.tail):n]}
	return size, true
}

// takeProbe is the entry's probe of the current generation, forgotten: a
// probe is taken by one read.
func (e *cached[A]) takeProbe(c *Cache[A]) probed {
	p := e.probe
	e.probe = probed{}
	c.mu.Lock()
	gen := c.probes
	c.mu.Unlock()
	if !p.ok || p.gen != gen || !e.ok || e.f == nil || e.a.Size() != e.win.offset {
		return probed{}
	}
	return p
}

// readProbed is Read after a probe: the appender is given the bytes the
// probe read after the offset, and the windows follow them.
func (e *cached[A]) readProbed(c *Cache[A], p probed, use func(A) error) error {
	if p.size == e.a.Size() {
		return use(e.a) // unchanged since the last read
	}
	from := e.a.Size()
	if err := e.feed(e.f, p.size, p.ahead); err != nil {
		e.ok = false
		return err
	}
	c.count(&c.Appended, e.a.Size()-from)
	if err := e.win.extend(e.f, e.fid, e.a.Size()); err != nil {
		e.ok = false
		return err
	}
	// No modification time was seen: a stat's next check compares the
	// windows rather than trusting a time.
	e.mtime = time.Time{}
	return use(e.a)
}

// file is the open file to read path through and its stat: the file kept
// open when a stat of path shows the same file, else path opened afresh
// (and kept, when the cache may keep one more). A nil file with no error
// means the file is unchanged since the last read.
func (e *cached[A]) file(c *Cache[A], path string) (*os.File, os.FileInfo, error) {
	if e.ok {
		st, err := c.statPath(path)
		if err == nil && e.unchanged(st) {
			return nil, st, nil
		}
		// The same file as the one kept open: read through it.
		if err == nil && e.f != nil && st.Mode().IsRegular() && IdentityOf(st) != (Identity{}) && IdentityOf(st) == e.fid {
			return e.f, st, nil
		}
	}
	e.closeFile(c)
	f, err := os.OpenFile(path, os.O_RDONLY|openFlags, 0)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, nil, ErrNotRegular
	}
	e.keepFile(c, f, st)
	return f, st, nil
}

// feed gives the appender the file's bytes from its size up to size:
// ahead first (the bytes after the offset the windows' check read), then
// the rest, a piece at a time; a fresh appender that can fill itself from
// the whole file (filler) does so.
func (e *cached[A]) feed(f *os.File, size int64, ahead []byte) error {
	from := e.a.Size()
	if fl, ok := any(e.a).(filler); ok && from == 0 && size > 0 {
		return fl.Fill(f, size)
	}
	e.win.tailAt = e.win.offset
	if len(ahead) > 0 {
		e.a.Write(ahead)
		e.win.appended(ahead)
		from += int64(len(ahead))
	}
	if from >= size {
		return nil
	}
	r := io.NewSectionReader(f, from, size-from)
	buf := e.scratch(int(min(readPiece, size-from)))
	for {
		n, rerr := io.ReadFull(r, buf)
		e.a.Write(buf[:n])
		e.win.appended(buf[:n])
		if rerr == io.EOF || rerr == io.ErrUnexpectedEOF {
			return nil
		}
		if rerr != nil {
			return rerr
		}
	}
}

// scratch is a buffer of n bytes, the entry's own when it is small enough
// to keep.
func (e *cached[A]) scratch(n int) []byte {
	if cap(e.buf) >= n {
		return e.buf[:n]
	}
	buf := make([]byte, n)
	if n <= keptBuf {
		e.buf = buf
	}
	return buf
}

// hold reports whether the windows still hold for f (whose stat is st),
// as Mark.Check does: the same identity, at least offset bytes, and the
// same bytes in both windows. The tail window is read together with the
// bytes appended after it (up to a piece), which are returned: they are
// the next bytes to give the appender.
func (e *cached[A]) hold(f *os.File, st os.FileInfo) (ahead []byte, ok bool) {
	w := &e.win
	if IdentityOf(st) != w.id || st.Size() < w.offset || int64(len(w.head)) != min(Window, w.offset) || int64(len(w.tail)) != min(Window, w.offset) {
		return nil, false
	}
	if w.offset > Window && !e.headHolds(f) {
		return nil, false
	}
	// [offset-len(tail), offset) must be the tail; what follows, up to the
	// size, is appended. When the file is no longer than a window, the
	// head is those same bytes.
	from := w.offset - int64(len(w.tail))
	buf := e.scratch(int(min(st.Size()-from, int64(len(w.tail))+readPiece)))
	n, _ := f.ReadAt(buf, from)
	if n < len(w.tail) || !bytes.Equal(buf[:len(w.tail)], w.tail) {
		return nil, false
	}
	return buf[len(w.tail):n], true
}

// headHolds reports whether f still holds the head window: compared in
// the mapping of the file kept open (mapped at its first check), else read.
// A poll then makes one read of a file that grew (the tail window with the
// appended bytes, hold) instead of two: the head's read was a tenth of a
// watch's CPU.
func (e *cached[A]) headHolds(f *os.File) bool {
	want := e.win.head
	if f == e.f && !e.noMap {
		if e.head == nil {
			e.head = mapHead(f)
			e.noMap = e.head == nil
		}
		if e.head != nil {
			return sameMapped(e.head, want)
		}
	}
	return sameBytes(f, 0, want, e.scratch(len(want)))
}

// windows are a Mark kept in memory: the same two windows (the first Window
// bytes read and the Window bytes before the offset), held as the bytes
// themselves rather than their hashes. A poll compares them with what the
// file holds now (no hashing: the head in the file's mapping, headHolds; the
// tail in the one read that also takes the appended bytes, hold), and the
// tail window follows the appended bytes as they are read rather than being
// read again.
type windows struct {
	id         Identity
	offset     int64
	head, tail []byte
	// tailAt is the offset the appended bytes seen by appended lead up to
	// (tail is the Window bytes before it).
	tailAt int64
}

// sameBytes reports whether f holds want at offset at, read into buf (of
// want's length).
func sameBytes(f io.ReaderAt, at int64, want, buf []byte) bool {
	if len(want) == 0 {
		return true
	}
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
func (w *windows) extend(f io.ReaderAt, id Identity, offset int64) error {
	w.id = id
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
	unmapHead(e.head)
	e.f.Close()
	e.f, e.head, e.noMap = nil, nil, false
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
