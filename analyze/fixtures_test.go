package analyze

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/pmcheck/pmcheck/analyze/load"
	"github.com/pmcheck/pmcheck/analyze/model"
)

const fixtures = "../fixtures/runs"

func loadOne(t *testing.T, path string) *Result {
	t.Helper()
	res, err := Load([]string{path}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Errors) > 0 {
		t.Fatalf("errors: %v", res.Errors)
	}
	return res
}

// TestSyncAndAsyncLinks: every link source the fixture carries is found, and
// evidence paths are relative to the root as given.
func TestSyncAndAsyncLinks(t *testing.T) {
	res := loadOne(t, filepath.Join(fixtures, "session-sync-and-async"))
	if len(res.Runs) != 1 {
		t.Fatalf("want 1 run, got %d", len(res.Runs))
	}
	r := res.Runs[0]
	if r.Path != "../fixtures/runs/session-sync-and-async/10000000-0000-4000-8000-000000000001.jsonl" {
		t.Errorf("run path = %s", r.Path)
	}
	if len(r.Subagents) != 2 || len(r.Agents) != 2 {
		t.Fatalf("want 2 subagents and 2 agent transcripts, got %d and %d", len(r.Subagents), len(r.Agents))
	}
	sync, async := r.Subagents[0], r.Subagents[1]
	if sync.Mode != model.ModeSync || async.Mode != model.ModeAsync {
		t.Errorf("modes = %s, %s", sync.Mode, async.Mode)
	}
	if want := []string{load.LinkResultTail, load.LinkSidecar, load.LinkToolUseResult}; !reflect.DeepEqual(sync.LinkedBy, want) {
		t.Errorf("sync linked by %v, want %v", sync.LinkedBy, want)
	}
	if want := []string{load.LinkNotification, load.LinkResultTail, load.LinkSidecar, load.LinkToolUseResult}; !reflect.DeepEqual(async.LinkedBy, want) {
		t.Errorf("async linked by %v, want %v", async.LinkedBy, want)
	}
	if async.Status != "completed" || len(async.Notifications) != 2 {
		t.Errorf("async status %q with %d notifications; want completed from a queue enqueue and a user row", async.Status, len(async.Notifications))
	}
	if sync.Child == nil || sync.Child.Meta == nil || sync.Child.Meta.Description != "Refactor the parser" {
		t.Errorf("sync child or its sidecar not read: %+v", sync.Child)
	}
	if got := sync.Child.Tail.LastAssistant.Text; got != "Refactored parser.go; tests pass." {
		t.Errorf("child tail = %q", got)
	}
	if sync.At.Line != 2 || sync.At.Time.Format("15:04:05") != "09:00:05" {
		t.Errorf("sync call evidence = %+v", sync.At)
	}
}

// TestMalformedLinesAreCountedWithTheirLines: each bad line is reported once
// with its line number and reason; good rows around them are read.
func TestMalformedLinesAreCountedWithTheirLines(t *testing.T) {
	res := loadOne(t, filepath.Join(fixtures, "session-malformed-lines"))
	tr := res.Runs[0].Main
	want := []model.Malformed{
		{Line: 2, Reason: "not JSON", Skipped: true},
		{Line: 3, Reason: "not a JSON object", Skipped: true},
		{Line: 5, Reason: "contains a NUL byte", Skipped: true},
		{Line: 6, Reason: "invalid UTF-8 (read with replacement characters)", Skipped: false},
		{Line: 9, Reason: "torn final line (not JSON, no newline at end of file)", Skipped: true},
	}
	if !reflect.DeepEqual(tr.Malformed, want) {
		t.Errorf("malformed =\n%+v\nwant\n%+v", tr.Malformed, want)
	}
	if tr.Rows != 5 || tr.Lines != 9 {
		t.Errorf("rows=%d lines=%d, want 5 rows of 9 lines", tr.Rows, tr.Lines)
	}
	if tr.Tail.LastAssistant == nil || tr.Tail.LastAssistant.Text != "Done." {
		t.Errorf("last assistant row not read after the bad lines")
	}
}

// TestWorkflowRunFromRunDirectory: giving the run directory finds the parent
// three levels up, the launch, and both attempts with their transcripts.
func TestWorkflowRunFromRunDirectory(t *testing.T) {
	dir := filepath.Join(fixtures, "workflow-clean/10000000-0000-4000-8000-000000000003/subagents/workflows/wf_clean0001")
	for _, given := range []string{dir, filepath.Join(dir, "journal.jsonl")} {
		res := loadOne(t, given)
		if len(res.Runs) != 1 {
			t.Fatalf("%s: want only the workflow run, got %d runs", given, len(res.Runs))
		}
		r := res.Runs[0]
		if r.Kind != model.KindWorkflow || r.ID != "wf_clean0001" || r.Main == nil || r.Launch == nil {
			t.Fatalf("%s: run = %+v", given, r)
		}
		if r.Launch.TaskID != "w0000001" || r.Launch.LastNotification == nil || r.Launch.LastNotification.Status != "completed" {
			t.Errorf("launch = %+v", r.Launch)
		}
		if len(r.Attempts) != 2 || r.Attempts[0].Transcript == nil || r.Attempts[1].ClosedBy != model.OutcomeCompleted {
			t.Errorf("attempts = %+v", r.Attempts)
		}
	}
}

// TestWholeTreeFindsSessionAndWorkflow: a root finds the session and its run.
func TestWholeTreeFindsSessionAndWorkflow(t *testing.T) {
	res := loadOne(t, filepath.Join(fixtures, "workflow-clean"))
	if len(res.Runs) != 2 {
		t.Fatalf("want session + workflow, got %d runs", len(res.Runs))
	}
	var s *model.Run
	for _, r := range res.Runs {
		if r.Kind == model.KindSession {
			s = r
		}
	}
	if s == nil || len(s.Launches) != 1 || s.Launches[0].RunPath == "" || len(s.Agents) != 0 {
		t.Fatalf("session run = %+v", s)
	}
}

func TestMissingPathIsAnError(t *testing.T) {
	_, err := Load([]string{"does/not/exist"}, Options{})
	if err == nil || err.Error() != "does/not/exist: no such file or directory (give a session transcript, a Workflow run directory, or a folder to search)" {
		t.Fatalf("err = %v", err)
	}
}

// TestSymlinkOutsideRootIsRefused: a link to a file outside the root is
// listed as skipped with the reason, and its content is never read.
func TestSymlinkOutsideRootIsRefused(t *testing.T) {
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.jsonl")
	if err := os.WriteFile(secret, []byte(`{"type":"user","sessionId":"s","message":{"role":"user","content":"secret"}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	if err := os.Symlink(secret, filepath.Join(root, "linked.jsonl")); err != nil {
		t.Fatal(err)
	}
	res, err := Load([]string{root}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Runs) != 0 {
		t.Errorf("the link's target was read as a run")
	}
	if len(res.Skipped) != 1 || res.Skipped[0].Message != "symbolic link pointing outside the input root; refused" {
		t.Errorf("skipped = %+v", res.Skipped)
	}
}
