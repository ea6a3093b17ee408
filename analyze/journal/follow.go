package journal

import (
	"bytes"
	"errors"
	"slices"

	"github.com/pmcheck/pmcheck/analyze/jsonl"
	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/internal/incr"
)

// Followers keeps a Follower per journal between reads of a run that is
// being written (Options.Follow; a live watch): a read decodes only the
// bytes appended since the last one, while the file is still the one read
// before and unchanged before that point (incr.Cache), and reads it afresh
// otherwise.
type Followers = incr.Cache[*Follower]

// followKey tells apart the readings of one file with and without GiveUp
// (built by hand: fmt at every poll was a measurable part of a watch).
func followKey(file string, giveUp bool) string {
	if giveUp {
		return "1 " + file
	}
	return "0 " + file
}

// readFollowing is ReadFile through opts.Follow: the journal a full read
// gives, from the bytes appended since the last read.
func readFollowing(path, file string, opts Options) (*model.Journal, error) {
	plain := opts
	plain.Follow = nil
	var j *model.Journal
	err := opts.Follow.Read(path, followKey(file, opts.GiveUp),
		func() *Follower { return NewFollower(file, plain) },
		func(f *Follower) (err error) {
			j, err = f.Snapshot()
			return err
		})
	var gaveUp *jsonl.GaveUpError
	switch {
	case err == nil:
		return j, nil
	case errors.As(err, &gaveUp):
		return nil, err
	case errors.Is(err, incr.ErrNotRegular):
		return nil, jsonl.ErrNotRegular
	}
	return ReadFile(path, file, plain) // what a full read says now
}

// Follower reads a journal that is still being written, one appended piece
// at a time: each complete line goes through the reader a full read runs,
// so a piece costs its own bytes, not the file's. Snapshot is exactly the
// journal a full read of the bytes written so far gives, the unterminated
// last line included (Torn, as a full read marks it).
type Follower struct {
	r          reader
	err        error // the reader gave up
	partial    []byte
	partialLen int64
	over       bool
	n          int
	offset     int64
	fed        int64
}

// NewFollower starts following a journal; file is the name evidence
// carries.
func NewFollower(file string, opts Options) *Follower {
	return &Follower{r: reader{j: &model.Journal{File: file}, opts: opts}}
}

// Offset is the number of bytes applied: up to and including the last
// newline written.
func (f *Follower) Offset() int64 { return f.offset }

// Size is the number of bytes written to the follower.
func (f *Follower) Size() int64 { return f.fed }

// Write appends p, the next bytes of the journal. It never fails.
func (f *Follower) Write(p []byte) (int, error) {
	f.fed += int64(len(p))
	rest := p
	for len(rest) > 0 {
		nl := bytes.IndexByte(rest, '\n')
		if nl < 0 {
			f.grow(rest)
			break
		}
		f.grow(rest[:nl])
		f.n++
		f.offset += f.partialLen + 1
		if f.err == nil {
			f.err = f.r.line(f.lineOf(false))
		}
		f.partial, f.partialLen, f.over = f.partial[:0], 0, false
		rest = rest[nl+1:]
	}
	return len(p), nil
}

func (f *Follower) grow(p []byte) {
	f.partialLen += int64(len(p))
	if f.over {
		return
	}
	if f.partialLen > LineCap {
		f.over, f.partial = true, nil
		return
	}
	f.partial = append(f.partial, p...)
}

func (f *Follower) lineOf(torn bool) jsonl.Line {
	l := jsonl.Line{N: f.n, Torn: torn}
	if f.over {
		l.OverCap, l.Len = true, f.partialLen
		return l
	}
	data := f.partial
	if n := len(data); n > 0 && data[n-1] == '\r' {
		data = data[:n-1]
	}
	l.Data, l.Len = data, int64(len(data))
	return l
}

// Snapshot is the journal a full read of the bytes written so far gives,
// or its error (a *jsonl.GaveUpError when Options.GiveUp gave up). It is
// the caller's: later pieces do not change it.
func (f *Follower) Snapshot() (*model.Journal, error) {
	if f.err != nil {
		return nil, f.err
	}
	j := *f.r.j
	// Clipped, so that the torn line (and nothing the follower appends
	// later) can land in the snapshot's arrays.
	j.Lines, j.Malformed = slices.Clip(j.Lines), slices.Clip(j.Malformed)
	if f.partialLen > 0 {
		r := f.r
		r.j = &j
		l := f.lineOf(true)
		l.N = f.n + 1
		if err := r.line(l); err != nil {
			return nil, err
		}
	}
	return &j, nil
}
