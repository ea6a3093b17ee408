package transcript

import (
	"bytes"
	"errors"
	"io"
	"slices"

	"github.com/pmcheck/pmcheck/analyze/jsonl"
	"github.com/pmcheck/pmcheck/analyze/model"
)

// Follower reads a transcript that is still being written, one appended
// piece at a time: each complete line goes through the same builder a full
// read runs (apply, in file order), so the cost of a piece is the piece's,
// not the file's. Snapshot gives, at any point, exactly the transcript a
// full read of the bytes written so far gives (the differential tests
// prove it on every fixture and corpus transcript, fed row by row and in
// random pieces that end mid-row).
//
// A Follower is for one reader at a time. A snapshot shares the builder's
// calls, results and events, and its counts (Types and ToolCounts, which
// the next Write changes in place); it is what a full read gives until the
// next Write, after which the follower may change what it points at.
type Follower struct {
	b     *builder
	opts  Options
	lines jsonl.Splitter
	// uuids is Transcript.UUIDs as of the last snapshot (sorted, shared
	// by the snapshots: nothing changes one in place); the builder lists
	// the hashes added since, which the next snapshot merges in, rather
	// than sorting every row's again (a third of a watch's time).
	uuids []uint64
}

// NewFollower starts following a transcript; file is the name evidence
// carries. Every option but Follow is honoured (Copied included: the
// copies are those of the maps given).
func NewFollower(file string, opts Options) *Follower {
	b := newBuilder(file)
	b.setOptions(opts)
	b.trackUUIDs = !opts.NoUUIDList
	b.types.follow()
	b.tools.follow()
	// With poisoned views the builder overwrites each line it applied, and
	// a piece is the caller's (io.Writer: Write must not modify it): lines
	// are copied first, which finds a view kept into one all the same.
	return &Follower{b: b, opts: opts, lines: jsonl.Splitter{Cap: opts.LineCap, CopyLines: poisonViews}}
}

// Offset is the number of bytes applied: every complete line, up to and
// including the last newline written.
func (f *Follower) Offset() int64 { return f.lines.Offset() }

// Size is the number of bytes written to the follower.
func (f *Follower) Size() int64 { return f.lines.Size() }

// Write appends p, the next bytes of the file, and applies every line p
// completes. It never fails (the error is for io.Writer).
func (f *Follower) Write(p []byte) (int, error) {
	f.lines.Write(p, f.b.line)
	return len(p), nil
}

// Fill gives a follower that was given nothing yet the first size bytes
// of r, as Write would, but decodes a large file's complete lines on every
// core as ReadFile does (parallel.go), so a first read through a follower
// is no slower than a full read.
func (f *Follower) Fill(r io.ReaderAt, size int64) error {
	workers := parallelWorkers()
	if f.lines.Size() != 0 || size < fillParallelMin || workers < 2 {
		_, err := io.Copy(f, io.NewSectionReader(r, 0, size))
		return err
	}
	end, err := lastNewline(r, size)
	if err != nil {
		return err
	}
	if end > 0 {
		n, err := applyParallel(f.b, io.NewSectionReader(r, 0, end), f.b.t.File, f.opts, workers, chunkBytes)
		if err != nil && f.b.gaveUp == nil {
			return err
		}
		f.lines.Skip(n, end)
	}
	_, err = io.Copy(f, io.NewSectionReader(r, end, size-end))
	return err
}

// fillParallelMin is the size from which Fill decodes in parallel
// (parallelMin; tests lower it).
var fillParallelMin int64 = parallelMin

// lastNewline is the offset just after the last newline among the first
// size bytes of r (0 when there is none).
func lastNewline(r io.ReaderAt, size int64) (int64, error) {
	buf := make([]byte, 64<<10)
	for end := size; end > 0; {
		from := max(0, end-int64(len(buf)))
		p := buf[:end-from]
		if _, err := r.ReadAt(p, from); err != nil && err != io.EOF {
			return 0, err
		}
		if i := bytes.LastIndexByte(p, '\n'); i >= 0 {
			return from + int64(i) + 1, nil
		}
		end = from
	}
	return 0, nil
}

// Snapshot is the transcript a full read (Read) of the bytes written so
// far gives, or its error (a *jsonl.GaveUpError when Options.GiveUp gave
// up). Only an unterminated last line that decodes to a row (a write whose
// newline has not arrived yet) cannot be taken into account without being
// applied for good; Snapshot then returns ErrFullRead and the caller reads
// the file in full.
func (f *Follower) Snapshot() (*model.Transcript, error) {
	b := f.b
	if b.gaveUp != nil {
		return nil, b.gaveUp
	}
	t := *b.t
	// Shared, not copied: finishInto appends the pending results to a
	// full slice, which copies it then.
	t.ToolResults = b.t.ToolResults[:len(b.t.ToolResults):len(b.t.ToolResults)]
	t.Malformed = append([]model.Malformed(nil), b.t.Malformed...)
	if l, ok := f.lines.Torn(); ok {
		if err := f.tornLine(&t, l); err != nil {
			return nil, err
		}
	}
	if len(b.added) > 0 {
		slices.Sort(b.added)
		f.uuids = mergeSorted(f.uuids, b.added)
		b.added = b.added[:0]
	}
	t.UUIDs = f.uuids
	if f.opts.NoUUIDList {
		t.UUIDs = nil
	}
	b.finishInto(&t)
	return &t, nil
}

// ErrFullRead is Snapshot's answer when the bytes written so far end in an
// unterminated line the follower cannot count without applying it for good
// (a row whose newline has not arrived yet, a line over the cap, a line at
// which the reader gives up): the caller reads the file in full, which
// gives the right answer at the cost of a full read.
var ErrFullRead = errors.New("transcript: the unterminated last line needs a full read")

// tornLine counts the unterminated last line into the copy t as a full
// read would, when it is not a row (blank, malformed, over the cap: what a
// write in flight usually looks like), by the builder's own accounting of
// such a line (readable) run on the copy; a line that decodes to a row,
// or one at which a full read gives up, is ErrFullRead.
func (f *Follower) tornLine(t *model.Transcript, l jsonl.Line) error {
	data := bytes.TrimSpace(l.Data)
	var d decoded
	if !l.OverCap && len(data) > 0 {
		a := arenas.Get().(*arena)
		decodeLine(data, &d, a, nil, nil)
		a.reset(1 << 20)
		arenas.Put(a)
		if d.valid {
			return ErrFullRead
		}
	}
	copyOf := builder{t: t, giveUp: f.b.giveUp}
	copyOf.readable(l, data, &d)
	if copyOf.gaveUp != nil {
		return ErrFullRead // a full read gives up here; let it say so
	}
	return nil
}

// Close drops the follower's builder (not to the pool: snapshots share its
// events); the follower is not used afterwards.
func (f *Follower) Close() {
	if f.b != nil && f.b.arena != nil {
		f.b.arena.reset(1 << 20)
		arenas.Put(f.b.arena)
	}
	f.b = nil
}

// mergeSorted is the sorted union of two sorted lists of distinct values
// (no value is in both), in a new list.
func mergeSorted(a, b []uint64) []uint64 {
	out := make([]uint64, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if a[i] < b[j] {
			out = append(out, a[i])
			i++
		} else {
			out = append(out, b[j])
			j++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}
