//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/pmcheck/pmcheck/internal/entiretest"
)

// runActionStep runs one step of action.yml with bash, its env: expressions
// replaced by the values given (inputs by name, github.* by expression),
// the inputs' defaults otherwise. It returns what the step wrote to
// GITHUB_OUTPUT.
func runActionStep(t *testing.T, id, dir string, values map[string]string) map[string]string {
	t.Helper()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash not found")
	}
	data, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var action actionFile
	if err := yaml.Unmarshal(data, &action); err != nil {
		t.Fatal(err)
	}
	output := filepath.Join(t.TempDir(), "github-output")
	expr := regexp.MustCompile(`^\$\{\{\s*([a-z_]+)\.([a-z0-9._-]+)\s*(?:\|\|\s*([a-z_]+)\.([a-z0-9._-]+)\s*)?\}\}$`)
	for _, step := range action.Runs.Steps {
		if step.ID != id {
			continue
		}
		env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "GITHUB_OUTPUT=" + output, "GIT_CONFIG_NOSYSTEM=1"}
		for k, v := range step.Env {
			m := expr.FindStringSubmatch(v)
			if m == nil {
				t.Fatalf("action.yml: env %s=%q is not an expression", k, v)
			}
			val, given := values[m[1]+"."+m[2]]
			if m[1] == "inputs" && !given {
				val = action.Inputs[m[2]].Default
			}
			if val == "" && m[3] != "" { // a || b
				val = values[m[3]+"."+m[4]]
			}
			env = append(env, k+"="+val)
		}
		cmd := exec.Command("bash", "-e", "-c", step.Run)
		cmd.Dir, cmd.Env = dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("step %s: %v\n%s", id, err, out)
		}
		outputs := map[string]string{}
		data, _ := os.ReadFile(output)
		for _, l := range strings.Split(string(data), "\n") {
			if k, v, ok := strings.Cut(l, "="); ok {
				outputs[k] = v
			}
		}
		return outputs
	}
	t.Fatalf("action.yml has no step with id %s", id)
	return nil
}

// On a pull request from a fork, the action checks base.sha..head.sha and
// fetches the range's history and the fork's checkpoints (branch and refs)
// into a shallow checkout, and the check then traces the fork's commits.
func TestActionFetchesForkCheckpoints(t *testing.T) {
	fork, base := prRepo(t)
	head := fork.Git("rev-parse", "feat")
	upstream := entiretest.New(t)
	upstream.Git("fetch", "-q", fork.Dir, "feat:refs/pull/1/head")
	// A shallow checkout of the pull request's head, as actions/checkout
	// leaves it: one commit, no checkpoints.
	ws := filepath.Join(t.TempDir(), "ws")
	upstream.GitIn(upstream.Dir, nil, "", "clone", "-q", "--depth=1", "--no-checkout", "file://"+upstream.Dir, ws)
	upstream.GitIn(ws, nil, "", "fetch", "-q", "--depth=1", "origin", "refs/pull/1/head")

	out := runActionStep(t, "range", ws, map[string]string{
		"github.event_name":                             "pull_request",
		"github.event.pull_request.base.sha":            base,
		"github.event.pull_request.head.sha":            head,
		"github.event.pull_request.head.repo.clone_url": "file://" + fork.Dir,
	})
	if want := base + ".." + head; out["commits"] != want {
		t.Fatalf("commits=%q, want %q", out["commits"], want)
	}
	code, doc, stdout, stderr := rangeCheck(t, ws, "--commits", out["commits"])
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if got, want := coverageOf(t, doc)["summary"], "3 commits: 2 traced to 2 runs, 1 with no agent evidence"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
}

// Outside a pull request "auto" is no range; an explicit range is kept.
func TestActionRangeInput(t *testing.T) {
	ws := entiretest.New(t).Dir
	if out := runActionStep(t, "range", ws, map[string]string{"github.event_name": "push", "inputs.fetch-checkpoints": "false"}); out["commits"] != "" {
		t.Errorf("push event: commits=%q, want none", out["commits"])
	}
	if out := runActionStep(t, "range", ws, map[string]string{"inputs.commits": "main~1..main", "inputs.fetch-checkpoints": "false"}); out["commits"] != "main~1..main" {
		t.Errorf("explicit range: commits=%q", out["commits"])
	}
}

// The check step passes the range, the checkpoint repositories and the
// runner's Claude Code projects folder (when it exists) to pmcheck.
func TestActionPassesRangeInputs(t *testing.T) {
	ws := t.TempDir()
	projects := filepath.Join(ws, "home", ".claude", "projects")
	if err := os.MkdirAll(projects, 0o755); err != nil {
		t.Fatal(err)
	}
	_, _, args := runCheckStep(t, ws, map[string]string{"step:range.outputs.commits": "aaa..bbb", "checkpoints": "cps\nmore", "claude-projects": projects}, 0)
	for _, want := range [][]string{{"--commits", "aaa..bbb"}, {"--checkpoints", "cps"}, {"--checkpoints", "more"}} {
		found := false
		for j := 0; j+1 < len(args); j++ {
			if args[j] == want[0] && args[j+1] == want[1] {
				found = true
			}
		}
		if !found {
			t.Errorf("pmcheck was not given %s %s: %q", want[0], want[1], args)
		}
	}
	if args[len(args)-1] != projects {
		t.Errorf("the projects folder is not the last path: %q", args)
	}
}

// In a merge queue, "auto" is the merge group's range.
func TestActionRangeOnMergeGroup(t *testing.T) {
	ws := entiretest.New(t).Dir
	out := runActionStep(t, "range", ws, map[string]string{"github.event_name": "merge_group", "inputs.fetch-checkpoints": "false",
		"github.event.merge_group.base_sha": "aaa", "github.event.merge_group.head_sha": "bbb"})
	if out["commits"] != "aaa..bbb" {
		t.Errorf("merge_group: commits=%q, want aaa..bbb", out["commits"])
	}
}
