package collect

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const linkSID = "a0000000-0000-4000-8000-000000000001"

// linkProjects is a runs root with one session of /r on main and one
// subagent transcript, built at test time.
func linkProjects(t *testing.T) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "projects")
	row, _ := json.Marshal(map[string]any{"type": "user", "uuid": "u1", "sessionId": linkSID, "cwd": "/r", "gitBranch": "main",
		"timestamp": "2026-02-11T00:00:00.000Z", "message": map[string]any{"role": "user", "content": "hello"}})
	write(t, filepath.Join(root, "-r", linkSID+".jsonl"), append(row, '\n'))
	write(t, filepath.Join(root, "-r", linkSID, "subagents", "agent-a1.jsonl"), append(row, '\n'))
	return root
}

func write(t *testing.T, p string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("symbolic links: %v", err)
	}
}

// entries lists what a folder holds (nothing when it does not exist).
func entries(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && p != dir {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// TestCollectNeverWritesThroughALink (issue 29, item 16): an output folder
// that is a symbolic link, a link in the path of a relative --out, and a
// link at .agent-runs/<sessionId> or .agent-runs/<sessionId>/subagents end
// the collection with an error naming the link; nothing is written where
// any of them points. A session folder at the source that is a link is
// not followed: the collection stops, since a copy without the session's
// subagents would pass a check it should fail.
func TestCollectNeverWritesThroughALink(t *testing.T) {
	root := linkProjects(t)
	opts := func(out string) Options {
		return Options{Root: root, Cwd: "/r", Branch: "main", Out: out}
	}
	cases := []struct {
		name  string
		setup func(base, elsewhere string) string // returns --out
		wants string
	}{
		{"output folder is a link", func(base, elsewhere string) string {
			symlink(t, elsewhere, filepath.Join(base, ".agent-runs"))
			return filepath.Join(base, ".agent-runs")
		}, ".agent-runs is a symbolic link"},
		{"session folder in the output is a link", func(base, elsewhere string) string {
			symlink(t, elsewhere, filepath.Join(base, ".agent-runs", linkSID))
			return filepath.Join(base, ".agent-runs")
		}, linkSID + " is a symbolic link"},
		{"subagents folder in the output is a link", func(base, elsewhere string) string {
			symlink(t, elsewhere, filepath.Join(base, ".agent-runs", linkSID, "subagents"))
			return filepath.Join(base, ".agent-runs")
		}, "subagents is a symbolic link"},
	}
	for _, c := range cases {
		base, elsewhere := t.TempDir(), t.TempDir()
		out := c.setup(base, elsewhere)
		_, err := Run(opts(out), "test")
		if err == nil || !strings.Contains(err.Error(), c.wants) {
			t.Errorf("%s: error %v, want one saying %q", c.name, err, c.wants)
		}
		if got := entries(t, elsewhere); len(got) > 0 {
			t.Errorf("%s: collect wrote through the link: %v", c.name, got)
		}
	}

	// A relative --out under a link.
	base, elsewhere := t.TempDir(), t.TempDir()
	symlink(t, elsewhere, filepath.Join(base, "repo"))
	t.Chdir(base)
	if _, err := Run(opts(filepath.Join("repo", ".agent-runs")), "test"); err == nil || !strings.Contains(err.Error(), "repo is a symbolic link") {
		t.Errorf("relative --out under a link: error %v", err)
	}
	if got := entries(t, elsewhere); len(got) > 0 {
		t.Errorf("relative --out under a link: collect wrote through it: %v", got)
	}

	// A session folder at the source that is a link.
	src := linkProjects(t)
	away := t.TempDir()
	sessionDir := filepath.Join(src, "-r", linkSID)
	if err := os.Rename(sessionDir, filepath.Join(away, linkSID)); err != nil {
		t.Fatal(err)
	}
	symlink(t, filepath.Join(away, linkSID), sessionDir)
	out := filepath.Join(t.TempDir(), "out")
	_, err := Run(Options{Root: src, Cwd: "/r", Branch: "main", Out: out}, "test")
	if err == nil || !strings.Contains(err.Error(), "does not follow links") {
		t.Errorf("linked session folder at the source: error %v", err)
	}
	for _, p := range entries(t, out) {
		if strings.Contains(p, "agent-a1") {
			t.Errorf("linked session folder at the source was followed: %s", p)
		}
	}

	// Without links, the same collection writes the session and its subagent.
	out = filepath.Join(t.TempDir(), "out")
	m, err := Run(opts(out), "test")
	if err != nil || len(m.Files) != 2 {
		t.Fatalf("plain collection: %v, %+v", err, m)
	}
}
