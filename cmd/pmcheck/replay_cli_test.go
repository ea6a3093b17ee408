package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const killRetryRun = "../../fixtures/runs/replay-kill-retry/30000000-0000-4000-8000-000000000001/subagents/workflows/wf_kill0001"

func TestReplayFlagsAndErrors(t *testing.T) {
	cases := []struct {
		name   string
		args   []string
		exit   int
		stderr string
	}{
		{"zero interval", []string{"--interval", "0", killRetryRun}, 2, "--interval must be positive"},
		{"bad seconds", []string{"--quiet-after", "soon", killRetryRun}, 2, "not a number of seconds"},
		{"bad start", []string{"--start", "yesterday", killRetryRun}, 2, "not an RFC 3339 time"},
		{"kill-after below inactivity", []string{"--pw-inactivity", "300", "--pw-kill-after", "100", killRetryRun}, 2, "--pw-kill-after must be >= --pw-inactivity"},
		{"not a run", []string{"../../fixtures/runs"}, 2, "not a Workflow run directory"},
		{"session without launches", []string{"../../fixtures/runs/session-sync-and-async/10000000-0000-4000-8000-000000000001.jsonl"}, 2, "launched no Workflow run"},
		{"unknown prefix", []string{"--root", "../../fixtures/runs", "wf_nothing"}, 2, "no journal appeared within 60 s"},
		{"ambiguous prefix", []string{"--root", "../../fixtures/runs", "wf_"}, 2, "Workflow runs under"},
	}
	for _, c := range cases {
		out, errs, code := runReplay(t, c.args...)
		if code != c.exit || !strings.Contains(errs, c.stderr) {
			t.Errorf("%s: exit %d stderr %q, want exit %d and %q", c.name, code, errs, c.exit, c.stderr)
		}
		if out != "" {
			t.Errorf("%s: printed on stdout: %q", c.name, out)
		}
		for _, l := range strings.Split(strings.TrimSpace(errs), "\n") {
			if len(l) == 0 {
				t.Errorf("%s: empty stderr line", c.name)
			}
		}
	}
}

func TestReplayRunDirWithoutJournal(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sess", "subagents", "workflows", "wf_empty01")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	out, errs, code := runReplay(t, dir)
	if code != 2 || out != "" || !strings.HasPrefix(errs, "no journal appeared within 60 s") || !strings.Contains(errs, "has no journal.jsonl") {
		t.Errorf("exit %d out %q err %q", code, out, errs)
	}
}

func TestReplayByPrefixAndStart(t *testing.T) {
	out, _, code := runReplay(t, "--root", "../../fixtures/runs/replay-kill-retry", "wf_kill")
	if code != 0 || !strings.HasPrefix(out, "START  wf_kill0001: 2 agents") {
		t.Errorf("prefix lookup: exit %d\n%s", code, out)
	}
	// --start 10:00:00 instead of the launch at 10:00:02: the journal (first
	// line at :04) is found at the wait check :05, and polls run on :05 + 5k.
	out, _, _ = runReplay(t, "--timestamps", "--start", "2026-05-07T10:00:00Z", killRetryRun)
	if !strings.HasPrefix(out, "2026-05-07T10:00:05Z START") || !strings.Contains(out, "2026-05-07T10:01:40Z OK     a:ak00000000000003") {
		t.Errorf("--start:\n%s", out)
	}
	// --interval 60: polls every minute from the start.
	out, _, _ = runReplay(t, "--timestamps", "--interval", "60", killRetryRun)
	if !strings.HasPrefix(out, "2026-05-07T10:01:02Z START") {
		t.Errorf("--interval 60:\n%s", out)
	}
}

func TestReplayJSONExtras(t *testing.T) {
	out, _, code := runReplay(t, "--json", "--timestamps", "--explain", "--watchdogs", killRetryRun)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	kinds := map[string]int{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("not JSON: %s", l)
		}
		switch {
		case m["explain"] != nil:
			kinds["explain"]++
		case m["event"] == "WATCHDOG":
			kinds["watchdog"]++
		default:
			kinds["watch"]++
			if _, ok := m["time"]; !ok {
				t.Errorf("--timestamps in --json adds a time field: %s", l)
			}
		}
	}
	if kinds["explain"] != 6 || kinds["watch"] != 5 || kinds["watchdog"] == 0 {
		t.Errorf("lines by kind: %v", kinds)
	}
}

// TestReplayHintsNamePmcheck: by default KILL and DONE point at pmcheck's
// check of the run (a command that works), --as-watch keeps watch's words.
func TestReplayHintsNamePmcheck(t *testing.T) {
	out, _, code := runReplay(t, killRetryRun)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	if strings.Contains(out, "agent-postmortem") || strings.Count(out, "-> pmcheck check "+killRetryRun) != 2 {
		t.Fatalf("default hints:\n%s", out)
	}
	if code, _, errs := runCLI("check", "--fail-level", "none", killRetryRun); code != 0 {
		t.Fatalf("the hinted command fails: exit %d: %s", code, errs)
	}
	js, _, _ := runReplay(t, "--json", killRetryRun)
	if !strings.Contains(js, `"next_command": "pmcheck check `+killRetryRun+`"`) {
		t.Fatalf("--json next_command:\n%s", js)
	}
	watch, _, _ := runReplay(t, "--as-watch", killRetryRun)
	if !strings.Contains(watch, "-> agent-postmortem rescue plan wf_kill0001") || !strings.Contains(watch, "-> agent-postmortem run wf_kill0001") {
		t.Fatalf("--as-watch:\n%s", watch)
	}
}

// TestReplayJSONEscapesDisplayControls: every line replay --json prints
// (watch's events, --explain's and --watchdogs' objects) writes C1
// controls, bidi controls and U+FFFE/U+FFFF of the run's strings (here a
// journal's agent id and the folder the run sits in) as \u escapes, as the
// JSON report and explain --json do: a terminal or CI log showing the
// output never gets the raw character. The strings still decode to what
// the run holds.
func TestReplayJSONEscapesDisplayControls(t *testing.T) {
	const bad = "\u009b31m\u202eexe\ufffe"
	src := "../../fixtures/runs/replay-kill-retry"
	root := filepath.Join(t.TempDir(), "evil"+bad)
	copyTree(t, src, root)
	run := filepath.Join(root, strings.TrimPrefix(killRetryRun, src))
	journal := filepath.Join(run, "journal.jsonl")
	b, err := os.ReadFile(journal)
	if err != nil {
		t.Fatal(err)
	}
	// The first started line's agent id carries the controls too.
	b = []byte(strings.Replace(string(b), `"agentId":"ak00000000000001"`, `"agentId":"ak`+bad+`"`, 1))
	if err := os.WriteFile(journal, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out, errs, code := runReplay(t, "--json", "--timestamps", "--explain", "--watchdogs", run)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	decoded := 0
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		for _, r := range []rune{0x9b, 0x202e, 0xfffe} {
			if strings.ContainsRune(l, r) {
				t.Errorf("raw %U in: %s", r, l)
			}
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("not JSON: %s", l)
		}
		if strings.Contains(fmt.Sprint(m), bad) {
			decoded++
		}
	}
	if decoded == 0 {
		t.Errorf("no line carries the run's strings:\n%s", out)
	}
}
