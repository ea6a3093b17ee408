package load

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestStreamInAFolderIsReadAsByName (issue 30): an Agent SDK stream saved
// as .jsonl is one reading whether its folder or the file itself is given
// (`paths: .agent-runs/ci` or `.agent-runs/ci/run.jsonl`): the same runs and
// the same problems, each said once. Before, a folder's stream was read as
// a session first, so a damaged one was reported twice, once as a
// transcript and once as a stream. Checked on the fixtures' streams and on
// damaged copies: a line over the cap, mostly junk, cut off.
func TestStreamInAFolderIsReadAsByName(t *testing.T) {
	fixtures := filepath.Join("..", "..", "fixtures", "runs")
	streams, err := filepath.Glob(filepath.Join(fixtures, "stream-*", "run.jsonl"))
	if err != nil || len(streams) < 7 {
		t.Fatalf("%d fixture streams (%v), want 7", len(streams), err)
	}
	good, err := os.ReadFile(filepath.Join(fixtures, "stream-completed-jsonl", "run.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(good), "\n")
	damaged := map[string]string{
		"over-cap": string(good) + strings.Repeat("x", 3000) + "\n",
		"junk":     lines[0] + lines[1] + strings.Repeat("junk\n", 30),
		"cut-off":  strings.Join(lines[:len(lines)/2], ""),
	}
	for name, data := range damaged {
		dir := filepath.Join(t.TempDir(), name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "run.jsonl")
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		streams = append(streams, p)
	}
	for _, file := range streams {
		opts := Options{LineCap: 2000}
		byName, err := Load([]string{file}, opts)
		if err != nil {
			t.Fatal(err)
		}
		inFolder, err := Load([]string{filepath.Dir(file)}, opts)
		if err != nil {
			t.Fatal(err)
		}
		if a, b := byName.CheckErrors(), inFolder.CheckErrors(); !slices.Equal(a, b) {
			t.Errorf("%s: by name %q, in its folder %q", file, a, b)
		}
		if len(byName.Runs) != len(inFolder.Runs) {
			t.Errorf("%s: %d runs by name, %d in its folder", file, len(byName.Runs), len(inFolder.Runs))
		}
		for i := range min(len(byName.Runs), len(inFolder.Runs)) {
			a, b := byName.Runs[i], inFolder.Runs[i]
			if a.Kind != b.Kind || a.ID != b.ID || len(a.Subagents) != len(b.Subagents) || a.Runtime == nil || b.Runtime == nil {
				t.Errorf("%s: run %s %s (%d subagents) by name, %s %s (%d) in its folder", file, a.Kind, a.ID, len(a.Subagents), b.Kind, b.ID, len(b.Subagents))
			}
		}
	}
}
