package analyze_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pmcheck/pmcheck/analyze"
	"github.com/pmcheck/pmcheck/analyze/harness"
	"github.com/pmcheck/pmcheck/analyze/model"
	. "github.com/pmcheck/pmcheck/fixtures/gen"
)

// streamFacts writes s as a stream-json file and returns its run's facts.
func streamFacts(t *testing.T, s *Stream) model.Facts {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "run.jsonl"), s.JSONL(), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := analyze.Load([]string{dir}, analyze.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Runs) != 1 {
		t.Fatalf("%d runs, problems %v", len(res.Runs), res.CheckErrors())
	}
	return analyze.Facts(res.Runs, analyze.FactsOptions{})[0]
}

// Two foreground subagents cut off by a 429, as a real stream of CLI 2.1.278
// shows them: the first call's result is an error, the second's is the
// partial output the CLI recovered, with toolUseResult status "completed".
// The runtime's subagent_stats count the second as completed (completed 1,
// failed 1) although both ended early; pmcheck's outcome stays
// terminated-early for the rules, and the cross-check counts as the runtime
// does, so runtime-counts-disagree does not fire.
func TestRuntimeCountsATerminatedEarlyAgentByItsResult(t *testing.T) {
	s := NewStream("70000000-0000-4000-8000-000000000001", "2026-09-21T12:40:00Z", 71)
	s.Init("critic", "forecaster")
	s.ToolUse("", "toolu_c1", "Agent", O("description", "Review the top", "prompt", "Review it.", "subagent_type", "critic", "run_in_background", false))
	s.ToolUse("", "toolu_f1", "Agent", O("description", "Forecast the dress", "prompt", "Forecast it.", "subagent_type", "forecaster", "run_in_background", false))
	s.TaskStarted("a7000000000000c01", "toolu_c1", "Review the top", "local_agent", false)
	s.TaskStarted("a7000000000000f01", "toolu_f1", "Forecast the dress", "local_agent", false)
	cut := "Agent terminated early due to an API error: You've hit your session limit (error type rate_limit, HTTP 429)"
	s.Wait(time.Minute).TaskUpdated("a7000000000000c01", "failed")
	s.TaskNotification("a7000000000000c01", "toolu_c1", "failed", cut)
	s.ToolResult("", "toolu_c1", cut, true, "Error: "+cut)
	s.Wait(time.Second).TaskUpdated("a7000000000000f01", "failed")
	s.TaskNotification("a7000000000000f01", "toolu_f1", "failed", cut)
	partial := "  " + cut + "\n  \n  Everything below is " + harness.PartialNotice() + " before it was cut off.\nThe forecast so far: 3 sizes."
	s.ToolResult("", "toolu_f1", []any{O("type", "text", "text", partial)}, false,
		O("status", "completed", "prompt", "Forecast it.", "agentId", "a7000000000000f01",
			"content", []any{O("type", "text", "text", partial)}, "totalDurationMs", 61000, "totalTokens", 900, "totalToolUseCount", 0))
	s.Result("success", true, "api_error", 2, Stats{Spawned: 2, Foreground: 2, MaxDepth: 1, Completed: 1, Failed: 1,
		ByType: O("critic", 1, "forecaster", 1)}, nil)

	f := streamFacts(t, s)
	if !f.Run.RuntimeCounted || len(f.Run.CountsDisagree) != 0 {
		t.Errorf("counted %v, disagree %q; want the runtime's counts to agree", f.Run.RuntimeCounted, f.Run.CountsDisagree)
	}
	if len(f.Subagents) != 2 {
		t.Fatalf("%d subagent facts, want 2", len(f.Subagents))
	}
	for _, sf := range f.Subagents {
		if sf.Outcome != "terminated-early" {
			t.Errorf("%s ended %q, want terminated-early (the cross-check must not change the outcome)", sf.ToolUseID, sf.Outcome)
		}
	}
}

// A stream that holds only its result message carries none of the run's
// calls or subagents: checking it would claim an audit that never
// happened, so it is an input problem (exit 2), never a pass, whatever its
// subagent_stats say.
func TestResultOnlyStreamIsAnInputProblem(t *testing.T) {
	for name, stats := range map[string]Stats{
		"subagents counted": {Spawned: 1, Foreground: 1, MaxDepth: 1, Completed: 1, ByType: O("general-purpose", 1)},
		"none counted":      {},
	} {
		t.Run(name, func(t *testing.T) {
			s := NewStream("70000000-0000-4000-8000-000000000002", "2026-09-12T14:10:05Z", 72)
			s.Result("success", false, "completed", 3, stats, nil)
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "run.jsonl"), s.JSONL(), 0o644); err != nil {
				t.Fatal(err)
			}
			res, err := analyze.Load([]string{dir}, analyze.Options{})
			if err != nil {
				t.Fatal(err)
			}
			errs := res.CheckErrors()
			if len(res.Runs) != 0 || len(errs) != 1 || !strings.Contains(errs[0], "run.jsonl:1: the stream holds only its result message") {
				t.Errorf("runs %d, errors %q; want no run and one input problem at run.jsonl:1", len(res.Runs), errs)
			}
		})
	}
}
