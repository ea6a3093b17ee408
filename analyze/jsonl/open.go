package jsonl

import (
	"errors"
	"os"
	"syscall"
)

// ErrNotRegular is returned for a path that names a named pipe, device or
// socket instead of a file.
var ErrNotRegular = errors.New("not a regular file (named pipe, device or socket)")

// OpenRegular opens a file for reading without blocking: opening a named pipe
// waits for a writer, so a pipe left where a transcript belongs would hang the
// check. Anything but a regular file is refused with ErrNotRegular.
func OpenRegular(path string) (*os.File, error) {
	f, _, err := OpenRegularInfo(path)
	return f, err
}

// OpenRegularInfo is OpenRegular that also returns what it learnt of the
// file, so that a reader that wants its size does not ask again (a stat is
// a system call per file: thousands of small transcripts are mostly that).
func OpenRegularInfo(path string) (*os.File, os.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = ErrNotRegular
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, st, nil
}
