//go:build unix

package incr

import (
	"os"
	"syscall"
)

// IdentityOf is st's device and inode.
func IdentityOf(st os.FileInfo) Identity {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return Identity{Dev: uint64(s.Dev), Ino: uint64(s.Ino)}
	}
	return Identity{}
}

// openFlags open without blocking on a named pipe (which then fails the
// regular-file check instead of hanging the read).
const openFlags = syscall.O_NONBLOCK
