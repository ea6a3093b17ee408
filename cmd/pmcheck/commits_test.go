package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pmcheck/pmcheck/internal/entiretest"
)

const (
	sessA = "a1000000-0000-4000-8000-000000000001"
	sessB = "b2000000-0000-4000-8000-000000000002"
)

// prRepo is a pull request of three commits on feat: an agent commit with
// a checkpoint on the branch backend, one with a checkpoint on the ref
// backend, and a human commit.
func prRepo(t *testing.T) (*entiretest.Repo, string) {
	r := entiretest.New(t)
	base := r.Git("rev-parse", "HEAD")
	r.Git("checkout", "-q", "-b", "feat")
	r.Commit("agent work one\n\nEntire-Checkpoint: a1b2c3d4e5f6", "one.go", "package one\n")
	r.BranchCheckpoint("a1b2c3d4e5f6", []entiretest.Session{{ID: sessA, Agent: "Claude Code", Transcript: entiretest.Transcript(sessA, 3, "")}})
	r.Commit("agent work two\n\nEntire-Checkpoint: 01J9ZQ3XKX4RMA6P8SF7TBV2C0", "two.go", "package two\n")
	r.RefCheckpoint("01J9ZQ3XKX4RMA6P8SF7TBV2C0", []entiretest.Session{{ID: sessB, Agent: "Claude Code", Transcript: entiretest.Transcript(sessB, 2, "")}})
	r.Commit("human fix", "three.go", "package three\n")
	return r, base
}

func rangeCheck(t *testing.T, dir string, args ...string) (int, map[string]any, string, string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "r.json")
	code, stdout, stderr := runIn(t, dir, append([]string{"check", "--no-config", "--format", "text", "--format", "json=" + out}, args...)...)
	var doc map[string]any
	if data, err := os.ReadFile(out); err == nil {
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
	}
	return code, doc, stdout, stderr
}

func coverageOf(t *testing.T, doc map[string]any) map[string]any {
	t.Helper()
	c, ok := doc["coverage"].(map[string]any)
	if !ok {
		t.Fatalf("no coverage in the report")
	}
	return c
}

func TestCommitsTracedThroughBothBackends(t *testing.T) {
	r, base := prRepo(t)
	code, doc, stdout, stderr := rangeCheck(t, r.Dir, "--commits", base+"..feat")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	c := coverageOf(t, doc)
	if got, want := c["summary"], "3 commits: 2 traced to 2 runs, 1 with no agent evidence"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
	if !strings.Contains(stdout, "coverage of "+base+"..feat: 3 commits: 2 traced to 2 runs") {
		t.Errorf("text report lacks the coverage:\n%s", stdout)
	}
	if !strings.Contains(stdout, "entire-checkpoint") {
		t.Errorf("text report lacks the evidence of the links:\n%s", stdout)
	}
	runs := doc["runs"].([]any)
	if len(runs) != 2 {
		t.Fatalf("%d runs, want 2", len(runs))
	}
	for _, x := range runs {
		p := x.(map[string]any)["path"].(string)
		if !strings.HasPrefix(p, "entire/checkpoints/") {
			t.Errorf("run path %q is not shown as its checkpoint", p)
		}
	}
}
