//go:build linux || darwin || freebsd || netbsd || openbsd

package incr

import (
	"bytes"
	"os"
	"runtime/debug"
	"syscall"
)

// mapHead maps the first Window bytes of f read-only and shared: the
// mapping shows the file's bytes as they are now (a write in place
// included, through the page cache), so that comparing the head window is
// a comparison in memory, not a read. nil when f cannot be mapped.
func mapHead(f *os.File) []byte {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	var m []byte
	rc.Control(func(fd uintptr) {
		m, err = syscall.Mmap(int(fd), 0, Window, syscall.PROT_READ, syscall.MAP_SHARED)
	})
	if err != nil {
		return nil
	}
	return m
}

func unmapHead(m []byte) {
	if m != nil {
		syscall.Munmap(m)
	}
}

// sameMapped reports whether the mapping m begins with want. A file
// truncated under the mapping faults on the pages past its end (SIGBUS):
// the fault is caught (debug.SetPanicOnFault, which is meant for this) and
// answers false, the file being no longer the one read.
func sameMapped(m, want []byte) (same bool) {
	if len(want) > len(m) {
		return false
	}
	old := debug.SetPanicOnFault(true)
	defer func() {
		debug.SetPanicOnFault(old)
		if recover() != nil {
			same = false
		}
	}()
	return bytes.Equal(m[:len(want)], want)
}

// preadOnce is one pread of f into buf at off (0 bytes and no error at the
// end of the file).
func preadOnce(f *os.File, buf []byte, off int64) (n int, err error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return 0, err
	}
	rerr := rc.Read(func(fd uintptr) bool {
		for {
			n, err = syscall.Pread(int(fd), buf, off)
			if err != syscall.EINTR {
				return true
			}
		}
	})
	if err == nil {
		err = rerr
	}
	if n < 0 {
		n = 0
	}
	return n, err
}
