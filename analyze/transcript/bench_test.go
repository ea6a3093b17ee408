package transcript

import (
	"fmt"
	"io"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// synthetic is an io.Reader that produces a transcript of about size bytes
// with the row mix of the real 2.1.3x files (most bytes are tool output and
// progress rows), without holding the file in memory.
type synthetic struct {
	size, written int64
	i             int
	pending       []byte
}

func (s *synthetic) Read(p []byte) (int, error) {
	if len(s.pending) == 0 {
		if s.written >= s.size {
			return 0, io.EOF
		}
		s.pending = []byte(s.row())
	}
	n := copy(p, s.pending)
	s.pending = s.pending[n:]
	s.written += int64(n)
	return n, nil
}

var bigOutput = strings.Repeat("log line with some output text, ", 200) // ~6.4 KB

func (s *synthetic) row() string {
	s.i++
	ts := time.Date(2026, 5, 6, 9, 0, 0, 0, time.UTC).Add(time.Duration(s.i) * 100 * time.Millisecond).Format("2006-01-02T15:04:05.000Z")
	id := fmt.Sprintf("toolu_%08d", s.i/4)
	// One call in four is Bash; the rest are reads and searches, as in the
	// real files.
	tool := [...]string{"Bash", "Read", "Grep", "Read"}[(s.i/4)%4]
	switch s.i % 4 {
	case 0:
		return `{"parentUuid":"p","isSidechain":false,"type":"assistant","uuid":"u","timestamp":"` + ts + `","sessionId":"s","message":{"id":"m","role":"assistant","model":"claude","content":[{"type":"tool_use","id":"` + id + `","name":"` + tool + `","input":{"command":"go test ./...","description":"run tests","file_path":"/r/a.go"}}],"usage":{"input_tokens":1}}}` + "\n"
	case 1:
		return `{"parentUuid":"p","isSidechain":false,"type":"user","uuid":"u","timestamp":"` + ts + `","sessionId":"s","message":{"role":"user","content":[{"tool_use_id":"` + id + `","type":"tool_result","content":"` + bigOutput + `"}]},"toolUseResult":{"stdout":"` + bigOutput + `","stderr":"","interrupted":false}}` + "\n"
	case 2:
		return `{"parentUuid":"p","isSidechain":false,"type":"progress","uuid":"u","timestamp":"` + ts + `","sessionId":"s","data":{"type":"bash_progress","output":"` + bigOutput + `"},"toolUseID":"x","parentToolUseID":"y"}` + "\n"
	default:
		return `{"parentUuid":"p","isSidechain":false,"type":"assistant","uuid":"u","timestamp":"` + ts + `","sessionId":"s","message":{"id":"m","role":"assistant","model":"claude","content":[{"type":"text","text":"Looking at the output, the tests pass."}]}}` + "\n"
	}
}

// peakHeap samples live heap bytes while fn runs and returns the maximum.
func peakHeap(fn func()) uint64 {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak atomic.Uint64
	done := make(chan struct{})
	go func() {
		for {
			metrics.Read(sample)
			if v := sample[0].Value.Uint64(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-done:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	fn()
	close(done)
	return peak.Load()
}

// BenchmarkReadStreaming reads synthetic transcripts of growing size and
// reports throughput and the peak live heap. No row is kept, so the heap
// holds only the facts: a few hundred bytes per retained tool call (Bash,
// writes, spawns), about 60 bytes per row otherwise. On the 8x larger input
// the peak grows by that, not by the bytes read (measured: 32 MB -> 256 MB
// input, see docs/performance.md):
//
//	go test ./analyze/transcript -run '^$' -bench ReadStreaming -benchtime 1x
func BenchmarkReadStreaming(b *testing.B) {
	for _, mb := range []int64{32, 256} {
		b.Run(fmt.Sprintf("size=%dMB", mb), func(b *testing.B) {
			size := mb << 20
			b.SetBytes(size)
			var peak uint64
			for b.Loop() {
				p := peakHeap(func() {
					if _, err := Read(&synthetic{size: size}, "big.jsonl", Options{}); err != nil {
						b.Fatal(err)
					}
				})
				peak = max(peak, p)
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
		})
	}
}
