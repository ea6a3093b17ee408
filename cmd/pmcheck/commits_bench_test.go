//go:build unix

package main

import (
	"fmt"
	"strings"
	"syscall"
	"testing"

	"github.com/pmcheck/pmcheck/internal/entiretest"
)

// BenchmarkCommitRange checks a pull request of n commits, each naming its
// own checkpoint on an entire/checkpoints/v1 branch of n checkpoints (one
// session of 20 Bash calls each). It reports the time per 1,000
// checkpoints and the process's peak RSS (run one size at a time, e.g.
// -bench 'CommitRange/4000' -benchtime 1x: the peak is the process's).
func BenchmarkCommitRange(b *testing.B) {
	for _, n := range []int{1000, 4000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			r := entiretest.New(b)
			base := r.Generate(n, 20)
			b.ResetTimer()
			for b.Loop() {
				code, out, errs := runIn(b, r.Dir, "check", "--no-config", "--commits", base+"..feat")
				if code != 0 || !strings.Contains(out, fmt.Sprintf("%d commits: %d traced to %d runs", n, n, n)) {
					b.Fatalf("exit %d\n%s\n%s", code, lastLines(out), errs)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N)/float64(n)*1000, "ms/1000checkpoints")
			var ru syscall.Rusage
			if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
				b.ReportMetric(float64(ru.Maxrss)/1024, "peak-RSS-MB")
			}
		})
	}
}

func lastLines(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > 5 {
		lines = lines[len(lines)-5:]
	}
	return strings.Join(lines, "\n")
}
