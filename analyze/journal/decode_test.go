package journal

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/pmcheck/pmcheck/internal/allocs"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pmcheck/pmcheck/internal/jsonscan"
)

// sameAsUnmarshal fails unless decodeFast agrees with encoding/json on
// data: invalid exactly when json.Unmarshal returns a syntax error, and,
// when it decodes the line itself, the fields encoding/json sets.
func sameAsUnmarshal(t *testing.T, data []byte) {
	t.Helper()
	if len(data) == 0 || data[0] != '{' {
		return
	}
	var want line
	err := json.Unmarshal(data, &want)
	var typeErr *json.UnmarshalTypeError
	wantValid := err == nil || errors.As(err, &typeErr)
	var got line
	valid, done := decodeFast(data, &got)
	if valid != wantValid {
		t.Fatalf("%q: decodeFast valid=%v, encoding/json %v", data, valid, err)
	}
	if !valid || !done {
		return
	}
	str := func(p *string) string {
		if p == nil {
			return "<nil>"
		}
		return *p
	}
	if str(got.Type) != str(want.Type) || str(got.Key) != str(want.Key) || str(got.AgentID) != str(want.AgentID) {
		t.Fatalf("%q: decodeFast %s/%s/%s, encoding/json %s/%s/%s", data, str(got.Type), str(got.Key), str(got.AgentID), str(want.Type), str(want.Key), str(want.AgentID))
	}
}

// TestDecodeFastIsUnmarshal: on hand-picked edge lines and on lines built
// at random from JSON pieces (valid and broken), decodeFast agrees with
// encoding/json.
func TestDecodeFastIsUnmarshal(t *testing.T) {
	edge := []string{
		`{}`, `{ }`, `{"type":"started","key":"k","agentId":"a"}`, `{"TYPE":"x","Key":"y","AGENTID":"z"}`,
		`{"type":"a","type":"b"}`, `{"type":"a","type":null}`, `{"type":"a","type":7}`, `{"type":7}`, `{"type":[1]}`, `{"type":{}}`,
		`{"type":true}`, `{"type":"\u0041"}`, `{"type":"é"}`, `{"type":"\xff"}`, `{"typ\u0065":"x"}`, `{"agentıd":"x"}`, `{"\u212aey":"x"}`,
		`{"type":"a"} `, `{"type":"a"}x`, `{"type":"a",}`, `{"type" "a"}`, `{"type":}`, `{,}`, `{"a":01}`, `{"a":-}`, `{"a":1.}`, `{"a":1e}`,
		`{"a":-0.5e+10}`, `{"a":1E-2}`, `{"a":"\x01"}`, `{"a":"\q"}`, `{"a":"\u12"}`, `{"a":"\u12G4"}`, `{"a":tru}`, `{"a":nul}`, `{"a":[1,]}`,
		`{"a":[,1]}`, `{"a":[]}`, `{"a":[[],{}]}`, `{"a":{"b":{"c":[1,2,{"d":null}]}}}`, `{"a":"b"`, `{"a"`, `{`, `{"a":"\"}`,
		"{\"a\":\t\"b\"\r\n}", `{"pad":"` + strings.Repeat("s", 500) + `","type":"started"}`,
		`{"a":` + strings.Repeat("[", jsonscan.MaxDepth-1) + strings.Repeat("]", jsonscan.MaxDepth-1) + `}`,
		`{"a":` + strings.Repeat("[", jsonscan.MaxDepth) + strings.Repeat("]", jsonscan.MaxDepth) + `}`,
		`{"a":` + strings.Repeat(`{"b":`, jsonscan.MaxDepth-1) + `1` + strings.Repeat("}", jsonscan.MaxDepth-1) + `}`,
		`{"a":` + strings.Repeat(`{"b":`, jsonscan.MaxDepth) + `1` + strings.Repeat("}", jsonscan.MaxDepth) + `}`,
	}
	for _, e := range edge {
		sameAsUnmarshal(t, []byte(e))
	}
	pieces := []string{`{`, `}`, `[`, `]`, `,`, `:`, ` `, `"type"`, `"key"`, `"agentId"`, `"AgentID"`, `"kEy"`, `"x"`, `"é"`, `"\n"`, `"\u00e9"`,
		`null`, `true`, `false`, `0`, `-1.5e3`, `01`, `"started"`, `"`, `\`, "\t", "\x00", "\xff", `1.`, `tru`}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 200000 {
		var b strings.Builder
		b.WriteString("{")
		for range rng.IntN(12) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		if rng.IntN(2) == 0 {
			b.WriteString("}")
		}
		sameAsUnmarshal(t, []byte(b.String()))
	}
	// Strings long enough for the word-at-a-time scan, with a stop (quote,
	// backslash, control, 0x7f, non-ASCII, a broken escape) anywhere in them.
	alphabet := []byte("aaaaaaaaaaaaaaaaaaaaaaaas \"\\\x00\x1f\x7f\x80\xff\xc3\xa9u0041n")
	for range 50000 {
		var b strings.Builder
		b.WriteString(`{"type":"started","key":"`)
		for range rng.IntN(40) {
			b.WriteByte(alphabet[rng.IntN(len(alphabet))])
		}
		b.WriteString(`","pad":"`)
		for range rng.IntN(40) {
			b.WriteByte(alphabet[rng.IntN(len(alphabet))])
		}
		b.WriteString(`"}`)
		sameAsUnmarshal(t, []byte(b.String()))
	}
	// Well-formed objects of our fields with values of every kind.
	vals := []string{`"a"`, `"\u0062"`, `null`, `1`, `[]`, `{}`, `true`, `"é"`}
	keys := []string{`"type"`, `"key"`, `"agentId"`, `"Type"`, `"KEY"`, `"agentid"`, `"other"`}
	for range 20000 {
		var b strings.Builder
		b.WriteString("{")
		for i := range rng.IntN(5) {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(keys[rng.IntN(len(keys))] + ":" + vals[rng.IntN(len(vals))])
		}
		b.WriteString("}")
		sameAsUnmarshal(t, []byte(b.String()))
	}
}

// FuzzDecodeFast: whatever the line, decodeFast agrees with encoding/json.
//
//	go test ./analyze/journal -run '^$' -fuzz FuzzDecodeFast
func FuzzDecodeFast(f *testing.F) {
	for _, s := range []string{`{"type":"started","key":"k","agentId":"a"}`, `{"type":7,"key":null}`, `{"a":[{"b":-1.5e3}]}`, `{"Type":"\u00e9"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { sameAsUnmarshal(t, data) })
}

// BenchmarkReadStarted: a journal of started lines padded with an unknown
// field, the bench/hostile started-200k shape, per line.
func BenchmarkReadStarted(b *testing.B) {
	var sb strings.Builder
	for i := range 10000 {
		sb.WriteString(`{"type":"started","key":"v2:s` + strings.Repeat("0", 60) + string(rune('a'+i%26)) + `","agentId":"as0000000000000` + string(rune('a'+i%26)) + `","pad":"` + strings.Repeat("s", 400) + "\"}\n")
	}
	data := sb.String()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		Read(strings.NewReader(data), "journal.jsonl")
	}
}

// TestDecodeFastTakesEscapes: keys with escapes or non-ASCII letters and
// string values with escapes or invalid UTF-8 are decoded on the fast path
// (jsonscan's key matching and unquoting, as encoding/json's), and agree
// with encoding/json; a value of ours that is neither a string nor null is
// still left to it.
func TestDecodeFastTakesEscapes(t *testing.T) {
	for _, c := range []struct {
		line string
		done bool
	}{
		{`{"typ\u0065":"started","k\u0045y":"k\n1","agentI\u0064":"a\u00e9"}`, true},
		{`{"\u212aey":"x","agentıd":"y","TYPE":"\ud800"}`, true},
		{"{\"type\":\"\xff\",\"key\":\"\u212a\"}", true},
		{`{"type":"result","agentId":7}`, false},
		{`{"Key":[1],"type":"started"}`, false},
	} {
		var v line
		if _, done := decodeFast([]byte(c.line), &v); done != c.done {
			t.Errorf("%q: done %v, want %v", c.line, done, c.done)
		}
		sameAsUnmarshal(t, []byte(c.line))
	}
}

// TestReadAllocatesOnlyTheKeptStrings (issue 12, started-200k;
// BenchmarkReadStarted shows the time): a started line costs the two
// strings the journal keeps, its key and agent id. It was eight
// allocations: a decoded line, a string and a pointer per field, and an
// error holder per line; the line and its strings are reused now and the
// line types are constants.
func TestReadAllocatesOnlyTheKeptStrings(t *testing.T) {
	allocs.SkipUnderRace(t)
	var sb strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&sb, `{"type":"started","key":"v2:k%06d","agentId":"a%015d","pad":"%s"}`+"\n", i, i, strings.Repeat("s", 100))
	}
	data := sb.String()
	allocs := testing.AllocsPerRun(3, func() { Read(strings.NewReader(data), "journal.jsonl") })
	if per := allocs / 1000; per > 2.2 {
		t.Errorf("%.2f allocations per started line, want 2 (its key and agent id)", per)
	}
}
