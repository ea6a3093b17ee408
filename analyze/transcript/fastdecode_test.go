package transcript

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pmcheck/pmcheck/analyze/harness"
	"github.com/pmcheck/pmcheck/internal/testcorpus"
)

// decodeRowReference is the decoder decodeRow replaces: encoding/json into
// row with decode.go's UnmarshalJSON methods. A type mismatch is not an
// error for the reader; anything else is.
func decodeRowReference(data []byte, r *row) bool {
	err := json.Unmarshal(data, r)
	var typeErr *json.UnmarshalTypeError
	return err == nil || errors.As(err, &typeErr)
}

// agree checks that decodeRow and the reference accept the same lines and
// decode them to the same row, and that badUTF8 is exactly !utf8.Valid
// (the reader counts invalid UTF-8 by it).
func agree(t testing.TB, line []byte) {
	t.Helper()
	data := bytes.TrimSpace(line)
	if len(data) == 0 || data[0] != '{' {
		return // the reader decides these without decoding
	}
	var want, got row
	wantOK := decodeRowReference(data, &want)
	gotOK, badUTF8 := decodeRow(data, &got)
	if gotOK != wantOK {
		t.Fatalf("line %q: fast decoder ok=%v, encoding/json ok=%v", clip(data), gotOK, wantOK)
	}
	if !wantOK {
		return
	}
	// The fast decoder keeps *Message in the row (msgStore); compare
	// what it points at.
	if got.Message != nil {
		m := *got.Message
		got.Message = &m
	}
	got.msgStore = message{}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("line %q:\nfast:          %s\nencoding/json: %s", clip(data), dump(got), dump(want))
	}
	if badUTF8 != !utf8.Valid(data) {
		t.Fatalf("line %q: badUTF8 = %v, utf8.Valid = %v", clip(data), badUTF8, utf8.Valid(data))
	}
}

func clip(b []byte) string {
	if len(b) > 300 {
		return string(b[:300]) + "…"
	}
	return string(b)
}

func dump(r row) string {
	s := fmt.Sprintf("%+v", r)
	if r.Message != nil {
		s += fmt.Sprintf(" message=%+v", *r.Message)
	}
	return s
}

// edgeLines are the shapes where a hand-written decoder is most likely to
// differ from encoding/json.
var edgeLines = []string{
	`{}`,
	`{"type":"user"}`,
	` {"type" : "user" , "timestamp":"2026-01-01T00:00:00Z" } `,
	// numbers, booleans, objects and null where strings belong
	`{"type":5,"timestamp":true,"sessionId":null,"cwd":{"a":1},"version":[1,2],"gitBranch":-0.5e+3}`,
	`{"isMeta":"true","isApiErrorMessage":1,"error":12.5e3}`,
	`{"isApiErrorMessage":true,"error":true}`,
	`{"error":{"type":"x"}}`, `{"error":[1]}`, `{"error":null}`, `{"error":"rate_limit"}`, `{"error":-0}`,
	// case-insensitive keys and Unicode folding (Kelvin sign, long s)
	`{"TYPE":"assistant","SessionID":"s"}`,
	`{"type":"a","Type":"b"}`, `{"Type":"b","type":"a"}`,
	"{\"\u017fessionId\":\"s1\",\"\u212aind\":\"x\",\"origin\":{\"\u212aind\":\"k\"}}",
	`{"sessionI\u0064":"esc-key","\u0074ype":"user"}`,
	`{"typ\u00e9":"x"}`,
	// duplicate keys merge
	`{"message":{"role":"user","content":"a"},"message":{"model":"m"}}`,
	`{"message":{"content":[{"type":"text","text":"x"}]},"message":{"content":"s"}}`,
	`{"message":{"content":"s"},"message":{"content":[{"type":"text","text":"x"}]}}`,
	`{"message":{"content":"s"},"message":{"content":null}}`,
	`{"message":{"role":"user"},"message":null}`,
	`{"message":{"role":"user","model":"m"},"message":null,"message":{"stop_reason":"x"}}`,
	`{"message":{"role":"user"},"message":{"model":"m"}}`,
	`{"message":"str"}`, `{"message":[1,2]}`, `{"message":5}`, `{"message":true}`, `{"message":null}`,
	// content shapes
	`{"content":"top"}`, `{"content":{"a":1}}`, `{"content":7}`, `{"content":[]}`, `{"content":[null,1,"bare",[],{}]}`,
	`{"message":{"content":[{"type":"tool_use","id":"t1","name":"Agent","input":{"prompt":"p","run_in_background":true,"subagent_type":5}},{"type":"tool_use","input":"notobject"},{"type":"tool_use","input":null}]}}`,
	`{"message":{"content":[{"type":"tool_use","input":{"command":"a"},"input":{"description":"b"}}]}}`,
	`{"message":{"content":[{"type":"tool_use","input":{"command":"a"},"input":7}]}}`,
	`{"message":{"content":[{"type":"tool_result","tool_use_id":"t1","is_error":"yes","content":[{"type":"text","text":"a"},{"type":"image","source":{"data":"QUJD"}}]}]}}`,
	`{"message":{"content":[{"type":"tool_result","content":[{"type":"tool_result","content":[{"type":"text","text":"deep"}]}]}]}}`,
	// toolUseResult shapes
	`{"toolUseResult":"Error: rejected"}`, `{"toolUseResult":null}`, `{"toolUseResult":5}`, `{"toolUseResult":[1]}`,
	`{"toolUseResult":{"status":"completed","agentId":"a1","isAsync":true,"runId":7,"taskId":null,"backgroundTaskId":{"x":1},"interrupted":"no","stdout":"big"}}`,
	`{"toolUseResult":"s","toolUseResult":{"status":"x"}}`,
	`{"toolUseResult":{"status":"x"},"toolUseResult":"s"}`,
	`{"toolUseResult":{"status":"x"},"toolUseResult":{"agentId":"y"}}`,
	`{"toolUseResult":{"status":"x","status":null,"agentId":1e2}}`,
	// origin and data
	`{"origin":"x","data":[1]}`, `{"origin":{"kind":"task-notification"},"data":{"type":"agent_progress","agentId":"a","message":{"x":[1,2,{"y":null}]}}}`,
	`{"data":{"type":"a"},"data":{"agentId":"b"}}`,
	// escapes, surrogates, invalid UTF-8
	`{"type":"a\"b\\c\/d\b\f\n\r\te"}`,
	`{"type":"\u00e9\u4e2d\uD83D\uDE00"}`,
	`{"type":"\uD83D"}`, `{"type":"\uDE00"}`, `{"type":"\uD83Dx"}`, `{"type":"\uD83D\u0041"}`, `{"type":"\uDE00\uD83D"}`,
	`{"type":"\uD83D\uD83D\uDE00"}`, `{"type":"\ud83d\ude00"}`, `{"type":"\u0000"}`,
	"{\"type\":\"bad \xff\xfe utf8\"}", "{\"type\":\"trunc \xe4\xb8\"}", "{\"cwd\":\"ok \xe4\xb8\xad\"}",
	"{\"other\":\"\xff\",\"type\":\"\xc3\xa9\"}", "{\"other\":\"\xc3\xa9\",\"type\":\"x\"}",
	"{\"\xff\":1}", "{\"type\":\"\xed\xa0\x80\"}",
	`{"type":"long ascii string that runs past eight bytes several times over, with a \"quote\" inside"}`,
	// invalid JSON: must be rejected as encoding/json rejects it
	`{`, `{"type"}`, `{"type":}`, `{"type":"a",}`, `{,"type":"a"}`, `{"type":"a" "b":1}`, `{"type":'a'}`,
	`{"type":"a"}x`, `{"type":"a"}}`, `{"a":[1,]}`, `{"a":[,1]}`, `{"a":[1 2]}`, `{"a":01}`, `{"a":1.}`, `{"a":.5}`,
	`{"a":1e}`, `{"a":-}`, `{"a":+1}`, `{"a":tru}`, `{"a":nul}`, `{"a":True}`, `{"a":NaN}`, `{"a":"\x"}`,
	`{"a":"\u12"}`, `{"a":"\u12g4"}`, `{"a":"\'"}`, "{\"a\":\"tab\there\"}", "{\"a\":\"nl\nhere\"}",
	"{\"a\":\"\x7f del is fine\"}", `{"a":"unterminated`, `{"a":"ends with backslash\`, `{"a":1}` + "\x0b",
	"{\"a\":1,\v\"b\":2}", `{"a":{"b":}}`, `{"a":{"b":1,}}`, `{"a" :1, "b" : [ ] , "c":{ } }`,
	`{"a":[{"b":[{"c":[]}]}]}`, `{"a":-0.0e-0}`, `{"a":1E+9}`, `{"a":0.5E5}`, `{"type":"x","type":5}`,
}

func TestFastDecoderMatchesEncodingJSONOnEdgeCases(t *testing.T) {
	for _, l := range edgeLines {
		agree(t, []byte(l))
	}
	// Nesting: encoding/json accepts 10000 levels and rejects 10001.
	for _, depth := range []int{9999, 10000, 10001} {
		deep := `{"a":` + strings.Repeat("[", depth-1) + strings.Repeat("]", depth-1) + `}`
		agree(t, []byte(deep))
		var r row
		ok, _ := decodeRow([]byte(deep), &r)
		if ok != (depth <= 10000) {
			t.Errorf("depth %d: ok = %v", depth, ok)
		}
	}
}

// TestFastDecoderRejectsEveryTornLine cuts each edge case and each fixture
// line at every byte: a torn line must be rejected exactly when encoding/json
// rejects it.
func TestFastDecoderRejectsEveryTornLine(t *testing.T) {
	lines := append([]string{}, edgeLines...)
	for _, l := range fixtureLines(t, 60) {
		// Every cut of a line costs its length squared; the adversarial
		// fixtures' 40 KB rows would take minutes and add no new shape.
		if len(l) <= 8<<10 {
			lines = append(lines, string(l))
		}
	}
	for i, l := range scanLines() {
		if i%5 == 0 {
			lines = append(lines, l)
		}
	}
	for _, l := range lines {
		for cut := 1; cut < len(l); cut++ {
			agree(t, []byte(l[:cut]))
		}
	}
}

// TestFastDecoderMatchesEncodingJSONOnFixturesAndCorpus decodes every line of
// the committed fixtures and, with PMCHECK_CORPUS set, of the real corpus.
func TestFastDecoderMatchesEncodingJSONOnFixturesAndCorpus(t *testing.T) {
	n := 0
	for _, l := range fixtureLines(t, 0) {
		agree(t, l)
		n++
	}
	if n == 0 {
		t.Fatal("no fixture lines found under fixtures/runs")
	}
	root := testcorpus.Dir(t)
	if root == "" {
		t.Log("PMCHECK_CORPUS unset; corpus lines not compared")
		return
	}
	m := 0
	forEachLine(t, root, func(l []byte) { agree(t, l); m++ })
	if m == 0 {
		t.Fatalf("no lines under %s", root)
	}
	t.Logf("%d fixture lines and %d corpus lines agree", n, m)
}

// fixtureLines returns up to max lines (0: all) of the committed fixtures.
func fixtureLines(t testing.TB, max int) [][]byte {
	var out [][]byte
	forEachLine(t, filepath.Join("..", "..", "fixtures", "runs"), func(l []byte) {
		if max == 0 || len(out) < max {
			out = append(out, append([]byte(nil), l...))
		}
	})
	return out
}

func forEachLine(t testing.TB, root string, fn func([]byte)) {
	t.Helper()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".jsonl") {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		br := bufio.NewReaderSize(f, 1<<20)
		for {
			l, err := br.ReadBytes('\n')
			if len(l) > 0 {
				fn(bytes.TrimRight(l, "\r\n"))
			}
			if err != nil {
				return nil
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
}

// FuzzFastDecoder checks the fast decoder against encoding/json on arbitrary
// lines: go test ./analyze/transcript -run '^$' -fuzz FuzzFastDecoder -fuzztime 60s
func FuzzFastDecoder(f *testing.F) {
	for _, l := range edgeLines {
		f.Add([]byte(l))
	}
	for _, l := range probeLines() {
		f.Add([]byte(l))
	}
	for i, l := range scanLines() {
		if i%7 == 0 { // a sample: every piece, most offsets
			f.Add([]byte(l))
		}
	}
	for _, l := range fixtureLines(f, 100) {
		f.Add(l)
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		agree(t, line)
	})
}

// TestReaderAcceptsWhatEncodingJSONAccepts runs whole lines through Read, so
// the reader's use of decodeRow (valid, badUTF8) is covered too.
func TestReaderAcceptsWhatEncodingJSONAccepts(t *testing.T) {
	var b strings.Builder
	want := 0
	wantUTF8 := 0
	for _, l := range edgeLines {
		b.WriteString(l)
		b.WriteString("\n")
		data := bytes.TrimSpace([]byte(l))
		var r row
		if len(data) > 0 && data[0] == '{' && decodeRowReference(data, &r) {
			want++
			if !utf8.Valid(data) {
				wantUTF8++
			}
		}
	}
	tr, err := Read(strings.NewReader(b.String()), "edge.jsonl", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Rows != want {
		t.Errorf("rows = %d, want %d (as encoding/json accepts)", tr.Rows, want)
	}
	gotUTF8 := 0
	for _, m := range tr.Malformed {
		if strings.HasPrefix(m.Reason, "invalid UTF-8") {
			gotUTF8++
		}
	}
	if gotUTF8 != wantUTF8 {
		t.Errorf("invalid UTF-8 rows = %d, want %d", gotUTF8, wantUTF8)
	}
}

// scanLines are strings whose stops (quotes, escapes, control characters,
// bytes >= 0x80) sit at every offset from a word boundary, in a field the
// decoder skips, one it decodes, a key and a tool result's text, so every
// path of the word-at-a-time string scan (jsonscan.StringEnd) meets every
// alignment.
func scanLines() []string {
	pieces := []string{
		`\n`, `\"`, `\\`, `\/`, `\u00e9`, `\uD83D\uDE00`, `\uD83D`, `\uDE00x`, `\u0041`, `\t\r\b\f`,
		"\x01", "\x1f", "\x7f", "\xff", "\xe4\xb8", "\xe4\xb8\xad", "\xc3\xa9", "\xed\xa0\x80",
		`"`, `\x`, `\u12`, `\u12g4`, `\`, " ", "#", "]", "!", "\\\"\\\\",
	}
	var out []string
	for _, p := range pieces {
		for off := 0; off <= 24; off++ {
			body := strings.Repeat("a", off) + p + strings.Repeat("b", 24-off%9)
			out = append(out,
				`{"skipped":"`+body+`","type":"x"}`,
				`{"type":"`+body+`"}`,
				`{"`+body+`":1,"type":"x"}`,
				`{"message":{"content":[{"type":"tool_result","content":"`+body+`"}]}}`,
				`{"type":"`+body)
		}
	}
	return out
}

func TestFastDecoderMatchesEncodingJSONAtEveryOffset(t *testing.T) {
	for _, l := range scanLines() {
		agree(t, []byte(l))
	}
}

// probeLines put the probes' needles in tool results: plain, escaped, split
// over text blocks, in blocks that are not text, and in duplicate keys. The
// partial-output notice is spelled only at run time.
func probeLines() []string {
	notice, _ := json.Marshal(harness.PartialNotice())
	n := string(notice[1 : len(notice)-1])
	escaped := `\u0050` + n[1:] // its first letter as an escape
	half := len(n) / 2
	var out []string
	for _, text := range []string{
		n, "before " + n + " after", escaped, n[:half] + `\n` + n[half:],
		`agentId: a1`, `done\nagentId: a2\n`, `agent\u0049d: a3`, `agentId`, `agentId\n:`,
	} {
		out = append(out,
			`{"type":"user","message":{"content":[{"type":"tool_result","content":"`+text+`"}]}}`,
			`{"type":"user","message":{"content":[{"type":"tool_result","content":[{"type":"text","text":"`+text+`"},{"type":"text","text":"x"}]}]}}`,
			`{"type":"user","message":{"content":[{"type":"tool_result","content":[{"type":"image","text":"`+text+`"}]}]}}`,
			`{"type":"user","message":{"content":[{"type":"tool_result","content":[{"text":"`+text+`","type":"text"}]}]}}`,
			`{"type":"user","message":{"content":[{"type":"tool_result","content":"`+text+`","content":[{"type":"text","text":"y"}]}]}}`,
			`{"type":"user","message":{"content":[{"type":"tool_result","content":[{"type":"text","text":"y"}],"content":"`+text+`"}]}}`,
			`{"type":"user","message":{"content":[{"type":"tool_result","content":"`+text+`","content":null}]}}`,
			`{"type":"queue-operation","content":"`+text+`"}`,
		)
	}
	// A needle cut between two text blocks is not in either, nor in the
	// joined text (the join adds a newline).
	out = append(out, `{"message":{"content":[{"type":"tool_result","content":[{"type":"text","text":"`+n[:half]+`"},{"type":"text","text":"`+n[half:]+`"}]}]}}`,
		`{"message":{"content":[{"type":"tool_result","content":[{"type":"text","text":"agent"},{"type":"text","text":"Id: a4"}]}]}}`)
	return out
}

func TestFastDecoderProbesMatchEncodingJSON(t *testing.T) {
	found := 0
	for _, l := range probeLines() {
		agree(t, []byte(l))
		var r row
		decodeRow([]byte(l), &r)
		if r.Message != nil && len(r.Message.Content.blocks) > 0 && r.Message.Content.blocks[0].Content.probes != 0 {
			found++
		}
	}
	if found == 0 {
		t.Fatal("no probe answered yes: the lines do not test them")
	}
}

// TestProbeNeedlesHaveNoNewline: contentProbes answers for a content's
// joined text part by part, which is exact only while no needle holds the
// newline the join adds.
func TestProbeNeedlesHaveNoNewline(t *testing.T) {
	for _, n := range []string{harness.PartialNotice(), agentIDProbe} {
		if strings.Contains(n, "\n") {
			t.Errorf("probe needle %q holds a newline", n)
		}
	}
}

// TestContainsAtIsContains compares containsAt with strings.Contains on
// every string of up to 7 letters over a small alphabet, for needles that
// overlap themselves and for every anchor position.
func TestContainsAtIsContains(t *testing.T) {
	needles := []string{"aab", "aba", "ab", "b", "abab"}
	var all []string
	var grow func(s string)
	grow = func(s string) {
		all = append(all, s)
		if len(s) < 7 {
			for _, c := range "abc" {
				grow(s + string(c))
			}
		}
	}
	grow("")
	for _, n := range needles {
		for k := range len(n) {
			for _, s := range all {
				if got, want := containsAt(s, n, k), strings.Contains(s, n); got != want {
					t.Fatalf("containsAt(%q, %q, %d) = %v, strings.Contains = %v", s, n, k, got, want)
				}
			}
		}
	}
}
