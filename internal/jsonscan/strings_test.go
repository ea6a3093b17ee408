package jsonscan

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pmcheck/pmcheck/internal/swar"
)

// stringEndBytes is stringEnd's definition, a byte at a time.
func stringEndBytes(d []byte, i int) (end int, high, esc, ok bool) {
	for i < len(d) {
		switch c := d[i]; {
		case c == '"':
			return i, high, esc, true
		case c == '\\':
			esc = true
			switch {
			case i+1 < len(d) && simpleEscape[d[i+1]]:
				i += 2
			case i+6 <= len(d) && d[i+1] == 'u' && IsHex(d[i+2]) && IsHex(d[i+3]) && IsHex(d[i+4]) && IsHex(d[i+5]):
				i += 6
			default:
				return 0, false, false, false
			}
		case c < 0x20:
			return 0, false, false, false
		default:
			high = high || c >= 0x80
			i++
		}
	}
	return 0, false, false, false
}

// sameStringEnd checks StringEnd (whichever the build uses) and
// stringEndWords against stringEndBytes on d from i.
func sameStringEnd(t *testing.T, d []byte, i int) {
	t.Helper()
	wantEnd, wantHigh, wantEsc, wantOK := stringEndBytes(d, i)
	for name, f := range map[string]func([]byte, int) (int, uint64, bool, bool){
		"StringEnd":      StringEnd,
		"stringEndWords": func(d []byte, i int) (int, uint64, bool, bool) { return stringEndWords(d, i, 0, false) },
	} {
		end, all, esc, ok := f(d, i)
		if ok != wantOK || ok && (end != wantEnd || esc != wantEsc || (all&swar.Hi8 != 0) != wantHigh) {
			t.Fatalf("%s(%q, %d) = %d, high %v, esc %v, ok %v; want %d, %v, %v, %v",
				name, d, i, end, all&swar.Hi8 != 0, esc, ok, wantEnd, wantHigh, wantEsc, wantOK)
		}
	}
	// The body it delimits unescapes as Unquote decodes it (Unescape is
	// used on valid UTF-8 only), after what the arena already holds.
	if !wantOK {
		return
	}
	if body := d[i:wantEnd]; utf8.Valid(body) {
		prefix := []byte("arena")
		got := Unescape(prefix[:len(prefix):len(prefix)], body)
		if want := Unquote(body); string(got[len(prefix):]) != string(want) || string(got[:len(prefix)]) != "arena" {
			t.Fatalf("Unescape(%q) = %q, Unquote = %q", body, got, want)
		}
	}
}

// stringEndPieces are what a string scan stops at or must read through.
var stringEndPieces = []string{
	`"`, `\"`, `\\`, `\/`, `\n`, `\t`, `\u00e9`, `\uD83D\uDE00`, `\uD83D`, `\uDE00x`, `\u12`, `\u12g4`, `\x`, `\`,
	"\x00", "\x1f", "\x7f", "\x80", "\xff", "\xc3\xa9", "\xe4\xb8", "\xed\xa0\x80", " ", "a", "#", "]", "!",
}

// TestStringEndIsByteReference puts stops and high bytes at random places
// of strings up to 120 bytes long (past a 32-byte block and a 16-byte
// pair of words), starting at every offset of a buffer.
func TestStringEndIsByteReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 2))
	for range 20000 {
		var d []byte
		for n := rng.IntN(120); len(d) < n; {
			if rng.IntN(4) == 0 {
				d = append(d, stringEndPieces[rng.IntN(len(stringEndPieces))]...)
			} else {
				d = append(d, 'a'+byte(rng.IntN(26)))
			}
		}
		for i := 0; i <= len(d); i += 1 + rng.IntN(3) {
			sameStringEnd(t, d, i)
		}
	}
	for _, l := range offsetBodies() {
		for i := range len(l) {
			sameStringEnd(t, []byte(l), i)
		}
	}
}

// offsetBodies are string bodies (closed and torn) with each of
// stringEndPieces at every offset from a word boundary, so every path of
// the word-at-a-time scan meets every alignment.
func offsetBodies() []string {
	var out []string
	for _, p := range stringEndPieces {
		for off := 0; off <= 24; off++ {
			body := strings.Repeat("a", off) + p + strings.Repeat("b", 24-off%9)
			out = append(out, `"`+body+`"`, `"`+body)
		}
	}
	return out
}

// FuzzStringEnd: go test ./internal/jsonscan -run '^$' -fuzz FuzzStringEnd
// (and with GOEXPERIMENT=simd for the vector scan).
func FuzzStringEnd(f *testing.F) {
	for i, l := range offsetBodies() {
		if i%5 == 0 {
			f.Add([]byte(l), uint8(i))
		}
	}
	f.Fuzz(func(t *testing.T, d []byte, start uint8) {
		i := int(start)
		if i > len(d) {
			i = len(d)
		}
		sameStringEnd(t, d, i)
	})
}
