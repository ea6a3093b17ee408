package main

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// applyConfigIn runs applyConfig for c in dir, as check does.
func applyConfigIn(t *testing.T, dir string, c *CheckCmd) error {
	t.Helper()
	wd, _ := os.Getwd()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	return c.applyConfig()
}

// fullConfig sets every key: inputs, policy, git join and outputs.
const fullConfig = `paths: [runs, /abs/runs]
rules: [+policy/extra.yaml, /abs/rules.yaml]
disable: [quiet-agent]
severity: {agent-never-returned: error}
baseline: policy/baseline.json
fail-level: warning
allow-empty: true
junit-no-file-line: true
publish-tools: ["mcp__*__publish"]
deploy-labels: [ship-it]
git: {repo: ., base: origin/main, head: HEAD}
outputs: [text, sarif=out/pmcheck.sarif, json=-, github=]
`

// TestConfigFillsWhatTheFlagsLeaveUnset: every setting of the file lands in
// its flag, paths relative to the file's folder; a flag that is set keeps
// its value; the fail level defaults to error.
func TestConfigFillsWhatTheFlagsLeaveUnset(t *testing.T) {
	repo := t.TempDir()
	os.Mkdir(filepath.Join(repo, ".git"), 0o755)
	sub := filepath.Join(repo, "sub")
	os.Mkdir(sub, 0o755)
	writeFile(t, filepath.Join(repo, ".pmcheck.yaml"), []byte(fullConfig))

	var c CheckCmd
	if err := applyConfigIn(t, sub, &c); err != nil {
		t.Fatal(err)
	}
	want := CheckCmd{Paths: []string{"../runs", "/abs/runs"}, Rules: []string{"+../policy/extra.yaml", "/abs/rules.yaml"},
		Disable: []string{"quiet-agent"}, Severity: []string{"agent-never-returned=error"}, Baseline: "../policy/baseline.json",
		FailLevel: "warning", AllowEmpty: true, JUnitNoFileLine: true, PublishTools: []string{"mcp__*__publish"}, DeployLabels: []string{"ship-it"},
		Git: "..", Base: "origin/main", Head: "HEAD", Format: []string{"text", "sarif=../out/pmcheck.sarif", "json=-", "github="}}
	if !reflect.DeepEqual(c, want) {
		t.Fatalf("from the config:\n%+v\nwant\n%+v", c, want)
	}

	flags := CheckCmd{Paths: []string{"p"}, Rules: []string{"r.yaml"}, Disable: []string{"d"}, Severity: []string{"s=note"}, Baseline: "b.json",
		FailLevel: "note", PublishTools: []string{"t"}, DeployLabels: []string{"l"}, Git: "g", Base: "b", Head: "h", Format: []string{"json"}}
	c = flags
	if err := applyConfigIn(t, sub, &c); err != nil {
		t.Fatal(err)
	}
	flags.AllowEmpty, flags.JUnitNoFileLine = true, true // a false flag is unset
	if !reflect.DeepEqual(c, flags) {
		t.Fatalf("flags overridden:\n%+v\nwant\n%+v", c, flags)
	}

	c = CheckCmd{configFlags: configFlags{NoConfig: true}}
	if err := applyConfigIn(t, sub, &c); err != nil || !reflect.DeepEqual(c, CheckCmd{FailLevel: "error", configFlags: configFlags{NoConfig: true}}) {
		t.Fatalf("--no-config: %+v, %v", c, err)
	}
}

// TestConfigGitSettings: a range in the file reads the branch itself (its
// base and head are not joined); revisions without a repository join the
// project's; a --commits flag keeps the file's base and head out.
func TestConfigGitSettings(t *testing.T) {
	repo := t.TempDir()
	os.Mkdir(filepath.Join(repo, ".git"), 0o755)
	cfg := filepath.Join(repo, ".pmcheck.yaml")
	for _, tc := range []struct {
		name, config string
		flags, want  CheckCmd
	}{
		{"range", "git: {repo: app, commits: a..b, checkpoints: [cp1, cp2], base: x, head: y}\n", CheckCmd{},
			CheckCmd{Commits: "a..b", Repo: "app", Checkpoints: []string{"cp1", "cp2"}}},
		{"range flag keeps the repository flag", "git: {repo: app, commits: a..b}\n", CheckCmd{Repo: "mine"},
			CheckCmd{Commits: "a..b", Repo: "mine"}},
		{"revisions alone", "git: {base: x, head: y}\n", CheckCmd{}, CheckCmd{Git: ".", Base: "x", Head: "y"}},
		{"head alone", "git: {head: y}\n", CheckCmd{}, CheckCmd{Git: ".", Head: "y"}},
		{"revisions and a range flag", "git: {base: x, head: y}\n", CheckCmd{Commits: "c..d"}, CheckCmd{Commits: "c..d"}},
		{"revision flags and no revisions in the file", "git: {repo: app}\n", CheckCmd{Base: "x", Head: "y"}, CheckCmd{Git: "app", Base: "x", Head: "y"}},
		{"revision flags, repository flag", "git: {base: x}\n", CheckCmd{Git: "g", Head: "y"}, CheckCmd{Git: "g", Base: "x", Head: "y"}},
	} {
		writeFile(t, cfg, []byte(tc.config))
		c := tc.flags
		if err := applyConfigIn(t, repo, &c); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		tc.want.FailLevel = "error"
		if !reflect.DeepEqual(c, tc.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.name, c, tc.want)
		}
	}
}

// TestPolicyFromRootsThePolicyThere: with --policy-from the rule files and
// the baseline, from the flags or the policy's config, resolve in DIR; the
// inputs stay in the working tree.
func TestPolicyFromRootsThePolicyThere(t *testing.T) {
	wd, policy := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(policy, ".pmcheck.yaml"), []byte("paths: [runs]\nrules: [+extra.yaml]\nbaseline: base.json\n"))
	rel := func(p string) string {
		r, err := filepath.Rel(wd, p)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	c := CheckCmd{configFlags: configFlags{PolicyFrom: policy}}
	if err := applyConfigIn(t, wd, &c); err != nil {
		t.Fatal(err)
	}
	want := CheckCmd{Paths: []string{"runs"}, Rules: []string{"+" + rel(filepath.Join(policy, "extra.yaml"))}, Baseline: rel(filepath.Join(policy, "base.json")),
		FailLevel: "error", configFlags: configFlags{PolicyFrom: policy}}
	if !reflect.DeepEqual(c, want) {
		t.Fatalf("policy from the config:\n%+v\nwant\n%+v", c, want)
	}
	c = CheckCmd{Rules: []string{"+mine.yaml", "/abs.yaml"}, Baseline: "b.json", configFlags: configFlags{PolicyFrom: policy}}
	if err := applyConfigIn(t, wd, &c); err != nil {
		t.Fatal(err)
	}
	want = CheckCmd{Paths: []string{"runs"}, Rules: []string{"+" + filepath.Join(policy, "mine.yaml"), "/abs.yaml"}, Baseline: filepath.Join(policy, "b.json"),
		FailLevel: "error", configFlags: configFlags{PolicyFrom: policy}}
	if !reflect.DeepEqual(c, want) {
		t.Fatalf("policy from the flags:\n%+v\nwant\n%+v", c, want)
	}
}

// TestConfigFlagConflicts: the config flags that exclude each other, and a
// policy folder that is not one, are usage errors with the fix.
func TestConfigFlagConflicts(t *testing.T) {
	notDir := filepath.Join(t.TempDir(), "file")
	writeFile(t, notDir, []byte("x"))
	for _, tc := range []struct {
		flags configFlags
		want  string
	}{
		{configFlags{NoConfig: true, Config: "c.yaml"}, "--no-config with --config or --policy-from: drop one of them"},
		{configFlags{NoConfig: true, PolicyFrom: "dir"}, "--no-config with --config or --policy-from: drop one of them"},
		{configFlags{Config: "c.yaml", PolicyFrom: "dir"}, "--config with --policy-from: the config is read from the policy folder; drop --config"},
		{configFlags{PolicyFrom: notDir}, "--policy-from " + notDir + " is not a folder: give the checkout of the base branch"},
		{configFlags{PolicyFrom: notDir + "-missing"}, "--policy-from " + notDir + "-missing is not a folder: give the checkout of the base branch"},
	} {
		c := CheckCmd{configFlags: tc.flags}
		err := applyConfigIn(t, t.TempDir(), &c)
		var ee *ExitError
		if !errors.As(err, &ee) || ee.Code != ExitUsage || err.Error() != tc.want {
			t.Errorf("%+v: %v, want a usage error %q", tc.flags, err, tc.want)
		}
	}
}

// TestCheckFlagConflicts: check's flags that do not go together are usage
// errors (exit 2) that say which to drop or add, before any input is read.
func TestCheckFlagConflicts(t *testing.T) {
	run := fixture("detect-ship-after-kill")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--commits", "a..b", "--git", "."}, "--commits with --git: --commits reads the branch under check from the range; drop --git, --base and --head"},
		{[]string{"--commits", "a..b", "--shard", "1/2"}, "--commits with --shard: a range's coverage needs every run; check the range in one job"},
		{[]string{"--repo", "."}, "--repo and --checkpoints go with --commits BASE..HEAD"},
		{[]string{"--checkpoints", "."}, "--repo and --checkpoints go with --commits BASE..HEAD"},
		{[]string{"--git", "."}, "--git, --base and --head go together: give all three to join the branch under check, or none"},
		{[]string{"--base", "x", "--head", "y"}, "--git, --base and --head go together: give all three to join the branch under check, or none"},
		{[]string{"--allowed-signers", "keys"}, "--allowed-signers verifies the commits of the branch under check: give --git, --base and --head too"},
		{[]string{"--git", t.TempDir(), "--base", "x", "--head", "y"}, "git join: "},
	} {
		args := append(append([]string{"check", "--no-config"}, tc.args...), run)
		code, _, stderr := inDir(t, ".", args...)
		if code != ExitUsage || !strings.HasPrefix(stderr, "pmcheck: "+tc.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, %q; want exit 2 with %q", tc.args, code, stderr, tc.want)
		}
	}
}
