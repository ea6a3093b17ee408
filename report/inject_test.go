package report

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/rules"
)

// injectionAttempts are what a subagent description, a tool output or a file
// name could carry to take over a GitHub Actions log: workflow commands after
// a newline (indented or not, after a CR, after a no-break space), legacy
// "##[" commands mid-line, bidi controls that reorder what a reviewer sees,
// a SARIF embedded link to a location of the attacker's choosing, and bare
// URLs that GitHub's markdown would turn into links.
var injectionAttempts = []string{
	"done\n::stop-commands::tok\n::error file=x::fake",
	"done\n    ::add-mask::secret",
	"done\r::warning::after a lone CR",
	"done\n\u00a0\u2003::notice::after Unicode spaces",
	"text ##[add-mask]secret and ##[group]x",
	"\u202eexe.txt\u202c isolates \u2066x\u2069 and \u202aembed\u202b\u202d",
	"see [the fix](1) and [here](2)",
	"open https://evil.example/x or www.evil.example or HTTP://EVIL.example",
}

// fixtureInjection is a Document whose messages, run path and evidence file
// carry every injection attempt.
func fixtureInjection(t testing.TB) *Document {
	path := "runs/a\n::error::path.jsonl"
	var fs []rules.Finding
	for i, m := range injectionAttempts {
		fs = append(fs, rules.Finding{
			RuleID: "PM001", Severity: "error", RunID: "s1", RunKind: "session", RunPath: path, Message: m,
			Evidence:    []model.Evidence{at(path, i+1, 1), at("runs/##[add-mask]b.jsonl", 2, 2)},
			Fingerprint: "fp" + string(rune('a'+i)),
		})
	}
	return mustNew(t, Input{
		Tool: testTool, Rules: testRules(),
		Runs:     []RunSummary{{Kind: "session", ID: "s1", Path: path}},
		Findings: fs,
		Inputs:   Inputs{Problems: []Problem{{File: path, Line: 1, Message: "bad\n::error::problem ##[x]"}}},
	})
}

// TestInjectionIntoTheCILog (issue 12, item 10): no human format lets
// transcript text start a workflow command, carry a legacy "##[" command or a
// bidi control; SARIF messages forge no related-location link; the job
// summary autolinks no bare URL.
func TestInjectionIntoTheCILog(t *testing.T) {
	doc := fixtureInjection(t)
	for _, format := range []string{FormatText, FormatMarkdown, FormatJUnit, FormatGitHub, FormatSARIF} {
		out := render(t, doc, format, Options{})
		// The runner splits lines at CR as well as LF.
		for _, line := range strings.FieldsFunc(string(out), func(r rune) bool { return r == '\n' || r == '\r' }) {
			trimmed := strings.TrimLeftFunc(line, unicode.IsSpace)
			if strings.HasPrefix(trimmed, "::") {
				ours := format == FormatGitHub && (strings.HasPrefix(line, "::error file=") || strings.HasPrefix(line, "::notice title="))
				if !ours {
					t.Errorf("%s: a line reads as a workflow command: %q", format, line)
				}
			}
			if strings.Contains(line, "##[") {
				t.Errorf("%s: a line carries a legacy command: %q", format, line)
			}
			if strings.ContainsFunc(line, isBidiControl) {
				t.Errorf("%s: a line carries a bidi control: %q", format, line)
			}
		}
		if format == FormatGitHub {
			if n := bytes.Count(out, []byte("\n::error file=")) + 1; n != len(injectionAttempts) {
				t.Errorf("github: %d annotations, want %d", n, len(injectionAttempts))
			}
		}
	}
	text := string(render(t, doc, FormatText, Options{}))
	if !strings.Contains(text, `done\n::stop-commands::tok\n::error file=x::fake`) {
		t.Errorf("text: a message with newlines is not shown on one line:\n%s", text)
	}
	if !strings.Contains(text, `text #\#[add-mask]secret`) {
		t.Errorf("text: ##[ is not shown neutralised:\n%s", text)
	}
	sarif := string(render(t, doc, FormatSARIF, Options{}))
	if regexp.MustCompile(`[^\\]\[(the fix|here)`).MatchString(sarif) || !strings.Contains(sarif, `\\[the fix\\](1)`) {
		t.Errorf("sarif: an embedded link survives:\n%s", sarif)
	}
	md := string(render(t, doc, FormatMarkdown, Options{}))
	if regexp.MustCompile(`(?i)(https?|ftp)://|www\.`).MatchString(md) {
		t.Errorf("markdown: a bare URL would be autolinked:\n%s", md)
	}
	if !strings.Contains(md, "https&#58;//evil.example/x") || !strings.Contains(md, "&#119;ww.evil.example") {
		t.Errorf("markdown: the URLs should still read as written:\n%s", md)
	}
}

// TestSARIFPlain: brackets are escaped, and a backslash that could escape
// the escape is doubled.
func TestSARIFPlain(t *testing.T) {
	for in, want := range map[string]string{
		"no links":   "no links",
		"[a](1)":     `\[a\](1)`,
		`\[a](1)`:    `\\\[a\](1)`,
		`a\b [c]`:    `a\b \[c\]`,
		`x\\[y](2)`:  `x\\\\\[y\](2)`,
		`path\x1b[3`: `path\x1b\[3`,
	} {
		if got := sarifPlain(in); got != want {
			t.Errorf("sarifPlain(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestStopCommandsWrapStandardOutput: under GitHub Actions every report on
// standard output except the github format's annotations is wrapped in
// ::stop-commands::TOKEN ... ::TOKEN::; with the github format on standard
// output the others are wrapped in or out of Actions; reports written to
// files never are. The token comes from the caller (tests fix it; the command
// draws it with NewStopToken, which is random).
func TestStopCommandsWrapStandardOutput(t *testing.T) {
	doc := fixtureInjection(t)
	run := func(opts Options, specs ...string) string {
		t.Helper()
		outs, err := ParseOutputs(specs)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := WriteOutputs(doc, outs, &b, opts); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	plain := run(Options{}, "text")
	if strings.HasPrefix(plain, "::stop-commands::") {
		t.Fatalf("outside Actions, text alone is not wrapped")
	}
	inActions := run(Options{InGitHubActions: true, StopToken: "T0K"}, "text")
	if want := "::stop-commands::T0K\n" + plain + "::T0K::\n"; inActions != want {
		t.Fatalf("under Actions, text is not wrapped:\n%s", inActions)
	}
	// One format per standard output: github alone keeps its annotations live.
	github := string(render(t, doc, FormatGitHub, Options{}))
	if got := run(Options{InGitHubActions: true, StopToken: "T0K"}, "github"); got != github {
		t.Fatalf("the annotations must not be wrapped:\n%s", got)
	}
	dir := t.TempDir()
	if out := run(Options{InGitHubActions: true, StopToken: "T0K"}, "text="+dir+"/r.txt"); out != "" {
		t.Fatalf("nothing goes to standard output: %q", out)
	}
	a, b := NewStopToken(), NewStopToken()
	if a == b || len(a) < 32 || strings.ContainsAny(a, ":\n ") {
		t.Fatalf("tokens %q and %q are not fresh random words", a, b)
	}
}

// TestMarkdownEveryPartCountsAgainstTheBudget (issue 12, item 14): not only
// the findings table but rule help, runs, input problems and stale baseline
// entries count against the job summary's budget; a 2 MiB run id or problem
// message is cut in its cell; the verdict line always ends the summary.
func TestMarkdownEveryPartCountsAgainstTheBudget(t *testing.T) {
	huge := strings.Repeat("a", 2<<20)
	var rs []Rule
	var fs []rules.Finding
	for i := range 600 {
		id := "R" + strings.Repeat("0", 4-len(itoa(i))) + itoa(i)
		rs = append(rs, Rule{ID: id, Title: "rule " + id, Severity: "error", Description: strings.Repeat("d ", 2000), Help: strings.Repeat("h ", 4000)})
		fs = append(fs, rules.Finding{RuleID: id, Severity: "error", RunID: "s1", Message: "m", Evidence: []model.Evidence{at("s.jsonl", i+1, 0)}, Fingerprint: "f" + id})
	}
	var runs []RunSummary
	var problems []Problem
	var stale []BaselineEntry
	for i := range 150 {
		runs = append(runs, RunSummary{Kind: "session", ID: huge, Path: "r" + itoa(i) + ".jsonl"})
		problems = append(problems, Problem{File: "p.jsonl", Line: i + 1, Message: huge})
		stale = append(stale, BaselineEntry{Fingerprint: "x" + itoa(i), RuleID: huge, Note: huge})
	}
	doc := mustNew(t, Input{Tool: testTool, Rules: rs, Runs: runs, Findings: fs, Inputs: Inputs{Problems: problems}, StaleBaseline: stale})
	out := render(t, doc, FormatMarkdown, Options{})
	if len(out) > markdownBudget {
		t.Fatalf("job summary is %d bytes, over its budget of %d", len(out), markdownBudget)
	}
	if !bytes.HasSuffix(out, []byte("evaluated\n")) || !bytes.Contains(out, []byte("the rest of this summary was left out")) {
		t.Errorf("a cut summary says so and ends with the verdict line")
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// TestJSONEscapesDisplayControls (issue 29, item 11): the JSON report keeps
// no raw C1 control (U+009B is a terminal's CSI), bidi control or
// non-character: each is its \u escape, as the other formats make them
// visible or drop them, and the report still decodes to the same strings.
// The escaper holds a sequence cut between two writes.
func TestJSONEscapesDisplayControls(t *testing.T) {
	evil := "csi \u009b31m red \u0085nel \u202eexe.txt\u202c \u2066x\u2069 \ufffe\uffff kept: é\u2027\u2030\u00a0\u0080"
	doc := mustNew(t, Input{
		Tool: testTool, Rules: testRules(),
		Runs: []RunSummary{{Kind: "session", ID: "s1", Path: "r/s1.jsonl"}},
		Findings: []rules.Finding{{RuleID: "PM001", Severity: "error", RunID: "s1", RunKind: "session", RunPath: "r/s1.jsonl",
			Message: evil, Evidence: []model.Evidence{at("r/\u009b\u202e.jsonl", 1, 1)}, Fingerprint: "fp"}},
		Inputs: Inputs{Problems: []Problem{{File: "r/s1.jsonl", Line: 1, Message: evil}}},
	})
	out, err := JSON(doc)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []rune{0x9b, 0x85, 0x80, 0x202e, 0x202c, 0x2066, 0x2069, 0xfffe, 0xffff} {
		if bytes.ContainsRune(out, r) {
			t.Errorf("the JSON report holds a raw U+%04X", r)
		}
	}
	for _, esc := range []string{`\u009b31m`, `\u0085nel`, `\u202eexe.txt\u202c`, `\u2066x\u2069`, `\ufffe\uffff`, "é\u2027\u2030"} {
		if !bytes.Contains(out, []byte(esc)) {
			t.Errorf("the JSON report lacks %s", esc)
		}
	}
	back, err := Decode(bytes.NewReader(out), "r.json")
	if err != nil {
		t.Fatal(err)
	}
	if back.Findings[0].Message != evil || back.Findings[0].Evidence[0].File != "r/\u009b\u202e.jsonl" {
		t.Errorf("the report does not decode to the same strings: %q", back.Findings[0].Message)
	}
	// Byte by byte through the escaper: the same bytes.
	var whole, pieces bytes.Buffer
	raw := []byte(`"` + evil + "\xe2\x80" + `"` + "\xc2")
	w := &displayEscaper{w: &whole}
	w.Write(raw)
	w.Flush()
	p := &displayEscaper{w: &pieces}
	for i := range raw {
		p.Write(raw[i : i+1])
	}
	p.Flush()
	if whole.String() != pieces.String() {
		t.Errorf("split writes: %q, whole: %q", pieces.String(), whole.String())
	}
}
