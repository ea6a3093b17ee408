// Package allocs measures what code allocates, for the tests that bound
// how cost grows by allocations rather than by time.
package allocs

import (
	"runtime"
	"runtime/debug"
)

// Measure returns the bytes and the number of heap allocations f makes.
func Measure(f func()) (bytes, mallocs uint64) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc, after.Mallocs - before.Mallocs
}

// LeastOf returns the fewest bytes one call of f allocated in n calls,
// each measured as Measure does (after a collection). A small bound is
// held to the least: the process's other goroutines (the runtime's, a
// test's that ended) allocate now and then, and a stray allocation of a
// few kilobytes counted once failed a bound of 4,500 bytes.
func LeastOf(n int, f func()) uint64 {
	least := uint64(1 << 62)
	for range n {
		b, _ := Measure(f)
		least = min(least, b)
	}
	return least
}

// LeastPerCall returns the fewest bytes one call of f allocated in three
// rounds of n calls. The collector is off during a round and f runs once
// before it: a collection empties the sync.Pools f draws from, and their
// refilling would be counted as f's cost (the least of the rounds also
// drops a stray allocation of another goroutine).
func LeastPerCall(n int, f func()) uint64 {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	least := uint64(1 << 62)
	for range 3 {
		runtime.GC()
		f()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range n {
			f()
		}
		runtime.ReadMemStats(&after)
		least = min(least, (after.TotalAlloc-before.TotalAlloc)/uint64(n))
	}
	return least
}

// SkipUnderRace skips an allocation-bound test under the race detector,
// whose instrumentation allocates: the bound holds only without it.
func SkipUnderRace(t interface{ Skip(args ...any) }) {
	if RaceEnabled {
		t.Skip("allocation bounds hold only without the race detector")
	}
}
