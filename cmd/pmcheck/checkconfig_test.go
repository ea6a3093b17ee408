package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pmcheck/pmcheck/config"
	"github.com/pmcheck/pmcheck/report"
)

// inDir runs pmcheck in dir and returns the exit code, stdout and stderr.
func inDir(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	wd, _ := os.Getwd()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	var out, errb bytes.Buffer
	code := Run(args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// configRepo is a repository with a failing run under .agent-runs and a
// config that checks it and writes a SARIF report.
func configRepo(t *testing.T, config string) string {
	t.Helper()
	repo := t.TempDir()
	os.Mkdir(filepath.Join(repo, ".git"), 0o755)
	copyTree(t, fixture("rule-killed-subagent-shipped-unreviewed-bad"), filepath.Join(repo, ".agent-runs"))
	writeFile(t, filepath.Join(repo, ".pmcheck.yaml"), []byte(config))
	return repo
}

// TestConfigIsFoundAndFlagsOverride: `pmcheck check` with no arguments in a
// subfolder of the repository uses the config at its root (paths, outputs,
// fail level); flags override each setting.
func TestConfigIsFoundAndFlagsOverride(t *testing.T) {
	repo := configRepo(t, "paths: [.agent-runs]\nfail-level: error\noutputs: [text, sarif=out/pmcheck.sarif]\n")
	os.MkdirAll(filepath.Join(repo, "out"), 0o755)
	sub := filepath.Join(repo, "docs", "deep")
	os.MkdirAll(sub, 0o755)

	code, stdout, stderr := inDir(t, sub, "check")
	if code != ExitFindings {
		t.Fatalf("check with the config: exit %d, want 1 (%s)", code, stderr)
	}
	if !strings.Contains(stdout, "ship-while-killed-outstanding") {
		t.Fatalf("text report lacks the finding:\n%s", stdout)
	}
	if _, err := os.Stat(filepath.Join(repo, "out", "pmcheck.sarif")); err != nil {
		t.Fatalf("the config's SARIF output (relative to the config's folder) was not written: %v", err)
	}
	if code, _, stderr := inDir(t, sub, "check", "--fail-level", "none", "--format", "json=-"); code != 0 {
		t.Fatalf("--fail-level none did not override the config: exit %d (%s)", code, stderr)
	}
	if code, _, _ := inDir(t, sub, "check", "--no-config", "--allow-empty", "--format", "json=-"); code != 0 {
		t.Fatalf("--no-config still read the config (exit %d)", code)
	}
}

// TestExplainReadsTheConfig: explain applies the same .pmcheck.yaml as check:
// a rule the config disables has no finding to explain.
func TestExplainReadsTheConfig(t *testing.T) {
	repo := configRepo(t, "paths: [.agent-runs]\n")
	if code, stdout, stderr := inDir(t, repo, "explain", "killed-subagent-shipped-unreviewed"); code != 0 || !strings.Contains(stdout, "killed-subagent-shipped-unreviewed") {
		t.Fatalf("explain: exit %d (%s)\n%s", code, stderr, stdout)
	}
	writeFile(t, filepath.Join(repo, ".pmcheck.yaml"), []byte("paths: [.agent-runs]\ndisable: [killed-subagent-shipped-unreviewed]\n"))
	if code, stdout, _ := inDir(t, repo, "explain", "killed-subagent-shipped-unreviewed"); code != ExitUsage {
		t.Fatalf("explain ignored the config that disables the rule: exit %d\n%s", code, stdout)
	}
}

// TestConfigErrorsAreUsageErrors: a bad config is exit 2 with file:line:col.
func TestConfigErrorsAreUsageErrors(t *testing.T) {
	repo := configRepo(t, "paths: [.agent-runs]\nfail-levle: none\n")
	code, _, stderr := inDir(t, repo, "check")
	if code != ExitUsage || !strings.Contains(stderr, ".pmcheck.yaml:2:1: unknown key \"fail-levle\"") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
}

// TestPolicyFromIgnoresTheWorkingTreesConfig: a pull request that adds a
// config turning the check off (fail-level none, a baseline of its own) has
// no effect when the policy comes from the base branch's checkout.
func TestPolicyFromIgnoresTheWorkingTreesConfig(t *testing.T) {
	repo := configRepo(t, "paths: [.agent-runs]\nfail-level: none\ndisable: [ship-while-killed-outstanding, killed-subagent-shipped-unreviewed]\n")
	base := t.TempDir()
	writeFile(t, filepath.Join(base, ".pmcheck.yaml"), []byte("paths: [.agent-runs]\nfail-level: error\n"))

	if code, _, stderr := inDir(t, repo, "check"); code != 0 {
		t.Fatalf("the weakened config should pass on its own (exit %d, %s)", code, stderr)
	}
	code, stdout, stderr := inDir(t, repo, "check", "--policy-from", base)
	if code != ExitFindings || !strings.Contains(stdout, "killed-subagent-shipped-unreviewed") {
		t.Fatalf("--policy-from: exit %d, want 1 from the base policy (%s)\n%s", code, stderr, stdout)
	}
	// A base branch without a config: the working tree's is still not read.
	empty := t.TempDir()
	if code, _, stderr := inDir(t, repo, "check", "--policy-from", empty, ".agent-runs"); code != ExitFindings {
		t.Fatalf("--policy-from a folder without config read the working tree's config: exit %d (%s)", code, stderr)
	}
	// Relative --baseline resolves in the policy folder: the PR's own baseline is not used.
	writeFile(t, filepath.Join(repo, "pr-baseline.json"), []byte("{}"))
	if code, _, stderr := inDir(t, repo, "check", "--policy-from", base, "--baseline", "pr-baseline.json"); code != ExitUsage || !strings.Contains(stderr, filepath.Join(base, "pr-baseline.json")) {
		t.Fatalf("--baseline under --policy-from: exit %d, stderr %q", code, stderr)
	}
}

// TestAbsoluteRootOutsideTheWorkingDirectoryKeepsFullPaths: a root given as
// an absolute path outside the working directory is named in full in every
// report (text file:line, JSON evidence, a file: URI in SARIF), so the
// reader knows where the file is; render reads such a report back.
func TestAbsoluteRootOutsideTheWorkingDirectoryKeepsFullPaths(t *testing.T) {
	root := t.TempDir()
	copyTree(t, fixture("rule-killed-subagent-shipped-unreviewed-bad"), filepath.Join(root, "runs"))
	abs := filepath.ToSlash(filepath.Join(root, "runs"))
	out := t.TempDir()
	wd := t.TempDir() // neither holds the other
	code, stdout, stderr := inDir(t, wd, "check", "--format", "text", "--format", "json="+filepath.Join(out, "r.json"), "--format", "sarif="+filepath.Join(out, "r.sarif"), abs)
	if code != ExitFindings {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	session := abs + "/50000000-0000-4000-8000-000000000001.jsonl"
	if !strings.Contains(stdout, "  "+session+":5: ") {
		t.Errorf("text does not name %s:5:\n%s", session, stdout)
	}
	js, _ := os.ReadFile(filepath.Join(out, "r.json"))
	if !strings.Contains(string(js), `"file": "`+session+`"`) {
		t.Errorf("JSON evidence lost the full path")
	}
	sarif, _ := os.ReadFile(filepath.Join(out, "r.sarif"))
	if !strings.Contains(string(sarif), `"uri": "file://`+session+`"`) || strings.Contains(string(sarif), "%SRCROOT%") {
		t.Errorf("SARIF does not locate the file by a file: URI:\n%s", sarif)
	}
	if code, rendered, errs := inDir(t, wd, "render", filepath.Join(out, "r.json")); code != 0 || !strings.Contains(rendered, session+":5") {
		t.Errorf("render of the report: exit %d %s\n%s", code, errs, rendered)
	}
}

// TestConfigOutputsHTMLAndWritesItsBaseline (issue 31, item 5): a config
// whose outputs name html= writes the page, and --write-baseline to the
// config's own baseline path, which does not exist yet, writes it instead
// of failing to read it; the next check reads it.
func TestConfigOutputsHTMLAndWritesItsBaseline(t *testing.T) {
	repo := configRepo(t, "paths: [.agent-runs]\nbaseline: .pmcheck/baseline.json\noutputs: [text, html=out/r.html]\n")
	os.MkdirAll(filepath.Join(repo, "out"), 0o755)
	os.MkdirAll(filepath.Join(repo, ".pmcheck"), 0o755)
	code, _, errs := inDir(t, repo, "check", "--write-baseline", ".pmcheck/baseline.json")
	if code != 1 {
		t.Fatalf("exit %d, want 1 (findings, reported as usual): %s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(repo, "out", "r.html")); err != nil {
		t.Errorf("the config's html output was not written: %v", err)
	}
	if _, err := os.Stat(filepath.Join(repo, ".pmcheck", "baseline.json")); err != nil {
		t.Errorf("the baseline was not written: %v", err)
	}
	if code, out, errs := inDir(t, repo, "check"); code != 0 {
		t.Errorf("with the written baseline: exit %d, want 0\n%s%s", code, out, errs)
	}
}

// TestConfigOutputsAreTheReportFormats: outputs takes exactly the formats
// --format takes (config cannot import report, so it keeps its own list).
func TestConfigOutputsAreTheReportFormats(t *testing.T) {
	if !slices.Equal(config.OutputFormats, report.Formats) {
		t.Errorf("config.OutputFormats %v, report.Formats %v: keep them one list", config.OutputFormats, report.Formats)
	}
}
