package main

import (
	"os"
	"runtime/debug"
	"testing"
)

// pmcheck sets its own soft memory limit, unless GOMEMLIMIT gave one: the
// user's setting wins, "off" included.
func TestSoftMemoryLimit(t *testing.T) {
	prev := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(prev)

	t.Setenv("GOMEMLIMIT", "")
	debug.SetMemoryLimit(1 << 40)
	setMemoryLimit()
	if got := debug.SetMemoryLimit(-1); got != 1<<40 {
		t.Errorf("GOMEMLIMIT set (even empty): limit %d, want the runtime's own %d", got, int64(1<<40))
	}

	// t.Setenv restores GOMEMLIMIT after the test; unset it for this part.
	if err := os.Unsetenv("GOMEMLIMIT"); err != nil {
		t.Fatal(err)
	}
	setMemoryLimit()
	if got := debug.SetMemoryLimit(-1); got != softMemoryLimit {
		t.Errorf("GOMEMLIMIT unset: limit %d, want %d", got, softMemoryLimit)
	}
	if softMemoryLimit >= 512<<20 || softMemoryLimit < 256<<20 {
		t.Errorf("soft limit %d MiB: it must leave room under the 512 MiB peak and stay well above ordinary heaps", softMemoryLimit>>20)
	}
}
