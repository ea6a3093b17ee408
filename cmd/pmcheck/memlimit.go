package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync/atomic"
)

// softMemoryLimit is the heap size past which the garbage collector runs
// more often than its default pace (GOGC=100 lets the heap reach twice what
// is live before it collects). pmcheck's promise is peak RSS under 512 MiB
// for inputs up to 100 MB; an input whose live data nears 300 MB (a journal
// of 200,000 attempts that never returned: a fact and a finding each) would
// otherwise peak near 600 MiB. Runs whose heap stays below the limit, every
// ordinary one, are not affected; a limit near their live heap would make the
// collector run back to back, which is why it is set this high.
const softMemoryLimit = 448 << 20

// A run whose live heap is small is held to a lower limit, smallLimit,
// while what the last collection found live leaves it headroom. GOGC=100
// lets the heap reach twice the live heap, so a 1 GiB transcript (a model
// of about 24 MiB, 30-37 MiB live while it is read and analysed) peaked
// near 100 MiB of RSS; under smallLimit it stays near 60. The limit counts
// all of the runtime's memory, about 10 MiB more than the heap here.
//   - Live heap up to about 20 MiB (every small run, a fleet of ten
//     thousand sessions): twice the live heap is under smallLimit, so the
//     limit never triggers a collection and nothing changes.
//   - Live heap above that, up to smallLive: the collector runs when the
//     runtime's memory reaches smallLimit, more often than GOGC would, for
//     a budget of maxExtraGCs collections more than GOGC's; then the limit
//     is lifted for good.
//   - Live heap past smallLive (a large fleet, a hostile input): the limit
//     goes back to softMemoryLimit after that collection, and the pace is
//     GOGC's again. A fixed low limit would keep the collector running back
//     to back there.
//
// The limit is chosen again after every collection (afterEachGC).
const (
	smallLimit = 52 << 20
	smallLive  = 40 << 20
)

// tuner chooses the limit after each collection.
type tuner struct {
	small  bool // the limit set is smallLimit
	lifted bool // smallLimit cost its budget of collections: not set again
	// room is the share of GOGC's room (the heap it lets grow past the
	// live heap before it collects) that the heap goal left the cycle now
	// running: 1 when the limit does not bind.
	room float64
	// extra counts the collections run beyond GOGC's pace: a cycle with
	// room r comes after r of GOGC's allocation, so it is 1-r of an extra
	// collection.
	extra  float64
	forced uint64 // forced collections at the last call
}

// maxExtraGCs is the tuner's budget: when the lower limit has made this
// many collections more than GOGC would have, it is lifted for the rest of
// the run. A collection of a heap under smallLive costs about 10-20 ms of
// CPU here, so the limit costs at most a few tenths of a second: the 1 GiB
// transcript needs about 10, while a fleet whose live heap sits at 25-30
// MiB for the whole run (40,000 sessions) would run 190 more, 20 % of its
// CPU, without lowering its peak (which comes later, above smallLive).
const maxExtraGCs = 24

// gcSample is what the runtime says after a collection: the heap it
// marked live and the collections forced so far (runtime.GC, as after a
// fleet's load: they say nothing of the pace and are not counted).
type gcSample struct {
	live, forced uint64
}

// after is the limit to set after a collection.
func (t *tuner) after(s gcSample) int64 {
	if t.small && s.forced == t.forced {
		t.extra += 1 - t.room
		if t.extra > maxExtraGCs {
			t.lifted = true
		}
	}
	t.forced = s.forced
	t.small = !t.lifted && s.live <= smallLive
	if t.small {
		return smallLimit
	}
	return softMemoryLimit
}

// planned records the heap goal the runtime set for the next cycle, once
// the limit is set: the cycle's room against GOGC=100's, which lets the
// heap grow by the live heap (at least to a 4 MiB heap).
func (t *tuner) planned(live, goal uint64) {
	gogc := max(live, 4<<20-min(live, 4<<20))
	t.room = 1
	if goal < live+gogc {
		t.room = float64(goal-min(goal, live)) / float64(gogc)
	}
}

// setMemoryLimit sets the soft memory limit unless GOMEMLIMIT set one (the
// user's setting wins, including GOMEMLIMIT=off). The limit follows the
// live heap (tuner) unless GOGC set the collector's pace: then it is
// softMemoryLimit throughout.
func setMemoryLimit() { setMemoryLimitWith(afterEachGC) }

// setMemoryLimitWith is setMemoryLimit with the hook that calls the tuner
// after each collection.
func setMemoryLimitWith(after func(func())) {
	if _, set := os.LookupEnv("GOMEMLIMIT"); set {
		return
	}
	if _, set := os.LookupEnv("GOGC"); set {
		debug.SetMemoryLimit(softMemoryLimit)
		return
	}
	t := &tuner{}
	var r heapReserve
	tune := func(collected bool) {
		s := readGC()
		s.live = r.real(s.live)
		limit := t.after(s)
		if collected {
			r.pace(s.live, limit)
		}
		debug.SetMemoryLimit(limit + r.size())
		t.planned(s.live, r.real(heapGoal()))
	}
	tune(false)
	after(func() { tune(true) })
}

// heapReserve keeps the runtime's background scavenger from returning a
// busy heap's free pages to the OS. The scavenger runs while the heap holds
// more than 10 % over what was in use at the last collection; a check of
// many sessions keeps a quarter to a third of its heap free between
// collections, so it returned about 3 MiB a second in 64 KiB pieces, and
// each return (an madvise that unmaps pages) stops the other core to flush
// its TLB. A fleet of 1,000 sessions on two workers spent 8-12 % more CPU
// and 6-10 % more wall time with it (docs/performance.md, Page faults,
// TLB flushes and the heap reserve).
//
// The reserve is one pointer-free allocation of reserveSize that nothing
// reads or writes. The runtime counts it as heap in use (so the free share
// it sees stays under the scavenger's 10 %) and as live (so the collector
// finds nothing to free in it), but its pages are never touched: it is
// allocated as strings.Builder.Grow allocates, memory the runtime does not
// clear (make clears an allocation whose pages were in part used before:
// one profiled run in five spent half its time writing a 64 MiB reserve),
// so RSS does not grow. After each collection the percent is set so the
// heap may grow by heapRoom of its real live part: GOGC=100's room for
// every ordinary run (half of it for watch: roomFor).
//
// It is taken after the first collection, where the scavenger would start:
// a run that never collects (a hook, a small check) never has one.
type heapReserve struct {
	mem strings.Builder // Grow only: never written
}

// reserveSize is the reserve: 32 MiB covers a free share of 3 MiB over 5
// MiB in use (a fleet of 1,000 sessions: the share must stay under 10 % of
// in use plus reserve) and still fits beside a small heap in the runtime's
// first 64 MiB arena (a larger one, taken at start, cost a new arena's
// metadata: 160 page faults). On 32-bit builds, whose address space is
// scarce, there is none.
const reserveSize = (32 << 20) * (strconv.IntSize / 64)

// size is what the reserve adds to the runtime's memory.
func (r *heapReserve) size() int64 { return int64(r.mem.Cap()) }

// real is a heap figure from the runtime without the reserve.
func (r *heapReserve) real(v uint64) uint64 { return v - min(v, uint64(r.mem.Cap())) }

// pace takes the reserve after the first collection (under limit, the
// tuner's limit without it) and sets the collector's percent so that the
// next goal is live + roomFor(live) plus the reserve, which the runtime
// computes as marked * (1 + percent/100) with the reserve inside "marked".
//
// The percent is set before the reserve is taken, with the reserve
// already counted: the collection that just ended did not mark it, so
// the runtime starts one more at once (a small heap's, about a
// millisecond), which marks it. A percent that made the next goal count
// the reserve instead would be far too high for every later cycle if
// this hook missed one.
func (r *heapReserve) pace(live uint64, limit int64) {
	if reserveSize == 0 {
		return
	}
	debug.SetGCPercent(percentFor(live+reserveSize, live+roomFor(live)+reserveSize))
	if r.mem.Cap() == 0 {
		debug.SetMemoryLimit(limit + reserveSize)
		r.mem.Grow(reserveSize)
	}
}

// heapRoom is how far the heap may grow past its live part before the next
// collection: GOGC=100's room (the live heap, at least 4 MiB) while the live
// heap is at most roomKnee, and past it roomKnee plus half of the excess. A
// fleet of 100,000 sessions holds about 110 MiB live while its sessions are
// indexed; at GOGC's pace its heap reached 220 MiB and the process 249-252
// MiB, against a promise of 256. With half the room past the knee it peaks
// at 222 MiB, for the same time (one run each: 22.9 s against 23.7 s of
// wall, 41.9 s against 43.0 s of CPU); a knee at 32 MiB gave 203 MiB for 13 %
// more CPU. Runs whose live heap stays under the knee, every ordinary one,
// keep GOGC's pace.
func heapRoom(live uint64) uint64 {
	if live <= roomKnee {
		return max(live, 4<<20)
	}
	return roomKnee + (live-roomKnee)/2
}

// roomFor is heapRoom, or a long-lived command's (longLived): half the
// live heap, at least 4 MiB.
func roomFor(live uint64) uint64 {
	if longLived.Load() {
		return max(live/2, 4<<20)
	}
	return heapRoom(live)
}

// longLived says the command follows files for hours (watch): its live heap
// is its readers and the model of the rows read so far, which grow by a
// poll's rows at a time, and most of what a poll allocates is garbage by
// the next. GOGC's room, the live heap again, made its peak twice its
// model (a six-hour run: 33 MiB of heap for 15 MiB live, 48 MiB of RSS
// against check's 42); half of it keeps the peak at one and a half times,
// for a collection every few hundred polls more (docs/performance.md,
// Live).
var longLived atomic.Bool

// roomKnee is the live heap past which heapRoom gives half the room.
const roomKnee = 64 << 20

// percentFor is the GOGC percent that makes marked bytes grow to goal,
// rounded to the nearest (an error of at most half a percent of marked:
// 0.2 MiB with the reserve and a small heap).
func percentFor(marked, goal uint64) int {
	if marked == 0 {
		marked = 1
	}
	return max(1, int((100*(goal-marked)+marked/2)/marked))
}

// readGC reads a gcSample from the runtime's metrics.
func readGC() gcSample {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/gc/cycles/forced:gc-cycles"}}
	metrics.Read(s)
	for _, v := range s {
		if v.Value.Kind() != metrics.KindUint64 {
			return gcSample{live: softMemoryLimit} // unknown: the high limit
		}
	}
	return gcSample{live: s[0].Value.Uint64(), forced: s[1].Value.Uint64()}
}

// heapGoal is the heap size at which the runtime plans the next collection.
func heapGoal() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/goal:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 1 << 62 // unknown: no room lost
	}
	return s[0].Value.Uint64()
}

// gcMark is an object nothing refers to, so every collection finds it
// unreachable and runs its finalizer, which sets it again: a call after
// each collection, on the finalizer goroutine, at no cost between them.
// (It holds a pointer so that it is not a tiny allocation, whose
// finalizer could wait on its neighbours.)
type gcMark struct{ f func() }

func afterEachGC(f func()) {
	runtime.SetFinalizer(&gcMark{f: f}, onGC)
}

func onGC(m *gcMark) {
	m.f()
	runtime.SetFinalizer(m, onGC)
}
