package hook

import (
	"os"
	"path/filepath"
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
