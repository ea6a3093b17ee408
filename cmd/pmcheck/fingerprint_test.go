//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fingerprintWorkspace is a repository (a .git folder) holding a run with
// two findings under agent/runs, and a baseline of them written from its
// root: the baseline every placement below must match.
func fingerprintWorkspace(t *testing.T) string {
	t.Helper()
	ws := t.TempDir()
	if err := os.Mkdir(filepath.Join(ws, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	copyTree(t, fixture("rule-killed-subagent-shipped-unreviewed-bad"), filepath.Join(ws, "agent", "runs", "killed"))
	code, _, errs := runIn(t, ws, "check", "--write-baseline", "baseline.yaml", "agent/runs")
	if code != 1 {
		t.Fatalf("writing the baseline: exit %d, want 1 (findings): %s", code, errs)
	}
	data, err := os.ReadFile(filepath.Join(ws, "baseline.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), "fingerprint:"); n < 2 {
		t.Fatalf("the baseline lists %d findings, want at least 2:\n%s", n, data)
	}
	return ws
}

// wantAllSuppressed fails unless a check exited 0 with nothing stale.
func wantAllSuppressed(t *testing.T, where string, code int, out, errs string) {
	t.Helper()
	if code != 0 || strings.Contains(out, "no longer match") || strings.Contains(out, "matched no finding") {
		t.Errorf("%s: exit %d; want 0 with every finding suppressed and no stale entry\nstdout:\n%s\nstderr:\n%s", where, code, out, errs)
	}
}

// TestBaselineMatchesFromEveryFolder (issue 31, item 1): a fingerprint
// hashes the run's path relative to the repository, never the working
// directory, so a baseline written at the root suppresses the same
// findings from a subfolder with --repo-root, from a subfolder without it,
// from another clone and from outside the repository with an absolute path.
func TestBaselineMatchesFromEveryFolder(t *testing.T) {
	ws := fingerprintWorkspace(t)
	code, out, errs := runIn(t, filepath.Join(ws, "agent"), "check", "--repo-root", "..", "--baseline", "../baseline.yaml", "runs")
	wantAllSuppressed(t, "subfolder with --repo-root", code, out, errs)
	code, out, errs = runIn(t, filepath.Join(ws, "agent", "runs"), "check", "--baseline", "../../baseline.yaml", "killed")
	wantAllSuppressed(t, "subfolder", code, out, errs)

	clone := filepath.Join(t.TempDir(), "another", "clone")
	copyTree(t, ws, clone)
	code, out, errs = runIn(t, clone, "check", "--baseline", "baseline.yaml", "agent/runs")
	wantAllSuppressed(t, "another clone", code, out, errs)
	code, out, errs = runIn(t, t.TempDir(), "check", "--baseline", filepath.Join(clone, "baseline.yaml"), filepath.Join(clone, "agent", "runs", "killed"))
	wantAllSuppressed(t, "outside the clone, absolute paths", code, out, errs)
}

// TestBaselineMatchesInTheActionWithWorkingDirectory: the action runs
// pmcheck in working-directory with --repo-root at the workspace; a
// baseline written at the repository root suppresses the findings there.
func TestBaselineMatchesInTheActionWithWorkingDirectory(t *testing.T) {
	if pmcheckBin == "" {
		t.Fatal(buildErr)
	}
	ws := fingerprintWorkspace(t)
	exit, outputs, _ := runCheckStepWith(t, ws, map[string]string{
		"working-directory": "agent", "paths": "runs", "baseline": "../baseline.yaml", "annotations": "false",
	}, 0, pmcheckBin)
	if exit != 0 || outputs["exit-code"] != "0" {
		t.Errorf("the action exited %d with exit-code=%q; want 0: the root's baseline must suppress the findings", exit, outputs["exit-code"])
	}
	sarif, err := os.ReadFile(filepath.Join(ws, "agent", outputs["sarif-file"]))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(sarif), `"uri": "agent/runs/killed/`) {
		t.Errorf("SARIF URIs are not relative to the repository root:\n%.2000s", sarif)
	}
}

// TestOlderBaselineStillMatches: a baseline written by a pmcheck whose
// fingerprints hashed the working-directory-relative path (these two were
// written from fixtures/, as issue 31 reported, before the rule rename)
// still suppresses the findings from that folder, and stderr says how to
// rewrite it.
func TestOlderBaselineStillMatches(t *testing.T) {
	// The run where it was then, in a repository: fixtures/runs/ under
	// the old rule's fixture name (the rule was renamed since; its
	// fingerprints hash its old id, unreviewed-killed-subagent).
	repo := t.TempDir()
	if err := os.Mkdir(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	copyTree(t, fixture("rule-killed-subagent-shipped-unreviewed-bad"), filepath.Join(repo, "fixtures", "runs", "rule-unreviewed-killed-subagent-bad"))
	dir := filepath.Join(repo, "fixtures")
	b := filepath.Join(t.TempDir(), "old.yaml")
	writeFile(t, b, []byte("version: 1\nfindings:\n  - fingerprint: eddeb45cb5d8ce001092b47431fb5276\n  - fingerprint: ab75c5e005adc0a855d9d1f14a9d100d\n"))
	code, out, errs := runIn(t, dir, "check", "--baseline", b, "runs/rule-unreviewed-killed-subagent-bad")
	wantAllSuppressed(t, "older baseline", code, out, errs)
	if !strings.Contains(errs, "2 of its entries use the older fingerprints") || !strings.Contains(errs, "--write-baseline "+b) {
		t.Errorf("stderr does not say the baseline uses the older fingerprints and how to rewrite it:\n%s", errs)
	}
	// Rewritten, it holds the fingerprints of the repository-relative path.
	code, _, errs = runIn(t, dir, "check", "--write-baseline", b, "runs/rule-unreviewed-killed-subagent-bad")
	if code != 1 {
		t.Fatalf("rewriting: exit %d: %s", code, errs)
	}
	data, _ := os.ReadFile(b)
	if !strings.Contains(string(data), "ea8c6b2dacf44fc70a36b8e24cbbe096") {
		t.Errorf("the rewritten baseline does not hold the repository-relative fingerprint:\n%s", data)
	}
}
