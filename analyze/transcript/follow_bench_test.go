package transcript

import (
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkFollowFirstRead: the first read of a 32 MiB transcript through
// Followers (Fill: decoded on every core) against ReadFile: the first poll
// of a watch, or the first look at an unseen file, must be no slower than
// a full read (ratio reported as first/full).
func BenchmarkFollowFirstRead(b *testing.B) {
	p := filepath.Join(b.TempDir(), "s.jsonl")
	f, err := os.Create(p)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := io.Copy(f, &synthetic{size: 32 << 20}); err != nil {
		b.Fatal(err)
	}
	f.Close()
	var full, first float64
	for i := 0; i < b.N; i++ {
		full += timeIt(func() {
			if _, err := ReadFile(p, p, Options{}); err != nil {
				b.Fatal(err)
			}
		})
		first += timeIt(func() {
			if _, err := ReadFile(p, p, Options{Follow: &Followers{}}); err != nil {
				b.Fatal(err)
			}
		})
	}
	b.ReportMetric(first/full, "first/full")
}

func timeIt(fn func()) float64 {
	t0 := time.Now()
	fn()
	return time.Since(t0).Seconds()
}
