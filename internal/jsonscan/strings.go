package jsonscan

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/pmcheck/pmcheck/internal/swar"
)

// String bodies, a word at a time. Most bytes of a transcript are inside
// long strings (tool output, text, file snapshots), so this loop is most of
// the transcript decoder's time.

// stops flags each byte of w where a string scan must stop: a quote, a
// backslash or a control character. Only the lowest flag is exact, which
// is all the scan reads.
func stops(w uint64) uint64 { return swar.Stops(w) }

// below is the mask of the bytes of a word under the lowest flag of m.
func below(m uint64) uint64 {
	return 1<<(uint(bits.TrailingZeros64(m))&^7) - 1
}

// load64 reads the little-endian word at d[i:i+8]; callers check
// i+8 <= len(d). It is the hot loop's load: binary.LittleEndian.Uint64 on
// d[i:i+8] costs a bounds check per word the compiler cannot drop.
func load64(d []byte, i int) uint64 {
	w := *(*uint64)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(d)), i))
	if bigEndian {
		w = bits.ReverseBytes64(w)
	}
	return w
}

// simpleEscape marks the characters that may follow a backslash on their
// own (\u takes four hex digits).
var simpleEscape = [256]bool{'"': true, '\\': true, '/': true, 'b': true, 'f': true, 'n': true, 'r': true, 't': true}

// StringEnd validates the string body that starts at d[i] (just after its
// opening quote) and returns the index of its closing quote, the OR of its
// bytes outside escapes (their high bits say whether a byte is >= 0x80) and
// whether it holds escapes; ok is false where encoding/json's scanner
// rejects the string (a control character, a malformed escape, no closing
// quote). One loop for the whole body: a stop (quote, backslash, control
// character) comes every 13 bytes on average in real transcripts, so what
// a stop costs matters as much as the word loop.
//
// StringEnd itself is stringEndWords (strings_scalar.go) unless the build
// has GOEXPERIMENT=simd on amd64 (strings_simd.go).
//
// stringEndWords is StringEnd a word at a time from d[i], with the OR of
// the bytes and the escape flag of a part already read.
func stringEndWords(d []byte, i int, all uint64, esc bool) (end int, _ uint64, _, ok bool) {
	for {
		for i+8 <= len(d) {
			w := load64(d, i)
			if m := stops(w); m != 0 {
				all |= w & below(m)
				i += bits.TrailingZeros64(m) / 8
				goto stop
			}
			all |= w
			i += 8
		}
		for ; i < len(d); i++ {
			c := d[i]
			if c == '"' || c == '\\' || c < 0x20 {
				goto stop
			}
			all |= uint64(c)
		}
		return 0, 0, false, false
	stop:
		switch d[i] {
		case '"':
			return i, all, esc, true
		case '\\':
			esc = true
			if i+1 < len(d) && simpleEscape[d[i+1]] {
				i += 2
				continue
			}
			if i+6 <= len(d) && d[i+1] == 'u' && IsHex(d[i+2]) && IsHex(d[i+3]) && IsHex(d[i+4]) && IsHex(d[i+5]) {
				i += 6
				continue
			}
		}
		return 0, 0, false, false
	}
}

// unescapeByte maps the character after a backslash to what it stands for.
var unescapeByte = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// Unescape appends the decoded form of a validated body with escapes and
// valid UTF-8 to buf. The runs between escapes are copied a word (in a
// GOEXPERIMENT=simd build, 32 bytes: copyBlocks) at a time: buf is grown
// by the body and a block first (decoding never lengthens a body), so each
// block is stored whole and the output advanced by the bytes before its
// first backslash.
func Unescape(buf, body []byte) []byte {
	buf = slices.Grow(buf, len(body)+32)
	o := len(buf)
	out := buf[:cap(buf)]
	r := 0
	for {
		// Copy up to the next backslash or the end.
		r, o = copyBlocks(out, o, body, r)
		for r+8 <= len(body) {
			w := load64(body, r)
			binary.LittleEndian.PutUint64(out[o:o+8], w)
			b := w ^ ('\\' * swar.Lo8)
			if m := (b - swar.Lo8) &^ b & swar.Hi8; m != 0 {
				k := bits.TrailingZeros64(m) / 8
				r, o = r+k, o+k
				goto esc
			}
			r, o = r+8, o+8
		}
		for ; r < len(body) && body[r] != '\\'; r, o = r+1, o+1 {
			out[o] = body[r]
		}
		if r >= len(body) {
			return buf[:o]
		}
	esc:
		// body[r] is a backslash.
		if c := body[r+1]; c != 'u' {
			out[o] = unescapeByte[c]
			r, o = r+2, o+1
			continue
		}
		rr := getu4(body[r:])
		r += 6
		if utf16.IsSurrogate(rr) {
			// A valid pair is decoded together; a lone half is U+FFFD
			// and what follows is read on its own.
			if dec := utf16.DecodeRune(rr, getu4(body[r:])); dec != unicode.ReplacementChar {
				rr = dec
				r += 6
			} else {
				rr = unicode.ReplacementChar
			}
		}
		o += utf8.EncodeRune(out[o:], rr)
	}
}

// Unquote decodes a validated string body as encoding/json's unquoteBytes
// does: escapes resolved, surrogate pairs combined, lone surrogates and
// invalid UTF-8 replaced by U+FFFD. It is the slow, allocating form of
// Unescape, for a body with invalid UTF-8 and for keys.
func Unquote(s []byte) []byte {
	b := make([]byte, 0, len(s)+2*utf8.UTFMax)
	for r := 0; r < len(s); {
		c := s[r]
		switch {
		case c == '\\':
			switch s[r+1] {
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				rr := getu4(s[r:])
				r += 6
				if utf16.IsSurrogate(rr) {
					rr1 := getu4(s[r:])
					if dec := utf16.DecodeRune(rr, rr1); dec != unicode.ReplacementChar {
						r += 6
						b = utf8.AppendRune(b, dec)
						continue
					}
					rr = unicode.ReplacementChar
				}
				b = utf8.AppendRune(b, rr)
				continue
			default: // '"', '\\', '/'
				b = append(b, s[r+1])
			}
			r += 2
		case c < utf8.RuneSelf:
			b = append(b, c)
			r++
		default:
			rr, size := utf8.DecodeRune(s[r:])
			r += size
			b = utf8.AppendRune(b, rr)
		}
	}
	return b
}

// getu4 decodes \uXXXX from the beginning of s, returning the hex value, or
// -1 (as encoding/json's getu4).
func getu4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range s[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c = c - '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

// bigEndian is whether this machine stores words big end first.
var bigEndian = binary.NativeEndian.Uint16([]byte{0, 1}) == 1
