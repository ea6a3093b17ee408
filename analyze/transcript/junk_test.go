package transcript

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/pmcheck/pmcheck/analyze/jsonl"
	"github.com/pmcheck/pmcheck/analyze/model"
)

const junkRow = `{"type":"user","sessionId":"s","uuid":"u","message":{"content":"hi"}}` + "\n"

// TestGiveUpOnJunk: with Options.GiveUp, the serial and the parallel reader
// stop at the same line, the first where jsonl.GiveUp holds, and return a
// *jsonl.GaveUpError with the counts up to it; a file whose junk never
// outnumbers its rows is read whole, as without the option.
func TestGiveUpOnJunk(t *testing.T) {
	junk := func(n int) string { return strings.Repeat("x\n", n) }
	rows := func(n int) string { return strings.Repeat(junkRow, n) }
	cases := []struct {
		name string
		data string
		want *jsonl.GaveUpError // nil: read whole
	}{
		{"rows then junk", rows(4) + junk(50000), &jsonl.GaveUpError{File: "f", Bad: jsonl.JunkMin, Good: 4, First: 5, Line: jsonl.JunkMin + 4}},
		{"junk alone", junk(30000), &jsonl.GaveUpError{File: "f", Bad: jsonl.JunkMin, Good: 0, First: 1, Line: jsonl.JunkMin}},
		// Junk catches up with the rows only after 15,001 junk lines.
		{"more rows first", rows(15000) + junk(20000), &jsonl.GaveUpError{File: "f", Bad: 15001, Good: 15000, First: 15001, Line: 30001}},
		// Blank lines are neither; NUL and over-cap lines are junk.
		{"blank and NUL", "\n\n" + strings.Repeat("{\"a\":\x00}\n\n", 12000), &jsonl.GaveUpError{File: "f", Bad: jsonl.JunkMin, Good: 0, First: 3, Line: 2 + 2*jsonl.JunkMin - 1}},
		{"never more junk than rows", rows(12000) + junk(11000) + rows(100), nil},
		{"junk below the minimum", rows(1) + junk(jsonl.JunkMin-1), nil},
	}
	for _, c := range cases {
		data := []byte(c.data)
		want, wantErr := Read(bytes.NewReader(data), "f", Options{GiveUp: true})
		var gaveUp *jsonl.GaveUpError
		if c.want == nil {
			whole, _ := Read(bytes.NewReader(data), "f", Options{})
			if wantErr != nil || !reflect.DeepEqual(want, whole) {
				t.Errorf("%s: read with GiveUp (error %v) differs from the whole read", c.name, wantErr)
			}
		} else if !errors.As(wantErr, &gaveUp) || *gaveUp != *c.want || want != nil {
			t.Errorf("%s: got %+v (error %v), want %+v", c.name, want, wantErr, c.want)
		}
		for _, workers := range []int{1, 2, 3} {
			for _, size := range []int{64, 700, chunkBytes} {
				got, err := readParallel(bytes.NewReader(data), "f", Options{GiveUp: true}, workers, size)
				if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(err, wantErr) {
					t.Fatalf("%s: workers %d, chunk %d: parallel %v, serial %v", c.name, workers, size, err, wantErr)
				}
			}
		}
	}
}

// TestJunkReasonsOnlyForKeptLines: the reasons of the kept malformed lines
// are worked out as before; the lines after them are only counted.
func TestJunkReasonsOnlyForKeptLines(t *testing.T) {
	data := junkRow + strings.Repeat("[1]\n", 3) + strings.Repeat("x\n", 20) + "[2]"
	tr, err := Read(strings.NewReader(data), "f", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if tr.MalformedCount != 24 || tr.MalformedSkipped != 24 || len(tr.Malformed) != model.MalformedExamples {
		t.Fatalf("counted %d, skipped %d, kept %d", tr.MalformedCount, tr.MalformedSkipped, len(tr.Malformed))
	}
	for i, m := range tr.Malformed {
		want := "not JSON"
		if i < 3 {
			want = "not a JSON object"
		}
		if m.Reason != want || m.Line != i+2 {
			t.Errorf("kept line %d: %+v, want line %d %q", i, m, i+2, want)
		}
	}
}

// BenchmarkReadJunkLines: the cost of one junk line ("x") after a row, read
// whole (as replay does) and with GiveUp (as check does), per junk line.
func BenchmarkReadJunkLines(b *testing.B) {
	data := []byte(junkRow + strings.Repeat("x\n", 1<<20))
	for _, giveUp := range []bool{false, true} {
		name := "whole"
		if giveUp {
			name = "give-up"
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				Read(bytes.NewReader(data), "f", Options{GiveUp: giveUp})
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(1<<20), "ns/junk-line")
		})
	}
}
