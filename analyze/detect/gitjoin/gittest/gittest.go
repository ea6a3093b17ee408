// Package gittest builds throwaway git repositories for tests (the git join
// runs the real git, so its tests need real repositories).
package gittest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Repo is a throwaway git repository for tests.
type Repo struct {
	T   *testing.T
	Dir string
}

// NewRepo initialises a repository in a temporary directory with one commit
// on main.
func NewRepo(t *testing.T) *Repo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	r := &Repo{T: t, Dir: t.TempDir()}
	r.Git("init", "-q", "-b", "main")
	r.Write("README.md", "demo\n")
	r.Commit("initial")
	return r
}

// Git runs git in the repository with a fixed identity and clock.
func (r *Repo) Git(args ...string) string {
	r.T.Helper()
	cmd := exec.Command("git", append([]string{"-C", r.Dir, "-c", "user.name=Test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_DATE=2026-05-06T09:00:00Z", "GIT_COMMITTER_DATE=2026-05-06T09:00:00Z", "GIT_CONFIG_NOSYSTEM=1", "HOME="+r.Dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.T.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// Write writes a file (creating directories).
func (r *Repo) Write(rel, data string) {
	r.T.Helper()
	p := filepath.Join(r.Dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.T.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		r.T.Fatal(err)
	}
}

// Commit stages everything and commits with the given message; returns the id.
func (r *Repo) Commit(msg string) string {
	r.T.Helper()
	r.Git("add", "-A")
	r.Git("commit", "-q", "-m", msg)
	return strings.TrimSpace(r.Git("rev-parse", "HEAD"))
}
