package jsonl

import (
	"bytes"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
)

// A file handed to a Splitter in pieces of any size gives, line for line,
// what a Reader of the whole file gives, and its unterminated end is the
// Reader's torn last line: carriage returns, blank lines, lines at and
// just over the cap, a piece ending between "\r" and "\n".
func TestSplitterIsAReader(t *testing.T) {
	const lineCap = 16
	long := strings.Repeat("x", lineCap)
	inputs := []string{
		"", "\n", "a", "a\n", "a\r\n", "\r\n\r\n", "a\nb", "a\n\nb\n",
		long + "\n", long + "x\n", long + "\r\n", long + "xx\r\nshort\n" + long + "xyz",
		"{\"type\":\"user\"}\r\n{\"a\":1}\n" + long + long + "\nend",
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, in := range inputs {
		want := readerLines(t, in, lineCap)
		for try := range 40 {
			for _, copyLines := range []bool{false, true} {
				s := Splitter{Cap: lineCap, CopyLines: copyLines}
				var got []Line
				apply := func(l Line) {
					l.Data = bytes.Clone(l.Data)
					got = append(got, l)
				}
				for rest := in; len(rest) > 0; {
					n := 1 + rng.IntN(len(rest))
					if try == 0 {
						n = len(rest)
					}
					s.Write([]byte(rest[:n]), apply)
					rest = rest[n:]
				}
				if l, ok := s.Torn(); ok {
					l.Data = bytes.Clone(l.Data)
					got = append(got, l)
				}
				if !sameLines(got, want) {
					t.Fatalf("%q (copy %v): the splitter gave\n%+v\na Reader gives\n%+v", in, copyLines, got, want)
				}
				end := int64(strings.LastIndexByte(in, '\n') + 1)
				if s.Offset() != end || s.Size() != int64(len(in)) || s.Lines() != strings.Count(in, "\n") {
					t.Fatalf("%q: offset %d size %d lines %d, want %d %d %d", in, s.Offset(), s.Size(), s.Lines(), end, len(in), strings.Count(in, "\n"))
				}
			}
		}
	}
}

func readerLines(t *testing.T, in string, lineCap int64) []Line {
	t.Helper()
	r := NewReader(strings.NewReader(in), lineCap)
	var out []Line
	for {
		l, err := r.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		l.Data = bytes.Clone(l.Data)
		out = append(out, l)
	}
}

func sameLines(a, b []Line) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.N != y.N || !bytes.Equal(x.Data, y.Data) || x.Len != y.Len || x.OverCap != y.OverCap || x.Torn != y.Torn {
			return false
		}
	}
	return true
}

// Whatever the bytes and wherever the pieces end, a Splitter gives the
// lines a Reader of the whole input gives (a follower's reading of a file
// written in pieces is a full read's, line for line).
func FuzzSplitter(f *testing.F) {
	for _, s := range []string{"", "a\r\nb", "\n\n\r", "0123456789abcdefXY\r\n", "{\"a\":1}\n{\"b\"", "\r"} {
		f.Add(s, uint64(7))
	}
	f.Fuzz(func(t *testing.T, in string, seed uint64) {
		const lineCap = 16
		want := readerLines(t, in, lineCap)
		rng := rand.New(rand.NewPCG(seed, seed>>7))
		s := Splitter{Cap: lineCap, CopyLines: seed%2 == 0}
		var got []Line
		apply := func(l Line) {
			l.Data = bytes.Clone(l.Data)
			got = append(got, l)
		}
		for rest := in; len(rest) > 0; {
			n := 1 + rng.IntN(len(rest))
			s.Write([]byte(rest[:n]), apply)
			rest = rest[n:]
		}
		if l, ok := s.Torn(); ok {
			l.Data = bytes.Clone(l.Data)
			got = append(got, l)
		}
		if !sameLines(got, want) {
			t.Fatalf("%q: the splitter gave\n%+v\na Reader gives\n%+v", in, got, want)
		}
	})
}
