// Package testcorpus finds the shared corpus of real transcripts for tests.
//
// The corpus is named by PMCHECK_CORPUS. `go test ./...` runs each package in
// its own folder, so a relative value (the README's ../shared/corpus) is
// resolved against the module root, the folder that holds go.mod, and not
// against the package folder the test happens to run in.
package testcorpus

import (
	"os"
	"path/filepath"
	"testing"
)

// Env is the variable that names the corpus.
const Env = "PMCHECK_CORPUS"

// Dir returns the corpus folder, or "" when PMCHECK_CORPUS is unset. A set
// variable that names no folder is a test failure, never a silent skip.
func Dir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv(Env)
	if dir == "" {
		return ""
	}
	if !filepath.IsAbs(dir) {
		root, err := ModuleRoot()
		if err != nil {
			t.Fatalf("%s=%s is relative and the module root cannot be found: %v", Env, dir, err)
		}
		dir = filepath.Join(root, dir)
	}
	st, err := os.Stat(dir)
	if err != nil || !st.IsDir() {
		t.Fatalf("%s=%s: not a folder (%v); set it to the corpus folder, e.g. ../shared/corpus from the repository root", Env, os.Getenv(Env), err)
	}
	return dir
}

// Require is Dir that skips the test when the variable is unset.
func Require(t testing.TB) string {
	t.Helper()
	dir := Dir(t)
	if dir == "" {
		t.Skipf("%s is not set; .ci/run sets it to ../shared/corpus", Env)
	}
	return dir
}

// ModuleRoot is the nearest folder at or above the working directory that
// holds go.mod.
func ModuleRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", os.ErrNotExist
		}
	}
}

// With returns dirs followed by the corpus folder when PMCHECK_CORPUS is
// set: the roots of a test that reads the fixtures, and the corpus too
// when it is there.
func With(t testing.TB, dirs ...string) []string {
	t.Helper()
	roots := append([]string(nil), dirs...)
	if dir := Dir(t); dir != "" {
		roots = append(roots, dir)
	}
	return roots
}
