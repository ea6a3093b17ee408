package jsonl

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/bits"

	"github.com/pmcheck/pmcheck/internal/swar"
)

// ArrayReader yields the elements of a JSON array one at a time, as Reader
// yields lines: the GitHub action's execution file is one pretty-printed
// array of messages, and a run's can reach a gigabyte, so it is never read
// whole. An element is found by its brackets (outside strings) and handed
// on with the line it starts on; whether it is valid JSON is the decoder's
// to say. An element over the cap is skipped as an over-long line is, with
// memory bounded by the cap.
//
// The array must be complete: a file that ends inside it (a job cancelled
// while the action was writing it) or holds anything but whitespace
// around it is an *ArrayError, never a shorter run.
type ArrayReader struct {
	// Decode, when set, decodes an object element where it lies in the
	// buffer: given the bytes from the element's first byte on, it reports
	// the element's length when they begin with a whole valid object. The
	// element is then returned with Line.Decoded set and is not scanned a
	// second time (the decoder validates every byte already, so the array
	// costs one pass, not two). Otherwise the element is found by its
	// brackets and handed on undecoded.
	Decode func(data []byte) (n int, ok bool)

	r   io.Reader
	cap int64
	buf []byte
	off int // next byte to scan in buf
	// dropped counts the input bytes before buf[0]: a byte order mark is
	// one only as the input's first bytes.
	dropped int64
	eof     bool
	err     error // a read error, returned once buf is used up

	line  int // line of buf[off]
	state arrayState
	n     int // elements returned

	// The element being read.
	start     int   // its first byte in buf (-1 while skipping an over-long one)
	startLine int   // the line it starts on
	total     int64 // its length so far, once it is being skipped
	depth     int
	inString  bool
	escape    bool
	scalar    bool // a string, number or literal at the top level
	decoding  bool // Decode is tried on it (until it fails at the end of the input or the cap)
}

type arrayState uint8

const (
	beforeArray arrayState = iota
	beforeFirst            // after '[': an element or ']'
	beforeElem             // after ',': an element
	inElem
	afterElem // an element ended: ',' or ']'
	afterArray
)

// ArrayError is an execution file that is not one complete JSON array.
type ArrayError struct {
	// Line is where the problem was found (1-based).
	Line int
	// Truncated is set when the file ends inside the array; NotArray when
	// the file holds something else (an object, text).
	Truncated bool
	NotArray  bool
	// Elements counts the complete elements before the problem.
	Elements int
	Msg      string
}

func (e *ArrayError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// errNeedMore asks Next for more input before a decision.
var errNeedMore = errors.New("need more input")

// arrayChunk is how much is read at a time.
const arrayChunk = 256 << 10

// NewArrayReader returns an ArrayReader with the given element cap
// (DefaultLineCap if cap <= 0).
func NewArrayReader(r io.Reader, cap int64) *ArrayReader {
	if cap <= 0 {
		cap = DefaultLineCap
	}
	return &ArrayReader{r: r, cap: cap, line: 1, start: -1, buf: make([]byte, 0, arrayChunk)}
}

// Count is the number of elements returned so far.
func (a *ArrayReader) Count() int { return a.n }

// Next returns the next element (Line.N is the line it starts on; Data is
// valid until the next call), io.EOF after the closing bracket, or an
// *ArrayError.
func (a *ArrayReader) Next() (Line, error) {
	for {
		if a.off == len(a.buf) {
			if err := a.fill(); err != nil {
				return Line{}, err
			}
			continue
		}
		switch a.state {
		case inElem:
			if l, ok := a.scanElem(); ok {
				return l, nil
			}
		case afterArray:
			if _, ok := a.skipSpace(); ok {
				return Line{}, a.fail("something follows the closing bracket of the array; an execution file is one JSON array")
			}
		default:
			c, ok := a.skipSpace()
			if !ok {
				continue
			}
			if err := a.punct(c); err == errNeedMore {
				if err := a.fill(); err != nil {
					return Line{}, err
				}
			} else if err != nil {
				return Line{}, err
			}
		}
	}
}

// skipSpace skips whitespace, counting lines, and returns the next byte;
// ok is false when the buffer is used up (a NUL byte is a byte like any
// other, not the end).
func (a *ArrayReader) skipSpace() (c byte, ok bool) {
	for a.off < len(a.buf) {
		switch c := a.buf[a.off]; c {
		case '\n':
			a.line++
			a.off++
		case ' ', '\t', '\r':
			a.off++
		default:
			return c, true
		}
	}
	return 0, false
}

// punct reads the byte c at a.off outside elements.
func (a *ArrayReader) punct(c byte) error {
	switch a.state {
	case beforeArray:
		if c == 0xef && a.dropped+int64(a.off) == 0 {
			if len(a.buf)-a.off < 3 && !a.eof {
				return errNeedMore
			}
			if bytes.HasPrefix(a.buf[a.off:], []byte("\xef\xbb\xbf")) {
				a.off += 3 // a byte order mark
				return nil
			}
		}
		if c != '[' {
			err := a.fail("not a JSON array (it starts with " + quoteByte(c) + "); an execution file is a JSON array of messages")
			if ae, ok := err.(*ArrayError); ok {
				ae.NotArray = true
			}
			return err
		}
		a.off++
		a.state = beforeFirst
	case beforeFirst, beforeElem:
		if c == ']' && a.state == beforeFirst {
			a.off++
			a.state = afterArray
			return nil
		}
		if c == ']' || c == ',' {
			return a.fail("expected an array element, found " + quoteByte(c))
		}
		a.state = inElem
		a.start, a.startLine, a.total = a.off, a.line, 0
		a.depth, a.inString, a.escape, a.scalar = 0, false, false, false
		a.decoding = a.Decode != nil && c == '{'
	case afterElem:
		switch c {
		case ',':
			a.state = beforeElem
		case ']':
			a.state = afterArray
		default:
			return a.fail("expected , or ] after an array element, found " + quoteByte(c))
		}
		a.off++
	}
	return nil
}

func quoteByte(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return fmt.Sprintf("%q", string(c))
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

func (a *ArrayReader) fail(msg string) error {
	a.err = &ArrayError{Line: a.line, Elements: a.n, Msg: msg}
	a.off, a.buf, a.eof = 0, a.buf[:0], true
	return a.err
}

// fill reads more input, keeping the element being read (from a.start).
func (a *ArrayReader) fill() error {
	if a.err != nil {
		return a.err
	}
	if a.eof {
		if a.state == inElem && a.decoding {
			// Decode failed with nothing more to read: the element is
			// found by its brackets instead (or is cut off).
			a.decoding = false
			a.off = a.start
			return nil
		}
		return a.atEOF()
	}
	keep := 0
	if a.state == inElem && a.start >= 0 {
		keep = a.start
	} else {
		keep = a.off
	}
	// Move what is kept to the front, and grow for a large element.
	n := copy(a.buf, a.buf[keep:])
	a.buf = a.buf[:n]
	a.dropped += int64(keep)
	a.off -= keep
	if a.start >= 0 {
		a.start -= keep
	}
	// An element Decode is retried on gets at least as much again to
	// read, and all of it is read before the next try: the tries of one
	// element cost at most twice its size, however the input is split.
	need := arrayChunk / 2
	retry := a.state == inElem && a.decoding
	if retry {
		need = max(need, len(a.buf))
	}
	if cap(a.buf)-len(a.buf) < need {
		grown := make([]byte, len(a.buf), max(2*cap(a.buf), len(a.buf)+need))
		copy(grown, a.buf)
		a.buf = grown
	}
	for {
		m, err := a.r.Read(a.buf[len(a.buf):cap(a.buf)])
		a.buf = a.buf[:len(a.buf)+m]
		switch {
		case err == io.EOF:
			a.eof = true
		case err != nil:
			a.err = err
			if m == 0 {
				return err
			}
		}
		if !retry || m == 0 || a.eof || a.err != nil || len(a.buf) == cap(a.buf) {
			break
		}
	}
	return nil
}

// atEOF is the end of the input with the buffer used up.
func (a *ArrayReader) atEOF() error {
	switch a.state {
	case afterArray:
		return io.EOF
	case beforeArray:
		a.err = &ArrayError{Line: a.line, Msg: "empty file; an execution file is a JSON array of messages"}
	case inElem:
		if a.scalar && !a.inString && a.depth == 0 {
			// A bare number or literal ends at EOF, as a broken array.
			break
		}
		a.err = &ArrayError{Line: a.startLine, Truncated: true, Elements: a.n,
			Msg: fmt.Sprintf("the file ends inside array element %d, which starts here: the array is unterminated (the writer stopped mid-write, e.g. a cancelled job)", a.n+1)}
		return a.err
	}
	if a.err == nil {
		a.err = &ArrayError{Line: a.line, Truncated: true, Elements: a.n,
			Msg: fmt.Sprintf("the file ends after %d array elements without the closing bracket: the array is unterminated (the writer stopped mid-write, e.g. a cancelled job)", a.n)}
	}
	return a.err
}

// scannedTo records that the element goes on past i, the end of the
// buffer, scanned from scanStart: over the cap, its bytes are dropped and
// only its length is counted from then on. It runs once per buffer an
// element spans. (The split that also moved the ending of an element out
// of scanElem, or kept either call from being inlined, made reading 8-25%
// slower in BenchmarkArrayReader: the scanning loop is sensitive to what
// surrounds it.)
func (a *ArrayReader) scannedTo(i, scanStart int) {
	if a.start >= 0 && int64(i-a.start) > a.cap {
		// Over the cap: its bytes are dropped, the scan goes on.
		a.total = int64(i - a.start)
		a.start = -1
	} else if a.start < 0 {
		a.total += int64(i - scanStart)
	}
	a.off = i
}

// scanElem scans the element from a.off; ok when it ended (the element is
// returned and a.off is past it).
func (a *ArrayReader) scanElem() (Line, bool) {
	if a.decoding {
		if n, ok := a.Decode(a.buf[a.start:]); ok {
			data := a.buf[a.start : a.start+n]
			a.line += bytes.Count(data, []byte{'\n'})
			a.off, a.start = a.start+n, -1
			a.state = afterElem
			a.n++
			return Line{N: a.startLine, Data: data, Len: int64(n), Decoded: true}, true
		}
		if !a.eof && int64(len(a.buf)-a.start) <= a.cap {
			a.off = len(a.buf) // perhaps cut off by the buffer: read more, decode again
			return Line{}, false
		}
		// Not a whole valid object: found by its brackets instead, for the
		// decoder to say what is wrong with it.
		a.decoding = false
		a.off = a.start
	}
	b := a.buf
	i := a.off
	scanStart := i
	if i == a.start {
		a.scalar = b[i] != '{' && b[i] != '['
	}
	end := -1
	for i < len(b) && end < 0 {
		if a.inString {
			if a.escape {
				// The escaped byte, whatever it is.
				a.escape = false
				i++
				continue
			}
			i = stringStop(b, i)
			if i == len(b) {
				break
			}
			c := b[i]
			i++
			switch c {
			case '\\':
				a.escape = true
			case '"':
				a.inString = false
				if a.depth == 0 {
					end = i
				}
			case '\n':
				a.line++ // not valid in a string; the decoder says so
			}
			continue
		}
		switch b[i] {
		case '"':
			a.inString = true
		case '{', '[':
			a.depth++
		case '}', ']':
			if a.depth == 0 {
				end = i // a scalar, ended by the array's bracket
				continue
			}
			a.depth--
			if a.depth == 0 {
				end = i + 1
				continue
			}
		case '\n':
			if a.scalar && a.depth == 0 {
				end = i
				continue
			}
			a.line++
		case ',', ' ', '\t', '\r':
			if a.scalar && a.depth == 0 {
				end = i
				continue
			}
		}
		i++
	}
	if end < 0 {
		a.scannedTo(i, scanStart)
		return Line{}, false
	}
	a.off = end
	a.state = afterElem
	a.n++
	if a.start < 0 {
		a.total += int64(end - scanStart)
		return Line{N: a.startLine, Len: a.total, OverCap: true}, true
	}
	data := b[a.start:end]
	a.start = -1
	if int64(len(data)) > a.cap {
		return Line{N: a.startLine, Len: int64(len(data)), OverCap: true}, true
	}
	return Line{N: a.startLine, Data: data, Len: int64(len(data))}, true
}

// stringStop returns the index of the first quote, backslash or control
// character of b at or after i (len(b) when none): most bytes of a message
// are inside strings, so they are passed over eight at a time.
func stringStop(b []byte, i int) int {
	for i+8 <= len(b) {
		w := uint64(b[i]) | uint64(b[i+1])<<8 | uint64(b[i+2])<<16 | uint64(b[i+3])<<24 |
			uint64(b[i+4])<<32 | uint64(b[i+5])<<40 | uint64(b[i+6])<<48 | uint64(b[i+7])<<56
		if m := swar.Stops(w); m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
		i += 8
	}
	for ; i < len(b); i++ {
		if c := b[i]; c == '"' || c == '\\' || c < 0x20 {
			return i
		}
	}
	return i
}
