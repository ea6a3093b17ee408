package main

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pmcheck/pmcheck/fixtures/gen"
)

// TestFixturesWriteAllIsTheCommittedTree: the repository's fixtures are the
// command's output, byte for byte and file for file (fixtures/gen's own test
// checks the library the same way; this one checks the command users run).
func TestFixturesWriteAllIsTheCommittedTree(t *testing.T) {
	tmp := t.TempDir()
	out, errOut, code := runRulesCLI(t, "fixtures", "write", "--all", tmp)
	if code != 0 || !strings.HasPrefix(out, "wrote ") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	want := treeOf(t, tmp)
	got := treeOf(t, "../../fixtures/runs")
	if len(want) != len(got) {
		t.Errorf("command wrote %d files, fixtures/runs holds %d: run go run ./cmd/pmcheck fixtures write --all fixtures/runs", len(want), len(got))
	}
	for p, data := range want {
		if !bytes.Equal(got[p], data) {
			t.Errorf("fixtures/runs/%s differs from what 'pmcheck fixtures write --all' writes", p)
		}
	}
}

// TestFixturesWriteOneIsDeterministicAndLeavesTheRest: writing a scenario
// twice gives the same bytes, and it replaces only its own folder.
func TestFixturesWriteOneIsDeterministicAndLeavesTheRest(t *testing.T) {
	dir := t.TempDir()
	keep := filepath.Join(dir, "mine", "keep.txt")
	os.MkdirAll(filepath.Dir(keep), 0o755)
	os.WriteFile(keep, []byte("mine"), 0o644)
	const name = "rule-quiet-agent-bad"
	stale := filepath.Join(dir, name, "stale.jsonl")
	os.MkdirAll(filepath.Dir(stale), 0o755)
	os.WriteFile(stale, []byte("{}\n"), 0o644)
	if _, e, code := runRulesCLI(t, "fixtures", "write", dir, name); code != 0 {
		t.Fatalf("exit %d: %s", code, e)
	}
	first := treeOf(t, filepath.Join(dir, name))
	if _, e, code := runRulesCLI(t, "fixtures", "write", dir, name); code != 0 {
		t.Fatalf("exit %d: %s", code, e)
	}
	second := treeOf(t, filepath.Join(dir, name))
	if len(first) == 0 || len(first) != len(second) {
		t.Fatalf("writes differ in file count: %d, %d", len(first), len(second))
	}
	for p := range first {
		if !bytes.Equal(first[p], second[p]) {
			t.Errorf("%s differs between two writes", p)
		}
	}
	if _, ok := first["stale.jsonl"]; ok {
		t.Error("the scenario folder was not replaced: a stale file survived")
	}
	if b, err := os.ReadFile(keep); err != nil || string(b) != "mine" {
		t.Error("writing one scenario touched another folder in DIR")
	}
}

func TestFixturesUsageErrors(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"fixtures", "write", dir},
		{"fixtures", "write", dir, "no-such-scenario"},
		{"fixtures", "write", "--all", dir, "rule-quiet-agent-bad"},
		{"fixtures", "write", "--scale", "3", "--all", dir},
		{"fixtures", "write", "--scale", "-1", dir},
	} {
		_, errOut, code := runRulesCLI(t, args...)
		if code != ExitUsage || strings.Count(strings.TrimSpace(errOut), "\n") != 0 || errOut == "" {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line", args, code, errOut)
		}
	}
}

func TestFixturesListNamesEveryScenario(t *testing.T) {
	out, _, code := runRulesCLI(t, "fixtures", "list", "--json")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var got []scenarioInfo
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	all := gen.Scenarios()
	if len(got) != len(all) || len(got) == 0 {
		t.Fatalf("listed %d scenarios, registry has %d", len(got), len(all))
	}
	for i, s := range all {
		if got[i].Name != s.Name || got[i].Description != s.Doc {
			t.Errorf("entry %d is %+v, want %s", i, got[i], s.Name)
		}
	}
	text, _, _ := runRulesCLI(t, "fixtures", "list")
	if strings.Count(text, "\n") != len(all) || !strings.Contains(text, "rule-quiet-agent-bad") {
		t.Errorf("text list has %d lines for %d scenarios", strings.Count(text, "\n"), len(all))
	}
}

func TestFixturesScaleWritesAFleet(t *testing.T) {
	dir := t.TempDir()
	if _, e, code := runRulesCLI(t, "fixtures", "write", "--scale", "3", dir); code != 0 {
		t.Fatalf("exit %d: %s", code, e)
	}
	a := treeOf(t, dir)
	dir2 := t.TempDir()
	runRulesCLI(t, "fixtures", "write", "--scale", "3", dir2)
	b := treeOf(t, dir2)
	n := 0
	for p, data := range a {
		if strings.HasSuffix(p, ".jsonl") && !strings.Contains(p, "/subagents/") {
			n++
		}
		if !bytes.Equal(b[p], data) {
			t.Errorf("%s differs between two fleets of the same size", p)
		}
	}
	if n != 3 || len(a) != len(b) {
		t.Errorf("fleet of 3 holds %d session transcripts (%d vs %d files)", n, len(a), len(b))
	}
}

func treeOf(t *testing.T, root string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		data, err := os.ReadFile(p)
		out[filepath.ToSlash(rel)] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
