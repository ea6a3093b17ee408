package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// pmcheck sets its own soft memory limit, unless GOMEMLIMIT gave one: the
// user's setting wins, "off" included. GOGC set: the fixed high limit.
// Neither: the tuner's, starting low, chosen again after each collection.
func TestSoftMemoryLimit(t *testing.T) {
	prev := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(prev)
	var hooked func()
	hook := func(f func()) { hooked = f }

	t.Setenv("GOMEMLIMIT", "")
	debug.SetMemoryLimit(1 << 40)
	setMemoryLimitWith(hook)
	if got := debug.SetMemoryLimit(-1); got != 1<<40 || hooked != nil {
		t.Errorf("GOMEMLIMIT set (even empty): limit %d, hooked %v; want the runtime's own %d and no tuner", got, hooked != nil, int64(1<<40))
	}

	// t.Setenv restores the variables after the test; unset them for this part.
	if err := os.Unsetenv("GOMEMLIMIT"); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GOGC", "200")
	setMemoryLimitWith(hook)
	if got := debug.SetMemoryLimit(-1); got != softMemoryLimit || hooked != nil {
		t.Errorf("GOGC set: limit %d, hooked %v; want %d and no tuner", got, hooked != nil, softMemoryLimit)
	}
	if err := os.Unsetenv("GOGC"); err != nil {
		t.Fatal(err)
	}
	setMemoryLimitWith(hook)
	if got := debug.SetMemoryLimit(-1); got != smallLimit || hooked == nil {
		t.Fatalf("neither set: limit %d, hooked %v; want %d and the tuner", got, hooked != nil, smallLimit)
	}
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	hooked() // this test's heap is small: the low limit stays, with the reserve on top
	if got := debug.SetMemoryLimit(-1); got != smallLimit+reserveSize {
		t.Errorf("after a collection of a small heap: limit %d, want %d (the small limit and the reserve)", got, smallLimit+reserveSize)
	}

	if softMemoryLimit >= 512<<20 || softMemoryLimit < 256<<20 {
		t.Errorf("soft limit %d MiB: it must leave room under the 512 MiB peak and stay well above ordinary heaps", softMemoryLimit>>20)
	}
	if smallLimit >= 64<<20 || smallLimit-smallLive < 8<<20 {
		t.Errorf("small limit %d MiB over %d MiB live: it must hold a process under 64 MiB and leave the live heap room", smallLimit>>20, smallLive>>20)
	}
}

// The tuner keeps the low limit while the live heap is small; it goes back
// to the high one when the live heap passes smallLive (and again down when
// it falls back), and for good once the collections the low limit made
// beyond GOGC's pace pass maxExtraGCs. Forced collections are not counted,
// nor cycles the limit did not shorten.
func TestTunerLimit(t *testing.T) {
	const mib = 1 << 20
	type step struct {
		live, forced, goal uint64 // goal: the runtime's heap goal once the limit is set
		want               int64
	}
	run := func(name string, steps []step) *tuner {
		t.Helper()
		var tu tuner
		var forced uint64
		for i, s := range steps {
			forced += s.forced
			if got := tu.after(gcSample{live: s.live, forced: forced}); got != s.want {
				t.Errorf("%s, step %d (live %d MiB): limit %d MiB, want %d MiB (%.2f extra collections)", name, i, s.live/mib, got/mib, s.want/mib, tu.extra)
			}
			tu.planned(s.live, s.goal)
		}
		return &tu
	}
	// GOGC's room: the heap grows by the live heap, to at least 4 MiB.
	tu := run("small heaps", []step{
		{0, 0, 4 * mib, smallLimit},
		{1 * mib, 0, 4 * mib, smallLimit},
		{3 * mib, 0, 6 * mib, smallLimit},
		{20 * mib, 0, 40 * mib, smallLimit},
		{20 * mib, 0, 42 * mib, smallLimit},
	})
	if tu.extra != 0 {
		t.Errorf("small heaps: %.2f extra collections counted, want 0", tu.extra)
	}
	run("live heap passes smallLive and falls back", []step{
		{0, 0, 4 * mib, smallLimit},
		{smallLive + 1, 0, 2*smallLive + 2, softMemoryLimit},
		{200 * mib, 0, 400 * mib, softMemoryLimit},
		{10 * mib, 0, 20 * mib, smallLimit},
	})
	// Each cycle with a quarter of GOGC's room is three quarters of an
	// extra collection: the budget lasts maxExtraGCs*4/3 of them (the
	// first step only sets the limit).
	var steps []step
	n := maxExtraGCs*4/3 + 1
	for i := range n + 2 {
		want := int64(smallLimit)
		if i >= n {
			want = softMemoryLimit
		}
		steps = append(steps, step{36 * mib, 0, 45 * mib, want})
	}
	steps = append(steps, step{10 * mib, 0, 20 * mib, softMemoryLimit}) // lifted for good
	run("collections beyond the budget: lifted for good", steps)
	tu = run("forced collections are not counted", []step{
		{0, 0, 4 * mib, smallLimit},
		{36 * mib, 0, 45 * mib, smallLimit},
		{36 * mib, 1, 45 * mib, smallLimit},
		{36 * mib, 1, 45 * mib, smallLimit},
		{36 * mib, 0, 45 * mib, smallLimit},
	})
	if tu.extra != 0.75 {
		t.Errorf("forced collections: %.2f extra collections counted, want 0.75 (the one short cycle not forced)", tu.extra)
	}
}

// afterEachGC calls its function after collections, again and again.
func TestAfterEachGC(t *testing.T) {
	calls := make(chan struct{}, 16)
	afterEachGC(func() {
		select {
		case calls <- struct{}{}:
		default:
		}
	})
	for i := range 3 {
		runtime.GC()
		select {
		case <-calls:
		case <-time.After(10 * time.Second):
			t.Fatalf("no call after collection %d", i+1)
		}
	}
}

// The reserve adds to the heap the runtime sees, not to the memory the
// process holds: its pages are never touched.
func TestHeapReserveIsNotResident(t *testing.T) {
	if runtime.GOOS != "linux" || reserveSize == 0 {
		t.Skip("resident memory is read from /proc/self/statm")
	}
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	before := residentBytes(t)
	var r heapReserve
	r.pace(1<<20, smallLimit)
	runtime.GC()
	grew := int64(residentBytes(t)) - int64(before)
	if r.size() != reserveSize {
		t.Fatalf("reserve of %d bytes, want %d", r.size(), reserveSize)
	}
	if grew > 4<<20 {
		t.Errorf("taking a %d MiB reserve grew resident memory by %d KiB: its pages were touched", reserveSize>>20, grew>>10)
	}
	runtime.KeepAlive(&r)
}

// With the reserve, the collector's next goal is still GOGC=100's: the
// live heap plus as much again, at least 4 MiB, plus the reserve.
func TestHeapReserveKeepsGOGCPace(t *testing.T) {
	if reserveSize == 0 {
		t.Skip("no reserve on 32-bit builds")
	}
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	var r heapReserve
	hold := make([][]byte, 0, 12)
	for _, mib := range []int{0, 2, 12} {
		for len(hold) < mib {
			hold = append(hold, make([]byte, 1<<20))
		}
		for i := range 2 { // the first takes the reserve; the second marks it
			runtime.GC()
			live := r.real(readGC().live)
			r.pace(live, softMemoryLimit)
			if i == 0 {
				continue
			}
			want := live + max(live, 4<<20)
			got := r.real(heapGoal())
			if d := int64(got) - int64(want); d < -(1<<20) || d > 1<<20 {
				t.Errorf("%d MiB held: goal %.1f MiB without the reserve, want %.1f (live %.1f MiB + max(live, 4 MiB))", mib, mb(got), mb(want), mb(live))
			}
		}
	}
	runtime.KeepAlive(hold)
	runtime.KeepAlive(&r)
}

func TestPercentFor(t *testing.T) {
	for _, c := range []struct {
		marked, goal uint64
		want         int
	}{
		{100, 200, 100},
		{64 << 20, 68 << 20, 6},         // 6.25
		{94 << 20, 124 << 20, 32},       // 31.9: rounded to the nearest
		{100, 100, 1},                   // never 0 (which would collect back to back)
		{0, 4 << 20, 100*(4<<20) - 100}, // marked 0 counts as 1 byte
	} {
		if got := percentFor(c.marked, c.goal); got != c.want {
			t.Errorf("percentFor(%d, %d) = %d, want %d", c.marked, c.goal, got, c.want)
		}
	}
}

func mb(v uint64) float64 { return float64(v) / (1 << 20) }

// residentBytes is the process's resident memory (Linux).
func residentBytes(t *testing.T) uint64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		t.Fatal(err)
	}
	var size, resident uint64
	if _, err := fmt.Sscan(string(b), &size, &resident); err != nil {
		t.Fatal(err)
	}
	return resident * uint64(os.Getpagesize())
}

// The room is GOGC's up to the knee and grows by half past it, without a
// step at the knee.
func TestHeapRoom(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct{ live, want uint64 }{
		{0, 4 * mib},
		{3 * mib, 4 * mib},
		{20 * mib, 20 * mib},
		{roomKnee, roomKnee},
		{roomKnee + 2*mib, roomKnee + mib},
		{110 * mib, roomKnee + 23*mib},
		{300 * mib, roomKnee + 118*mib},
	} {
		if got := heapRoom(c.live); got != c.want {
			t.Errorf("heapRoom(%d MiB) = %.1f MiB, want %.1f", c.live/mib, mb(got), mb(c.want))
		}
	}
}

// TestWatchHasHalfTheHeapRoom: while a watch runs (longLived), the heap may
// grow past its live part by half of it (at least 4 MiB) rather than by
// GOGC's whole live heap; every other command keeps heapRoom.
func TestWatchHasHalfTheHeapRoom(t *testing.T) {
	const mib = 1 << 20
	if longLived.Load() {
		t.Skip("a watch runs in this process")
	}
	if got := roomFor(16 * mib); got != 16*mib {
		t.Fatalf("roomFor(16 MiB) = %d MiB outside a watch, want 16", got/mib)
	}
	longLived.Store(true)
	defer longLived.Store(false)
	for _, c := range []struct{ live, want uint64 }{{16 * mib, 8 * mib}, {2 * mib, 4 * mib}, {200 * mib, 100 * mib}} {
		if got := roomFor(c.live); got != c.want {
			t.Errorf("roomFor(%d MiB) in a watch = %d MiB, want %d", c.live/mib, got/mib, c.want/mib)
		}
	}
}
