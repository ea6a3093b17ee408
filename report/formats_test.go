package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/rules"
)

// TestJUnitAgainstXSD validates every fixture's JUnit against the subset
// schema with xmllint. .ci/validate-reports.sh installs xmllint; a developer
// machine without it skips this test (the Go checks below still run).
func TestJUnitAgainstXSD(t *testing.T) {
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		t.Skip("xmllint not installed (apt-get install libxml2-utils); .ci/validate-reports.sh runs it")
	}
	dir := t.TempDir()
	for _, fx := range fixtures {
		for _, opts := range []Options{{}, {JUnitNoFileLine: true}} {
			name := filepath.Join(dir, fmt.Sprintf("%s-%v.xml", fx.name, opts.JUnitNoFileLine))
			if err := os.WriteFile(name, render(t, fx.build(t), FormatJUnit, opts), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(xmllint, "--noout", "--schema", "testdata/junit-subset.xsd", name).CombinedOutput()
			if err != nil {
				t.Errorf("%s: xmllint: %v\n%s", fx.name, err, out)
			}
		}
	}
	// The schema check can fail: a testcase without classname is rejected.
	bad := strings.Replace(string(render(t, fixtureMixed(t), FormatJUnit, Options{})), ` classname="PM001"`, "", 1)
	name := filepath.Join(dir, "bad.xml")
	os.WriteFile(name, []byte(bad), 0o644)
	if err := exec.Command(xmllint, "--noout", "--schema", "testdata/junit-subset.xsd", name).Run(); err == nil {
		t.Errorf("xmllint accepted a testcase without classname")
	}
}

type parsedJUnit struct {
	XMLName  xml.Name `xml:"testsuites"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Errors   int      `xml:"errors,attr"`
	Skipped  *int     `xml:"skipped,attr"`
	Suites   []struct {
		Name     string `xml:"name,attr"`
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Skipped  int    `xml:"skipped,attr"`
		Cases    []struct {
			Name      string `xml:"name,attr"`
			Classname string `xml:"classname,attr"`
			File      string `xml:"file,attr"`
			Line      string `xml:"line,attr"`
			Failure   *struct {
				Message string `xml:"message,attr"`
				Body    string `xml:",chardata"`
			} `xml:"failure"`
			Skipped   *struct{} `xml:"skipped"`
			SystemOut *string   `xml:"system-out"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func parseJUnit(t *testing.T, data []byte) parsedJUnit {
	t.Helper()
	var p parsedJUnit
	// encoding/xml's decoder rejects characters XML does not allow, so a
	// successful decode also proves well-formedness.
	if err := xml.Unmarshal(data, &p); err != nil {
		t.Fatalf("JUnit does not parse: %v", err)
	}
	return p
}

// checkJUnit asserts what the XSD cannot: the file parses, counts equal the
// elements, (classname, name) is unique, failing cases carry file and line.
func checkJUnit(data []byte, wantFileLine bool) []string {
	var errs []string
	fail := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	var p parsedJUnit
	if err := xml.Unmarshal(data, &p); err != nil {
		return []string{"JUnit does not parse: " + err.Error()}
	}
	tests, failures, skipped := 0, 0, 0
	seen := map[string]bool{}
	for _, s := range p.Suites {
		f, sk := 0, 0
		for _, c := range s.Cases {
			key := c.Classname + "\x00" + c.Name
			if seen[key] {
				fail("duplicate testcase %s / %s", c.Classname, c.Name)
			}
			seen[key] = true
			if c.Failure != nil {
				f++
				if wantFileLine && (c.File == "" || c.Line == "" || c.Line == "0") {
					fail("failing testcase %s / %s lacks file/line", c.Classname, c.Name)
				}
			}
			if c.Skipped != nil {
				sk++
			}
		}
		if s.Tests != len(s.Cases) || s.Failures != f || s.Skipped != sk {
			fail("suite %s counts tests=%d failures=%d skipped=%d, elements say %d/%d/%d", s.Name, s.Tests, s.Failures, s.Skipped, len(s.Cases), f, sk)
		}
		tests += s.Tests
		failures += s.Failures
		skipped += s.Skipped
	}
	if p.Tests != tests || p.Failures != failures || (p.Skipped != nil && *p.Skipped != skipped) {
		fail("root counts tests=%d failures=%d do not add up to the suites' %d/%d", p.Tests, p.Failures, tests, failures)
	}
	return errs
}

func TestJUnitRoundTrip(t *testing.T) {
	for _, fx := range fixtures {
		doc := fx.build(t)
		out := render(t, doc, FormatJUnit, Options{})
		if errs := checkJUnit(out, true); len(errs) > 0 {
			t.Errorf("%s: %s", fx.name, strings.Join(errs, "; "))
		}
		p := parseJUnit(t, out)
		if len(p.Suites) != len(doc.Rules) {
			t.Errorf("%s: %d suites, want one per rule (%d)", fx.name, len(p.Suites), len(doc.Rules))
		}
		if p.Skipped == nil {
			t.Errorf("%s: testsuites@skipped missing", fx.name)
		}
		for _, s := range p.Suites {
			if len(s.Cases) != len(doc.Runs) {
				t.Errorf("%s: suite %s has %d cases, want one per run (%d)", fx.name, s.Name, len(s.Cases), len(doc.Runs))
			}
		}
	}
	// The checker can fail.
	bad := strings.Replace(string(render(t, fixtureMixed(t), FormatJUnit, Options{})), `tests="2" failures="1"`, `tests="3" failures="1"`, 1)
	if errs := checkJUnit([]byte(bad), true); len(errs) == 0 {
		t.Errorf("checkJUnit accepted wrong counts")
	}
	dup := strings.Replace(string(render(t, fixtureMixed(t), FormatJUnit, Options{})), `name="agent-runs/s1/subagents/workflows/wf-7f3a" classname="PM001"`, `name="agent-runs/s1.jsonl" classname="PM001"`, 1)
	if errs := strings.Join(checkJUnit([]byte(dup), true), ";"); !strings.Contains(errs, "duplicate testcase") {
		t.Errorf("checkJUnit missed a duplicate testcase: %q", errs)
	}
}

func TestJUnitSemantics(t *testing.T) {
	p := parseJUnit(t, render(t, fixtureMixed(t), FormatJUnit, Options{}))
	find := func(rule, run string) (c *struct {
		Name      string `xml:"name,attr"`
		Classname string `xml:"classname,attr"`
		File      string `xml:"file,attr"`
		Line      string `xml:"line,attr"`
		Failure   *struct {
			Message string `xml:"message,attr"`
			Body    string `xml:",chardata"`
		} `xml:"failure"`
		Skipped   *struct{} `xml:"skipped"`
		SystemOut *string   `xml:"system-out"`
	}) {
		for i := range p.Suites {
			for j := range p.Suites[i].Cases {
				cc := &p.Suites[i].Cases[j]
				if cc.Classname == rule && cc.Name == run {
					return cc
				}
			}
		}
		t.Fatalf("no testcase %s / %s", rule, run)
		return nil
	}
	pm1 := find("PM001", "agent-runs/s1.jsonl")
	if pm1.Failure == nil || pm1.File != "agent-runs/s1.jsonl" || pm1.Line != "120" {
		t.Errorf("PM001 on s1 should fail at agent-runs/s1.jsonl:120: %+v", pm1)
	}
	if pm1 := find("PM001", "agent-runs/s1/subagents/workflows/wf-7f3a"); pm1.Failure != nil {
		t.Errorf("PM001 on the workflow run has no finding and should pass")
	}
	// Below the fail level: passes, listed in system-out.
	pm7 := find("PM007", "agent-runs/s1.jsonl")
	if pm7.Failure != nil || pm7.SystemOut == nil || !strings.Contains(*pm7.SystemOut, "below fail level error") {
		t.Errorf("a note below the fail level should pass with system-out: %+v", pm7)
	}
	// PM004 on the workflow: one open warning (below fail level) and one suppressed.
	pm4 := find("PM004", "agent-runs/s1/subagents/workflows/wf-7f3a")
	if pm4.Failure != nil || pm4.SystemOut == nil {
		t.Errorf("PM004: %+v", pm4)
	}

	// Switched off, file and line disappear (Jenkins junit-10.xsd).
	plain := string(render(t, fixtureMixed(t), FormatJUnit, Options{JUnitNoFileLine: true}))
	if strings.Contains(plain, ` file="`) || strings.Contains(plain, ` line="`) || strings.Contains(plain, ` skipped="`) && strings.Contains(plain, "<testsuites") && regexp.MustCompile(`<testsuites[^>]*skipped=`).MatchString(plain) {
		t.Errorf("JUnitNoFileLine left file/line or testsuites@skipped in place")
	}

	// A suppressed-only case is skipped.
	d := mustNew(t, Input{Tool: testTool, Rules: testRules(), Runs: testRuns(), Findings: []rules.Finding{{
		RuleID: "PM001", Severity: "error", RunID: "s1", Suppressed: true, Evidence: []model.Evidence{{File: "s1.jsonl", Line: 3}},
	}}})
	sp := parseJUnit(t, render(t, d, FormatJUnit, Options{}))
	if sp.Failures != 0 || *sp.Skipped != 1 {
		t.Errorf("suppressed finding: failures=%d skipped=%d, want 0/1", sp.Failures, *sp.Skipped)
	}
}

func TestJUnitHostileIsWellFormed(t *testing.T) {
	out := render(t, fixtureHostile(t), FormatJUnit, Options{})
	parseJUnit(t, out)
	if bytes.ContainsAny(out, "\x1b\x00") || bytes.Contains(out, []byte("<script>")) {
		t.Errorf("raw control characters or markup reached the XML")
	}
}

func TestGitHubAnnotationCaps(t *testing.T) {
	out := string(render(t, fixtureMany(t), FormatGitHub, Options{}))
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	count := map[string]int{}
	for _, l := range lines {
		cmd, _, _ := strings.Cut(strings.TrimPrefix(l, "::"), " ")
		count[cmd]++
	}
	if count["error"] != 10 || count["warning"] != 10 || count["notice"] != 1 || len(lines) != 21 {
		t.Fatalf("annotations %v in %d lines, want 10 errors, 10 warnings, 1 notice", count, len(lines))
	}
	last := lines[len(lines)-1]
	if !strings.Contains(last, "8 more findings not annotated (3 errors, 2 warnings, 3 notes)") {
		t.Errorf("notice does not count the rest: %s", last)
	}
	// Most severe first: every error before every warning.
	if !strings.HasPrefix(lines[9], "::error") || !strings.HasPrefix(lines[10], "::warning") {
		t.Errorf("errors must come before warnings")
	}
	// Clean: no output at all.
	if out := render(t, fixtureClean(t), FormatGitHub, Options{}); len(out) != 0 {
		t.Errorf("clean report printed annotations: %q", out)
	}
}

func TestGitHubAnnotationEscaping(t *testing.T) {
	out := string(render(t, fixtureHostile(t), FormatGitHub, Options{}))
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("a newline in a message split the annotation: %d lines:\n%s", len(lines), out)
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "::error ") && !strings.HasPrefix(l, "::warning ") {
			t.Errorf("unexpected line %q", l)
		}
		if strings.ContainsAny(l, "\r\x1b\x00") {
			t.Errorf("raw control character in %q", l)
		}
		props, _, ok := strings.Cut(l[2:], "::")
		if !ok {
			t.Fatalf("no message in %q", l)
		}
		// Property values carry no raw ':' or ',' beyond the separators.
		for _, kv := range strings.Split(strings.SplitN(props, " ", 2)[1], ",") {
			k, v, _ := strings.Cut(kv, "=")
			if strings.ContainsAny(v, ":,\n") {
				t.Errorf("property %s=%q is not escaped", k, v)
			}
		}
	}
	if !strings.Contains(lines[0], "file=odd dir/s 2%3Aü.jsonl,line=9") {
		t.Errorf("file property not escaped as expected: %s", lines[0])
	}
	if !strings.Contains(lines[0], "%0A::set-output") {
		t.Errorf("the injected workflow command should be inert inside the message: %s", lines[0])
	}
	if len(lines[1]) > annotationMaxMessage+200 {
		t.Errorf("long message not capped: %d bytes", len(lines[1]))
	}
}

func TestEscapeDataAndProperty(t *testing.T) {
	if got := escapeData("50%\r\nnext"); got != "50%25%0D%0Anext" {
		t.Errorf("escapeData = %q", got)
	}
	if got := escapeProperty("a:b,c%\n"); got != "a%3Ab%2Cc%25%0A" {
		t.Errorf("escapeProperty = %q", got)
	}
}

func TestMarkdownUnderBudget(t *testing.T) {
	fs := make([]rules.Finding, 20000)
	for i := range fs {
		fs[i] = rules.Finding{
			RuleID: "PM001", Severity: "error", RunID: "s1", Message: strings.Repeat("x", 3000),
			Evidence: []model.Evidence{at("s1.jsonl", i+1, i), at("s1.jsonl", i+2, i)},
		}
	}
	doc := mustNew(t, Input{Tool: testTool, Rules: testRules(), Runs: testRuns(), Findings: fs})
	out := render(t, doc, FormatMarkdown, Options{})
	if len(out) >= 1<<20 {
		t.Fatalf("job summary is %d bytes, over 1 MiB", len(out))
	}
	if !bytes.Contains(out, []byte("more findings not shown")) || !bytes.Contains(out, []byte("What to do")) {
		t.Errorf("truncated summary must say what was left out and keep the help")
	}
	if !bytes.HasSuffix(out, []byte("evaluated\n")) {
		t.Errorf("the verdict line must survive truncation")
	}
}

func TestMarkdownIsInert(t *testing.T) {
	out := string(render(t, fixtureHostile(t), FormatMarkdown, Options{}))
	for _, bad := range []string{"<script>", "\x1b", "\x00", "\r"} {
		if strings.Contains(out, bad) {
			t.Errorf("markdown summary contains %q", bad)
		}
	}
	if regexp.MustCompile(`[^\\]\]\(http`).MatchString(out) {
		t.Errorf("markdown summary contains a live link")
	}
	// Table rows keep their cell count: an unescaped | would add cells.
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "| error") || strings.HasPrefix(l, "| warning") {
			if n := strings.Count(strings.ReplaceAll(l, `\|`, ""), "|"); n != 7 {
				t.Errorf("finding row has %d separators, want 7: %s", n, l)
			}
		}
	}
}

func TestActionText(t *testing.T) {
	for help, want := range map[string]string{
		"Review it.\n\nThen record it.": "Review it.",
		"Why it matters.\n\n**What to do**\n\n1. Open the\n   evidence.\n2. Fix it.\n\n**Background**\n\nmore": "1. Open the evidence. 2. Fix it.",
		"Why.\n\n## What to do:\n\nRevert.": "Revert.",
		"":                                  "",
	} {
		if got := actionText(help); got != want {
			t.Errorf("actionText(%q) = %q, want %q", help, got, want)
		}
	}
}

// TestMarkdownEvidenceLinksEveryLocation (issue 31, item 7): the evidence
// column is never empty for a finding with evidence: every location, the
// primary one first, links to its file and line relative to the
// repository, and a file name cannot end the link or add markup.
func TestMarkdownEvidenceLinksEveryLocation(t *testing.T) {
	out := string(render(t, fixtureMixed(t), FormatMarkdown, Options{}))
	want := "| [agent-runs/s1.jsonl:210](agent-runs/s1.jsonl#L210) |\n"
	if !strings.Contains(out, "git push origin main while killed subagent toolu\\_01 was unreviewed "+want) {
		t.Errorf("the single-evidence finding's evidence cell is not a link to its line:\n%s", out)
	}
	for _, l := range strings.Split(out, "\n") {
		if (strings.HasPrefix(l, "| error") || strings.HasPrefix(l, "| warning")) && strings.HasSuffix(l, "|  |") {
			t.Errorf("a finding row with an empty evidence cell: %s", l)
		}
	}
	hostile := string(render(t, fixtureHostile(t), FormatMarkdown, Options{}))
	for _, m := range regexp.MustCompile(`(?:^|[^\\])\]\(([^)]*)\)`).FindAllStringSubmatch(hostile, -1) {
		if !regexp.MustCompile(`^[A-Za-z0-9/._%-]+(#L[0-9]+)?$`).MatchString(m[1]) {
			t.Errorf("link target %q has a character outside the safe set", m[1])
		}
	}
	if got := mdSourceLink("a b/x](y).jsonl", 3); got != `[a b/x\](y).jsonl:3](a%20b/x%5D%28y%29.jsonl#L3)` {
		t.Errorf("mdSourceLink: %s", got)
	}
	if got := mdSourceLink("/abs/x.jsonl", 3); strings.Contains(got, "](") {
		t.Errorf("an absolute path is linked: %s", got)
	}
}

// TestTextHelpIsNotRawMarkdown (issue 31, item 6): the terminal's help
// shows "What to do:" where the rule file says **What to do**.
func TestTextHelpIsNotRawMarkdown(t *testing.T) {
	if got := PlainHelp("Intro **bold** word.\n\n**What to do**\n\n## Next steps\n\n1. `x` **now**\n"); got != "Intro bold word.\n\nWhat to do:\n\nNext steps:\n\n1. `x` now\n" {
		t.Errorf("PlainHelp: %q", got)
	}
	for _, fx := range fixtures {
		out := string(render(t, fx.build(t), FormatText, Options{}))
		if strings.Contains(out, "**") {
			t.Errorf("%s: the text report has raw markdown bold:\n%s", fx.name, out)
		}
	}
}
