package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runIn(t testing.TB, dir string, args ...string) (int, string, string) {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	var out, errb bytes.Buffer
	code := Run(args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// TestShardedChecksMergeToTheFullReport: three shards rendered together give
// the same JSON document, byte for byte, as one check over everything.
func TestShardedChecksMergeToTheFullReport(t *testing.T) {
	tmp := t.TempDir()
	fixtures := reportFixtures(t, "../..")
	for i, f := range fixtures {
		fixtures[i] = strings.TrimPrefix(filepath.ToSlash(f), "../../")
	}
	code, _, errs := runIn(t, "../..", append([]string{"check", "--fail-level", "none", "--format", "json=" + filepath.Join(tmp, "full.json"), "--"}, fixtures...)...)
	if code != 0 {
		t.Fatalf("full check: exit %d: %s", code, errs)
	}
	var shards []string
	for i := 1; i <= 3; i++ {
		out := filepath.Join(tmp, "shard"+string(rune('0'+i))+".json")
		code, _, errs := runIn(t, "../..", append([]string{"check", "--fail-level", "none", "--shard", string(rune('0'+i)) + "/3", "--allow-empty", "--format", "json=" + out, "--"}, fixtures...)...)
		if code != 0 {
			t.Fatalf("shard %d: exit %d: %s", i, code, errs)
		}
		shards = append(shards, out)
	}
	code, merged, errs := runIn(t, ".", append([]string{"render", "--format", "json"}, shards...)...)
	if code != 0 {
		t.Fatalf("render: exit %d: %s", code, errs)
	}
	full, err := os.ReadFile(filepath.Join(tmp, "full.json"))
	if err != nil {
		t.Fatal(err)
	}
	if merged != string(full) {
		t.Errorf("merged shards differ from the full report")
	}
}

// TestCheckExitCodes pins the contract of PRODUCT.md §7 on fixtures.
func TestCheckExitCodes(t *testing.T) {
	cases := []struct {
		name string
		args []string
		code int
		err  string
	}{
		{"clean run passes", []string{"check", "fixtures/runs/session-sync-and-async"}, ExitOK, ""},
		{"findings fail", []string{"check", "fixtures/runs/rule-killed-subagent-shipped-unreviewed-bad"}, ExitFindings, ""},
		{"fail level none never fails", []string{"check", "fixtures/runs/rule-killed-subagent-shipped-unreviewed-bad", "--fail-level", "none"}, ExitOK, ""},
		{"a disabled rule does not fire", []string{"check", "fixtures/runs/rule-killed-subagent-shipped-unreviewed-bad", "--disable", "killed-subagent-shipped-unreviewed", "--disable", "ship-while-killed-outstanding"}, ExitOK, ""},
		{"re-levelled to note passes at error", []string{"check", "fixtures/runs/rule-killed-subagent-shipped-unreviewed-bad", "--severity", "killed-subagent-shipped-unreviewed=note", "--severity", "ship-while-killed-outstanding=note"}, ExitOK, ""},
		{"no runs is an error", []string{"check", "docs"}, ExitUsage, "no runs found in docs"},
		{"no runs allowed", []string{"check", "docs", "--allow-empty"}, ExitOK, ""},
		{"missing path", []string{"check", "nope"}, ExitUsage, "nope: no such file or directory"},
		{"git flags go together", []string{"check", "fixtures/runs/session-sync-and-async", "--git", "."}, ExitUsage, "--git, --base and --head go together"},
		{"unknown rule id", []string{"check", "fixtures/runs/session-sync-and-async", "--disable", "no-such-rule"}, ExitUsage, "no-such-rule"},
		{"bad shard", []string{"check", "fixtures/runs", "--shard", "4/3"}, ExitUsage, "shard"},
		{"unknown flag", []string{"check", "--bogus"}, ExitUsage, "unknown flag --bogus"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, _, errs := runIn(t, "../..", c.args...)
			if code != c.code {
				t.Errorf("exit %d, want %d (stderr: %s)", code, c.code, errs)
			}
			if c.err != "" && !strings.Contains(errs, c.err) {
				t.Errorf("stderr %q does not say %q", errs, c.err)
			}
			if strings.Count(strings.TrimSpace(errs), "\n") > 0 {
				t.Errorf("errors must be one line, got:\n%s", errs)
			}
		})
	}
}
