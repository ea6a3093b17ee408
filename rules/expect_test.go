package rules

import (
	"bytes"
	"strings"
	"testing"
)

func TestExpectationsErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"findings: []\n", `e.yaml:1:1: missing key "version"; an expectations file starts with "version: 1"`},
		{"# nothing\n", `e.yaml:1:1: the file is empty; an expectations file starts with "version: 1" and a "findings" list`},
		{"version: 1\n", `e.yaml:1:1: missing key "findings"; list the expected findings ("findings: []" when the rules must report nothing)`},
		{"version: 2\nfindings: []\n", `e.yaml:1:10: unsupported expectations version 2; this pmcheck reads version 1`},
		{"version: 1\nfindings: []\nexpect: 1\n", `e.yaml:3:1: unknown key "expect" in the expectations file; expected one of "findings", "rules", "run", "version"`},
		{"version: 1\nfindings:\n  - rule: r1\n    line: 3\n", `e.yaml:4:5: unknown key "line" in an expected finding; expected one of "at", "message", "rule", "severity"`},
		{"version: 1\nfindings:\n  - at: a.jsonl:3\n", `e.yaml:3:5: an expected finding is missing required key "rule" (the rule id)`},
		{"version: 1\nfindings:\n  - rule: r1\n    at: a.jsonl\n", `e.yaml:4:9: "at" "a.jsonl" must be FILE:LINE, a slash-separated path relative to this file and a line number from 1, e.g. "session.jsonl:12"`},
		{"version: 1\nfindings:\n  - rule: r1\n    at: a.jsonl:0\n", `e.yaml:4:9: "at" "a.jsonl:0" must be FILE:LINE`},
		{"version: 1\nfindings:\n  - rule: r1\n    at: /abs/a.jsonl:3\n", `e.yaml:4:9: "at" "/abs/a.jsonl:3" must be FILE:LINE`},
		{"version: 1\nfindings:\n  - rule: r1\n    at: x/../a.jsonl:3\n", `e.yaml:4:9: "at" "x/../a.jsonl:3" must be FILE:LINE`},
		{"version: 1\nfindings:\n  - rule: r1\n    at: a.jsonl:3x\n", `e.yaml:4:9: "at" "a.jsonl:3x" must be FILE:LINE`},
		{"version: 1\nfindings:\n  - rule: r1\n    severity: fatal\n", `e.yaml:4:15: severity "fatal" must be error, warning or note`},
		{"version: 1\nfindings:\n  - rule: r1\n    message: 'a(b'\n", `e.yaml:4:14: "message" is not a valid regular expression (RE2): missing closing ): ` + "`a(b`"},
		{"version: 1\nfindings:\n  - rule: [r1]\n", `e.yaml:3:11: "rule" must be a string, got a list`},
		{"version: 1\nfindings: {}\n", `e.yaml:2:11: "findings" must be a list, got a mapping`},
		{"version: 1\nrules: []\nfindings: []\n", `e.yaml:2:8: "rules" is empty; name the rule files under test, or remove the key to test the default rules`},
		{"version: 1\nrules: /etc/team.yaml\nfindings: []\n", `e.yaml:2:8: rule file "/etc/team.yaml" is absolute; write it relative to the expectations file`},
		{"version: 1\nrun: a\\b.jsonl\nfindings: []\n", `e.yaml:2:6: "run" "a\\b.jsonl" contains a backslash; use slash-separated paths`},
		{"version: 1\nfindings:\n  - rule: r1\n  - rule: r1\n    at: a:1\n    bogus: 1\n", `e.yaml:6:5: unknown key "bogus"`},
		{"version: 1\nfindings: [\n", `e.yaml:2:1: invalid YAML`},
	} {
		_, err := ParseExpectations("e.yaml", []byte(tc.src))
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q\n got %v\nwant %s…", tc.src, err, tc.want)
		}
	}
}

func TestExpectationsReportsEveryProblem(t *testing.T) {
	src := "version: 1\nfindings:\n  - rule: r1\n    at: nope\n  - rule: r2\n    severity: bad\n"
	_, err := ParseExpectations("e.yaml", []byte(src))
	le, ok := err.(*LoadError)
	if !ok || len(le.Errs) != 2 || le.Errs[0].Pos.Line != 4 || le.Errs[1].Pos.Line != 6 {
		t.Fatalf("want two problems at lines 4 and 6, got %v", err)
	}
}

func TestExpectationsUnknownRuleIDs(t *testing.T) {
	pack, err := Defaults()
	if err != nil {
		t.Fatal(err)
	}
	e, err := ParseExpectations("e.yaml", []byte("version: 1\nfindings:\n  - rule: false-done\n  - rule: quiet-agnet\n    at: a.jsonl:2\n"))
	if err != nil {
		t.Fatal(err)
	}
	err = e.CheckRuleIDs(pack)
	if err == nil || !strings.HasPrefix(err.Error(), `e.yaml:4:11: unknown rule id "quiet-agnet"; did you mean "quiet-agent"? the rules under test are`) {
		t.Errorf("got %v", err)
	}
}

func TestExpectationsValid(t *testing.T) {
	src := `version: 1
run: sub/run.jsonl
rules: [+team.yaml]
findings:
  - rule: r1
    at: sub/run.jsonl:12
    severity: warning
    message: 'killed .* migration'
  - rule: r2
`
	e, err := ParseExpectations("e.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if e.Run != "sub/run.jsonl" || len(e.Rules) != 1 || e.Rules[0] != "+team.yaml" || len(e.Findings) != 2 {
		t.Fatalf("%+v", e)
	}
	x := e.Findings[0]
	if x.File != "sub/run.jsonl" || x.Line != 12 || x.Severity != "warning" || x.At() != "sub/run.jsonl:12" || x.Pos.Line != 5 {
		t.Errorf("%+v", x)
	}
	if y := e.Findings[1]; y.File != "" || y.Line != 0 || y.At() != "" {
		t.Errorf("an entry without at expects a finding without a location: %+v", y)
	}
}

// TestCompareEveryKind: each kind of difference is found, and a matching
// pair is not reported.
func TestCompareEveryKind(t *testing.T) {
	src := `version: 1
findings:
  - rule: ok
    at: a.jsonl:1
    severity: error
    message: '^fine$'
  - rule: gone
    at: a.jsonl:2
  - rule: moved
    at: a.jsonl:3
  - rule: relevelled
    at: a.jsonl:4
    severity: error
  - rule: reworded
    at: a.jsonl:5
    message: 'killed'
`
	e, err := ParseExpectations("e.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	got := []Actual{
		{Rule: "ok", Severity: "error", Message: "fine", File: "a.jsonl", Line: 1},
		{Rule: "moved", Severity: "note", Message: "m", File: "a.jsonl", Line: 30},
		{Rule: "relevelled", Severity: "warning", Message: "m", File: "a.jsonl", Line: 4},
		{Rule: "reworded", Severity: "note", Message: "stopped", File: "a.jsonl", Line: 5},
		{Rule: "extra", Severity: "note", Message: "m", File: "b.jsonl", Line: 9},
	}
	ms := Compare(e.Findings, got)
	var kinds []string
	for _, m := range ms {
		kinds = append(kinds, m.Kind+" "+m.Rule)
	}
	want := "missing gone|wrong-line moved|wrong-severity relevelled|message-mismatch reworded|unexpected extra"
	if strings.Join(kinds, "|") != want {
		t.Errorf("got  %s\nwant %s", strings.Join(kinds, "|"), want)
	}
	if ms[1].Expectation.Line != 3 || ms[1].Got.Line != 30 {
		t.Errorf("wrong-line carries both locations: %+v %+v", ms[1].Expectation, ms[1].Got)
	}
	if len(Compare(e.Findings[:1], got[:1])) != 0 {
		t.Error("a matching finding was reported")
	}
}

// TestCompareDuplicatesPairExactlyFirst: two findings at one location need
// two entries, and an exact match is never stolen by a near miss.
func TestCompareDuplicatesPairExactlyFirst(t *testing.T) {
	e, err := ParseExpectations("e.yaml", []byte("version: 1\nfindings:\n  - rule: r\n    at: a:1\n    message: second\n  - rule: r\n    at: a:1\n    message: first\n"))
	if err != nil {
		t.Fatal(err)
	}
	got := []Actual{{Rule: "r", Message: "first", File: "a", Line: 1}, {Rule: "r", Message: "second", File: "a", Line: 1}}
	if ms := Compare(e.Findings, got); len(ms) != 0 {
		t.Errorf("exact matches were missed: %+v", ms)
	}
	if ms := Compare(e.Findings[:1], got); len(ms) != 1 || ms[0].Kind != MismatchUnexpected || ms[0].Got.Message != "first" {
		t.Errorf("one entry for two findings: %+v", ms)
	}
}

// TestWriteExpectationsRoundTrips: what --update writes loads, expects
// exactly the findings, keeps run, rules and matching patterns.
func TestWriteExpectationsRoundTrips(t *testing.T) {
	old, err := ParseExpectations("e.yaml", []byte("version: 1\nrun: r.jsonl\nrules: [+t.yaml]\nfindings:\n  - rule: r\n    at: r.jsonl:2\n    message: 'was killed: yes'\n  - rule: r\n    at: r.jsonl:3\n    message: nomatch\n"))
	if err != nil {
		t.Fatal(err)
	}
	got := []Actual{
		{Rule: "r", Severity: "error", Message: `it was killed: yes "quoted" # not a comment`, File: "r.jsonl", Line: 2},
		{Rule: "r", Severity: "note", Message: "other", File: "r.jsonl", Line: 3},
		{Rule: "q", Severity: "warning", Message: "no location"},
	}
	var b bytes.Buffer
	if err := WriteExpectations(&b, old, got); err != nil {
		t.Fatal(err)
	}
	e, err := ParseExpectations("e.yaml", b.Bytes())
	if err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	if e.Run != "r.jsonl" || len(e.Rules) != 1 || len(e.Findings) != 3 {
		t.Fatalf("%s", b.String())
	}
	if e.Findings[0].Message != "was killed: yes" || e.Findings[1].Message != "" {
		t.Errorf("patterns: kept %q (want the matching one), %q (want the stale one dropped)", e.Findings[0].Message, e.Findings[1].Message)
	}
	if ms := Compare(e.Findings, got); len(ms) != 0 {
		t.Errorf("the written file does not expect exactly the findings: %+v\n%s", ms, b.String())
	}
}
