package jsonscan

import (
	"unicode"
	"unicode/utf8"
)

// Key is an object key as it appears in the line.
type Key struct {
	Body []byte // between the quotes, undecoded
	Esc  bool   // holds escapes or bytes >= 0x80: decoded before matching
}

// Names is a list of field names indexed by length, so that a key is
// compared only with the names of its length (one or two), not all of
// them. The names are ASCII, shorter than 32 bytes, and distinct when
// folded, as a struct's JSON field names are.
type Names struct {
	names []string
	byLen [32][]uint8 // indices into names
}

// NewNames is the set of a struct's JSON field names, in the order the
// decoder's switch on Match numbers them.
func NewNames(names ...string) *Names {
	ks := &Names{names: names}
	for i, n := range names {
		ks.byLen[len(n)] = append(ks.byLen[len(n)], uint8(i))
	}
	return ks
}

// Match returns the index in ks of the field the key selects, or -1:
// encoding/json picks the exact name, else the name equal under Unicode
// simple case folding (its foldName). names are ASCII and distinct when
// folded.
func (k Key) Match(ks *Names) int {
	key := k.Body
	if !k.Esc {
		// The usual key: ASCII without escapes (Esc is set for any other),
		// most often spelled as the field. The names of its length are one
		// or two, and the first byte settles most.
		if len(key) == 0 || len(key) >= len(ks.byLen) {
			return -1
		}
		cands := ks.byLen[len(key)]
		for _, i := range cands {
			if n := ks.names[i]; key[0] == n[0] && string(key) == n {
				return int(i)
			}
		}
		for _, i := range cands {
			if asciiEqualFold(key, ks.names[i]) {
				return int(i)
			}
		}
		return -1
	}
	key = Unquote(key)
	// An exact match is also a match under folding, and names are distinct
	// when folded, so one pass over the names of the key's length decides.
	if isASCII(key) {
		if len(key) >= len(ks.byLen) {
			return -1
		}
		for _, i := range ks.byLen[len(key)] {
			if asciiEqualFold(key, ks.names[i]) {
				return int(i)
			}
		}
		return -1
	}
	folded := foldName(key)
	for i, n := range ks.names {
		if string(folded) == string(foldName([]byte(n))) {
			return i
		}
	}
	return -1
}

func asciiEqualFold(a []byte, b string) bool {
	if string(a) == b {
		return true
	}
	for i := range len(a) {
		x, y := a[i], b[i]
		if 'a' <= x && x <= 'z' {
			x -= 'a' - 'A'
		}
		if 'a' <= y && y <= 'z' {
			y -= 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// foldName is encoding/json's key folding: ASCII upper case, and each other
// rune mapped to the smallest rune of its simple fold orbit.
func foldName(in []byte) []byte {
	out := make([]byte, 0, len(in))
	for i := 0; i < len(in); {
		if c := in[i]; c < utf8.RuneSelf {
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			out = append(out, c)
			i++
			continue
		}
		r, n := utf8.DecodeRune(in[i:])
		for {
			r2 := unicode.SimpleFold(r)
			if r2 <= r {
				r = r2
				break
			}
			r = r2
		}
		out = utf8.AppendRune(out, r)
		i += n
	}
	return out
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
