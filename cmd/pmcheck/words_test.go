package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBarePmcheckPrintsHelp (issue 31, item 6): pmcheck with no arguments
// prints the help on standard output and exits 0.
func TestBarePmcheckPrintsHelp(t *testing.T) {
	var out, errb bytes.Buffer
	code := Run(nil, strings.NewReader(""), &out, &errb)
	if code != ExitOK || !strings.Contains(out.String(), "Usage: pmcheck") || !strings.Contains(out.String(), "check") || errb.Len() != 0 {
		t.Errorf("bare pmcheck: exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errb.String())
	}
}

// TestUnreadableInputStillWritesEveryReport (issue 31, item 2): a check over
// a tree where one session's Workflow run directory is missing exits 2, as
// docs/exit-codes.md says, but writes every requested report, with the
// missing run listed first and the other run's findings after it.
func TestUnreadableInputStillWritesEveryReport(t *testing.T) {
	tree := t.TempDir()
	copyTree(t, fixture("rule-killed-subagent-shipped-unreviewed-bad"), filepath.Join(tree, "a"))
	copyTree(t, fixture("replay-launch-missing-rundir"), filepath.Join(tree, "b"))
	out := t.TempDir()
	args := []string{"check", "--format", "text"}
	for _, f := range []string{"json", "sarif", "junit", "markdown", "html"} {
		args = append(args, "--format", f+"="+filepath.Join(out, "r."+f))
	}
	code, stdout, errs := runIn(t, tree, append(args, ".")...)
	if code != ExitUsage {
		t.Fatalf("exit %d, want 2: %s", code, errs)
	}
	if !strings.HasPrefix(stdout, "error input-problem: 1 input could not be read") || !strings.Contains(stdout, "wf_gone0001") || !strings.Contains(stdout, "error killed-subagent-shipped-unreviewed") {
		t.Errorf("the text report does not list the missing run first and the findings after it:\n%s", stdout)
	}
	if !strings.Contains(errs, "pmcheck: b/") || !strings.Contains(errs, "wf_gone0001") {
		t.Errorf("stderr does not name the problem: %s", errs)
	}
	for _, f := range []string{"json", "sarif", "junit", "markdown", "html"} {
		data, err := os.ReadFile(filepath.Join(out, "r."+f))
		if err != nil || !strings.Contains(string(data), "gone0001") {
			t.Errorf("%s report not written or without the missing run (%v)", f, err)
		}
	}
}

// TestExplainSaysWhyNoFinding (issue 31, item 3): a killed subagent that
// no rule reported (it was reviewed): explain, explain --json and the HTML
// lane's tooltip name, for every rule that selects subagents, the
// conditions of its where that were false, and say that on_shipped_branch
// is unknown without --git.
func TestExplainSaysWhyNoFinding(t *testing.T) {
	const run = "fixtures/runs/rule-killed-subagent-not-shipped-unreviewed-good"
	const at = run + "/50000000-0000-4000-8000-000000000016.jsonl:2"
	code, out, errs := runIn(t, "../..", "explain", at, run)
	if code != 0 {
		t.Fatalf("explain: exit %d: %s", code, errs)
	}
	for _, want := range []string{"no rule made a finding of this fact: for each rule that selects it, what was false:",
		"killed-subagent-not-shipped-unreviewed: `!reviewed` is false",
		"`on_shipped_branch || shipped_after_kill` is false (`on_shipped_branch` is false, `shipped_after_kill` is false)",
		"on_shipped_branch is not known without --git"} {
		if !strings.Contains(out, want) {
			t.Errorf("explain lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = runIn(t, "../..", "explain", "--json", at, run)
	if code != 0 || !strings.Contains(out, `"why_not": [`) || !strings.Contains(out, `"expr": "!reviewed"`) {
		t.Errorf("explain --json has no why_not naming !reviewed:\n%s", out)
	}
	page := filepath.Join(t.TempDir(), "r.html")
	if code, _, errs := runIn(t, "../..", "check", "--format", "html="+page, run); code != 0 {
		t.Fatalf("check: exit %d: %s", code, errs)
	}
	data, _ := os.ReadFile(page)
	if !strings.Contains(string(data), "terminated-early. No finding; for each rule that selects it, what was false: ") || !strings.Contains(string(data), "killed-subagent-not-shipped-unreviewed: `!reviewed` is false.") {
		t.Errorf("the killed lane's tooltip does not say why there is no finding")
	}
}
