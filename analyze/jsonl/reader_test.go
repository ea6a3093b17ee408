package jsonl

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func readAll(t *testing.T, r *Reader) []Line {
	t.Helper()
	var out []Line
	for {
		l, err := r.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		l.Data = append([]byte(nil), l.Data...)
		out = append(out, l)
	}
}

func TestLinesNumbersAndTornTail(t *testing.T) {
	in := "a\n\nbc\r\ndef"
	got := readAll(t, NewReader(strings.NewReader(in), 0))
	want := []string{"a", "", "bc", "def"}
	if len(got) != len(want) {
		t.Fatalf("got %d lines, want %d", len(got), len(want))
	}
	for i, l := range got {
		if string(l.Data) != want[i] || l.N != i+1 {
			t.Errorf("line %d: got %q (N=%d), want %q", i+1, l.Data, l.N, want[i])
		}
	}
	if !got[3].Torn || got[2].Torn {
		t.Errorf("only the last line is torn: %+v", got)
	}
}

func TestEmptyInput(t *testing.T) {
	if got := readAll(t, NewReader(strings.NewReader(""), 0)); len(got) != 0 {
		t.Fatalf("got %d lines from empty input", len(got))
	}
	got := readAll(t, NewReader(strings.NewReader("x\n"), 0))
	if len(got) != 1 || got[0].Torn {
		t.Fatalf("a file ending in a newline has no torn line: %+v", got)
	}
}

// TestOverCapLineIsSkippedAndReaderResyncs: the line after an over-cap line is
// read intact, and the over-cap line is reported once with its length.
func TestOverCapLineIsSkippedAndReaderResyncs(t *testing.T) {
	long := strings.Repeat("x", 100)
	in := "short\n" + long + "\nafter\n" + long
	got := readAll(t, NewReader(strings.NewReader(in), 50))
	if len(got) != 4 {
		t.Fatalf("got %d lines, want 4", len(got))
	}
	if string(got[0].Data) != "short" || string(got[2].Data) != "after" {
		t.Errorf("lines around the long one are wrong: %q %q", got[0].Data, got[2].Data)
	}
	for _, i := range []int{1, 3} {
		if !got[i].OverCap || got[i].Data != nil || got[i].Len != 100 || got[i].N != i+1 {
			t.Errorf("line %d: want over-cap of length 100, got %+v", i+1, got[i])
		}
	}
}

// TestLongLinesAcrossBufferFills checks lines much longer than the internal
// buffer, read through a reader that returns one byte at a time.
func TestLongLinesAcrossBufferFills(t *testing.T) {
	long := strings.Repeat("0123456789", 100000) // 1 MB, over the 256 KiB buffer
	in := long + "\nz\n"
	got := readAll(t, NewReader(iotest.OneByteReader(strings.NewReader(in)), 2<<20))
	if len(got) != 2 || string(got[0].Data) != long || string(got[1].Data) != "z" {
		t.Fatalf("long line not reassembled: %d lines", len(got))
	}
}

// TestCapIsExact: a line of exactly cap bytes is kept, cap+1 is skipped.
func TestCapIsExact(t *testing.T) {
	in := strings.Repeat("a", 32) + "\n" + strings.Repeat("b", 33) + "\n"
	got := readAll(t, NewReader(strings.NewReader(in), 32))
	if got[0].OverCap || !got[1].OverCap {
		t.Fatalf("cap boundary wrong: %+v", got)
	}
}

func TestIOErrorIsReturned(t *testing.T) {
	r := NewReader(iotest.ErrReader(io.ErrUnexpectedEOF), 0)
	if _, err := r.Next(); err != io.ErrUnexpectedEOF {
		t.Fatalf("got %v, want the reader's error", err)
	}
}

// BenchmarkReader measures the framing cost alone on 64 MB of typical rows.
func BenchmarkReader(b *testing.B) {
	row := `{"type":"user","message":{"role":"user","content":"` + strings.Repeat("x", 2000) + `"}}` + "\n"
	data := bytes.Repeat([]byte(row), 32<<20/len(row))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		r := NewReader(bytes.NewReader(data), 0)
		for {
			if _, err := r.Next(); err != nil {
				break
			}
		}
	}
}
