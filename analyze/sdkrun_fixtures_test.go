package analyze

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pmcheck/pmcheck/analyze/load"
)

// The named stream fixtures (fixtures/gen/scenarios_stream.go), each read
// without session files: how every subagent and the run ended, the counts
// compared, and what is an input problem.
func TestStreamFixtures(t *testing.T) {
	type want struct {
		format, ending string
		outcomes       []string // per Agent/Task call, in order
		rules          []string // Signature rule per call ("" none)
		agents         int      // subagent transcripts
		denials        int
		disagree       []string
	}
	cases := map[string]want{
		"stream-completed":        {format: "json-array", ending: "completed", outcomes: []string{"completed", "completed"}, rules: []string{"", ""}, agents: 2},
		"stream-completed-jsonl":  {format: "jsonl", ending: "completed", outcomes: []string{"completed", "completed"}, rules: []string{"", ""}, agents: 2},
		"stream-killed-subagent":  {format: "jsonl", ending: "completed", outcomes: []string{"stopped"}, rules: []string{"B:sdk-task-notification"}, agents: 1},
		"stream-failed-subagent":  {format: "json-array", ending: "completed", outcomes: []string{"failed"}, rules: []string{"B:sdk-task-notification"}, agents: 1},
		"stream-stopped-subagent": {format: "jsonl", ending: "completed", outcomes: []string{"stopped"}, rules: []string{""}, agents: 1},
		"stream-refused-subagent": {format: "json-array", ending: "completed", outcomes: []string{"completed", "completed", "rejected"}, rules: []string{"", "", ""}, agents: 2},
		"stream-denied-agent":     {format: "jsonl", ending: "completed", outcomes: []string{"rejected"}, rules: []string{""}, denials: 1},
		"stream-max-turns":        {format: "json-array", ending: "max-turns"},
		"stream-interrupted":      {format: "jsonl", ending: "interrupted"},
		"stream-cut-off-subagent": {format: "jsonl", ending: "api-error", outcomes: []string{"terminated-early"}, rules: []string{""}, agents: 1},
		"rule-runtime-counts-disagree-bad": {format: "json-array", ending: "completed", outcomes: []string{"completed", "completed"}, rules: []string{"", ""}, agents: 2,
			disagree: []string{"spawned: the runtime counted 3, the messages show 2", "completed: the runtime counted 3, the messages show 2",
				`by type "pruefer": the runtime counted 2, the messages show 1`}},
	}
	for name, w := range cases {
		res, err := Load([]string{filepath.Join("..", "fixtures", "runs", name)}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.CheckErrors()) > 0 || len(res.Runs) != 1 {
			t.Fatalf("%s: %d runs, problems %v", name, len(res.Runs), res.CheckErrors())
		}
		run := res.Runs[0]
		f := Facts(res.Runs, FactsOptions{})[0]
		r := f.Run
		if r.Source != "sdk-stream" || r.StreamFormat != w.format || r.Ending != w.ending || r.PermissionDenials != w.denials || !r.RuntimeCounted {
			t.Errorf("%s: run read from %q (%q), ended %q, %d denials, counted %v; want sdk-stream (%q), %q, %d", name, r.Source, r.StreamFormat, r.Ending, r.PermissionDenials, r.RuntimeCounted, w.format, w.ending, w.denials)
		}
		if strings.Join(r.CountsDisagree, "|") != strings.Join(w.disagree, "|") {
			t.Errorf("%s: counts disagree %q, want %q", name, r.CountsDisagree, w.disagree)
		}
		if len(run.Agents) != w.agents {
			t.Errorf("%s: %d subagent transcripts, want %d", name, len(run.Agents), w.agents)
		}
		if len(f.Subagents) != len(w.outcomes) {
			t.Fatalf("%s: %d subagent facts, want %d", name, len(f.Subagents), len(w.outcomes))
		}
		for i, s := range f.Subagents {
			if s.Outcome != w.outcomes[i] || s.Rule != w.rules[i] {
				t.Errorf("%s: subagent %s ended %s (%q), want %s (%q)", name, s.ToolUseID, s.Outcome, s.Rule, w.outcomes[i], w.rules[i])
			}
		}
		// A foreground agent's task ends too (task_updated,
		// task_notification), but its call's result says how it ended,
		// as in session files: it stays a sync call, without notifications.
		if name == "stream-completed" && (f.Subagents[0].Mode != "sync" || f.Subagents[1].Mode != "async" || run.Subagents[0].LastNotification != nil) {
			t.Errorf("%s: modes %s, %s, foreground notification %v; want sync without one, async", name, f.Subagents[0].Mode, f.Subagents[1].Mode, run.Subagents[0].LastNotification)
		}
		// A foreground agent cut off before its call returned an agent id
		// is named by the task its call started.
		if name == "stream-cut-off-subagent" && (f.Subagents[0].AgentID != "a60000000000000e1" || !slices.Contains(run.Subagents[0].LinkedBy, load.LinkTaskStarted)) {
			t.Errorf("%s: agent %q linked by %v; want the task_started row's task id", name, f.Subagents[0].AgentID, run.Subagents[0].LinkedBy)
		}
		// Every call that ran is linked to its messages by parent_tool_use_id.
		for _, sc := range run.Subagents {
			if sc.Child != nil && !strings.Contains(strings.Join(sc.LinkedBy, ","), load.LinkParentToolUse) {
				t.Errorf("%s: call %s linked by %v", name, sc.ToolUseID, sc.LinkedBy)
			}
		}
	}
}

// A refused spawn and a nested one are counted as the runtime counts them.
func TestStreamNestedCounts(t *testing.T) {
	res, err := Load([]string{filepath.Join("..", "fixtures", "runs", "stream-refused-subagent")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := Facts(res.Runs, FactsOptions{})[0]
	d := f.Run.DerivedStats
	if d == nil || d.Spawned != 2 || d.SpawnedBySubagents != 1 || d.MaxDepth != 2 || d.RefusedTotal() != 1 || d.Completed != 2 {
		t.Fatalf("derived counts %+v; want 2 spawned (1 by a subagent), depth 2, 1 refused, 2 completed", d)
	}
	run := res.Runs[0]
	if owner := run.Subagents[1].OwnerTranscript; owner == nil || owner != run.Subagents[0].Child {
		t.Errorf("the nested call is not owned by its subagent's transcript")
	}
}

// A cut-off execution file is an input problem, named with its line.
func TestStreamTruncatedFails(t *testing.T) {
	res, err := Load([]string{filepath.Join("..", "fixtures", "runs", "stream-truncated")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	errs := res.CheckErrors()
	if len(errs) != 1 || !strings.Contains(errs[0], "claude-execution-output.json:") || !strings.Contains(errs[0], "unterminated") {
		t.Fatalf("problems %q; want one naming the file, its line and the unterminated array", errs)
	}
	// Given by name, the same.
	res, err = Load([]string{filepath.Join("..", "fixtures", "runs", "stream-truncated", "claude-execution-output.json")}, Options{})
	if err != nil || len(res.CheckErrors()) != 1 {
		t.Fatalf("by name: %v %q", err, res.CheckErrors())
	}
}

// A stream-json run whose job was cancelled has whole lines but no result
// message: an input problem naming the file and its last line, by folder
// and by name, never a pass.
func TestStreamCancelledFails(t *testing.T) {
	dir := filepath.Join("..", "fixtures", "runs", "stream-cancelled")
	for _, in := range []string{dir, filepath.Join(dir, "run.jsonl")} {
		res, err := Load([]string{in}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		errs := res.CheckErrors()
		if len(errs) != 1 || !strings.Contains(errs[0], "run.jsonl:21: the stream ends without a result message") {
			t.Fatalf("%s: problems %q; want one naming run.jsonl:21 and the missing result", in, errs)
		}
		if len(res.Runs) != 1 || Facts(res.Runs, FactsOptions{})[0].Run.Ending != "no-result" {
			t.Fatalf("%s: %d runs; want the run, ended no-result", in, len(res.Runs))
		}
	}
}

// Every turn of a stream ends with a result. A stream whose last turn has
// none was cut off mid-turn, though an earlier turn's result is there;
// messages after the last result that are not the parent's (a background
// agent's end, reported as the process exits) are no turn.
func TestStreamCutMidTurnFails(t *testing.T) {
	const init = `{"type":"system","subtype":"init","session_id":"s1","cwd":"/w","claude_code_version":"2.1.285"}`
	const turn = `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"working"}]},"parent_tool_use_id":null,"session_id":"s1","uuid":"%s","timestamp":"2026-09-30T08:00:0%dZ"}`
	const result = `{"type":"result","subtype":"success","is_error":false,"num_turns":1,"session_id":"s1"}`
	const notification = `{"type":"system","subtype":"task_notification","task_id":"a1","tool_use_id":"toolu_1","status":"stopped","session_id":"s1"}`
	cases := []struct {
		name  string
		lines []string
		want  string // "" no problem
	}{
		{"one turn, ended", []string{init, fmt.Sprintf(turn, "u1", 1), result}, ""},
		{"a task's end after the result", []string{init, fmt.Sprintf(turn, "u1", 1), result, notification}, ""},
		{"second turn cut", []string{init, fmt.Sprintf(turn, "u1", 1), result, init, fmt.Sprintf(turn, "u2", 2), fmt.Sprintf(turn, "u3", 3)},
			"run.jsonl:5: the turn that starts here has no result message"},
		{"init only", []string{init}, "run.jsonl:1: the stream ends without a result message"},
	}
	for _, c := range cases {
		dir := t.TempDir()
		writeTestFile(t, filepath.Join(dir, "run.jsonl"), strings.Join(c.lines, "\n")+"\n")
		res, err := Load([]string{dir}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		errs := res.CheckErrors()
		if c.want == "" && len(errs) != 0 || c.want != "" && (len(errs) != 1 || !strings.Contains(errs[0], c.want)) {
			t.Errorf("%s: problems %q; want %q", c.name, errs, c.want)
		}
	}
}

// A .json file given by name that is not a message array is an error, not
// a pass; in a folder, other JSON files are left alone.
func TestStreamNotAnArray(t *testing.T) {
	dir := t.TempDir()
	writeTestFile(t, filepath.Join(dir, "package.json"), `{"name":"x"}`)
	res, err := Load([]string{dir}, Options{})
	if err != nil || len(res.Runs) != 0 || len(res.CheckErrors()) != 0 {
		t.Fatalf("a folder with package.json: %v, %d runs, %q", err, len(res.Runs), res.CheckErrors())
	}
	res, err = Load([]string{filepath.Join(dir, "package.json")}, Options{})
	if err != nil || len(res.CheckErrors()) != 1 || !strings.Contains(res.CheckErrors()[0], "not a JSON array") {
		t.Fatalf("package.json by name: %v %q", err, res.CheckErrors())
	}
	// What `claude -p --output-format json` writes (one result object, as
	// in a real repository's committed claude-output.json of CLI 2.1.41)
	// is not a cut-off execution file: the message says what to give.
	writeTestFile(t, filepath.Join(dir, "claude-output.json"), `{"type":"result","subtype":"success","is_error":false,"num_turns":17,"result":"DONE","session_id":"s1"}`)
	res, err = Load([]string{filepath.Join(dir, "claude-output.json")}, Options{})
	if err != nil || len(res.CheckErrors()) != 1 || strings.Contains(res.CheckErrors()[0], "cut off") || !strings.Contains(res.CheckErrors()[0], "--output-format stream-json --verbose") {
		t.Fatalf("a result object by name: %v %q; want it named no execution file, not a cut-off one", err, res.CheckErrors())
	}
}

func writeTestFile(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A background agent that ends after the parent's turn starts a turn of
// its own, with a second result. Whether a result counts its own turn or
// the run so far, the counts agree; a count that no reading explains
// disagrees.
func TestStreamCountsOverSeveralResults(t *testing.T) {
	head := `{"type":"system","subtype":"init","session_id":"s-1","cwd":"/r","claude_code_version":"2.1.285","uuid":"i"}
{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_b","name":"Task","input":{"description":"bg","prompt":"p","run_in_background":true}}]},"parent_tool_use_id":null,"session_id":"s-1","uuid":"u1","timestamp":"2026-09-30T08:00:00Z"}
{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_b","type":"tool_result","content":"Async agent launched successfully.\nagentId: a1"}]},"parent_tool_use_id":null,"session_id":"s-1","uuid":"u2","timestamp":"2026-09-30T08:00:01Z","tool_use_result":{"isAsync":true,"status":"async_launched","agentId":"a1"}}
{"type":"system","subtype":"task_started","task_id":"a1","tool_use_id":"toolu_b","task_type":"local_agent","session_id":"s-1","uuid":"t1"}
`
	stats := func(spawned, completed int) string {
		byType := "{}"
		if spawned > 0 {
			byType = fmt.Sprintf(`{"general-purpose":%d}`, spawned)
		}
		return fmt.Sprintf(`{"spawned":%d,"requested":{"background":%d,"foreground":0,"unset":0},"started_in_background":%d,"max_depth":1,"spawned_by_subagents":0,"completed":%d,"failed":0,"killed":{"parent":0,"user":0,"system":0},"refused":{"depth_limit":0,"concurrency_limit":0,"budget":0},"by_type":%s}`, spawned, spawned, spawned, completed, byType)
	}
	result := func(s string) string {
		return `{"type":"result","subtype":"success","is_error":false,"terminal_reason":"completed","num_turns":1,"subagent_stats":` + s + `,"session_id":"s-1","uuid":"r"}` + "\n"
	}
	tail := `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"done"}]},"parent_tool_use_id":"toolu_b","session_id":"s-1","uuid":"u3","timestamp":"2026-09-30T08:00:30Z"}
{"type":"system","subtype":"task_notification","task_id":"a1","tool_use_id":"toolu_b","status":"completed","summary":"done","session_id":"s-1","uuid":"t2"}
`
	for name, c := range map[string]struct {
		second   string
		disagree bool
	}{
		"per turn":    {stats(0, 1), false},
		"cumulative":  {stats(1, 1), false},
		"unexplained": {stats(0, 2), true},
	} {
		dir := t.TempDir()
		p := filepath.Join(dir, "run.jsonl")
		writeTestFile(t, p, head+result(stats(1, 0))+tail+result(c.second))
		res, err := Load([]string{p}, Options{})
		if err != nil || len(res.Runs) != 1 {
			t.Fatalf("%s: %v", name, err)
		}
		f := Facts(res.Runs, FactsOptions{})[0]
		if got := len(f.Run.CountsDisagree) > 0; got != c.disagree {
			t.Errorf("%s: counts disagree %q, want disagreement %v", name, f.Run.CountsDisagree, c.disagree)
		}
	}
}
