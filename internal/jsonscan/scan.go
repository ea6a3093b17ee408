// Package jsonscan is the JSON grammar that pmcheck's two hand-written
// decoders share: the transcript row decoder (analyze/transcript) and the
// Workflow journal line decoder (analyze/journal). Both must accept and
// reject exactly the lines encoding/json accepts and rejects (a line
// encoding/json calls invalid is a malformed line in the report), so the
// rules live here once: whitespace, literals, numbers, strings and their
// escapes, skipping a value, and the nesting limit; so do encoding/json's
// matching of a key to a field name (Key.Match) and its decoding of a
// string (Unescape, Unquote). The decoders keep only their field mapping:
// which keys they read and into what.
//
// A Scanner walks one line. It does not allocate; strings are returned as
// their bodies (the bytes between the quotes), which Unescape or Unquote
// decode. The string scan (StringEnd) reads eight bytes at a time, or 32
// with GOEXPERIMENT=simd on amd64; its tests hold it to a byte-at-a-time
// definition, and the decoders' differential tests hold the whole grammar
// to encoding/json.
package jsonscan

import (
	"unicode/utf8"

	"github.com/pmcheck/pmcheck/internal/swar"
)

// MaxDepth is encoding/json's limit on nested arrays and objects: a deeper
// value is not valid JSON.
const MaxDepth = 10000

// Scanner reads the JSON in Data from I. Its methods advance I past what
// they read and report false where encoding/json's scanner rejects the
// input; after a false, I is unspecified.
type Scanner struct {
	Data  []byte
	I     int
	Depth int // arrays and objects entered and not yet left
	// High and Bad are set once a string held a byte >= 0x80, and a string
	// held invalid UTF-8: encoding/json accepts invalid UTF-8 in strings
	// (and decodes it to U+FFFD), so it is not a syntax error, but the
	// transcript reader counts such lines. Outside strings, valid JSON is
	// ASCII.
	High, Bad bool
	// StrHigh and StrBad are High and Bad for the last string scanned.
	StrHigh, StrBad bool
}

// End reports whether only whitespace follows.
func (s *Scanner) End() bool {
	s.Space()
	return s.I == len(s.Data)
}

// Space skips JSON whitespace.
func (s *Scanner) Space() {
	for s.I < len(s.Data) {
		switch s.Data[s.I] {
		case ' ', '\t', '\n', '\r':
			s.I++
		default:
			return
		}
	}
}

// Peek skips whitespace and returns the next byte (0 at the end).
func (s *Scanner) Peek() byte {
	s.Space()
	if s.I >= len(s.Data) {
		return 0
	}
	return s.Data[s.I]
}

// Valid reports whether data is one JSON value with only whitespace
// around it, as json.Valid does (FuzzScanner holds the two to each other).
func Valid(data []byte) bool {
	s := Scanner{Data: data}
	return s.SkipValue() && s.End()
}

// IsHex reports whether c is a hexadecimal digit.
func IsHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// SkipValue validates and skips one value of any type (after whitespace)
// without allocating.
func (s *Scanner) SkipValue() bool {
	switch s.Peek() {
	case '"':
		_, _, ok := s.ScanString()
		return ok
	case '{':
		if !s.Enter() {
			return false
		}
		for first := true; ; first = false {
			_, done, ok := s.NextKey(first)
			if !ok {
				return false
			}
			if done {
				return true
			}
			if !s.SkipValue() {
				return false
			}
		}
	case '[':
		if !s.Enter() {
			return false
		}
		for first := true; ; first = false {
			done, ok := s.NextElem(first)
			if !ok {
				return false
			}
			if done {
				return true
			}
			if !s.SkipValue() {
				return false
			}
		}
	case 't':
		return s.Literal("true")
	case 'f':
		return s.Literal("false")
	case 'n':
		return s.Literal("null")
	default:
		return s.Number()
	}
}

// RawValue skips a value and returns its bytes.
func (s *Scanner) RawValue() ([]byte, bool) {
	s.Space()
	start := s.I
	ok := s.SkipValue()
	return s.Data[start:s.I], ok
}

// Literal reads lit (true, false or null) at I.
func (s *Scanner) Literal(lit string) bool {
	if len(s.Data)-s.I < len(lit) || string(s.Data[s.I:s.I+len(lit)]) != lit {
		return false
	}
	s.I += len(lit)
	return true
}

// Number reads -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? at I.
func (s *Scanner) Number() bool {
	d, i := s.Data, s.I
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && '1' <= d[i] && d[i] <= '9':
		i = skipDigits(d, i)
	default:
		return false
	}
	if i < len(d) && d[i] == '.' {
		i++
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			return false
		}
		i = skipDigits(d, i)
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			return false
		}
		i = skipDigits(d, i)
	}
	s.I = i
	return true
}

// skipDigits returns the index of the first byte at or after i of d that
// is not a decimal digit (inlined: Number's three runs of digits).
func skipDigits(d []byte, i int) int {
	for i < len(d) && '0' <= d[i] && d[i] <= '9' {
		i++
	}
	return i
}

// Enter consumes the '{' or '[' at I and counts the nesting depth: false
// past MaxDepth.
func (s *Scanner) Enter() bool {
	s.I++
	s.Depth++
	return s.Depth <= MaxDepth
}

// NextKey reads the next member's key and its colon, or the closing brace
// (done). first is true before the first member.
func (s *Scanner) NextKey(first bool) (key Key, done, ok bool) {
	c := s.Peek()
	if c == '}' && first {
		s.I++
		s.Depth--
		return key, true, true
	}
	if !first {
		switch c {
		case '}':
			s.I++
			s.Depth--
			return key, true, true
		case ',':
			s.I++
			c = s.Peek()
		default:
			return key, false, false
		}
	}
	if c != '"' {
		return key, false, false
	}
	body, esc, ok := s.ScanString()
	if !ok || s.Peek() != ':' {
		return key, false, false
	}
	s.I++
	return Key{Body: body, Esc: esc || s.StrHigh}, false, true
}

// NextElem moves to the next array element, or past the closing bracket
// (done). first is true before the first element.
func (s *Scanner) NextElem(first bool) (done, ok bool) {
	c := s.Peek()
	if c == ']' {
		// After a comma an element must follow: "[1,]" is refused below.
		s.I++
		s.Depth--
		return true, true
	}
	if !first {
		if c != ',' {
			return false, false
		}
		s.I++
		if s.Peek() == ']' {
			return false, false
		}
	}
	return false, true
}

// ScanString reads the string at Data[I] == '"' and returns its body (the
// bytes between the quotes) and whether it holds escapes. It validates what
// encoding/json's scanner validates (no control characters, well-formed
// escapes) and checks UTF-8 where a byte >= 0x80 occurs (StrHigh, StrBad,
// High, Bad).
func (s *Scanner) ScanString() (body []byte, esc, ok bool) {
	d := s.Data
	start := s.I + 1
	end, all, esc, ok := StringEnd(d, start)
	if !ok {
		return nil, false, false
	}
	body = d[start:end]
	s.I = end + 1
	s.StrBad, s.StrHigh = false, false
	if all&swar.Hi8 != 0 {
		// Escapes are ASCII, so the body is valid UTF-8 exactly when the
		// runs between them are.
		s.High, s.StrHigh = true, true
		if !utf8.Valid(body) {
			s.StrBad, s.Bad = true, true
		}
	}
	return body, esc, true
}
