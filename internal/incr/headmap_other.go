//go:build !(linux || darwin || freebsd || netbsd || openbsd)

package incr

import (
	"io"
	"os"
)

// mapHead: no mapping here; the head window is read (sameBytes).
func mapHead(*os.File) []byte { return nil }

func unmapHead([]byte) {}

func sameMapped(m, want []byte) bool { return false }

// preadOnce reads f into buf at off (0 bytes and no error at the end of
// the file).
func preadOnce(f *os.File, buf []byte, off int64) (int, error) {
	n, err := f.ReadAt(buf, off)
	if err == io.EOF {
		err = nil
	}
	return n, err
}
