package main

import (
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pmcheck/pmcheck/analyze/detect/gitjoin/gittest"
	"github.com/pmcheck/pmcheck/explain"
	"github.com/pmcheck/pmcheck/internal/testcorpus"
)

const explainFixture = "fixtures/runs/rule-killed-subagent-shipped-unreviewed-bad"

// explainJSON runs explain --json and decodes its output.
func explainJSON(t *testing.T, args ...string) explain.Output {
	t.Helper()
	code, out, errOut := runCLI(append([]string{"explain", "--json"}, args...)...)
	if code != ExitOK {
		t.Fatalf("explain %v: exit %d: %s", args, code, errOut)
	}
	var o explain.Output
	if err := json.Unmarshal([]byte(out), &o); err != nil {
		t.Fatalf("explain --json is not JSON: %v", err)
	}
	if o.Kind != explain.Kind || o.Version != explain.Version {
		t.Fatalf("explain --json kind %q version %d", o.Kind, o.Version)
	}
	return o
}

func fingerprintOf(t *testing.T, rule string, args ...string) string {
	t.Helper()
	o := explainJSON(t, append([]string{rule}, args...)...)
	if len(o.Explanations) != 1 || o.Explanations[0].Finding == nil {
		t.Fatalf("rule %s: %d explanations", rule, len(o.Explanations))
	}
	return o.Explanations[0].Finding.Fingerprint
}

// TestExplainFinding: a finding's chain has the rows that decided it (with
// excerpts of the rows), the review search, the ship action
// and the rule; a saved report explains the same as the inputs.
func TestExplainFinding(t *testing.T) {
	t.Chdir("../..")
	fp := fingerprintOf(t, "killed-subagent-shipped-unreviewed", explainFixture)
	x := explainJSON(t, fp, explainFixture).Explanations[0]
	if x.Target != "finding" || x.Fact == nil || x.Fact.Kind != "subagent" || x.Rule == nil || x.Rule.Where == "" {
		t.Fatalf("explanation %+v", x)
	}
	var whats []string
	for _, s := range x.Decision {
		whats = append(whats, s.What)
		if s.File == "" || s.Line == 0 || s.Time.IsZero() || s.Excerpt == "" {
			t.Errorf("step without file:line, time or excerpt: %+v", s)
		}
	}
	if !strings.HasPrefix(whats[0], "spawned") || !strings.HasPrefix(whats[len(whats)-1], "Signature A") {
		t.Errorf("decision steps %q: want the spawn first and the Signature A hit last", whats)
	}
	if x.Review == nil || x.Review.Reviewed || len(x.Review.Searched) == 0 {
		t.Errorf("review %+v", x.Review)
	}
	if x.Shipped == nil || len(x.Shipped.Ships) != 1 || x.Shipped.Ships[0].Command != "git push origin feat/rules" {
		t.Errorf("shipped %+v", x.Shipped)
	}

	// The same from a saved report, in both forms.
	saved := filepath.Join(t.TempDir(), "r.json")
	if code, _, errOut := runCLI("check", "--fail-level", "none", "--format", "json="+saved, explainFixture); code != ExitOK {
		t.Fatalf("check: %d %s", code, errOut)
	}
	for _, form := range [][]string{{}, {"--json"}} {
		_, fromInputs, _ := runCLI(append(append([]string{"explain"}, form...), fp, explainFixture)...)
		code, fromSaved, errOut := runCLI(append(append([]string{"explain"}, form...), fp, "--report", saved)...)
		if code != ExitOK || fromSaved != fromInputs {
			t.Errorf("explain %v of the saved report (exit %d, %s) differs from the inputs':\n%s\nwant\n%s", form, code, errOut, fromSaved, fromInputs)
		}
	}
}

// TestExplainTargets: FILE:LINE, a rule with --run, and a whole run.
func TestExplainTargets(t *testing.T) {
	t.Chdir("../..")
	main := explainFixture + "/50000000-0000-4000-8000-000000000001.jsonl"
	// The push row is the evidence of the ship finding.
	o := explainJSON(t, main+":5", explainFixture)
	if len(o.Explanations) != 1 || o.Explanations[0].Finding == nil || o.Explanations[0].Finding.RuleID != "ship-while-killed-outstanding" {
		t.Fatalf("FILE:LINE of a finding: %+v", o.Explanations)
	}
	// The tool result row is no finding's evidence, but two facts' reason.
	o = explainJSON(t, main+":3", explainFixture)
	if len(o.Explanations) != 1 || o.Explanations[0].Target != "fact" || len(o.Explanations[0].Findings) != 1 {
		t.Fatalf("FILE:LINE of a fact: %+v", o.Explanations)
	}
	o = explainJSON(t, "killed-subagent-shipped-unreviewed", "--run", main, explainFixture)
	if len(o.Explanations) != 1 {
		t.Fatalf("rule with --run: %d explanations", len(o.Explanations))
	}
	o = explainJSON(t, main, explainFixture)
	x := o.Explanations[0]
	if x.Target != "run" || len(x.Agents) != 1 || len(x.Kills) != 1 || len(x.Ships) != 1 || len(x.Findings) != 2 || x.Segments != 1 {
		t.Fatalf("run explanation %+v", x)
	}
}

// TestExplainBranchMatch: with --git, the chain names the branch and the
// path on it that carries the killed subagent's work.
func TestExplainBranchMatch(t *testing.T) {
	r := gittest.NewRepo(t)
	r.Git("checkout", "-q", "-b", "feat", "main")
	r.Write("disclosure.md", "fixed\n")
	r.Commit("Fix disclosure defects")
	t.Chdir("../..")
	code, out, errOut := runCLI("explain", "--git", r.Dir, "--base", "main", "--head", "feat", "killed-subagent-shipped-unreviewed", "fixtures/runs/detect-sync-killed")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"branch under check feat (main..feat) carries this work:", "    path disclosure.md", "commit trailers Reviewed-Killed-Agent naming the agent, on branch feat"} {
		if !strings.Contains(out, want) {
			t.Errorf("explain output lacks %q:\n%s", want, out)
		}
	}
}

// TestExplainErrors: what matches nothing, and reports without facts, are
// one-line usage errors that say what to give instead.
func TestExplainErrors(t *testing.T) {
	t.Chdir("../..")
	v1 := filepath.Join(t.TempDir(), "v1.json")
	saved := filepath.Join(t.TempDir(), "v2.json")
	if code, _, errOut := runCLI("check", "--fail-level", "none", "--format", "json="+saved, explainFixture); code != ExitOK {
		t.Fatalf("check: %s", errOut)
	}
	var doc map[string]any
	b, _ := os.ReadFile(saved)
	json.Unmarshal(b, &doc)
	doc["schema_version"] = 1
	delete(doc, "facts")
	delete(doc, "review")
	for _, r := range doc["rules"].([]any) {
		delete(r.(map[string]any), "select")
		delete(r.(map[string]any), "where")
	}
	for _, f := range doc["findings"].([]any) {
		delete(f.(map[string]any), "fact")
	}
	b, _ = json.Marshal(doc)
	os.WriteFile(v1, b, 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"nothing-like-this", explainFixture}, "is not a fingerprint, rule id, run or FILE:LINE"},
		{[]string{"x.jsonl:9", explainFixture}, "no finding or fact of the report has evidence at x.jsonl:9"},
		{[]string{"quiet-agent", explainFixture}, "rule quiet-agent has no finding in the report"},
		{[]string{"killed-subagent-shipped-unreviewed", "--run", "nope", explainFixture}, `--run "nope" names no run`},
		{[]string{"killed-subagent-shipped-unreviewed", "--report", v1}, "holds no facts (written by schema version 1)"},
		{[]string{"x", "--report", saved, explainFixture}, "give inputs"},
	} {
		code, _, errOut := runCLI(append([]string{"explain"}, c.args...)...)
		if code != ExitUsage || !strings.Contains(errOut, c.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("explain %v: exit %d, %q; want exit 2 and one line with %q", c.args, code, errOut, c.want)
		}
	}
}

// TestExplainCorpus: on the real transcripts, every finding and every run
// of each corpus project explains from the saved report, and the rows it
// cites carry excerpts read from the files.
func TestExplainCorpus(t *testing.T) {
	corpus := testcorpus.Require(t)
	t.Chdir(corpus)
	projects, _ := filepath.Glob("*")
	explained, excerpts := 0, 0
	for _, p := range projects {
		if st, err := os.Stat(p); err != nil || !st.IsDir() {
			continue
		}
		saved := filepath.Join(t.TempDir(), "r.json")
		if code, _, _ := runCLI("check", "--fail-level", "none", "--format", "json="+saved, p); code != ExitOK {
			continue // a project check refuses (an input error) has nothing to explain
		}
		b, _ := os.ReadFile(saved)
		var doc struct {
			Findings []struct{ Fingerprint string } `json:"findings"`
			Facts    []struct {
				Run struct{ ID, Path string } `json:"run"`
			} `json:"facts"`
		}
		json.Unmarshal(b, &doc)
		targets := []string{}
		for _, f := range doc.Findings {
			targets = append(targets, f.Fingerprint)
		}
		for _, rf := range doc.Facts {
			targets = append(targets, rf.Run.ID)
		}
		for _, target := range targets {
			code, out, errOut := runCLI("explain", "--json", target, "--report", saved)
			if code != ExitOK {
				if strings.Contains(errOut, "is not a fingerprint, rule id, run") {
					continue // a run id several runs share: explained by path instead
				}
				t.Errorf("%s: explain %s: exit %d: %s", p, target, code, errOut)
				continue
			}
			var o explain.Output
			if err := json.Unmarshal([]byte(out), &o); err != nil || len(o.Explanations) == 0 {
				t.Errorf("%s: explain %s: %v", p, target, err)
			}
			for _, x := range o.Explanations {
				for _, s := range append(x.Decision, x.Kills...) {
					if s.Excerpt != "" {
						excerpts++
					}
				}
			}
			explained++
		}
	}
	if explained == 0 || excerpts == 0 {
		t.Fatalf("explained %d targets with %d excerpts over the corpus", explained, excerpts)
	}
	t.Logf("explained %d findings and runs, %d rows with excerpts", explained, excerpts)
}

// TestExplainReportReadsOnlyItsRunsFiles (issue 29, item 10): explain
// --report re-reads rows for excerpts only from the files of the report's
// own runs under its root. A crafted report whose reasons cite a file
// outside the runs (relative with "..", absolute, a .jsonl beside the
// runs) or a symbolic link planted in a run's folder gets no excerpt of
// them; the run's own rows still get theirs.
func TestExplainReportReadsOnlyItsRunsFiles(t *testing.T) {
	src, err := filepath.Abs("../../" + explainFixture)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	t.Chdir(dir)
	copyTree(t, src, filepath.Join(dir, "runs"))
	secret := []byte(`{"type":"user","message":{"role":"user","content":"TOPSECRET in a row"}}` + "\nTOPSECRET raw\n")
	writeFile(t, filepath.Join(dir, "secret.txt"), secret)
	writeFile(t, filepath.Join(dir, "secret.jsonl"), secret)
	stem := "50000000-0000-4000-8000-000000000001"
	if err := os.Symlink(filepath.Join(dir, "secret.jsonl"), filepath.Join(dir, "runs", stem, "subagents", "agent-link.jsonl")); err != nil {
		t.Fatal(err)
	}
	saved := filepath.Join(dir, "r.json")
	if code, _, errOut := runCLI("check", "--fail-level", "none", "--format", "json="+saved, "runs"); code != ExitOK {
		t.Fatalf("check: %d %s", code, errOut)
	}
	fp := ""
	{
		o := explainJSON(t, "killed-subagent-shipped-unreviewed", "--report", saved)
		fp = o.Explanations[0].Finding.Fingerprint
	}
	data, err := os.ReadFile(saved)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	facts := doc["facts"].([]any)[0].(map[string]any)
	reasons := facts["subagents"].([]any)[0].(map[string]any)["reasons"].([]any)
	// Paths are relative to the report's root; the run's folder is where
	// its transcript is, and the secrets lie one folder up.
	runDir := path.Dir(facts["run"].(map[string]any)["path"].(string))
	up := path.Join(runDir, "..")
	forged := []string{path.Join(up, "secret.txt"), path.Join(up, "secret.jsonl"), filepath.ToSlash(filepath.Join(dir, "secret.jsonl")),
		path.Join(runDir, stem, "subagents", "agent-link.jsonl"), runDir + "/" + stem + "/../../secret.jsonl"}
	for _, f := range forged {
		reasons = append(reasons, map[string]any{"what": "forged", "at": map[string]any{"file": f, "line": 1}})
	}
	doc["facts"].([]any)[0].(map[string]any)["subagents"].([]any)[0].(map[string]any)["reasons"] = reasons
	data, _ = json.Marshal(doc)
	if err := os.WriteFile(saved, data, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI("explain", "--json", fp, "--report", saved)
	if code != ExitOK {
		t.Fatalf("explain: exit %d: %s", code, errOut)
	}
	if strings.Contains(out, "TOPSECRET") {
		t.Errorf("explain read a file outside the report's runs:\n%s", out)
	}
	var o explain.Output
	if err := json.Unmarshal([]byte(out), &o); err != nil {
		t.Fatal(err)
	}
	own, forgedSteps := 0, 0
	for _, s := range o.Explanations[0].Decision {
		switch {
		case s.What == "forged":
			forgedSteps++
			if s.Excerpt != "" {
				t.Errorf("forged step %s has an excerpt: %q", s.File, s.Excerpt)
			}
		case s.Excerpt != "":
			own++
		}
	}
	if forgedSteps != len(forged) || own == 0 {
		t.Errorf("%d forged steps (want %d), %d of the run's own with an excerpt (want some)", forgedSteps, len(forged), own)
	}
}
