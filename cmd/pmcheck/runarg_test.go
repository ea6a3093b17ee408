package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pmcheck/pmcheck/analyze"
)

// TestWatchAndReplayNameTheSameRun: watch and replay map RUN to a run
// directory with one lookup (load.WatchRunDir shares replay's session and
// prefix lookups), so every form of the argument names the same run for
// both.
func TestWatchAndReplayNameTheSameRun(t *testing.T) {
	const root = "../../fixtures/runs/replay-kill-retry"
	session := filepath.Join(root, "30000000-0000-4000-8000-000000000001.jsonl")
	for _, arg := range []string{killRetryRun, filepath.Join(killRetryRun, analyze.JournalName), session, "wf_kill"} {
		run, err := analyze.FindWorkflowRun(arg, root)
		if err != nil {
			t.Fatalf("replay %s: %v", arg, err)
		}
		w := &WatchCmd{Run_: arg}
		dir := w.find(root)
		if dir == "" || filepath.Base(filepath.Clean(dir)) != "wf_kill0001" || run.ID != "wf_kill0001" {
			t.Errorf("%s: watch finds %q, replay run %q", arg, dir, run.ID)
		}
	}
	// An argument that names no run yet: watch waits (""), replay says so.
	for _, arg := range []string{"wf_nothing", filepath.Join(root, "..", "session-sync-and-async", "10000000-0000-4000-8000-000000000001.jsonl")} {
		if dir := (&WatchCmd{Run_: arg}).find("../../fixtures/runs"); dir != "" {
			t.Errorf("%s: watch found %q", arg, dir)
		}
		if _, err := analyze.FindWorkflowRun(arg, "../../fixtures/runs"); err == nil {
			t.Errorf("%s: replay found a run", arg)
		}
	}
}

// TestALaunchWrittenTwiceIsOneRun: a session whose Workflow call was
// retried holds two launch rows of one run; replay used to say it launched
// two runs (the same id twice) while watch followed it.
func TestALaunchWrittenTwiceIsOneRun(t *testing.T) {
	src := "../../fixtures/runs/replay-kill-retry"
	dst := t.TempDir()
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	session := filepath.Join(dst, "30000000-0000-4000-8000-000000000001.jsonl")
	data, err := os.ReadFile(session)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	again := strings.NewReplacer("-000000000002", "-000000000902", "-000000000003", "-000000000903", "toolu_wf_wf_kill0001", "toolu_wf_wf_kill0001_retry", "msg_1_2", "msg_1_902").Replace(lines[1] + lines[2])
	out := strings.Join(lines[:3], "") + again + strings.Join(lines[3:], "")
	if err := os.WriteFile(session, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	run, err := analyze.FindWorkflowRun(session, dst)
	if err != nil || run.ID != "wf_kill0001" {
		t.Fatalf("replay: %v", err)
	}
	if dir := (&WatchCmd{Run_: session}).find(dst); filepath.Base(dir) != "wf_kill0001" {
		t.Errorf("watch finds %q", dir)
	}
}
