package discover

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestWalkSessionListsOneSession: the gate's walk lists the folder's own
// files (another session's transcript, a legacy agent file beside the
// session) and the session's own folder whole, and no other session's
// folder.
func TestWalkSessionListsOneSession(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{"a.jsonl", "a/subagents/agent-x.jsonl", "a/subagents/agent-x.meta.json", "a/subagents/workflows/wf_1/journal.jsonl",
		"b.jsonl", "b/subagents/agent-y.jsonl", "agent-z.jsonl", "ab/subagents/agent-w.jsonl"} {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	inv, err := WalkSession(root, "a")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a.jsonl", "b.jsonl"}; !reflect.DeepEqual(inv.Sessions, want) {
		t.Errorf("sessions %q, want %q", inv.Sessions, want)
	}
	if len(inv.AgentFiles) != 2 || inv.AgentFiles["x"] == nil || inv.AgentFiles["z"] == nil {
		t.Errorf("agent files %v, want x (the session's) and z (beside it) only", inv.AgentFiles)
	}
	if !inv.Metas["a/subagents/agent-x.jsonl"] || !reflect.DeepEqual(inv.WorkflowDirs, []string{"a/subagents/workflows/wf_1"}) {
		t.Errorf("metas %v, workflow dirs %q", inv.Metas, inv.WorkflowDirs)
	}
}
