package analyze

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pmcheck/pmcheck/analyze/load"
	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/internal/testcorpus"
)

// corpus returns the shared corpus folder, or skips when PMCHECK_CORPUS is unset
// (.ci/run sets it).
func corpus(t testing.TB) string {
	t.Helper()
	return testcorpus.Require(t)
}

// TestCorpusPerFolderCounts loads each corpus folder and checks the number of
// session transcripts and Workflow runs found. The expected numbers were
// counted by hand with find(1), independently of pmcheck:
//
//	find DIR -name '*.jsonl' ! -name 'agent-*' ! -name journal.jsonl ! -path '*/subagents/*' | wc -l
//	find DIR -name journal.jsonl | wc -l
//
// plus, as extra session runs, the subagent transcripts whose parent is not in
// the folder (grouped by session id; checked by reading their sessionId field).
func TestCorpusPerFolderCounts(t *testing.T) {
	root := corpus(t)
	cases := []struct {
		folder              string
		sessions, workflows int
		orphanGroups        int
		// missingRunDir names the recording whose Workflow launch has no
		// run directory: the one input error a folder may have.
		missingRunDir string
	}{
		{"DRMacIver__claude-reliability", 7, 0, 0, ""},
		{"furkankly__zoetrope", 1, 1, 0, ""},
		// JSSoundRecorder holds warm-up agents of two sessions that are not
		// there; coderabbit-review-helper one agent of a missing session.
		{"handgemacht-ai__claude-code-log", 79, 1, 3, ""},
		// The 3-5 recording launched a Workflow run whose directory was
		// not recorded: an input error (the check fails closed on it).
		{"ingo-eichhorst__Irrlicht", 69, 0, 0, "3-5_workflow-fanout/"},
		// 6c2214d7-…/subagents/agent-afc096d.jsonl was copied without its parent.
		{"marot__spotter", 5, 0, 1, ""},
		{"wan-huiyan__agent-traffic-control", 4, 0, 0, ""},
	}
	for _, c := range cases {
		t.Run(c.folder, func(t *testing.T) {
			res, err := Load([]string{filepath.Join(root, c.folder)}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case c.missingRunDir == "" && len(res.Errors) > 0:
				t.Fatalf("errors reading the corpus: %v", res.Errors)
			case c.missingRunDir != "" && (len(res.Errors) != 1 || !strings.Contains(res.Errors[0], c.missingRunDir) || !strings.Contains(res.Errors[0], "whose run directory")):
				t.Fatalf("errors = %q; want one about the missing run directory of %s", res.Errors, c.missingRunDir)
			}
			var sessions, workflows, orphans int
			for _, r := range res.Runs {
				switch {
				case r.Kind == model.KindWorkflow:
					workflows++
				case r.Main == nil:
					orphans++
				default:
					sessions++
				}
			}
			if sessions != c.sessions || workflows != c.workflows || orphans != c.orphanGroups {
				t.Errorf("found %d sessions, %d workflow runs, %d parentless groups; want %d, %d, %d",
					sessions, workflows, orphans, c.sessions, c.workflows, c.orphanGroups)
			}
		})
	}
}

// TestCorpusMalformedOnlyWhereReal: the only malformed line in the corpus is
// line 2 of the resume-gate fixture built to hold one ("this line is not json
// at all"); every other file reads clean.
func TestCorpusMalformedOnlyWhereReal(t *testing.T) {
	res, err := Load([]string{corpus(t)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	seen := map[*model.Transcript]bool{}
	check := func(tr *model.Transcript) {
		if tr == nil || seen[tr] {
			return
		}
		seen[tr] = true
		for _, m := range tr.Malformed {
			got = append(got, tr.File+":"+itoa(m.Line)+": "+m.Reason)
		}
	}
	for _, r := range res.Runs {
		check(r.Main)
		for _, a := range r.Agents {
			check(a)
		}
		if r.Journal != nil && len(r.Journal.Malformed) > 0 {
			t.Errorf("journal %s has malformed lines: %v", r.Journal.File, r.Journal.Malformed)
		}
	}
	if len(got) != 1 || !strings.HasSuffix(got[0], "wan-huiyan__agent-traffic-control/malformed.jsonl:2: not JSON") {
		t.Errorf("malformed lines = %q; want only malformed.jsonl:2", got)
	}
	if len(seen) != 216-2 { // every .jsonl except the two journals
		t.Errorf("read %d transcripts; the corpus has 214 (216 .jsonl files less 2 journals)", len(seen))
	}
}

// TestCorpusIrrlichtFullLifecycleLinks: the recording keeps its parent at
// recordings/<date>/transcript.jsonl and its 12 subagent transcripts in
// subagents/. All 12 spawns (6 foreground, 6 background) link to their
// transcripts, and the background ones to their completion notifications.
func TestCorpusIrrlichtFullLifecycleLinks(t *testing.T) {
	dir := filepath.Join(corpus(t), "ingo-eichhorst__Irrlicht/replaydata/agents/claudecode/regressions/13-full-lifecycle-continue-8a525d27")
	res, err := Load([]string{dir}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var run *model.Run
	for _, r := range res.Runs {
		if r.Main != nil {
			if run != nil {
				t.Fatalf("more than one session found")
			}
			run = r
		} else {
			t.Errorf("unclaimed subagent transcripts: %s (%v)", r.Path, r.Problems)
		}
	}
	if run == nil {
		t.Fatal("no session found")
	}
	if len(run.Subagents) != 12 {
		t.Fatalf("found %d spawns, want 12", len(run.Subagents))
	}
	modes := map[string]int{}
	children := map[string]bool{}
	for _, sc := range run.Subagents {
		modes[sc.Mode]++
		if sc.Child == nil {
			t.Errorf("spawn %s (%q) is not linked to a transcript", sc.ToolUseID, sc.Description)
			continue
		}
		// The corpus lies outside the working directory: paths are named in
		// full, under the folder given.
		if sc.Child.File != filepath.ToSlash(dir)+"/subagents/agent-"+sc.AgentID+".jsonl" {
			t.Errorf("spawn %s linked to %s, want agent-%s.jsonl", sc.ToolUseID, sc.Child.File, sc.AgentID)
		}
		children[sc.Child.File] = true
		if sc.Mode == model.ModeAsync {
			if sc.LastNotification == nil || sc.LastNotification.Status != "completed" {
				t.Errorf("background spawn %s has no completed notification", sc.ToolUseID)
			}
			if !contains(sc.LinkedBy, load.LinkNotification) || !contains(sc.LinkedBy, load.LinkToolUseResult) {
				t.Errorf("background spawn %s linked by %v; want toolUseResult and notification", sc.ToolUseID, sc.LinkedBy)
			}
		} else if !contains(sc.LinkedBy, load.LinkToolUseResult) {
			// 2.1.101 foreground results carry no "agentId:" tail; the
			// row's toolUseResult names the agent.
			t.Errorf("foreground spawn %s linked by %v; want toolUseResult", sc.ToolUseID, sc.LinkedBy)
		}
	}
	if modes[model.ModeSync] != 6 || modes[model.ModeAsync] != 6 {
		t.Errorf("modes = %v, want 6 sync and 6 async", modes)
	}
	if len(children) != 12 || len(run.Agents) != 12 {
		t.Errorf("%d distinct children, %d agents on the run; want 12 and 12", len(children), len(run.Agents))
	}
}

// TestCorpusWorkflowRunsHaveParents: both corpus run directories find their
// parent transcript three levels up and a transcript for every attempt.
func TestCorpusWorkflowRunsHaveParents(t *testing.T) {
	for _, dir := range []string{
		"furkankly__zoetrope/assets/demo/subagents/workflows/wf_demo01",
		"handgemacht-ai__claude-code-log/test/test_data/workflow_basic/11110000-0000-4000-8000-000000000001/subagents/workflows/wf_demo01",
	} {
		res, err := Load([]string{filepath.Join(corpus(t), dir)}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Runs) != 1 || res.Runs[0].Kind != model.KindWorkflow {
			t.Fatalf("%s: want one workflow run, got %d runs", dir, len(res.Runs))
		}
		r := res.Runs[0]
		if r.Main == nil {
			t.Errorf("%s: parent transcript not found (%v)", dir, r.Problems)
		}
		if len(r.Attempts) == 0 {
			t.Errorf("%s: no attempts", dir)
		}
		for _, a := range r.Attempts {
			if a.Transcript == nil {
				t.Errorf("%s: attempt %s/%d has no transcript", dir, a.Key, a.Ordinal)
			}
			if a.ClosedBy != model.OutcomeCompleted {
				t.Errorf("%s: attempt %s/%d closed by %q", dir, a.Key, a.Ordinal, a.ClosedBy)
			}
		}
	}
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func itoa(n int) string { return strconv.Itoa(n) }
