//go:build !(linux || darwin || freebsd)

package main

import "os"

// maxRSSKiB is not available here; 0 means not measured.
func maxRSSKiB(*os.ProcessState) int64 { return 0 }
