package transcript

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/pmcheck/pmcheck/analyze/detect/ship"
	"github.com/pmcheck/pmcheck/fixtures/gen/fleet"
)

// benchTranscript is a generated 8 MB session transcript with the corpus's
// row mix (fixtures/gen/fleet), held in memory so the benchmarks time decoding,
// not the disk.
func benchTranscript(b *testing.B) []byte {
	b.Helper()
	dir := b.TempDir()
	s := fleet.Session{ID: "70000000-0000-4000-8000-000000000007", MainBytes: 8 << 20}
	if err := s.Write(dir, 7); err != nil {
		b.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, s.ID+".jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// BenchmarkDecodeRow compares the row decoders line by line:
//
//	go test ./analyze/transcript -run '^$' -bench DecodeRow
func BenchmarkDecodeRow(b *testing.B) {
	data := benchTranscript(b)
	lines := bytes.Split(bytes.TrimSpace(data), []byte("\n"))
	b.Run("decoder=fast", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		var a arena // reused line after line, as the reader does
		r := new(row)
		for b.Loop() {
			for _, l := range lines {
				*r = row{} // reused too: a row's message points into it
				if ok, _ := decodeRowArena(l, r, &a); !ok {
					b.Fatal("rejected a generated line")
				}
				a.reset(1 << 20)
			}
		}
	})
	b.Run("decoder=encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			for _, l := range lines {
				var r row
				if !decodeRowReference(l, &r) {
					b.Fatal("rejected a generated line")
				}
			}
		}
	})
}

// BenchmarkRead times the whole reader (line splitting, decoding, the
// builder) on the same transcript in memory.
func BenchmarkRead(b *testing.B) {
	data := benchTranscript(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Read(bytes.NewReader(data), "bench.jsonl", Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadClassifying is BenchmarkRead with the shell classifier and
// Inert the check gives the reader.
func BenchmarkReadClassifying(b *testing.B) {
	data := benchTranscript(b)
	sh := shipShell(nil)
	sh.Inert = ship.Inert
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Read(bytes.NewReader(data), "bench.jsonl", Options{Shell: sh}); err != nil {
			b.Fatal(err)
		}
	}
}
