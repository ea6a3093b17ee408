//go:build unix

package main

import (
	"os"
	"syscall"
)

// openKept opens a file of the run directory for the change check to keep
// (follower.statIn), without blocking if it was replaced by a named pipe
// since it was stat-ed.
func openKept(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
