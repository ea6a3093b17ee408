package journal

import (
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
	r     reader
	err   error // the reader gave up
	lines jsonl.Splitter
}

// NewFollower starts following a journal; file is the name evidence
// carries.
func NewFollower(file string, opts Options) *Follower {
	return &Follower{r: reader{j: &model.Journal{File: file}, opts: opts}, lines: jsonl.Splitter{Cap: LineCap}}
}

// Offset is the number of bytes applied: up to and including the last
// newline written.
func (f *Follower) Offset() int64 { return f.lines.Offset() }

// Size is the number of bytes written to the follower.
func (f *Follower) Size() int64 { return f.lines.Size() }

// Write appends p, the next bytes of the journal. It never fails.
func (f *Follower) Write(p []byte) (int, error) {
	f.lines.Write(p, f.applyLine)
	return len(p), nil
}

// applyLine reads a complete line, until the reader gives up.
func (f *Follower) applyLine(l jsonl.Line) {
	if f.err == nil {
		f.err = f.r.line(l)
	}
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
	if l, ok := f.lines.Torn(); ok {
		r := f.r
		r.j = &j
		if err := r.line(l); err != nil {
			return nil, err
		}
	}
	return &j, nil
}
