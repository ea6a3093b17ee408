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

// TestStreamNamedForAnotherSessionIsOneRun: a stream joined by its
// session_id to a session file whose rows carry another session id is a
// run of its own (joinStream), linked once whether it comes before or
// after that file and whether it is an execution file or .jsonl. Linked
// twice, the report refused it as an internal error (exit 3).
func TestStreamNamedForAnotherSessionIsOneRun(t *testing.T) {
	fixtures := filepath.Join("..", "..", "fixtures", "runs")
	cases := []struct{ from, name, sid string }{
		{"stream-killed-subagent/run.jsonl", "0-stream.jsonl", "60000000-0000-4000-8000-000000000002"},
		{"stream-killed-subagent/run.jsonl", "z-stream.jsonl", "60000000-0000-4000-8000-000000000002"},
		{"stream-failed-subagent/claude-execution-output.json", "claude-execution-output.json", "60000000-0000-4000-8000-000000000003"},
	}
	for _, c := range cases {
		dir := t.TempDir()
		data, err := os.ReadFile(filepath.Join(fixtures, filepath.FromSlash(c.from)))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), c.sid) {
			t.Fatalf("%s does not carry session %s", c.from, c.sid)
		}
		other := `{"type":"user","uuid":"x-u1","sessionId":"90000000-0000-4000-8000-000000000009","timestamp":"2026-05-07T09:00:01Z","message":{"role":"user","content":"hi"}}` + "\n"
		if err := os.WriteFile(filepath.Join(dir, c.sid+".jsonl"), []byte(other), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, c.name), data, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, jobs := range []int{1, 2} {
			res, err := Load([]string{dir}, Options{Jobs: jobs})
			if err != nil {
				t.Fatal(err)
			}
			seen := map[string]int{}
			for _, r := range res.Runs {
				seen[filepath.Base(r.Path)]++
			}
			if seen[c.name] != 1 || seen[c.sid+".jsonl"] != 1 || len(res.Runs) != 2 {
				t.Errorf("%s beside a session file of another id, %d jobs: runs %v, want each once", c.name, jobs, seen)
			}
		}
	}
}
