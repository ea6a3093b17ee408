package rules

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pmcheck/pmcheck/analyze/model"
)

func mustParse(t *testing.T, src string) *Pack {
	t.Helper()
	p, err := Parse("t.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestFingerprintIgnoresLinesTimesAndWording: moving a fact down the file,
// changing its time, re-levelling or rewording the rule keeps the fingerprint;
// another run, rule or fact changes it.
func TestFingerprintIgnoresLinesTimesAndWording(t *testing.T) {
	p := mustParse(t, validRule)
	s := killedSubagent()
	base, err := Evaluate(p, []model.Facts{{Run: session("s1"), Subagents: []model.SubagentFact{s}}})
	if err != nil || len(base) != 1 {
		t.Fatalf("%v %v", base, err)
	}
	moved := s
	moved.At = at("s1.jsonl", 900)
	moved.Time = t0.Add(time.Hour)
	reworded := mustParse(t, strings.Replace(strings.Replace(validRule, "m {{ description }}", "other words", 1), "severity: error", "severity: note", 1))
	got, _ := Evaluate(reworded, []model.Facts{{Run: session("s1"), Subagents: []model.SubagentFact{moved}}})
	if len(got) != 1 || got[0].Fingerprint != base[0].Fingerprint {
		t.Fatalf("fingerprint changed with line/time/wording: %v vs %v", got, base)
	}
	if len(base[0].Fingerprint) != 32 {
		t.Errorf("fingerprint %q is not 32 hex digits", base[0].Fingerprint)
	}
	other := s
	other.ToolUseID = "toolu_99"
	// Another file with the same session id (a resume, a copy, a hostile
	// pull request) is another run: a baseline entry of one must not
	// suppress a finding of the other.
	sameID := session("s1")
	sameID.Path = "incident.jsonl"
	for name, facts := range map[string]model.Facts{
		"other run":                           {Run: session("s2"), Subagents: []model.SubagentFact{s}},
		"other file with the same session id": {Run: sameID, Subagents: []model.SubagentFact{s}},
		"other fact":                          {Run: session("s1"), Subagents: []model.SubagentFact{other}},
	} {
		got, _ := Evaluate(p, []model.Facts{facts})
		if len(got) != 1 || got[0].Fingerprint == base[0].Fingerprint {
			t.Errorf("%s: fingerprint did not change", name)
		}
	}
	renamed := mustParse(t, strings.Replace(validRule, "id: r1", "id: r2", 1))
	got, _ = Evaluate(renamed, []model.Facts{{Run: session("s1"), Subagents: []model.SubagentFact{s}}})
	if got[0].Fingerprint == base[0].Fingerprint {
		t.Error("another rule id gave the same fingerprint")
	}
	// Pinned: a change here invalidates every user's baseline.
	if want := Fingerprint("r1", "s1.jsonl", "s1", "subagent", "toolu_01"); base[0].Fingerprint != want || want != "f649982b7ef30c94b6f2df87f6c5e235" {
		t.Errorf("fingerprint scheme changed: %s (want %s); bump the scheme version deliberately", base[0].Fingerprint, want)
	}
}

func TestEvaluateSortsAndCollapses(t *testing.T) {
	p := mustParse(t, `version: 1
rules:
  - id: b-rule
    title: B
    severity: warning
    select: [subagent, attempt]
    where: "true"
    message: "{{ agent_id }}"
  - id: a-rule
    title: A
    severity: error
    select: ship
    where: outstanding
    message: "{{ command }}"
`)
	push := func(line int) model.ShipFact {
		return model.ShipFact{Kind: "push", Tool: "Bash", Command: "git push", Branch: "main", Outstanding: true, At: at("s1.jsonl", line)}
	}
	facts := []model.Facts{
		{Run: session("s1"), Subagents: []model.SubagentFact{{ToolUseID: "t2", AgentID: "x2", At: at("s1.jsonl", 20)}, {ToolUseID: "t1", AgentID: "x1", At: at("s1.jsonl", 10)}},
			Ships: []model.ShipFact{push(30), push(5), push(40)}},
		{Run: workflow("wf1"), Attempts: []model.AttemptFact{{Key: "k", Ordinal: 1, AgentID: "w1", At: at("a.jsonl", 2)}}},
	}
	got, err := Evaluate(p, facts)
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, f := range got {
		order = append(order, f.RuleID+"@"+f.Evidence[0].File+":"+itoa(f.Evidence[0].Line))
	}
	want := "b-rule@a.jsonl:2 b-rule@s1.jsonl:10 b-rule@s1.jsonl:20 a-rule@s1.jsonl:30"
	if strings.Join(order, " ") != want {
		t.Errorf("order\n got %s\nwant %s", strings.Join(order, " "), want)
	}
	// The three identical pushes are one finding: the first in fact order,
	// with the other two as further evidence.
	for _, f := range got {
		if f.RuleID == "a-rule" && len(f.Evidence) != 3 {
			t.Errorf("collapsed push has evidence %v, want 3 locations", f.Evidence)
		}
		if f.RuleID == "b-rule" && f.RunKind == model.KindWorkflow && f.RunID != "wf1" {
			t.Errorf("run identity lost: %+v", f)
		}
	}
	again, _ := Evaluate(p, facts)
	if len(again) != len(got) {
		t.Fatal("not deterministic")
	}
	for i := range got {
		if got[i].Fingerprint != again[i].Fingerprint || got[i].Message != again[i].Message {
			t.Fatal("not deterministic")
		}
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

func TestEvaluateRuntimeErrorIsAnError(t *testing.T) {
	p := mustParse(t, strings.Replace(validRule, "where: killed", `where: paths[3] == "x"`, 1))
	_, err := Evaluate(p, []model.Facts{{Run: session("s1"), Subagents: []model.SubagentFact{killedSubagent()}}})
	var ee *EvalError
	if !errors.As(err, &ee) {
		t.Fatalf("got %v, want an *EvalError", err)
	}
	want := `t.yaml:3:5: rule "r1" failed on the subagent fact of run "s1" at s1.jsonl:3: index out of range: 3 (array length is 1)`
	if err.Error() != want+"; fix the rule's expression" {
		t.Errorf("got  %s\nwant %s; fix the rule's expression", err, want)
	}
}

func TestMessageFormatting(t *testing.T) {
	p := mustParse(t, `version: 1
rules:
  - id: fmt
    title: F
    severity: note
    select: attempt
    where: "true"
    message: "{{ silence_seconds }}|{{ silence_seconds / 4 }}|{{ paths }}|{{ time }}|{{ at }}|{{ reviewed }}|{{ ordinal }}|{{ review_evidence }}|{{ '{{' }}"
`)
	a := model.AttemptFact{SilenceSeconds: 190, Paths: []string{"a.go", "b.go"}, Time: t0.In(time.FixedZone("x", 3600)), At: at("j.jsonl", 4), Ordinal: 2}
	got, err := Evaluate(p, []model.Facts{{Run: workflow("w"), Attempts: []model.AttemptFact{a}}})
	if err != nil {
		t.Fatal(err)
	}
	want := "190|47.5|a.go, b.go|2026-05-06T09:00:00Z|j.jsonl:4|false|2||{{"
	if got[0].Message != want {
		t.Errorf("got  %s\nwant %s", got[0].Message, want)
	}
}

func TestFailing(t *testing.T) {
	fs := []Finding{{Severity: SeverityError}, {Severity: SeverityWarning}, {Severity: SeverityNote}, {Severity: SeverityError, Suppressed: true}}
	for level, want := range map[string]int{"error": 1, "warning": 2, "note": 3, "none": 0} {
		if got := Failing(fs, level); got != want {
			t.Errorf("Failing(%s) = %d, want %d", level, got, want)
		}
		if !ValidFailLevel(level) {
			t.Errorf("%s should be a valid fail level", level)
		}
	}
	if ValidFailLevel("fatal") {
		t.Error("fatal is not a fail level")
	}
}

func writeFile(t *testing.T, dir, name, data string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestBuild(t *testing.T) {
	dir := t.TempDir()
	mine := writeFile(t, dir, "mine.yaml", validRule)
	clash := writeFile(t, dir, "clash.yaml", strings.Replace(validRule, "id: r1", "id: quiet-agent", 1))
	ids := func(p *Pack) string {
		var s []string
		for _, r := range p.Rules {
			s = append(s, r.ID+"="+r.Severity)
		}
		return strings.Join(s, " ")
	}
	defaults, _ := Defaults()
	all := ids(defaults)
	for _, tc := range []struct {
		name string
		opts Options
		want string // the rules, or the error
	}{
		{"defaults", Options{}, all},
		{"replace", Options{Files: []string{mine}}, "r1=error"},
		{"extend", Options{Files: []string{"+" + mine}}, all + " r1=error"},
		{"replace and extend", Options{Files: []string{"+" + mine, clash}}, "quiet-agent=error r1=error"},
		{"disable", Options{Disable: []string{"quiet-agent", "false-done"}}, strings.Replace(strings.Replace(all, " false-done=warning", "", 1), " quiet-agent=note", "", 1)},
		{"relevel", Options{Severity: []string{"quiet-agent=error"}}, strings.Replace(all, "quiet-agent=note", "quiet-agent=error", 1)},
		{"extend with a default id", Options{Files: []string{"+" + clash}, Disable: []string{"quiet-agent"}},
			"error: " + clash + `:3:5: rule id "quiet-agent" is already defined at rules/defaults.yaml:` + itoa(defaults.Rule("quiet-agent").Pos.Line) + `:5; give your rule another id (and --disable quiet-agent to replace it)`},
		{"unknown disable", Options{Disable: []string{"quiet"}}, `error: --disable: unknown rule id "quiet"; known ids: agent-never-returned, false-done, killed-attempt-with-work, killed-subagent-not-shipped-unreviewed, killed-subagent-shipped-unreviewed, quiet-agent, runtime-counts-disagree, ship-while-killed-outstanding, subagent-open-at-end, watchdog-disagreement (see 'pmcheck rules list')`},
		{"unknown severity id", Options{Severity: []string{"r9=note"}, Files: []string{mine}}, `error: --severity: unknown rule id "r9"; known ids: r1 (see 'pmcheck rules list')`},
		{"bad severity level", Options{Severity: []string{"quiet-agent=fatal"}}, `error: --severity quiet-agent=fatal: unknown level "fatal"; expected one of "error", "note", "warning"`},
		{"severity without =", Options{Severity: []string{"quiet-agent"}}, `error: --severity "quiet-agent": write ID=LEVEL, e.g. --severity quiet-agent=warning`},
		{"plus without file", Options{Files: []string{"+"}}, `error: --rules +: a file name must follow the '+'; e.g. --rules +team-rules.yaml`},
		{"empty file name", Options{Files: []string{""}}, `error: --rules: empty file name; pass a rule file, or +FILE to extend the defaults`},
		{"everything disabled", Options{Files: []string{mine}, Disable: []string{"r1"}}, `error: no rule is left to evaluate (the rule files define none, or every rule is disabled); a check that evaluates nothing would always pass`},
		{"missing file", Options{Files: []string{filepath.Join(dir, "nope.yaml")}}, `error: cannot read rule file "` + filepath.Join(dir, "nope.yaml") + `": no such file or directory`},
	} {
		p, err := Build(tc.opts)
		got := ""
		if err != nil {
			got = "error: " + err.Error()
		} else {
			got = ids(p)
		}
		if got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}

func TestBaseline(t *testing.T) {
	fs := []Finding{
		{RuleID: "r1", RunID: "s1", Message: "one\ntwo", Fingerprint: Fingerprint("r1", "s1.jsonl", "s1", "subagent", "a"), Severity: SeverityError},
		{RuleID: "r1", RunID: "s1", Message: "three", Fingerprint: Fingerprint("r1", "s1.jsonl", "s1", "subagent", "b"), Severity: SeverityError},
	}
	var buf bytes.Buffer
	if err := WriteBaseline(&buf, fs[:1]); err != nil {
		t.Fatal(err)
	}
	want := "# pmcheck baseline: findings listed here are reported as suppressed and do not fail the check.\n" +
		"version: 1\nfindings:\n  - fingerprint: " + fs[0].Fingerprint + "\n    rule: r1\n    run: s1\n    message: one two\n"
	if buf.String() != want {
		t.Fatalf("baseline file\n got %q\nwant %q", buf.String(), want)
	}
	staleFP := Fingerprint("gone", "s1.jsonl", "s1", "run", "run")
	b, err := ParseBaseline("b.yaml", []byte(buf.String()+"  - fingerprint: "+staleFP+"\n    rule: gone\n"))
	if err != nil {
		t.Fatal(err)
	}
	stale := b.Apply(fs)
	if !fs[0].Suppressed || fs[1].Suppressed {
		t.Errorf("suppression: %+v", fs)
	}
	if Failing(fs, SeverityError) != 1 {
		t.Error("a suppressed finding still fails the check")
	}
	if len(stale) != 1 || stale[0].Stale() != `b.yaml:8:5: baseline entry `+staleFP+` (rule "gone", run "") matched no finding; remove it from the baseline` {
		t.Errorf("stale entries: %+v", stale)
	}
	var nilBaseline *Baseline
	if nilBaseline.Apply(fs) != nil {
		t.Error("a nil baseline reported stale entries")
	}
}

func TestBaselineErrors(t *testing.T) {
	fp := strings.Repeat("ab", 16)
	for _, tc := range []struct{ src, want string }{
		{"version: 1\n", `b.yaml:1:1: missing key "findings"; add a list ("findings: []" for an empty baseline)`},
		{"findings: []\n", `b.yaml:1:1: missing key "version"; a baseline starts with "version: 1"`},
		{"version: one\nfindings: []\n", `b.yaml:1:10: "version" must be an integer, got a string; write "version: 1"`},
		{"version: 3\nfindings: []\n", `b.yaml:1:10: unsupported baseline version 3; this pmcheck reads version 1`},
		{"version: 1\nfindings: {}\n", `b.yaml:2:11: "findings" must be a list, got a mapping`},
		{"version: 1\nfindings: []\nextra: 1\n", `b.yaml:3:1: unknown key "extra" in the baseline; expected one of "findings", "version"`},
		{"version: 1\nfindings:\n  - rule: r1\n", `b.yaml:3:5: a baseline entry is missing required key "fingerprint"`},
		{"version: 1\nfindings:\n  - fingerprint: xyz\n", `b.yaml:3:18: fingerprint "xyz" is not 32 lowercase hex digits; copy it from a report or regenerate the baseline`},
		{"version: 1\nfindings:\n  - fingerprint: 12\n", `b.yaml:3:18: "fingerprint" must be a string, got an integer; quote the value to make it a string`},
		{"version: 1\nfindings:\n  - fingerprint: " + fp + "\n    why: x\n", `b.yaml:4:5: unknown key "why" in a baseline entry; expected one of "fingerprint", "message", "rule", "run"`},
		{"version: 1\nfindings:\n  - fingerprint: " + fp + "\n    rule: [x]\n", `b.yaml:4:11: "rule" must be a string, got a list`},
		{"version: 1\nfindings:\n  - fingerprint: " + fp + "\n  - fingerprint: " + fp + "\n", `b.yaml:4:18: duplicate fingerprint ` + fp + `; the first is at line 3, column 5`},
		{"version: 1\nfindings:\n  - x\n", `b.yaml:3:5: a baseline entry must be a mapping, got a string`},
		{"- version: 1\n", `b.yaml:1:1: the baseline must be a mapping, got a list`},
		{"", `b.yaml:1:1: the file is empty; a baseline starts with "version: 1" and a "findings" list`},
		{"version: 1\nfindings: []\n---\nversion: 1\n", `b.yaml:3:1: a second YAML document starts here; a baseline holds one document, so remove the "---" separator`},
	} {
		_, err := ParseBaseline("b.yaml", []byte(tc.src))
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q\n got %v\nwant %s", tc.src, err, tc.want)
		}
	}
}

// TestLegacyFingerprintsStillMatch: with an Identity the fingerprint hashes
// the identity path; LegacyFingerprint is the one of the path as the facts
// carry it, and a baseline listing it still suppresses the finding, listed
// apart so that check can say how to rewrite it.
func TestLegacyFingerprintsStillMatch(t *testing.T) {
	pack, err := Build(Options{})
	if err != nil {
		t.Fatal(err)
	}
	facts := []model.Facts{{Run: model.RunFact{Kind: "session", ID: "s1", Path: "sub/s1.jsonl"},
		Subagents: []model.SubagentFact{{RunID: "s1", ToolUseID: "toolu_1", Description: "d", Outcome: "killed", Killed: true, Signature: "A"}}}}
	plain, err := Evaluate(pack, facts)
	if err != nil || len(plain) == 0 {
		t.Fatalf("no findings to compare (%v)", err)
	}
	moved, err := EvaluateWith(pack, facts, EvalOptions{Identity: func(p string) string { return "repo/" + p }, Legacy: true})
	if err != nil || len(moved) != len(plain) {
		t.Fatalf("%d findings, want %d (%v)", len(moved), len(plain), err)
	}
	if moved[0].Fingerprint == plain[0].Fingerprint || moved[0].LegacyFingerprint != plain[0].Fingerprint {
		t.Fatalf("fingerprint %s legacy %s; want a new one and the old %s", moved[0].Fingerprint, moved[0].LegacyFingerprint, plain[0].Fingerprint)
	}
	b := &Baseline{Entries: []BaselineEntry{{Fingerprint: plain[0].Fingerprint}}}
	stale, legacy := b.ApplyLegacy(moved)
	if len(stale) != 0 || len(legacy) != 1 || !moved[0].Suppressed {
		t.Errorf("stale %v legacy %v suppressed %v; want the entry matched through its legacy fingerprint", stale, legacy, moved[0].Suppressed)
	}
}
