package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// Test helpers shared by tests on every platform (reliability_test.go is
// unix-only).

const fixtureRuns = "../../fixtures/runs"

func fixture(name string) string { return filepath.Join(fixtureRuns, name) }

// writeFile writes a file, creating its directory.
func writeFile(t *testing.T, p string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// copyTree copies a directory tree (regular files and directories only).
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}
