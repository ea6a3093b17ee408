//go:build unix

package hook

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pmcheck/pmcheck/internal/incr"
)

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkPreToolUseFirstCall100MB: the first call on an unseen 100 MiB
// session, through the state (a full read that keeps its reading) and
// without it (a full read alone), alternately: the target is a ratio of at
// most 1 (ratio-p50, state over none; ratio-cpu-p50 the same of the
// process's CPU time, which the shared cores' load sways less).
func BenchmarkPreToolUseFirstCall100MB(b *testing.B) {
	p := sessionOf(b, 100<<20)
	cache := os.Getenv(incr.CacheDirEnv)
	call := func() Result { return PreToolUse(bashInput(p, "git push origin HEAD:main"), Config{}) }
	var with, without, withCPU, withoutCPU []time.Duration
	b.ResetTimer()
	timed := func(state bool) (Result, time.Duration, time.Duration) {
		b.StopTimer()
		os.RemoveAll(filepath.Join(cache, "hook")) // unseen
		os.RemoveAll(filepath.Join(cache, readersKind))
		memoOff = !state
		b.StartTimer()
		t0, c0 := time.Now(), cpuTime()
		r := call()
		d, c := time.Since(t0), cpuTime()-c0
		memoOff = false
		if !strings.Contains(string(r.Stdout), `"ask"`) {
			b.Fatalf("unexpected result: %s", r.Stdout)
		}
		return r, d, c
	}
	for i := 0; i < b.N; i++ {
		// Alternately first, so that neither pays for the other's garbage.
		for k := 0; k < 2; k++ {
			state := (i+k)%2 == 0
			_, d, c := timed(state)
			if state {
				with, withCPU = append(with, d), append(withCPU, c)
			} else {
				without, withoutCPU = append(without, d), append(withoutCPU, c)
			}
		}
	}
	b.StopTimer()
	b.ReportMetric(quantile(with, 0.5), "state-p50-ms")
	b.ReportMetric(quantile(without, 0.5), "none-p50-ms")
	b.ReportMetric(quantile(with, 0.5)/quantile(without, 0.5), "ratio-p50")
	b.ReportMetric(quantile(withCPU, 0.5)/quantile(withoutCPU, 0.5), "ratio-cpu-p50")
}
