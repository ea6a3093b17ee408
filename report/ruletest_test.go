package report

import (
	"encoding/json"
	"encoding/xml"
	"strings"
	"testing"
)

// TestRuleTestEscapesTranscriptText: a finding message is transcript text;
// no renderer of rules test lets its control characters or newlines through.
func TestRuleTestEscapesTranscriptText(t *testing.T) {
	hostile := "done\x1b[2J\n::error file=x::forged\r\x00"
	rt := NewRuleTest([]RuleTestCase{
		{File: "a/expect.yaml", Run: "a", Status: CaseFail, Expected: 0, Found: 1, Failures: []RuleTestFailure{
			{Kind: "unexpected", Rule: "r", Got: &RuleTestFinding{At: "a/s.jsonl:3", Severity: "error", Message: hostile}},
		}},
		{File: "b/expect.yaml", Run: "b", Status: CaseError, Error: "b/expect.yaml:2:1: bad\x1b"},
		{File: "c/expect.yaml", Run: "c", Status: CasePass, Expected: 1, Found: 1},
	})
	if rt.Summary != (RuleTestTotals{Cases: 3, Passed: 1, Failed: 1, Errors: 1, Failures: 1}) {
		t.Errorf("totals %+v", rt.Summary)
	}
	text := string(RuleTestText(rt))
	if strings.ContainsAny(text, "\x1b\x00\r") || strings.Contains(text, "\n::error") {
		t.Errorf("text lets control characters through:\n%q", text)
	}
	if !strings.Contains(text, `unexpected: a/s.jsonl:3: error r: done\x1b[2J\n::error file=x::forged\r\x00`) ||
		!strings.HasSuffix(text, "rules test FAILED: 3 cases, 1 passed, 1 failed, 1 error\n") {
		t.Errorf("text:\n%s", text)
	}
	x, err := RuleTestJUnit(rt)
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Errors   int `xml:"errors,attr"`
	}
	if err := xml.Unmarshal(x, &v); err != nil || v.Tests != 3 || v.Failures != 1 || v.Errors != 1 || strings.ContainsAny(string(x), "\x1b\x00") {
		t.Errorf("JUnit (%v) %+v:\n%s", err, v, x)
	}
	j, err := RuleTestJSON(rt)
	if err != nil {
		t.Fatal(err)
	}
	var back RuleTest
	if err := json.Unmarshal(j, &back); err != nil || back.Cases[0].Failures[0].Got.Message != hostile || back.Cases[2].Failures == nil {
		t.Errorf("JSON does not round-trip the message (%v):\n%s", err, j)
	}
	pass, _ := RuleTestJSON(NewRuleTest([]RuleTestCase{{File: "x", Status: CasePass}}))
	if !strings.Contains(string(pass), `"failures": []`) {
		t.Error("a passing case's failures must be [] in JSON, not null")
	}
}
