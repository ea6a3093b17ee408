//go:build unix

package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pmcheck/pmcheck/analyze"
	"github.com/pmcheck/pmcheck/fixtures/gen/fleet"
)

// cpuTime is this process's user + system time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// BenchmarkWatchRowByRow follows a generated Workflow run (bench/corpus,
// the wf6h shape: PMCHECK_WATCH_SPAN (default 6h), PMCHECK_WATCH_AGENTS
// agents (8) × PMCHECK_WATCH_ROWS rows (400)) written row by row on the
// scripted clock, polled every 5 s, and reports the CPU time of the whole
// watch (less the writing of the rows, measured where it happens, between
// polls) over the CPU time of one replay of the finished run:
// watch-cpu/replay with the readers kept
// between polls, reload-cpu/replay loading the run afresh at each poll
// (PMCHECK_WATCH_RELOAD=1). Both sides are measured the same way,
// PMCHECK_WATCH_REPEAT times each (3), alternately: watch-cpu/replay is
// the least watch over the least replay, and median-cpu/replay the median
// over the median (the least of one side over a single run of the other
// would favour the side measured more often). PMCHECK_WATCH_DOGS=1 watches with --watchdogs;
// PMCHECK_WATCH_RSS=1 adds the peak RSS of check and of the watch, each
// measured in a process of its own.
//
//	go test ./cmd/pmcheck -run '^$' -bench WatchRowByRow -benchtime 1x
func BenchmarkWatchRowByRow(b *testing.B) {
	span := 6 * time.Hour
	if d, err := time.ParseDuration(os.Getenv("PMCHECK_WATCH_SPAN")); err == nil {
		span = d
	}
	src := b.TempDir()
	if err := fleet.WriteWorkflow(src, span, envInt("PMCHECK_WATCH_AGENTS", 8), envInt("PMCHECK_WATCH_ROWS", 400)); err != nil {
		b.Fatal(err)
	}
	runDir := filepath.Join(src, "60000000-0000-4000-8000-000000000006", "subagents", "workflows", "wf_bench0001")
	rec := record(b, runDir, false)
	var size int64
	filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err == nil && info.Mode().IsRegular() {
			size += info.Size()
		}
		return nil
	})
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		replayCPU := func() time.Duration {
			c0 := cpuTime()
			pprof.Do(context.Background(), pprof.Labels("phase", "replay"), func(context.Context) {
				run, err := analyze.LoadWorkflowRun(runDir)
				if err != nil {
					b.Fatal(err)
				}
				analyze.ReplayWorkflow(run, analyze.ReplayConfig{})
			})
			return cpuTime() - c0
		}

		var gc time.Duration // the collector's share of the last watchCPU
		var allocs uint64    // what the last watchCPU allocated
		watchCPU := func(full bool) time.Duration {
			dst := b.TempDir()
			// The writing of the rows is measured where it happens,
			// between two polls (Sleep), and taken off.
			clk := &scriptedClock{t: b, now: rec.start, dst: dst, rec: rec, cpu: cpuTime, settled: true}
			clk.flush()
			cmd := &WatchCmd{Run_: filepath.Join(dst, rec.runDir), WatchTiming: WatchTiming{Interval: Seconds(5 * time.Second), QuietAfter: Seconds(300 * time.Second),
				DoneGrace: Seconds(30 * time.Second), MaxHours: 7}, clock: clk, fullReload: full,
				Watchdogs: os.Getenv("PMCHECK_WATCH_DOGS") != ""}
			var out, errs discard
			g0, a0 := gcCPU(), heapAllocs()
			defer func() { gc, allocs = gcCPU()-g0, heapAllocs()-a0 }()
			c0 := cpuTime()
			// Labelled, so that a -cpuprofile of the benchmark can be
			// cut to the watch (pprof -tagfocus phase=watch).
			pprof.Do(context.Background(), pprof.Labels("phase", "watch"), func(context.Context) {
				cmd.Run(&Env{Stdout: &out, Stderr: &errs})
			})
			return cpuTime() - c0 - clk.wrote
		}
		var replays, watches []time.Duration
		for range envInt("PMCHECK_WATCH_REPEAT", 3) {
			replays = append(replays, replayCPU())
			watches = append(watches, watchCPU(false))
		}
		slices.Sort(replays)
		slices.Sort(watches)
		replay, w := replays[0], watches[0]
		b.ReportMetric(float64(size)/(1<<20), "MiB")
		b.ReportMetric(w.Seconds()/replay.Seconds(), "watch-cpu/replay")
		b.ReportMetric(median(watches).Seconds()/median(replays).Seconds(), "median-cpu/replay")
		b.ReportMetric(replay.Seconds(), "replay-cpu-s")
		b.ReportMetric(w.Seconds(), "watch-cpu-s")
		b.ReportMetric(watches[len(watches)-1].Seconds(), "watch-max-cpu-s")
		b.ReportMetric(gc.Seconds(), "watch-gc-cpu-s")
		b.ReportMetric(float64(allocs)/(1<<20), "watch-alloc-MiB")
		if os.Getenv("PMCHECK_WATCH_RELOAD") != "" {
			r := watchCPU(true)
			b.ReportMetric(r.Seconds()/replay.Seconds(), "reload-cpu/replay")
		}
		if os.Getenv("PMCHECK_WATCH_RSS") != "" {
			// Peak RSS, each in a process of its own (this one holds
			// the recording): check of the finished run, and the same
			// watch fed from a schedule streamed from the source files.
			sched := filepath.Join(b.TempDir(), "schedule")
			if err := writeSchedule(sched, rec); err != nil {
				b.Fatal(err)
			}
			check := childRSS(b, "check", src)
			watch := childRSS(b, "watch", sched, src, rec.runDir, strconv.FormatInt(rec.start.UnixNano(), 10))
			b.ReportMetric(float64(check)/1024, "check-rss-MiB")
			b.ReportMetric(float64(watch)/1024, "watch-rss-MiB")
		}
	}
}

// median is the middle of sorted durations (the upper one of an even count).
func median(d []time.Duration) time.Duration { return d[len(d)/2] }

// gcCPU is the CPU time the garbage collector took so far
// (runtime/metrics, an estimate the runtime keeps).
func gcCPU() time.Duration {
	s := []metrics.Sample{{Name: "/cpu/classes/gc/total:cpu-seconds"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindFloat64 {
		return 0
	}
	return time.Duration(s[0].Value.Float64() * float64(time.Second))
}

// heapAllocs is how many bytes the heap allocated so far.
func heapAllocs() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// writeSchedule writes the recording's writes as lines "instant offset
// length file", the bytes being at offset in the source file (each file's
// writes are its bytes in order), so that a watch can be fed without
// holding the run in memory.
func writeSchedule(path string, rec *recording) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	offsets := map[string]int64{}
	for _, wr := range rec.writes {
		if wr.truncate {
			return fmt.Errorf("a recording with truncations cannot be streamed")
		}
		fmt.Fprintf(w, "%d %d %d %s\n", wr.at.UnixNano(), offsets[wr.file], len(wr.data), wr.file)
		offsets[wr.file] += int64(len(wr.data))
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}

// childRSS runs TestWatchBenchChild in a process of its own with args and
// returns its peak RSS in KiB.
func childRSS(b *testing.B, args ...string) int64 {
	cmd := exec.Command(os.Args[0], "-test.run", "^TestWatchBenchChild$", "-test.count", "1")
	cmd.Env = append(os.Environ(), "PMCHECK_WATCH_CHILD="+strings.Join(args, "|"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		b.Fatalf("%v: %v\n%s", args, err, out)
	}
	b.Logf("%s: %s", args[0], regexp.MustCompile(`(?m)^(check|watch|memstats): .*$`).FindAll(out, -1))
	m := regexp.MustCompile(`maxrss (\d+)`).FindSubmatch(out)
	if m == nil {
		b.Fatalf("%v: no maxrss in\n%s", args, out)
	}
	n, _ := strconv.ParseInt(string(m[1]), 10, 64)
	return n
}

// TestWatchBenchChild is BenchmarkWatchRowByRow's measured process (only
// when PMCHECK_WATCH_CHILD is set): "check DIR", or "watch SCHEDULE SRC
// RUNDIR START" (a watch on the scripted clock, the writes read from the
// source files as they fall due). It prints its peak RSS.
func TestWatchBenchChild(t *testing.T) {
	spec := os.Getenv("PMCHECK_WATCH_CHILD")
	if spec == "" {
		t.Skip("BenchmarkWatchRowByRow's child process")
	}
	args := strings.Split(spec, "|")
	setMemoryLimit() // as main does for every command
	switch args[0] {
	case "check":
		var out, errs countingWriter
		code := Run([]string{"check", args[1]}, strings.NewReader(""), &out, &errs)
		fmt.Printf("check: exit %d, %d bytes out, %d bytes err\n", code, out.n, errs.n)
	case "watch":
		start, _ := strconv.ParseInt(args[4], 10, 64)
		sched, err := os.Open(args[1])
		if err != nil {
			t.Fatal(err)
		}
		defer sched.Close()
		dst := t.TempDir()
		clk := &streamedClock{t: t, now: time.Unix(0, start).UTC(), src: args[2], dst: dst, sched: bufio.NewScanner(sched)}
		clk.flush()
		cmd := &WatchCmd{Run_: filepath.Join(dst, args[3]), WatchTiming: WatchTiming{Interval: Seconds(5 * time.Second), QuietAfter: Seconds(300 * time.Second),
			DoneGrace: Seconds(30 * time.Second), MaxHours: 7}, clock: clk}
		var out, errs countingWriter
		err = cmd.Run(&Env{Stdout: &out, Stderr: &errs})
		fmt.Printf("watch: %v, %d bytes out, %d bytes err, %d polls\n", err, out.n, errs.n, clk.polls)
	}
	if p := os.Getenv("PMCHECK_WATCH_HEAPPROF"); p != "" {
		runtime.GC()
		f, _ := os.Create(p + "." + args[0])
		pprof.Lookup("heap").WriteTo(f, 0)
		f.Close()
	}
	// VmHWM, the peak of this process's own memory: getrusage's maxrss
	// keeps the peak of the process it was forked from (the benchmark,
	// holding the recording) across exec.
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`VmHWM:\s*(\d+) kB`).FindSubmatch(status)
	if m == nil {
		t.Fatalf("no VmHWM in /proc/self/status")
	}
	fmt.Printf("maxrss %s\n", m[1])
}

// streamedClock is scriptedClock fed from a schedule (writeSchedule).
type streamedClock struct {
	t        *testing.T
	now      time.Time
	src, dst string
	sched    *bufio.Scanner
	next     *scheduled
	buf      []byte
	polls    int
	profiled bool
}

// written is called at each poll after the last row was written: the
// first time, with PMCHECK_WATCH_HEAPPROF set, it writes the watch's heap
// profile (PROF.watch-live), the whole run in its readers and its model.
func (c *streamedClock) written() {
	p := os.Getenv("PMCHECK_WATCH_HEAPPROF")
	if p == "" || c.profiled {
		return
	}
	c.profiled = true
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Printf("memstats: heap inuse %d KiB, heap sys %d, released %d, stack %d, other sys %d, total sys %d, next gc %d, gcs %d\n",
		ms.HeapInuse>>10, ms.HeapSys>>10, ms.HeapReleased>>10, ms.StackSys>>10, (ms.Sys-ms.HeapSys-ms.StackSys)>>10, ms.Sys>>10, ms.NextGC>>10, ms.NumGC)
	runtime.GC()
	f, err := os.Create(p + ".watch-live")
	if err != nil {
		c.t.Fatal(err)
	}
	pprof.Lookup("heap").WriteTo(f, 0)
	f.Close()
}

type countingWriter struct{ n int }

func (w *countingWriter) Write(p []byte) (int, error) { w.n += len(p); return len(p), nil }

type scheduled struct {
	at           time.Time
	offset, size int64
	file         string
}

func (c *streamedClock) Now() time.Time { return c.now }

func (c *streamedClock) Sleep(d time.Duration) {
	c.polls++
	c.now = c.now.Add(d)
	c.flush()
}

func (c *streamedClock) flush() {
	for {
		if c.next == nil {
			if !c.sched.Scan() {
				c.written()
				return
			}
			var ns int64
			var s scheduled
			if _, err := fmt.Sscanf(c.sched.Text(), "%d %d %d %s", &ns, &s.offset, &s.size, &s.file); err != nil {
				c.t.Fatal(err)
			}
			s.at = time.Unix(0, ns).UTC()
			c.next = &s
		}
		if c.next.at.After(c.now) {
			return
		}
		s := c.next
		c.next = nil
		if int64(cap(c.buf)) < s.size {
			c.buf = make([]byte, s.size)
		}
		data := c.buf[:s.size]
		in, err := os.Open(filepath.Join(c.src, s.file))
		if err != nil {
			c.t.Fatal(err)
		}
		in.ReadAt(data, s.offset)
		in.Close()
		p := filepath.Join(c.dst, s.file)
		os.MkdirAll(filepath.Dir(p), 0o755)
		f, err := os.OpenFile(p, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			c.t.Fatal(err)
		}
		f.Write(data)
		f.Close()
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
