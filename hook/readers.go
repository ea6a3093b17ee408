package hook

import (
	"encoding/binary"
	"errors"

	"github.com/pmcheck/pmcheck/analyze"
	"github.com/pmcheck/pmcheck/internal/incr"
)

// The readers of a session's transcripts and Workflow journals, frozen
// (analyze.FrozenReader),
// kept beside the reading in a state of their own (readersKind): a call
// whose appended rows the reading cannot be carried over (an Agent call,
// a notification, a mark) reads those rows alone through them, as a
// watch's poll does, where it read the whole session before. They are
// larger than the reading (the transcripts' model: calls, results, the
// tail's rows), so they are read only by such a call and written only
// after one, never by a call whose reading is carried. Each reader's mark
// is checked against its file before it is used (incr.Cache.Seed): a
// reader of bytes that are no longer the file's is not used, and that file
// is read in full.

// readersKind names the readers' states in the cache directory.
const readersKind = "hook-readers"

// loadReaders is the readers kept for the session at path (none when
// there is no state of this version for it, or it does not decode).
func loadReaders(dir, path string) []analyze.FrozenReader {
	st, err := incr.Load(incr.PathFor(dir, readersKind, path), memoVersion(), path)
	if err != nil {
		return nil
	}
	rs, err := decodeReaders(st.Payload)
	if err != nil {
		return nil
	}
	return rs
}

// saveReaders keeps rs for the session at path; an error is dropped (the
// next call that needs them reads in full).
func saveReaders(dir, path string, rs []analyze.FrozenReader) {
	if len(rs) == 0 {
		return
	}
	incr.Save(incr.PathFor(dir, readersKind, path), incr.State{Version: memoVersion(), Path: path, Payload: encodeReaders(rs)})
}

// encodeReaders lays readers out as a count, then for each its path, its
// kind (1: a journal's, 0: a transcript's), its mark (device, inode,
// offset, both hashes) and its state, each length and number a uvarint.
// incr.State's checksum covers it.
func encodeReaders(rs []analyze.FrozenReader) []byte {
	n := 0
	for _, r := range rs {
		n += len(r.Path) + len(r.State) + 128
	}
	b := binary.AppendUvarint(make([]byte, 0, n), uint64(len(rs)))
	for _, r := range rs {
		b = binary.AppendUvarint(b, uint64(len(r.Path)))
		b = append(b, r.Path...)
		kind := byte(0)
		if r.Journal {
			kind = 1
		}
		b = append(b, kind)
		b = binary.AppendUvarint(b, r.Mark.ID.Dev)
		b = binary.AppendUvarint(b, r.Mark.ID.Ino)
		b = binary.AppendUvarint(b, uint64(r.Mark.Offset))
		b = append(b, r.Mark.Head[:]...)
		b = append(b, r.Mark.Tail[:]...)
		b = binary.AppendUvarint(b, uint64(len(r.State)))
		b = append(b, r.State...)
	}
	return b
}

var errReaders = errors.New("hook: the readers' state does not decode")

func decodeReaders(b []byte) ([]analyze.FrozenReader, error) {
	num := func() (uint64, error) {
		v, k := binary.Uvarint(b)
		if k <= 0 {
			return 0, errReaders
		}
		b = b[k:]
		return v, nil
	}
	take := func(n uint64) ([]byte, error) {
		if n > uint64(len(b)) {
			return nil, errReaders
		}
		p := b[:n:n]
		b = b[n:]
		return p, nil
	}
	count, err := num()
	if err != nil || count > uint64(len(b)) {
		return nil, errReaders
	}
	rs := make([]analyze.FrozenReader, 0, count)
	for range count {
		var r analyze.FrozenReader
		var vals [4]uint64
		var path, kind, head, tail, state []byte
		if vals[0], err = num(); err == nil {
			path, err = take(vals[0])
		}
		if err == nil {
			kind, err = take(1)
		}
		if err == nil && kind[0] > 1 {
			err = errReaders
		}
		for i := 1; i < 4 && err == nil; i++ {
			vals[i], err = num()
		}
		if err == nil {
			head, err = take(32)
		}
		if err == nil {
			tail, err = take(32)
		}
		if err == nil {
			var n uint64
			if n, err = num(); err == nil {
				state, err = take(n)
			}
		}
		if err != nil || vals[3] > 1<<62 {
			return nil, errReaders
		}
		r.Path, r.Journal, r.State = string(path), kind[0] == 1, state
		r.Mark = incr.Mark{ID: incr.Identity{Dev: vals[1], Ino: vals[2]}, Offset: int64(vals[3])}
		copy(r.Mark.Head[:], head)
		copy(r.Mark.Tail[:], tail)
		rs = append(rs, r)
	}
	if len(b) != 0 {
		return nil, errReaders
	}
	return rs, nil
}
