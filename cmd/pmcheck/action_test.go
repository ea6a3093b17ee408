//go:build unix

package main

// The GitHub Action's check step (action.yml), run here with bash the way
// the runner runs it: each env: expression replaced by the input's value
// (the default unless the test gives one), pmcheck replaced by a stub that
// records its arguments and exits early without writing a report (issue 12,
// item 9). .ci/validate-reports.sh runs the whole action with the real
// binary; these tests pin the two promises that keep a pull request from
// weakening its own check.

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// actionFile is the action's definition.
type actionFile struct {
	Inputs map[string]struct {
		Default string `yaml:"default"`
	} `yaml:"inputs"`
	Runs struct {
		Steps []struct {
			ID  string            `yaml:"id"`
			Env map[string]string `yaml:"env"`
			Run string            `yaml:"run"`
		} `yaml:"steps"`
	} `yaml:"runs"`
}

// runCheckStep runs the action's check step in workspace with the given
// inputs and a pmcheck stub that exits with code. It returns the step's
// exit code, what it wrote to GITHUB_OUTPUT, and the stub's arguments.
func runCheckStep(t *testing.T, workspace string, inputs map[string]string, code int, extraEnv ...string) (int, map[string]string, []string) {
	t.Helper()
	return runCheckStepWith(t, workspace, inputs, code, "", extraEnv...)
}

// runCheckStepWith is runCheckStep with the real pmcheck binary bin instead
// of the stub when bin is not "" (the stub's arguments are then not
// recorded).
func runCheckStepWith(t *testing.T, workspace string, inputs map[string]string, code int, bin string, extraEnv ...string) (int, map[string]string, []string) {
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
	tmp := t.TempDir()
	argsFile := filepath.Join(tmp, "args")
	stub := filepath.Join(tmp, "pmcheck")
	writeFile(t, stub, []byte("#!/bin/sh\nprintf '%s\\n' \"$@\" >> "+argsFile+"\necho 'pmcheck: stub exits early' >&2\nexit "+strconv.Itoa(code)+"\n"))
	if err := os.Chmod(stub, 0o755); err != nil {
		t.Fatal(err)
	}
	output := filepath.Join(tmp, "github-output")
	expr := regexp.MustCompile(`^\$\{\{\s*(inputs|steps)\.([a-z0-9.-]+)\s*\}\}$`)
	for _, step := range action.Runs.Steps {
		if step.ID != "check" {
			continue
		}
		env := []string{"PATH=" + os.Getenv("PATH"), "GITHUB_OUTPUT=" + output, "GITHUB_WORKSPACE=" + workspace, "RUNNER_TEMP=" + tmp}
		env = append(env, extraEnv...) // a later entry wins
		for k, v := range step.Env {
			m := expr.FindStringSubmatch(v)
			switch {
			case m == nil:
				t.Fatalf("action.yml: env %s=%q is not an input or step output", k, v)
			case m[1] == "steps" && m[2] == "install.outputs.path":
				v = stub // the install step's pmcheck
				if bin != "" {
					v = bin
				}
			case m[1] == "steps":
				v = inputs["step:"+m[2]] // another step's output, as the test gives it
			default:
				in, ok := action.Inputs[m[2]]
				if !ok {
					t.Fatalf("action.yml: env %s names input %q, which is not declared", k, m[2])
				}
				v = in.Default
				if given, ok := inputs[m[2]]; ok {
					v = given
				}
			}
			env = append(env, k+"="+v)
		}
		cmd := exec.Command("bash", "-e", "-c", step.Run)
		cmd.Dir = workspace
		if wd := inputs["working-directory"]; wd != "" {
			cmd.Dir = filepath.Join(workspace, wd) // the step's working-directory:
		}
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		exit := 0
		if ee, ok := err.(*exec.ExitError); ok {
			exit = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("running the check step: %v\n%s", err, out)
		}
		outputs := map[string]string{}
		data, _ := os.ReadFile(output)
		for _, l := range strings.Split(string(data), "\n") {
			if k, v, ok := strings.Cut(l, "="); ok {
				outputs[k] = v
			}
		}
		args, _ := os.ReadFile(argsFile)
		return exit, outputs, strings.Split(strings.TrimSpace(string(args)), "\n")
	}
	t.Fatal("action.yml has no step with id check")
	return 0, nil, nil
}

// TestActionRemovesStaleReportsBeforeRunning: report files committed in the
// pull request (or left by an earlier run) are deleted before pmcheck runs,
// so when pmcheck exits early nothing stale is uploaded as this run's
// result: the SARIF is not marked written and no annotation is rendered
// from an old JSON report.
func TestActionRemovesStaleReportsBeforeRunning(t *testing.T) {
	ws := t.TempDir()
	stale := []string{"pmcheck.sarif", "pmcheck.json", "pmcheck-junit.xml", "pmcheck.html"}
	for _, f := range stale {
		writeFile(t, filepath.Join(ws, f), []byte(`{"stale": true}`))
	}
	exit, outputs, _ := runCheckStep(t, ws, map[string]string{"paths": "runs"}, 2)
	if exit != 2 || outputs["exit-code"] != "2" {
		t.Errorf("the step exited %d with exit-code=%q; want pmcheck's 2", exit, outputs["exit-code"])
	}
	for _, f := range stale {
		if _, err := os.Stat(filepath.Join(ws, f)); err == nil {
			t.Errorf("the stale %s survived an early exit", f)
		}
	}
	if outputs["sarif-written"] != "false" {
		t.Errorf("sarif-written=%q after an early exit: a stale SARIF would be uploaded", outputs["sarif-written"])
	}
}

// TestActionTakesPolicyFromTheBaseBranch: with policy-from, the action
// passes the base branch's checkout to pmcheck (--policy-from, an absolute
// path under the workspace), so the config, rule files and baseline come
// from there and not from the pull request.
func TestActionTakesPolicyFromTheBaseBranch(t *testing.T) {
	ws := t.TempDir()
	_, _, args := runCheckStep(t, ws, map[string]string{"paths": "runs", "policy-from": "base"}, 0)
	joined := strings.Join(args, " ")
	if !strings.Contains(joined, "--policy-from "+filepath.Join(ws, "base")) {
		t.Errorf("pmcheck was run without --policy-from %s: %q", filepath.Join(ws, "base"), args)
	}
	_, _, args = runCheckStep(t, ws, map[string]string{"paths": "runs"}, 0)
	if strings.Contains(strings.Join(args, " "), "--policy-from") {
		t.Errorf("--policy-from given without the input: %q", args)
	}
}

// TestActionPassesThePlatformsVerifiedCommits (issue 29, item 5): on a pull
// request, the action asks GitHub which of its commits it reports as
// verified and passes them to strict review (--verified-commits); on
// another event, or with verified-commits: off, it does not ask. gh is a
// stub that prints one verified commit id.
func TestActionPassesThePlatformsVerifiedCommits(t *testing.T) {
	if _, err := exec.LookPath("jq"); err != nil {
		t.Skip("jq not found")
	}
	ws := t.TempDir()
	bin := t.TempDir()
	calls := filepath.Join(bin, "gh-calls")
	const sha = "0123456789abcdef0123456789abcdef01234567"
	writeFile(t, filepath.Join(bin, "gh"), []byte("#!/bin/sh\nprintf '%s\\n' \"$*\" >> "+calls+"\necho "+sha+"\n"))
	if err := os.Chmod(filepath.Join(bin, "gh"), 0o755); err != nil {
		t.Fatal(err)
	}
	event := filepath.Join(bin, "event.json")
	writeFile(t, event, []byte(`{"pull_request":{"number":7}}`))
	env := []string{"PATH=" + bin + ":" + os.Getenv("PATH"), "GITHUB_EVENT_PATH=" + event, "GITHUB_REPOSITORY=acme/web"}
	_, _, args := runCheckStep(t, ws, map[string]string{"paths": "runs", "args": "--git . --base origin/main --head HEAD"}, 0, env...)
	i := slices.Index(args, "--verified-commits")
	if i < 0 || i+1 >= len(args) {
		t.Fatalf("pmcheck was run without --verified-commits: %q", args)
	}
	if data, err := os.ReadFile(args[i+1]); err != nil || strings.TrimSpace(string(data)) != sha {
		t.Errorf("the verified-commits file holds %q (%v), want the id gh printed", data, err)
	}
	if got, _ := os.ReadFile(calls); !strings.Contains(string(got), "repos/acme/web/pulls/7/commits") {
		t.Errorf("gh was asked %q", got)
	}
	if _, _, args := runCheckStep(t, ws, map[string]string{"paths": "runs", "verified-commits": "off"}, 0, env...); slices.Contains(args, "--verified-commits") {
		t.Errorf("turned off: --verified-commits passed: %q", args)
	}
	push := filepath.Join(bin, "push.json")
	writeFile(t, push, []byte(`{"ref":"refs/heads/main"}`))
	if _, _, args := runCheckStep(t, ws, map[string]string{"paths": "runs"}, 0, append(env, "GITHUB_EVENT_PATH="+push)...); slices.Contains(args, "--verified-commits") {
		t.Errorf("a push event: --verified-commits passed: %q", args)
	}
}
