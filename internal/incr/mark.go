// Package incr holds what an incremental reader needs to trust what it read
// before: a Mark of a file (its identity, the offset read up to, and hashes
// of the bytes before that offset) and a State file that keeps a reader's
// work between two short-lived processes (the resume-gate hook), written
// atomically in the user's cache directory.
//
// Neither is evidence. A mark that does not hold, a state that is missing,
// corrupt, from another version, for another file, or cannot be written
// means one thing: read the file in full. The answer never depends on
// whether the accelerator was used.
package incr

import (
	"crypto/sha256"
	"errors"
	"io"
	"os"
)

// Window is how many bytes are hashed at each end of the part of a file
// already read: the first Window bytes and the Window bytes before the
// offset. Hashing every byte before the offset would cost a read of the
// whole file on every call, which is what an incremental reader avoids;
// the windows catch a truncation followed by new writes, a file rewritten
// from its start, and a rewrite of the rows just read (where a writer that
// rewrites would). See docs/hooks.md for what they cannot catch.
const Window = 4096

// Identity is a file's device and inode (on Unix; zero elsewhere, where
// only the size and the hashes are compared): a file replaced by a rename
// is another file.
type Identity struct {
	Dev, Ino uint64
}

// Mark is what a reader knows of a file it read up to Offset.
type Mark struct {
	ID     Identity
	Offset int64
	// Head is the hash of bytes [0, min(Window, Offset)); Tail of bytes
	// [max(0, Offset-Window), Offset).
	Head, Tail [sha256.Size]byte
}

// ErrChanged says the file is no longer the one the mark was made of, or
// no longer starts with the bytes it was made of.
var ErrChanged = errors.New("the file changed before the offset read")

// MarkOf makes the mark of f (whose stat is st) read up to offset.
func MarkOf(f io.ReaderAt, st os.FileInfo, offset int64) (Mark, error) {
	m := Mark{ID: IdentityOf(st), Offset: offset}
	var err error
	if m.Head, err = hashRange(f, 0, min(Window, offset)); err != nil {
		return Mark{}, err
	}
	if m.Tail, err = hashRange(f, max(0, offset-Window), offset); err != nil {
		return Mark{}, err
	}
	return m, nil
}

// Extend is the mark of the same file read further, up to offset, when m
// was just checked to hold: the head window, when m's was already whole, is
// the same bytes and is not hashed again.
func (m Mark) Extend(f io.ReaderAt, st os.FileInfo, offset int64) (Mark, error) {
	if m.Offset < Window || offset < m.Offset || IdentityOf(st) != m.ID {
		return MarkOf(f, st, offset)
	}
	n := Mark{ID: m.ID, Offset: offset, Head: m.Head}
	var err error
	if n.Tail, err = hashRange(f, max(0, offset-Window), offset); err != nil {
		return Mark{}, err
	}
	return n, nil
}

// Check reports whether the mark still holds for f (whose stat is st): the
// same identity, at least Offset bytes, and the same bytes in both
// windows. An error is ErrChanged or an I/O error; either means a full
// read.
func (m Mark) Check(f io.ReaderAt, st os.FileInfo) error {
	if IdentityOf(st) != m.ID || st.Size() < m.Offset || m.Offset < 0 {
		return ErrChanged
	}
	head, err := hashRange(f, 0, min(Window, m.Offset))
	if err != nil {
		return err
	}
	tail, err := hashRange(f, max(0, m.Offset-Window), m.Offset)
	if err != nil {
		return err
	}
	if head != m.Head || tail != m.Tail {
		return ErrChanged
	}
	return nil
}

func hashRange(f io.ReaderAt, from, to int64) ([sha256.Size]byte, error) {
	buf := make([]byte, to-from)
	if len(buf) > 0 {
		n, err := f.ReadAt(buf, from)
		if n < len(buf) {
			if err == nil || err == io.EOF {
				err = ErrChanged // shorter than it was a moment ago
			}
			return [sha256.Size]byte{}, err
		}
	}
	return sha256.Sum256(buf), nil
}
