package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/pmcheck/pmcheck/internal/testcorpus"
)

// TestReplayCorpus replays the two Workflow run directories of the corpus and
// the Irrlicht Workflow recording that has no run directory. The expected
// lines are derived by hand from watch's rules (docs/replay.md walks through
// them), not copied from pmcheck's output.
func TestReplayCorpus(t *testing.T) {
	corpus := testcorpus.Require(t)
	cases := []struct {
		name, path string
		want       []string
		exit       int
		stderr     string
	}{
		{
			// Every row of every file is stamped 10:00:00, so the watch starts,
			// finds the journal and sees all six lines at its first poll: START,
			// then one OK per key in journal order; no parent notification, so
			// DONE waits the 30 s grace.
			name: "claude-code-log workflow_basic",
			path: "handgemacht-ai__claude-code-log/test/test_data/workflow_basic/11110000-0000-4000-8000-000000000001/subagents/workflows/wf_demo01",
			want: []string{
				"2026-06-04T10:00:00Z START  wf_demo01: 3 agents started so far, 3 attempts.",
				"2026-06-04T10:00:00Z OK     a:ag000001 attempt 1 returned a result.",
				"2026-06-04T10:00:00Z OK     a:ag000002 attempt 1 returned a result.",
				"2026-06-04T10:00:00Z OK     a:ag000003 attempt 1 returned a result.",
				"2026-06-04T10:00:30Z DONE   3 agents, 3 attempts, clean.  -> agent-postmortem run wf_demo01",
			},
		},
		{
			// The Workflow tool_use row (demo.jsonl line 6) is written at
			// 10:00:09: the start. Both started lines take their agents' first
			// rows (10:00:34), so the journal is found at the wait check
			// start+25s. Polls run every 5 s from there: w1's result (its last
			// row, 10:01:02) is seen at 10:01:04, w2's (10:01:06) at 10:01:09;
			// no notification, so DONE 30 s later.
			name: "zoetrope demo",
			path: "furkankly__zoetrope/assets/demo/subagents/workflows/wf_demo01",
			want: []string{
				"2026-06-21T10:00:34Z START  wf_demo01: 2 agents started so far, 2 attempts.",
				"2026-06-21T10:01:04Z OK     a:w1000000000000001 attempt 1 returned a result.",
				"2026-06-21T10:01:09Z OK     a:w2000000000000002 attempt 1 returned a result.",
				"2026-06-21T10:01:39Z DONE   2 agents, 2 attempts, clean.  -> agent-postmortem run wf_demo01",
			},
		},
		{
			// A Workflow launch (line 10) and its completion notification, but
			// the recording holds no run directory: watch's exit 2.
			name:   "Irrlicht 3-5_workflow-fanout",
			path:   "ingo-eichhorst__Irrlicht/replaydata/agents/claudecode/scenarios/3-5_workflow-fanout/recordings/2026-06-05-23-21-12_irrlichd-0.4.8+780ba5b.dirty/transcript.jsonl",
			exit:   2,
			stderr: "no journal appeared within 60 s: watch follows a Workflow run while it is running (the plugin hands you this command when one starts); agent-postmortem scan lists past runs\npmcheck: ",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(corpus, filepath.FromSlash(c.path))
			out, errs, code := runReplay(t, "--as-watch", "--timestamps", p)
			var got []string
			if out != "" {
				got = strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			}
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
			if code != c.exit {
				t.Errorf("exit %d, want %d; stderr %q", code, c.exit, errs)
			}
			if !strings.HasPrefix(errs, c.stderr) {
				t.Errorf("stderr %q, want it to begin %q", errs, c.stderr)
			}
			if c.exit == 2 && !strings.Contains(errs, "transcript.jsonl:10: the Workflow launch of run wf_6ce8adcf-32f has no run directory") {
				t.Errorf("stderr does not name the launch and its missing run directory: %q", errs)
			}
		})
	}
}
