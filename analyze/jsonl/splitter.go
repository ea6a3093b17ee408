package jsonl

import "bytes"

// Splitter cuts a file that is still being written, handed over a piece
// at a time (a follower's Write), into the lines a Reader of the bytes so
// far returns: the carriage return before a newline dropped, a line over
// the cap counted by its length alone. The followers of transcripts and of
// journals both split through it, so a followed file's lines are a full
// read's by construction, not by two copies of the same loop.
type Splitter struct {
	// Cap is the longest line handed over with its bytes (DefaultLineCap
	// when not set).
	Cap int64
	// CopyLines hands every line over from a buffer of the splitter's,
	// never as a view into the caller's piece (a test mode that
	// overwrites each line once applied: the piece is the caller's).
	CopyLines bool

	partial    []byte // the unterminated last line (nil once over the cap)
	partialLen int64
	over       bool
	n          int   // complete lines handed over
	offset     int64 // bytes up to and including the last newline
	fed        int64 // bytes given
}

// Write hands each line p completes to apply, in order, numbered from 1
// as a Reader numbers them. A line that lies whole in p is handed over
// where it lies (valid during the call, as a Reader's line is until the
// next); the rest of p is kept until its newline arrives.
func (s *Splitter) Write(p []byte, apply func(Line)) {
	s.fed += int64(len(p))
	for len(p) > 0 {
		nl := bytes.IndexByte(p, '\n')
		if nl < 0 {
			s.grow(p)
			return
		}
		if !s.CopyLines && s.partialLen == 0 && int64(nl) <= s.LineCap() {
			s.n++
			s.offset += int64(nl) + 1
			apply(wholeLine(s.n, p[:nl]))
		} else {
			s.grow(p[:nl])
			s.n++
			s.offset += s.partialLen + 1
			apply(s.pendingLine(s.n, false))
			s.partial, s.partialLen, s.over = s.partial[:0], 0, false
		}
		p = p[nl+1:]
	}
}

// Torn is the unterminated last line, as a Reader of the bytes so far
// returns it (Torn set), and whether there is one.
func (s *Splitter) Torn() (Line, bool) {
	if s.partialLen == 0 {
		return Line{}, false
	}
	return s.pendingLine(s.n+1, true), true
}

// Skip counts lines complete lines, ending at offset, as handed over
// elsewhere (a first read decoded in parallel); nothing may have been
// given yet.
func (s *Splitter) Skip(lines int, offset int64) {
	s.n, s.offset, s.fed = lines, offset, offset
}

// Lines is the number of complete lines handed over.
func (s *Splitter) Lines() int { return s.n }

// Offset is the number of bytes up to and including the last newline.
func (s *Splitter) Offset() int64 { return s.offset }

// Size is the number of bytes given.
func (s *Splitter) Size() int64 { return s.fed }

// LineCap is the cap in force (Cap, or DefaultLineCap when not set).
func (s *Splitter) LineCap() int64 {
	if s.Cap <= 0 {
		return DefaultLineCap
	}
	return s.Cap
}

// grow adds bytes to the unterminated line, dropping them once the line
// is over the cap (a Reader counts such a line and skips it).
func (s *Splitter) grow(p []byte) {
	s.partialLen += int64(len(p))
	if s.over {
		return
	}
	if s.partialLen > s.LineCap() {
		s.over, s.partial = true, nil
		return
	}
	s.partial = append(s.partial, p...)
}

func (s *Splitter) pendingLine(n int, torn bool) Line {
	if s.over {
		return Line{N: n, Torn: torn, OverCap: true, Len: s.partialLen}
	}
	l := wholeLine(n, s.partial)
	l.Torn = torn
	return l
}

// wholeLine is line n, data (without its newline), as a Reader returns it.
func wholeLine(n int, data []byte) Line {
	if k := len(data); k > 0 && data[k-1] == '\r' {
		data = data[:k-1]
	}
	return Line{N: n, Data: data, Len: int64(len(data))}
}
