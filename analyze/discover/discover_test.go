package discover

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pmcheck/pmcheck/analyze/layout"
	"github.com/pmcheck/pmcheck/internal/testcorpus"
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

// TestWalkJobsIsWalk: listing on several goroutines finds what one
// goroutine finds, entry for entry, on a tree with every kind of entry the
// walk decides about (symbolic links inside and outside the root, to
// files, folders and nothing, a named pipe, .git, sidecars, deep folders),
// on the fixtures and on the corpus; and fails the same way on a root that
// cannot be listed.
func TestWalkJobsIsWalk(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	var files []string
	for i := range 40 {
		d := filepath.Join("p"+string(rune('a'+i%7)), "s"+string(rune('a'+i)))
		files = append(files, d+".jsonl", filepath.Join(d, "subagents", "agent-a"+string(rune('a'+i))+".jsonl"),
			filepath.Join(d, "subagents", "agent-a"+string(rune('a'+i))+".meta.json"),
			filepath.Join(d, "subagents", "workflows", "wf_"+string(rune('a'+i)), "journal.jsonl"),
			filepath.Join(d, "subagents", "workflows", "wf_"+string(rune('a'+i)), "agent-w.jsonl"))
	}
	files = append(files, "x/.git/s.jsonl", ".hidden/deep/er/s.jsonl", "agent-dup.jsonl", "q/agent-dup.jsonl", "notes.md")
	for _, f := range append(files, filepath.Join(outside, "o.jsonl")) {
		p := f
		if !filepath.IsAbs(f) {
			p = filepath.Join(root, f)
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"in.jsonl":          filepath.Join(root, "pa", "sa.jsonl"),
		"out.jsonl":         filepath.Join(outside, "o.jsonl"),
		"dirlink":           filepath.Join(root, "pa"),
		"pb/dangling.jsonl": filepath.Join(root, "nothing"),
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Skipf("no symbolic links here: %v", err)
		}
	}
	if err := mkfifo(filepath.Join(root, "pc", "pipe.jsonl")); err != nil {
		t.Logf("no named pipe: %v", err)
	}
	roots := []string{root, filepath.Join(root, "dirlink"), "../../fixtures/runs"}
	if dir := testcorpus.Dir(t); dir != "" {
		roots = append(roots, dir)
	}
	for _, r := range roots {
		one, err := WalkJobs(r, 1)
		if err != nil {
			t.Fatalf("%s: %v", r, err)
		}
		if len(one.Sessions)+len(one.Refused) == 0 && r != filepath.Join(root, "dirlink") {
			t.Fatalf("%s: nothing found", r)
		}
		for _, jobs := range []int{2, 3, 8} {
			many, err := WalkJobs(r, jobs)
			if err != nil {
				t.Fatalf("%s, %d jobs: %v", r, jobs, err)
			}
			if !reflect.DeepEqual(one, many) {
				t.Errorf("%s: %d jobs found\n%+v\none job found\n%+v", r, jobs, many, one)
			}
		}
	}
	if _, err := WalkJobs(filepath.Join(root, "missing"), 4); err == nil {
		t.Error("a missing root: no error")
	}
	// A file given as the root (load never does this) is one entry either way.
	one, err1 := WalkJobs(filepath.Join(root, "pa", "sa.jsonl"), 1)
	many, err4 := WalkJobs(filepath.Join(root, "pa", "sa.jsonl"), 4)
	if err1 != nil || err4 != nil || !reflect.DeepEqual(one, many) {
		t.Errorf("a file as root: %v %+v, %v %+v", err1, one, err4, many)
	}
}

// TestIDReadings: the narrower readings watch's lines make of an id are
// valid ids first: a run id with a blank is printed as a replacement, an
// agent id outside [A-Za-z0-9_-] or over 128 bytes is named positionally.
func TestIDReadings(t *testing.T) {
	for _, c := range []struct {
		id                    string
		valid, run, canonical bool
	}{
		{"wf_abc-1", true, true, true},
		{"", false, false, false},
		{"..", false, false, false},
		{"a/b", false, false, false},
		{"a b", true, false, false},
		{"a\tb", false, false, false},
		{"a.b", true, true, false},
		{strings.Repeat("a", 128), true, true, true},
		{strings.Repeat("a", 129), true, true, false},
		{strings.Repeat("a", MaxIDLen+1), false, false, false},
	} {
		if got := [3]bool{ValidID(c.id), PrintableRunID(c.id), CanonicalAgentID(c.id)}; got != [3]bool{c.valid, c.run, c.canonical} {
			t.Errorf("%q: valid, printable run id, canonical agent id = %v, want %v", c.id, got, [3]bool{c.valid, c.run, c.canonical})
		}
	}
}
