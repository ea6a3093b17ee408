package shell

import (
	"strings"
	"unicode/utf8"
)

// Backslash escapes the shell or a program decodes before a command runs:
// $'\x67it' push is git push to bash, and so is the text `printf
// '\x67it push'` or `echo -e '\0147it push'` pipes to a shell. The parser
// keeps them as written, so the classifier decodes them itself.

// escapeMode says whose escapes a text holds.
type escapeMode uint8

const (
	// escANSI: bash's $'…' (ANSI-C quoting). A decoded NUL ends the string.
	escANSI escapeMode = iota
	// escFormat: a printf format.
	escFormat
	// escEcho: echo -e and printf's %b argument; \c ends all output.
	escEcho
)

// decodeEscapes returns s with its escapes decoded as mode's decoder does,
// and whether it stopped at \c (escEcho: nothing is printed after it).
func decodeEscapes(s string, mode escapeMode) (string, bool) {
	if strings.IndexByte(s, '\\') < 0 {
		return s, false
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			i++
			continue
		}
		next, stop := escapeAt(&b, s, i, mode)
		if stop {
			return b.String(), true
		}
		i = next
	}
	out := b.String()
	if mode == escANSI {
		// bash ends a $'…' string at a NUL it decodes ($'git\0 x' is git).
		if k := strings.IndexByte(out, 0); k >= 0 {
			out = out[:k]
		}
	}
	return out, false
}

// simpleEscapes are the one-letter escapes every mode decodes.
var simpleEscapes = map[byte]byte{
	'a': 7, 'b': 8, 'e': 27, 'E': 27, 'f': 12, 'n': '\n', 'r': '\r', 't': '\t', 'v': 11, '\\': '\\',
}

// escapeAt decodes the escape at s[i] (a backslash) into b and returns
// where the text goes on, and whether it was \c in escEcho mode. An escape
// the mode does not know is kept as written, backslash and all.
func escapeAt(b *strings.Builder, s string, i int, mode escapeMode) (int, bool) {
	if i+1 >= len(s) {
		b.WriteByte('\\')
		return i + 1, false
	}
	c := s[i+1]
	if v, ok := simpleEscapes[c]; ok {
		b.WriteByte(v)
		return i + 2, false
	}
	switch {
	case c == '\'' || c == '"' || c == '?':
		if mode != escEcho {
			b.WriteByte(c)
			return i + 2, false
		}
	case c == 'c':
		switch {
		case mode == escEcho:
			return i + 2, true
		case mode == escANSI && i+2 < len(s):
			// \cX: the control character of X.
			x := s[i+2]
			if x == '?' {
				b.WriteByte(0x7f)
			} else {
				b.WriteByte(upper(x) & 0x1f)
			}
			return i + 3, false
		}
	case c == 'x' || c == 'u' || c == 'U':
		most := 2 // \xHH
		switch c {
		case 'u':
			most = 4
		case 'U':
			most = 8
		}
		v, n := digits(s[i+2:], 16, most)
		if n > 0 {
			if c == 'x' {
				b.WriteByte(byte(v))
			} else if v > utf8.MaxRune {
				b.WriteRune(utf8.RuneError)
			} else {
				b.WriteRune(rune(v))
			}
			return i + 2 + n, false
		}
	case c >= '0' && c <= '7':
		start := i + 1
		if mode == escEcho && c == '0' {
			// echo's \0nnn: up to three digits after the 0.
			start = i + 2
		}
		v, n := digits(s[start:], 8, 3)
		b.WriteByte(byte(v))
		return start + n, false
	}
	b.WriteByte('\\')
	b.WriteByte(c)
	return i + 2, false
}

// digits reads up to most digits of base (8 or 16) from the start of s,
// and returns their value and how many there were.
func digits(s string, base, most int) (uint64, int) {
	var v uint64
	n := 0
	for n < most && n < len(s) {
		d, ok := digitValue(s[n], base)
		if !ok {
			break
		}
		v = v*uint64(base) + uint64(d)
		n++
	}
	return v, n
}

func digitValue(c byte, base int) (int, bool) {
	var d int
	switch {
	case c >= '0' && c <= '9':
		d = int(c - '0')
	case c >= 'a' && c <= 'f':
		d = int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		d = int(c-'A') + 10
	default:
		return 0, false
	}
	return d, d < base
}

func upper(c byte) byte {
	if c >= 'a' && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}
