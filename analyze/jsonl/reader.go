// Package jsonl reads line-delimited files as a stream, one line at a time,
// with a cap on line length. A line over the cap is counted and skipped, and
// the reader resynchronises on the next newline; memory never grows past the
// cap however large the file is. bufio.Scanner is not used: its 64 KiB default
// silently ends the scan on the first long tool output.
package jsonl

import (
	"bufio"
	"errors"
	"io"
)

// DefaultLineCap is the default cap on one line: far above any real row, low
// enough that one line cannot exhaust memory.
const DefaultLineCap = 64 << 20

// Line is one physical line of the input.
type Line struct {
	// N is the 1-based line number.
	N int
	// Data is the line without its line ending. It is only valid until the next
	// call to Next. Nil when OverCap.
	Data []byte
	// Len is the line's length in bytes, without the line ending.
	Len int64
	// OverCap is true when the line was longer than the cap and was skipped.
	OverCap bool
	// Torn is true for a final line with no newline after it.
	Torn bool
	// Decoded is set by an ArrayReader whose Decode decoded the element.
	Decoded bool
}

// Reader yields the lines of a stream.
type Reader struct {
	br   *bufio.Reader
	cap  int64
	n    int
	buf  []byte
	done bool
}

// NewReader returns a Reader with the given line cap (DefaultLineCap if cap <= 0).
func NewReader(r io.Reader, cap int64) *Reader {
	if cap <= 0 {
		cap = DefaultLineCap
	}
	size := 256 << 10
	if int64(size) > cap+1 {
		size = int(cap + 1)
		if size < 16 {
			size = 16
		}
	}
	return &Reader{br: bufio.NewReaderSize(r, size), cap: cap}
}

// Next returns the next line, or io.EOF after the last one. Other errors are
// I/O errors from the underlying reader.
func (r *Reader) Next() (Line, error) {
	if r.done {
		return Line{}, io.EOF
	}
	var (
		total int64
		over  bool
		multi bool // the line spans several buffer fills, so it lives in r.buf
		first []byte
	)
	r.buf = r.buf[:0]
	for {
		chunk, err := r.br.ReadSlice('\n')
		total += int64(len(chunk))
		if !over {
			if total-trailingNewline(chunk, err) > r.cap {
				over = true
				r.buf = r.buf[:0]
				first = nil
			} else if err == bufio.ErrBufferFull || multi {
				if !multi {
					multi = true
				}
				r.buf = append(r.buf, chunk...)
			} else {
				first = chunk
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err == io.EOF {
			r.done = true
			if total == 0 {
				return Line{}, io.EOF
			}
			r.n++
			return r.finish(first, multi, over, total, true), nil
		}
		if err != nil {
			return Line{}, err
		}
		r.n++
		return r.finish(first, multi, over, total, false), nil
	}
}

func trailingNewline(chunk []byte, err error) int64 {
	if err == nil && len(chunk) > 0 && chunk[len(chunk)-1] == '\n' {
		return 1
	}
	return 0
}

func (r *Reader) finish(first []byte, multi, over bool, total int64, torn bool) Line {
	l := Line{N: r.n, Torn: torn}
	if !torn {
		total-- // the newline
	}
	if over {
		l.OverCap = true
		l.Len = total
		return l
	}
	data := first
	if multi {
		data = r.buf
	}
	// Byte compares, not bytes.TrimSuffix: a one-byte suffix went through
	// memeqbody, a quarter of the cost of a short line.
	if n := len(data); n > 0 && data[n-1] == '\n' {
		data = data[:n-1]
	}
	if n := len(data); n > 0 && data[n-1] == '\r' {
		data = data[:n-1]
	}
	l.Data = data
	l.Len = int64(len(data))
	return l
}

// LineCount is the number of lines returned so far.
func (r *Reader) LineCount() int { return r.n }
