package jsonscan

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// sameAsValid fails unless a Scanner that skips one value and then only
// whitespace agrees with json.Valid on d, and, for valid input, reports
// invalid UTF-8 (Bad) exactly when d holds it (outside strings, valid JSON
// is ASCII).
func sameAsValid(t *testing.T, d []byte) {
	t.Helper()
	s := Scanner{Data: d}
	got := s.SkipValue() && s.End()
	if want := json.Valid(d); got != want {
		t.Fatalf("%q: scanner valid=%v, json.Valid %v", d, got, want)
	}
	if got && s.Bad == utf8.Valid(d) {
		t.Fatalf("%q: Bad=%v, utf8.Valid %v", d, s.Bad, utf8.Valid(d))
	}
	if got && s.Depth != 0 {
		t.Fatalf("%q: depth %d after a whole value", d, s.Depth)
	}
}

// validPieces build JSON texts at random, valid and broken: every token,
// every way a number, literal, string or container can be cut short or
// misspelled, whitespace and bytes that are never JSON outside strings.
var validPieces = []string{
	`{`, `}`, `[`, `]`, `,`, `:`, ` `, "\t", "\r\n", `"a"`, `"é"`, `"\n"`, `"\u00e9"`, `"\uD83D\uDE00"`, `"\ud800"`,
	`null`, `true`, `false`, `nul`, `tru`, `fals`, `0`, `-0`, `-1.5e3`, `1E+2`, `01`, `-`, `1.`, `.5`, `1e`, `1e+`, `00`,
	`"`, `\`, `\u12`, `"\x"`, "\x00", "\x1f", "\x7f", "\xff", "\xc3\xa9", `'a'`, `+1`, `NaN`,
}

// TestScannerIsValid: on hand-picked edge texts and on texts built at
// random from validPieces, the scanner agrees with json.Valid.
func TestScannerIsValid(t *testing.T) {
	edge := []string{
		``, ` `, `1`, ` 1 `, `-0.0e-0`, `1 2`, `[]`, `[1,]`, `[,1]`, `[1 2]`, `{}`, `{"a":1,}`, `{"a" 1}`, `{1:2}`, `{"a":1 "b":2}`,
		`"abc`, `"a\"`, `"a\\"`, "\"a\x01\"", `"\u12g4"`, "\"\xff\"", `[[[]]]`, `{"a":{"b":[{}]}}`, `truex`, `nullnull`,
		strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth),
		strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1),
		strings.Repeat(`{"a":`, MaxDepth) + `1` + strings.Repeat("}", MaxDepth),
		strings.Repeat(`{"a":`, MaxDepth+1) + `1` + strings.Repeat("}", MaxDepth+1),
	}
	for _, e := range edge {
		sameAsValid(t, []byte(e))
	}
	rng := rand.New(rand.NewPCG(15, 9))
	for range 200000 {
		var b strings.Builder
		for range 1 + rng.IntN(10) {
			b.WriteString(validPieces[rng.IntN(len(validPieces))])
		}
		sameAsValid(t, []byte(b.String()))
	}
}

// FuzzScanner: whatever the bytes, the scanner agrees with json.Valid.
//
//	go test ./internal/jsonscan -run '^$' -fuzz FuzzScanner
func FuzzScanner(f *testing.F) {
	for _, p := range validPieces {
		f.Add([]byte(p))
	}
	f.Add([]byte(`{"type":"started","key":"k","agentId":"a","pad":[1,-2.5e3,true,false,null,{"x":"\u00e9\n"}]}`))
	f.Fuzz(func(t *testing.T, d []byte) {
		sameAsValid(t, d)
	})
}
