package discover

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/pmcheck/pmcheck/analyze/layout"
)

func TestValidID(t *testing.T) {
	good := []string{"a881341", "a4ca7529859c158c2", "acompact-fffbd0", "am1-engine-aeeff1f0", "3430b97e", "wf_6ce8adcf-32f"}
	bad := []string{"", ".", "..", "../x", "a/b", `a\b`, "/abs", "a\x00b", "a\nb", "C:x", string(make([]byte, 201))}
	for _, id := range good {
		if !ValidID(id) {
			t.Errorf("ValidID(%q) = false", id)
		}
	}
	for _, id := range bad {
		if ValidID(id) {
			t.Errorf("ValidID(%q) = true", id)
		}
	}
}

func TestAgentIDFromName(t *testing.T) {
	cases := map[string]string{"agent-a1.jsonl": "a1", "agent-acompact-x.jsonl": "acompact-x", "journal.jsonl": "", "agent-a1.meta.json": "", "x.jsonl": ""}
	for name, want := range cases {
		if got := AgentIDFromName(name); got != want {
			t.Errorf("%s: got %q want %q", name, got, want)
		}
	}
}

// TestWalkClassifies builds a small projects tree with both subagent layouts,
// a workflow run, a sidecar, a hidden folder and stray files.
func TestWalkClassifies(t *testing.T) {
	root := t.TempDir()
	files := []string{
		"proj/s1.jsonl",
		"proj/agent-3430b97e.jsonl",
		"proj/s1/subagents/agent-a1.jsonl",
		"proj/s1/subagents/agent-a1.meta.json",
		"proj/s1/subagents/workflows/wf_1/journal.jsonl",
		"proj/s1/subagents/workflows/wf_1/agent-w1.jsonl",
		"proj/s1/workflows/wf_1.json",
		"proj/s1/tool-results/x.txt",
		"proj/.git/HEAD.jsonl",
		".agent-runs/s2.jsonl",
		"proj/.hidden/x/s3.jsonl",
		"notes.md",
	}
	for _, f := range files {
		p := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	inv, err := Walk(root)
	if err != nil {
		t.Fatal(err)
	}
	// Hidden folders are searched; only .git is left out, and reported.
	if want := []string{".agent-runs/s2.jsonl", "proj/.hidden/x/s3.jsonl", "proj/s1.jsonl"}; !reflect.DeepEqual(inv.Sessions, want) {
		t.Errorf("sessions = %v", inv.Sessions)
	}
	if want := []Refusal{{Path: "proj/.git", Reason: "a Git repository's .git folder; not searched"}}; !reflect.DeepEqual(inv.Refused, want) {
		t.Errorf("refused = %v", inv.Refused)
	}
	if want := []string{"proj/s1/subagents/workflows/wf_1"}; !reflect.DeepEqual(inv.WorkflowDirs, want) {
		t.Errorf("workflow dirs = %v", inv.WorkflowDirs)
	}
	if len(inv.AgentFiles) != 3 || inv.AgentFiles["a1"][0] != "proj/s1/subagents/agent-a1.jsonl" {
		t.Errorf("agent files = %v", inv.AgentFiles)
	}
	if !inv.Metas["proj/s1/subagents/agent-a1.jsonl"] || layout.MetaOf("proj/s1/subagents/agent-a1.jsonl") != "proj/s1/subagents/agent-a1.meta.json" {
		t.Errorf("metas = %v", inv.Metas)
	}
}
