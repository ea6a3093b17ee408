package main

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pmcheck/pmcheck/fixtures/gen"
	"github.com/pmcheck/pmcheck/report"
	"github.com/pmcheck/pmcheck/rules"
)

// ruleCase writes a scenario into a temporary folder and, when expect is
// not empty, its expect.yaml; it returns the scenario's folder.
func ruleCase(t *testing.T, scenario, expect string) string {
	t.Helper()
	root := t.TempDir()
	s, ok := gen.Lookup(scenario)
	if !ok {
		t.Fatalf("no scenario %s", scenario)
	}
	if err := s.Write(root); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, scenario)
	if expect != "" {
		if err := os.WriteFile(filepath.Join(dir, "expect.yaml"), []byte(expect), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// The findings on rule-killed-subagent-shipped-unreviewed-bad, as its generated
// expect.yaml states them.
const badSID = "50000000-0000-4000-8000-000000000001.jsonl"

// TestRulesTestReportsEveryFailureKind: missing, unexpected, wrong line,
// wrong severity and message mismatch each fail the run (exit 1) and are
// reported with file:line.
func TestRulesTestReportsEveryFailureKind(t *testing.T) {
	for _, tc := range []struct {
		name, expect string
		want         []string
	}{
		{"missing", `version: 1
findings:
  - rule: killed-subagent-shipped-unreviewed
    at: ` + badSID + `:2
  - rule: ship-while-killed-outstanding
    at: ` + badSID + `:5
  - rule: false-done
    at: ` + badSID + `:3
`, []string{"FAIL", "missing: DIR/" + badSID + ":3: false-done was not reported here (expected by DIR/expect.yaml:7:5)"}},
		{"unexpected", `version: 1
findings:
  - rule: killed-subagent-shipped-unreviewed
    at: ` + badSID + `:2
`, []string{"unexpected: DIR/" + badSID + ":5: error ship-while-killed-outstanding: push ran while killed subagents were still unreviewed"}},
		{"wrong line", `version: 1
findings:
  - rule: killed-subagent-shipped-unreviewed
    at: ` + badSID + `:2
  - rule: ship-while-killed-outstanding
    at: ` + badSID + `:6
`, []string{"wrong line: DIR/" + badSID + ":5: ship-while-killed-outstanding was reported here, expected at DIR/" + badSID + ":6 (expected by DIR/expect.yaml:5:5)"}},
		{"wrong severity", `version: 1
findings:
  - rule: killed-subagent-shipped-unreviewed
    at: ` + badSID + `:2
    severity: warning
  - rule: ship-while-killed-outstanding
    at: ` + badSID + `:5
`, []string{"wrong severity: DIR/" + badSID + ":2: killed-subagent-shipped-unreviewed is error, expected warning (expected by DIR/expect.yaml:3:5)"}},
		{"message mismatch", `version: 1
findings:
  - rule: killed-subagent-shipped-unreviewed
    at: ` + badSID + `:2
    message: 'background subagent'
  - rule: ship-while-killed-outstanding
    at: ` + badSID + `:5
`, []string{`message mismatch: DIR/` + badSID + `:2: killed-subagent-shipped-unreviewed message "sync subagent \"Refactor the billing module\"`, `does not match "background subagent" (expected by DIR/expect.yaml:3:5)`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := ruleCase(t, "rule-killed-subagent-shipped-unreviewed-bad", tc.expect)
			out, errOut, code := runRulesCLI(t, "rules", "test", dir)
			if code != ExitFindings {
				t.Fatalf("exit %d, want 1; stderr %q\n%s", code, errOut, out)
			}
			slash := filepath.ToSlash(dir)
			for _, w := range tc.want {
				if !strings.Contains(out, strings.ReplaceAll(w, "DIR", slash)) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			if strings.Count(out, "\n  ") != 1 || !strings.Contains(out, "rules test FAILED: 1 case, 0 passed, 1 failed, 0 errors") {
				t.Errorf("want exactly one failure line and the FAILED total:\n%s", out)
			}
		})
	}
}

// TestRulesTestPassesOnlyWhenACaseRan: the generated expectations pass (exit
// 0); a folder without expectations files is exit 2, never a pass.
func TestRulesTestPassesOnlyWhenACaseRan(t *testing.T) {
	s, _ := gen.Lookup("rule-killed-subagent-shipped-unreviewed-bad")
	dir := ruleCase(t, s.Name, "")
	out, errOut, code := runRulesCLI(t, "rules", "test", dir)
	if code != 0 || !strings.Contains(out, "rules test PASSED: 1 case, 1 passed") {
		t.Fatalf("exit %d, stderr %q\n%s", code, errOut, out)
	}
	empty := ruleCase(t, "session-sync-and-async", "")
	out, errOut, code = runRulesCLI(t, "rules", "test", empty)
	if code != ExitUsage || out != "" || !strings.Contains(errOut, "no expectations files found in "+empty) {
		t.Errorf("no cases: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// TestRulesTestOnTheRepositoryFixtures: the default pack's good and bad
// fixtures carry expectations, each bad one names its rule, and they pass.
func TestRulesTestOnTheRepositoryFixtures(t *testing.T) {
	pack, err := rules.Defaults()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range pack.Rules {
		for _, side := range []string{"bad", "good"} {
			s, ok := gen.Lookup("rule-" + r.ID + "-" + side)
			if !ok || s.Expect == "" {
				t.Errorf("rule-%s-%s has no expectations: set its Scenario.Expect (pmcheck rules test --update writes it)", r.ID, side)
				continue
			}
			if side == "bad" && !strings.Contains(s.Expect, "rule: "+r.ID+"\n") {
				t.Errorf("rule-%s-bad does not expect a %s finding", r.ID, r.ID)
			}
		}
	}
	wd, _ := os.Getwd()
	os.Chdir("../..")
	defer os.Chdir(wd)
	out, errOut, code := runRulesCLI(t, "rules", "test", "fixtures/runs")
	if code != 0 || !strings.Contains(out, "0 failed, 0 errors") {
		t.Errorf("exit %d, stderr %q\n%s", code, errOut, out)
	}
}

// TestRulesTestUpdate: --update makes a failing case pass, keeps run and
// rules, and changes nothing on the repository's fixtures (their
// expectations are in the form --update writes).
func TestRulesTestUpdate(t *testing.T) {
	dir := ruleCase(t, "rule-quiet-agent-bad", "version: 1\nfindings: []\n")
	if _, _, code := runRulesCLI(t, "rules", "test", dir); code != ExitFindings {
		t.Fatalf("empty expectations: exit %d, want 1", code)
	}
	_, errOut, code := runRulesCLI(t, "rules", "test", "--update", dir)
	if code != 0 || !strings.Contains(errOut, "updated ") {
		t.Fatalf("--update: exit %d, stderr %q", code, errOut)
	}
	if _, _, code := runRulesCLI(t, "rules", "test", dir); code != 0 {
		t.Errorf("after --update: exit %d, want 0", code)
	}
	s, _ := gen.Lookup("rule-quiet-agent-bad")
	noPatterns := func(s string) string {
		var keep []string
		for _, l := range strings.Split(s, "\n") {
			if !strings.HasPrefix(l, "    message: ") {
				keep = append(keep, l)
			}
		}
		return strings.Join(keep, "\n")
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "expect.yaml")); noPatterns(string(b)) != noPatterns(s.Expect) {
		t.Errorf("--update wrote another form than the scenario's:\n%s", b)
	}

	all := t.TempDir()
	if err := gen.WriteAll(all); err != nil {
		t.Fatal(err)
	}
	before := treeOf(t, all)
	if _, e, code := runRulesCLI(t, "rules", "test", "--update", all); code != 0 || e != "" {
		t.Fatalf("--update on the fixtures: exit %d, stderr %q", code, e)
	}
	after := treeOf(t, all)
	for p, b := range before {
		if string(after[p]) != string(b) {
			t.Errorf("--update changed %s: write the scenario's Expect as --update does", p)
		}
	}
}

// TestRulesTestCustomRuleBesideATranscript: a NAME.expect.yaml beside a
// transcript, with its own rule file, and JSON and JUnit results.
func TestRulesTestCustomRuleBesideATranscript(t *testing.T) {
	dir := ruleCase(t, "rule-killed-subagent-not-shipped-unreviewed-bad", "")
	os.Remove(filepath.Join(dir, "expect.yaml"))
	const sid = "50000000-0000-4000-8000-000000000015"
	rule := `version: 1
rules:
  - id: team-killed-billing
    title: Killed subagent touched billing
    severity: warning
    select: subagent
    where: killed && any(paths, hasSuffix(#, "billing.go"))
    message: subagent "{{ description }}" was killed after it touched billing
`
	os.MkdirAll(filepath.Join(dir, "rules"), 0o755)
	os.WriteFile(filepath.Join(dir, "rules", "team.yaml"), []byte(rule), 0o644)
	expect := `version: 1
rules: [rules/team.yaml]
findings:
  - rule: team-killed-billing
    at: ` + sid + `.jsonl:2
    severity: warning
    message: '^subagent "Refactor the billing module" was killed'
`
	os.WriteFile(filepath.Join(dir, sid+".expect.yaml"), []byte(expect), 0o644)
	jsonOut := filepath.Join(t.TempDir(), "r.json")
	junitOut := filepath.Join(t.TempDir(), "r.xml")
	out, errOut, code := runRulesCLI(t, "rules", "test", "-f", "text", "-f", "json="+jsonOut, "-f", "junit="+junitOut, dir)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q\n%s", code, errOut, out)
	}
	var res report.RuleTest
	b, _ := os.ReadFile(jsonOut)
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	if res.Kind != report.RuleTestKind || len(res.Cases) != 1 || res.Cases[0].Status != report.CasePass ||
		res.Cases[0].Run != filepath.ToSlash(filepath.Join(dir, sid+".jsonl")) || res.Summary.Passed != 1 {
		t.Errorf("JSON: %s", b)
	}
	var suites struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suites   []struct {
			Cases []struct {
				Name string `xml:"name,attr"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	x, _ := os.ReadFile(junitOut)
	if err := xml.Unmarshal(x, &suites); err != nil || suites.Tests != 1 || suites.Failures != 0 ||
		len(suites.Suites) != 1 || len(suites.Suites[0].Cases) != 1 || !strings.HasSuffix(suites.Suites[0].Cases[0].Name, sid+".expect.yaml") {
		t.Errorf("JUnit (%v): %s", err, x)
	}
}

// TestRulesTestJUnitFailure: one testcase per expectations file, a failing
// one carries every difference.
func TestRulesTestJUnitFailure(t *testing.T) {
	dir := ruleCase(t, "rule-killed-subagent-shipped-unreviewed-bad", "version: 1\nfindings: []\n")
	out, _, code := runRulesCLI(t, "rules", "test", "-f", "junit", dir)
	if code != ExitFindings || !strings.Contains(out, `<failure message="2 failures: unexpected: `) || strings.Count(out, "<testcase ") != 1 ||
		strings.Count(out, "unexpected: ") != 3 {
		t.Errorf("exit %d\n%s", code, out)
	}
}

// TestRulesTestCaseErrors: an expectations file that does not load, an
// unknown rule id and a missing run are errors with file:line:col (exit 2),
// reported beside the cases that ran.
func TestRulesTestCaseErrors(t *testing.T) {
	good := ruleCase(t, "rule-quiet-agent-good", "")
	for _, tc := range []struct{ expect, want string }{
		{"version: 1\nfindings:\n  - rule: quiet-agent\n    at: x.jsonl:1\n    why: because\n", `expect.yaml:5:5: unknown key "why" in an expected finding`},
		{"version: 1\nfindings:\n  - rule: quiet-agnet\n", `expect.yaml:3:11: unknown rule id "quiet-agnet"; did you mean "quiet-agent"?`},
		{"version: 1\nrun: nowhere.jsonl\nfindings: []\n", `nowhere.jsonl: no such file or directory`},
		{"version: 1\nrules: [missing.yaml]\nfindings: []\n", `missing.yaml`},
	} {
		bad := ruleCase(t, "rule-quiet-agent-bad", tc.expect)
		out, errOut, code := runRulesCLI(t, "rules", "test", good, bad)
		if code != ExitUsage || !strings.Contains(out, "ERROR "+filepath.ToSlash(bad)) || !strings.Contains(out, tc.want) ||
			!strings.Contains(out, "ok    ") || !strings.Contains(out, "1 passed, 0 failed, 1 error") {
			t.Errorf("%q: exit %d, stderr %q\n%s", tc.expect, code, errOut, out)
		}
	}
	if _, errOut, code := runRulesCLI(t, "rules", "test", "-f", "sarif", good); code != ExitUsage || !strings.Contains(errOut, "rules test writes text, json, junit") {
		t.Errorf("sarif: exit %d, %q", code, errOut)
	}
}

// TestRulesTestUnderGitHubActions: finding messages are transcript text, so
// under Actions standard output is wrapped in ::stop-commands:: and no line
// of it reads as a workflow command.
func TestRulesTestUnderGitHubActions(t *testing.T) {
	dir := ruleCase(t, "rule-killed-subagent-shipped-unreviewed-bad", "version: 1\nfindings: []\n")
	main := filepath.Join(dir, badSID)
	data, _ := os.ReadFile(main)
	attack := `Refactor the billing module\n::error file=x::fake\n  ##[add-mask]secret`
	os.WriteFile(main, []byte(strings.ReplaceAll(string(data), `"description":"Refactor the billing module"`, `"description":"`+attack+`"`)), 0o644)
	t.Setenv("GITHUB_ACTIONS", "true")
	for _, format := range []string{"text", "junit"} {
		out, _, code := runRulesCLI(t, "rules", "test", "-f", format, dir)
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		token, ok := strings.CutPrefix(lines[0], "::stop-commands::")
		if code != ExitFindings || !ok || token == "" || lines[len(lines)-1] != "::"+token+"::" {
			t.Fatalf("%s: exit %d, not wrapped in ::stop-commands:::\n%s", format, code, out)
		}
		for _, l := range lines[1 : len(lines)-1] {
			if strings.HasPrefix(strings.TrimSpace(l), "::") || strings.Contains(l, "##[") {
				t.Errorf("%s: a line reads as a workflow command: %q", format, l)
			}
		}
		if !strings.Contains(out, "fake") {
			t.Errorf("%s: the hostile message is not shown at all:\n%s", format, out)
		}
	}
}

// TestRulesTestInAWorkflowRunDirectory: evidence is placed relative to the
// expectations file even when the run's root (its parent session's folder)
// lies above it.
func TestRulesTestInAWorkflowRunDirectory(t *testing.T) {
	dir := ruleCase(t, "rule-agent-never-returned-bad", "")
	os.Remove(filepath.Join(dir, "expect.yaml"))
	wf := filepath.Join(dir, "50000000-0000-4000-8000-000000000007", "subagents", "workflows", "wf_rules0007")
	os.WriteFile(filepath.Join(wf, "expect.yaml"), []byte(`version: 1
findings:
  - rule: quiet-agent
    at: agent-aw50000000000072.jsonl:2
  - rule: agent-never-returned
    at: journal.jsonl:2
    severity: error
`), 0o644)
	if out, errOut, code := runRulesCLI(t, "rules", "test", dir); code != 0 || !strings.Contains(out, "1 passed") {
		t.Errorf("exit %d, stderr %q\n%s", code, errOut, out)
	}
}

// TestRulesTestWritesEveryOutput: rules test writes its outputs as check
// does: every file whole, text on standard output, and nothing at all when
// one format is one rules test does not write.
func TestRulesTestWritesEveryOutput(t *testing.T) {
	dir := ruleCase(t, "rule-quiet-agent-good", "")
	outDir := t.TempDir()
	js, ju := filepath.Join(outDir, "r.json"), filepath.Join(outDir, "r.xml")
	out, errOut, code := runRulesCLI(t, "rules", "test", "-f", "json="+js, "-f", "junit="+ju, "-f", "text", dir)
	if code != ExitOK || !strings.Contains(out, "1 passed, 0 failed") {
		t.Fatalf("exit %d, stderr %q\n%s", code, errOut, out)
	}
	var doc struct {
		Summary struct{ Passed int } `json:"summary"`
	}
	if data, err := os.ReadFile(js); err != nil || json.Unmarshal(data, &doc) != nil || doc.Summary.Passed != 1 {
		t.Errorf("JSON report: %v, %+v", err, doc)
	}
	if data, err := os.ReadFile(ju); err != nil || !strings.HasPrefix(string(data), "<?xml") || strings.Count(string(data), "<testcase ") != 1 {
		t.Errorf("JUnit report: %v\n%s", err, data)
	}
	other := filepath.Join(outDir, "other.json")
	if _, errOut, code := runRulesCLI(t, "rules", "test", "-f", "json="+other, "-f", "sarif", dir); code != ExitUsage || !strings.Contains(errOut, "rules test writes text, json, junit") {
		t.Errorf("sarif beside json: exit %d, %q", code, errOut)
	}
	if _, err := os.Stat(other); !os.IsNotExist(err) {
		t.Errorf("a refused run left %s behind (%v)", other, err)
	}
	if entries, _ := os.ReadDir(outDir); len(entries) != 2 {
		t.Errorf("the output folder holds %d entries, want the two reports (no temporary files)", len(entries))
	}
}
