package hook

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pmcheck/pmcheck/fixtures/gen/fleet"
	"github.com/pmcheck/pmcheck/internal/incr"
)

var (
	benchOnce sync.Once
	benchPath string
	benchErr  error
)

// largeTranscript is an 11 MiB session transcript from the benchmark corpus
// generator (the size of the parent transcript of the incident the resume
// gate was built for), ending in a killed subagent so that the gate asks.
func largeTranscript(b *testing.B) string {
	benchOnce.Do(func() {
		dir, err := os.MkdirTemp("", "pmcheck-hook-bench")
		if err != nil {
			benchErr = err
			return
		}
		s := fleet.Session{ID: "50000000-0000-4000-8000-0000000000b1", MainBytes: 11 << 20, RowGap: 3 * time.Second}
		if benchErr = s.Write(dir, 7); benchErr != nil {
			return
		}
		benchPath = filepath.Join(dir, s.ID+".jsonl")
		f, err := os.OpenFile(benchPath, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			benchErr = err
			return
		}
		f.WriteString(agentCall("toolu_bench", "Refactor billing") + "\n" + killedResult("toolu_bench") + "\n")
		benchErr = f.Close()
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchPath
}

// benchLatency runs one hook call per iteration and reports the median and
// the 99th percentile of the calls' wall time next to ns/op.
func benchLatency(b *testing.B, call func() Result, check func(Result) bool) {
	var ds []time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		r := call()
		ds = append(ds, time.Since(t0))
		if !check(r) {
			b.Fatalf("unexpected result: exit %d %s %s", r.Exit, r.Stdout, r.Stderr)
		}
	}
	b.StopTimer()
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	b.ReportMetric(float64(ds[len(ds)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(ds[min(len(ds)-1, len(ds)*99/100)].Microseconds())/1000, "p99-ms")
}

// BenchmarkPreToolUse11MB: a ship action on a session with an 11 MiB
// transcript (the full parse the gate runs on a transcript that changed
// since its last call; the memo is off).
func BenchmarkPreToolUse11MB(b *testing.B) {
	memoOff = true
	defer func() { memoOff = false }()
	p := largeTranscript(b)
	benchLatency(b, func() Result { return PreToolUse(bashInput(p, "git push origin HEAD:main"), Config{}) },
		func(r Result) bool { return r.Exit == 0 && strings.Contains(string(r.Stdout), `"ask"`) })
}

// BenchmarkPreToolUse11MBRemembered: the same call on the same, unchanged
// transcript, answered from the memo of the previous call.
func BenchmarkPreToolUse11MBRemembered(b *testing.B) {
	p := largeTranscript(b)
	PreToolUse(bashInput(p, "git push origin HEAD:main"), Config{}) // the memo
	benchLatency(b, func() Result { return PreToolUse(bashInput(p, "git push origin HEAD:main"), Config{}) },
		func(r Result) bool { return r.Exit == 0 && strings.Contains(string(r.Stdout), `"ask"`) })
}

// BenchmarkPreToolUseNotShip: a gated call that is not a ship action (`gh
// api` reading a pull request) never reads the transcript.
func BenchmarkPreToolUseNotShip(b *testing.B) {
	p := largeTranscript(b)
	benchLatency(b, func() Result { return PreToolUse(bashInput(p, "gh api repos/o/r/pulls/7"), Config{}) },
		func(r Result) bool { return r.Exit == 0 && len(r.Stdout) == 0 })
}

// BenchmarkSessionStart11MB: a resume of the same session (arms the gate).
func BenchmarkSessionStart11MB(b *testing.B) {
	memoOff = true
	defer func() { memoOff = false }()
	p := largeTranscript(b)
	benchLatency(b, func() Result { return SessionStart(resume(p), Config{}) },
		func(r Result) bool { return r.Exit == 0 && strings.Contains(string(r.Stdout), "Refactor billing") })
}

func TestMain(m *testing.M) {
	// The hooks remember scans in the user's cache directory: the tests'
	// go to one of their own.
	cache, err := os.MkdirTemp("", "pmcheck-hook-cache")
	if err != nil {
		panic(err)
	}
	os.Setenv(incr.CacheDirEnv, cache)
	code := m.Run()
	os.RemoveAll(cache)
	if benchPath != "" {
		os.RemoveAll(filepath.Dir(benchPath))
	}
	os.Exit(code)
}

// sessionOf writes a generated session of about size bytes, ending in a
// killed subagent so that the gate asks, and returns its transcript.
func sessionOf(b *testing.B, size int64) string {
	b.Helper()
	dir := b.TempDir()
	s := fleet.Session{ID: "50000000-0000-4000-8000-0000000000c1", MainBytes: size, RowGap: 3 * time.Second}
	if err := s.Write(dir, 7); err != nil {
		b.Fatal(err)
	}
	p := filepath.Join(dir, s.ID+".jsonl")
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	f.WriteString(agentCall("toolu_bench", "Refactor billing") + "\n" + killedResult("toolu_bench") + "\n")
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	return p
}

// appender appends one row (a shell command, the gated call's own row) to
// the session at p per call of its append, then times a gated push on it:
// the hook has seen the session before, so the call reads the appended row
// and carries its reading.
type appender struct {
	p  string
	f  *os.File
	n  int
	ds []time.Duration
}

func newAppender(b *testing.B, p string) *appender {
	b.Helper()
	a := &appender{p: p}
	if r := a.call(); !strings.Contains(string(r.Stdout), `"ask"`) {
		b.Fatalf("unexpected result: %s", r.Stdout)
	}
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { f.Close() })
	a.f = f
	return a
}

func (a *appender) call() Result {
	return PreToolUse(bashInput(a.p, "git push origin HEAD:main"), Config{})
}

// largeCopy is a copy of largeTranscript that a benchmark may append to
// (the other benchmarks read it unchanged).
func largeCopy(b *testing.B) string {
	src := largeTranscript(b)
	data, err := os.ReadFile(src)
	if err != nil {
		b.Fatal(err)
	}
	p := filepath.Join(b.TempDir(), filepath.Base(src))
	if err := os.WriteFile(p, data, 0o644); err != nil {
		b.Fatal(err)
	}
	return p
}

// next appends a shell row (untimed) and times the call.
func (a *appender) next(b *testing.B) {
	a.nextWith(b, func(n int) string { return bashCall(fmt.Sprintf("toolu_bench_sh%d", n), "git push origin HEAD:main") })
}

// nextWith appends the rows of the n-th call (untimed) and times the call.
func (a *appender) nextWith(b *testing.B, rows func(n int) string) {
	b.StopTimer()
	a.n++
	a.f.WriteString(rows(a.n) + "\n")
	b.StartTimer()
	t0 := time.Now()
	r := a.call()
	a.ds = append(a.ds, time.Since(t0))
	if !strings.Contains(string(r.Stdout), `"ask"`) {
		b.Fatalf("unexpected result: exit %d %s %s", r.Exit, r.Stdout, r.Stderr)
	}
}

// quantile is the q-quantile of ds in milliseconds (ds is sorted).
func quantile(ds []time.Duration, q float64) float64 {
	slices.Sort(ds)
	return float64(ds[min(len(ds)-1, int(float64(len(ds))*q))].Microseconds()) / 1000
}

// carriedEvery fails the benchmark unless each of n calls carried the
// reading (no full read since full0).
func carriedEvery(b *testing.B, full0, carried0 int64, n int) {
	if readings.Load() != full0 || carried.Load()-carried0 != int64(n) {
		b.Fatalf("%d full reads, %d carried for %d calls", readings.Load()-full0, carried.Load()-carried0, n)
	}
}

// BenchmarkPreToolUse11MBAppended: a gated push on the 11 MiB transcript
// after one row was appended since the hook's last call (a copy of it:
// the other benchmarks read it unchanged).
func BenchmarkPreToolUse11MBAppended(b *testing.B) {
	a := newAppender(b, largeCopy(b))
	full0, carried0 := readings.Load(), carried.Load()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		a.next(b)
	}
	b.StopTimer()
	carriedEvery(b, full0, carried0, b.N)
	b.ReportMetric(quantile(a.ds, 0.5), "p50-ms")
	b.ReportMetric(quantile(a.ds, 0.99), "p99-ms")
}

// BenchmarkPreToolUseAppendedFlat: the same call on a 1 MiB and a 100 MiB
// session, alternately, so that both see the same load: the target is a
// ratio of at most 1.5 (ratio-p50: the 100 MiB session's median over the
// 1 MiB one's).
func BenchmarkPreToolUseAppendedFlat(b *testing.B) {
	small, big := newAppender(b, sessionOf(b, 1<<20)), newAppender(b, sessionOf(b, 100<<20))
	full0, carried0 := readings.Load(), carried.Load()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		small.next(b)
		big.next(b)
	}
	b.StopTimer()
	carriedEvery(b, full0, carried0, 2*b.N)
	b.ReportMetric(quantile(small.ds, 0.5), "1MiB-p50-ms")
	b.ReportMetric(quantile(big.ds, 0.5), "100MiB-p50-ms")
	b.ReportMetric(quantile(big.ds, 0.99), "100MiB-p99-ms")
	b.ReportMetric(quantile(big.ds, 0.5)/quantile(small.ds, 0.5), "ratio-p50")
}

// BenchmarkPreToolUse11MBReadRowAppended: a gated push on the 11 MiB
// transcript after rows the gate reads were appended (an Agent call and
// its result: the reading cannot be carried over them), with the state
// on: each call decodes the appended rows alone, through the readers the
// call before kept, where it read the whole session before.
func BenchmarkPreToolUse11MBReadRowAppended(b *testing.B) {
	a := newAppender(b, largeCopy(b))
	full0 := readings.Load()
	freshFiles.Store(0)
	b.ReportAllocs()
	b.ResetTimer()
	agent := func(n int) string {
		id := fmt.Sprintf("toolu_bench_ag%d", n)
		return agentCall(id, "Check the docs") + "\n" + toolResult(id, "Done.")
	}
	for i := 0; i < b.N; i++ {
		a.nextWith(b, agent)
	}
	b.StopTimer()
	if readings.Load()-full0 != int64(b.N) || freshFiles.Load() != 0 {
		b.Fatalf("%d readings for %d calls, %d transcripts read from their start", readings.Load()-full0, b.N, freshFiles.Load())
	}
	b.ReportMetric(quantile(a.ds, 0.5), "p50-ms")
	b.ReportMetric(quantile(a.ds, 0.99), "p99-ms")
}
