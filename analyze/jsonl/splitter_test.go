package jsonl

import (
	"bytes"
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
		want := readAll(t, NewReader(strings.NewReader(in), lineCap))
		for try := range 40 {
			for _, copyLines := range []bool{false, true} {
				s := Splitter{Cap: lineCap, CopyLines: copyLines}
				piece := func(rest int) int { return 1 + rng.IntN(rest) }
				if try == 0 {
					piece = func(rest int) int { return rest }
				}
				got := splitInPieces(&s, in, piece)
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

// splitInPieces writes in to s in pieces of piece(bytes left) bytes and
// returns every line it hands over, the torn last one included, each
// copied (a line is only valid while it is handed over).
func splitInPieces(s *Splitter, in string, piece func(rest int) int) []Line {
	var got []Line
	keep := func(l Line) {
		l.Data = bytes.Clone(l.Data)
		got = append(got, l)
	}
	for rest := in; len(rest) > 0; {
		n := piece(len(rest))
		s.Write([]byte(rest[:n]), keep)
		rest = rest[n:]
	}
	if l, ok := s.Torn(); ok {
		keep(l)
	}
	return got
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
		want := readAll(t, NewReader(strings.NewReader(in), lineCap))
		rng := rand.New(rand.NewPCG(seed, seed>>7))
		s := Splitter{Cap: lineCap, CopyLines: seed%2 == 0}
		got := splitInPieces(&s, in, func(rest int) int { return 1 + rng.IntN(rest) })
		if !sameLines(got, want) {
			t.Fatalf("%q: the splitter gave\n%+v\na Reader gives\n%+v", in, got, want)
		}
	})
}
