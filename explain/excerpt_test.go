package explain

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestExcerptsStreamOnlyTheWantedLines: rows are found by line number in
// one pass, a huge line is cut instead of read whole, and a missing file or
// line has no excerpt.
func TestExcerptsStreamOnlyTheWantedLines(t *testing.T) {
	dir := t.TempDir()
	f := filepath.ToSlash(filepath.Join(dir, "t.jsonl"))
	huge := `{"type":"user","message":{"role":"user","content":"` + strings.Repeat("x", 1<<20) + `"}}`
	lines := []string{
		`{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","name":"Bash","input":{"command":"git push origin main"}}]}}`,
		huge,
		`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","is_error":true,"content":"boom"}]}}`,
		`not json at all`,
		`{"type":"started","key":"k1","agentId":"a1"}`,
	}
	if err := os.WriteFile(f, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	got := Excerpts([]Loc{{f, 5}, {f, 1}, {f, 2}, {f, 3}, {f, 4}, {f, 9}, {"missing.jsonl", 1}})
	want := map[int]string{
		1: "assistant tool_use Bash: git push origin main",
		3: "user tool_result (error): boom",
		4: "raw: not json at all",
		5: "journal started key k1 agent a1",
	}
	for line, w := range want {
		if got[Loc{f, line}] != w {
			t.Errorf("line %d: %q, want %q", line, got[Loc{f, line}], w)
		}
	}
	// The huge row is cut before it is parsed: its excerpt is the raw start.
	if h := got[Loc{f, 2}]; !strings.HasPrefix(h, `raw: {"type":"user"`) || len(h) > 4*ExcerptRunes {
		t.Errorf("huge line excerpt %q", h)
	}
	if _, ok := got[Loc{f, 9}]; ok {
		t.Error("a line past the end has an excerpt")
	}
	if _, ok := got[Loc{"missing.jsonl", 1}]; ok {
		t.Error("a missing file has an excerpt")
	}
}

// TestInert: transcript text cannot colour a terminal, break a line or
// reorder what is displayed.
func TestInert(t *testing.T) {
	for in, want := range map[string]string{
		"a\x1b[31mred":    `a\x1b[31mred`,
		"two\nlines":      `two\nlines`,
		"\u202egnp.exe":   `\u202egnp.exe`,
		"iso\u2066late":   `iso\u2066late`,
		"bad\xffutf8":     `bad\xffutf8`,
		"plain ü 日本":      "plain ü 日本",
		"c1\u0085control": `c1\x85control`,
	} {
		if got := Inert(in); got != want {
			t.Errorf("Inert(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestExplainJSONEscapesDisplayControls (issue 29, item 11): explain --json
// writes C1 and bidi controls of transcript text as \u escapes, as the JSON
// report does.
func TestExplainJSONEscapesDisplayControls(t *testing.T) {
	o := &Output{Kind: Kind, Version: Version, Explanations: []Explanation{{Target: "run", Run: RunRef{ID: "s\u009b31m\u202eexe"}}}}
	b, err := JSON(o)
	if err != nil {
		t.Fatal(err)
	}
	if strings.ContainsRune(string(b), 0x9b) || strings.ContainsRune(string(b), 0x202e) || !strings.Contains(string(b), `s\u009b31m\u202eexe`) {
		t.Errorf("explain --json keeps raw controls: %s", b)
	}
}

// An execution file's message is cited by the line of its "{": its
// excerpt is made of the whole message, not of the brace.
func TestExcerptOfAnIndentedArrayElement(t *testing.T) {
	f := filepath.Join(t.TempDir(), "exec.json")
	data := "[\n  {\n    \"type\": \"assistant\",\n    \"message\": {\n      \"role\": \"assistant\",\n      \"content\": [\n        {\n          \"type\": \"text\",\n          \"text\": \"All good.\"\n        }\n      ]\n    }\n  },\n  {\n    \"type\": \"result\"\n  }\n]\n"
	if err := os.WriteFile(f, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	got := Excerpts([]Loc{{f, 2}, {f, 14}, {f, 9}})
	if e := got[Loc{f, 2}]; strings.HasPrefix(e, "raw:") || !strings.Contains(e, "All good.") {
		t.Errorf("element at line 2: %q", got[Loc{f, 2}])
	}
	if e := got[Loc{f, 14}]; !strings.Contains(e, "result") || strings.HasSuffix(e, ",") {
		t.Errorf("element at line 14: %q", got[Loc{f, 14}])
	}
}

// TestRowsKeepWhatExcerptsRead: the excerpts kept while a file is read
// (the readers give each line, trimmed, to Rows.File's function) are the
// ones Excerpts reads from the file, the huge row's cut included; a blank
// line, a line never given and a file never read have none, and a file
// read twice is found in either reading.
func TestRowsKeepWhatExcerptsRead(t *testing.T) {
	dir := t.TempDir()
	f := filepath.ToSlash(filepath.Join(dir, "t.jsonl"))
	lines := []string{
		`{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","name":"Bash","input":{"command":"git push origin main"}}]}}`,
		`  {"type":"user","message":{"role":"user","content":"` + strings.Repeat("y ", 1<<16) + `"}}  `,
		`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","is_error":true,"content":"boom \u202e\u009b"}]}}`,
		``,
		`not json at all`,
		`{"type":"queue-operation","operation":"enqueue","content":"<task-notification>x</task-notification>"}`,
		`{"type":"started","key":"k1","agentId":"a1"}`,
	}
	if err := os.WriteFile(f, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rows := NewRows()
	heads := rows.File("t.jsonl") // a first reading that stopped early
	heads(1, []byte(lines[0]))
	keep := rows.File("t.jsonl")
	for i, l := range lines[1:] {
		keep(i+2, []byte(strings.TrimSpace(l)))
	}
	var locs []Loc
	for n := 1; n <= len(lines)+1; n++ {
		locs = append(locs, Loc{f, n})
	}
	want := Excerpts(locs)
	shown := func(name string) string { return filepath.ToSlash(filepath.Join(dir, name)) }
	got := rows.Excerpts(append(locs, Loc{"other.jsonl", 1}), shown)
	for _, l := range locs {
		// A blank line (4, and 8 after the last newline) is never a row,
		// so never cited: Excerpts quotes it as "raw:", Rows keeps nothing.
		if blank := l.Line == 4 || l.Line == 8; blank {
			if ex, ok := got[l]; ok {
				t.Errorf("blank line %d kept as %q", l.Line, ex)
			}
			continue
		}
		if got[l] != want[l] || want[l] == "" {
			t.Errorf("line %d: kept %q, read %q", l.Line, got[l], want[l])
		}
	}
	if len(got) != 6 {
		t.Errorf("kept %d excerpts, want 6: %v", len(got), got)
	}
	if rows.File("run/execution.json") != nil {
		t.Error("an execution file's rows are kept, but explain never quotes them")
	}
}

// TestClipLooksOnlyAtTheStart: clip escapes only the first words of a text
// and makes exactly the excerpt it made escaping the whole text.
func TestClipLooksOnlyAtTheStart(t *testing.T) {
	whole := func(s string) string { // clip as it was: every rune escaped
		s = Inert(strings.Join(strings.Fields(s), " "))
		if utf8.RuneCountInString(s) <= ExcerptRunes {
			return s
		}
		n := 0
		for i := range s {
			if n == ExcerptRunes {
				return s[:i] + "…"
			}
			n++
		}
		return s
	}
	parts := []string{"a", "word", " ", "  ", "\t", "\n", "\r\n", "\u3000", "\u0085", "\u00a0", "\x1b[31m", "\u202e", "\u200f",
		"\xff", "\xe2", "\x80", "\xe2\x80", "\xe2\x80\xae", "ü", "日本", "\ufffe", "\x7f", "\u009b", "😀", "…"}
	rng := rand.New(rand.NewPCG(30, 30))
	cases := []string{"", " ", "plain", strings.Repeat("x", ExcerptRunes), strings.Repeat("x", ExcerptRunes+1),
		strings.Repeat("x ", ExcerptRunes), strings.Repeat("\u202e", ExcerptRunes+5), strings.Repeat("a\n", 200)}
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(160) {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		cases = append(cases, b.String())
	}
	for _, c := range cases {
		if got, want := clip(c), whole(c); got != want {
			t.Fatalf("clip(%q) = %q, want %q", c, got, want)
		}
	}
}
