//go:build linux || darwin || freebsd

package main

import (
	"os"
	"runtime"
	"syscall"
)

// maxRSSKiB is the child's peak resident set size in KiB (Linux reports
// KiB, macOS bytes).
func maxRSSKiB(st *os.ProcessState) int64 {
	ru, ok := st.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	if runtime.GOOS == "darwin" {
		return int64(ru.Maxrss) / 1024
	}
	return int64(ru.Maxrss)
}
