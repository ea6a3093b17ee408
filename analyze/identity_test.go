package analyze

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRunIdentityIgnoresTheWorkingDirectory: the path a fingerprint hashes
// is relative to the repository (or, outside one, to the input's root),
// whatever folder pmcheck runs in and however the input is spelled.
func TestRunIdentityIgnoresTheWorkingDirectory(t *testing.T) {
	repo := t.TempDir()
	if err := os.Mkdir(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	runs := filepath.Join(repo, "a", "runs")
	if err := os.MkdirAll(runs, 0o755); err != nil {
		t.Fatal(err)
	}
	const want = "a/runs/s.jsonl"
	t.Chdir(repo)
	if got := RunIdentity("a/runs", "")("a/runs/s.jsonl"); got != want {
		t.Errorf("from the root: %q, want %q", got, want)
	}
	t.Chdir(runs)
	if got := RunIdentity(".", "")("s.jsonl"); got != want {
		t.Errorf("from the runs folder: %q, want %q", got, want)
	}
	if got := RunIdentity(".", repo)("s.jsonl"); got != want {
		t.Errorf("with the repository root given: %q, want %q", got, want)
	}
	t.Chdir(t.TempDir())
	if got := RunIdentity(runs, "")(filepath.ToSlash(runs) + "/s.jsonl"); got != want {
		t.Errorf("from elsewhere, absolute: %q, want %q", got, want)
	}
	// Outside a repository: relative to the input's root.
	plain := t.TempDir()
	if err := os.MkdirAll(filepath.Join(plain, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(plain)
	if got := RunIdentity("x", "")("x/s.jsonl"); got != "s.jsonl" {
		t.Errorf("outside a repository: %q, want s.jsonl", got)
	}
}

// TestCheckProblemsPlaceMessagesThatNameTheirFile: a refusal recorded
// without its place is placed by the file its message starts with, when
// that file exists; other messages stay unplaced.
func TestCheckProblemsPlaceMessagesThatNameTheirFile(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "s.jsonl")
	if err := os.WriteFile(f, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &Result{Errors: []string{filepath.ToSlash(f) + ":3: does not decode", "no file here: at all"}}
	ps := r.CheckProblems()
	if ps[0].At.File != filepath.ToSlash(f) || ps[0].At.Line != 3 || ps[1].At.File != "" {
		t.Errorf("placed %+v, %+v", ps[0].At, ps[1].At)
	}
}
