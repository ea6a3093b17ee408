//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/pmcheck/pmcheck/analyze"
	"github.com/pmcheck/pmcheck/bench/corpus"
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
// watch (less the writing of the rows, measured alone) over the CPU time of
// one replay of the finished run: watch-cpu/replay with the readers kept
// between polls, reload-cpu/replay loading the run afresh at each poll.
//
//	go test ./cmd/pmcheck -run '^$' -bench WatchRowByRow -benchtime 1x
func BenchmarkWatchRowByRow(b *testing.B) {
	span := 6 * time.Hour
	if d, err := time.ParseDuration(os.Getenv("PMCHECK_WATCH_SPAN")); err == nil {
		span = d
	}
	src := b.TempDir()
	if err := corpus.WriteWorkflow(src, span, envInt("PMCHECK_WATCH_AGENTS", 8), envInt("PMCHECK_WATCH_ROWS", 400)); err != nil {
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
		// One replay of the finished run: the least of three (it is short,
		// so the machine's noise is a large part of one measurement).
		replay := time.Duration(1 << 62)
		for k := 0; k < 3; k++ {
			c0 := cpuTime()
			run, err := analyze.LoadWorkflowRun(runDir)
			if err != nil {
				b.Fatal(err)
			}
			analyze.ReplayWorkflow(run, analyze.ReplayConfig{})
			replay = min(replay, cpuTime()-c0)
		}

		// The writing alone: every row appended at its instant.
		c0 := cpuTime()
		clk := &scriptedClock{t: b, now: rec.start, dst: b.TempDir(), rec: rec}
		clk.now = rec.writes[len(rec.writes)-1].at
		clk.flush()
		writing := cpuTime() - c0

		watchCPU := func(full bool) time.Duration {
			dst := b.TempDir()
			clk := &scriptedClock{t: b, now: rec.start, dst: dst, rec: rec}
			clk.flush()
			cmd := &WatchCmd{Run_: filepath.Join(dst, rec.runDir), WatchTiming: WatchTiming{Interval: Seconds(5 * time.Second), QuietAfter: Seconds(300 * time.Second),
				DoneGrace: Seconds(30 * time.Second), MaxHours: 7}, clock: clk, fullReload: full}
			var out, errs discard
			c0 := cpuTime()
			cmd.Run(&Env{Stdout: &out, Stderr: &errs})
			return cpuTime() - c0 - writing
		}
		w := watchCPU(false)
		b.ReportMetric(float64(size)/(1<<20), "MiB")
		b.ReportMetric(w.Seconds()/replay.Seconds(), "watch-cpu/replay")
		b.ReportMetric(replay.Seconds(), "replay-cpu-s")
		b.ReportMetric(w.Seconds(), "watch-cpu-s")
		if os.Getenv("PMCHECK_WATCH_RELOAD") != "" {
			r := watchCPU(true)
			b.ReportMetric(r.Seconds()/replay.Seconds(), "reload-cpu/replay")
		}
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
