package model

import (
	"math"
	"reflect"
	"testing"
	"time"
	"unsafe"
)

func TestToolCallIs64Bytes(t *testing.T) {
	if n := unsafe.Sizeof(ToolCall{}); n > 64 {
		t.Errorf("ToolCall is %d bytes, want at most 64 (a transcript keeps one per shell command and file write)", n)
	}
}

// A call gives back every input it was built with, whatever the tool: the
// input of the tool's kind and any other one, a known or unknown name, and
// its evidence (in full when hand-built; from the staircase when read).
func TestToolCallKeepsItsInputs(t *testing.T) {
	t0 := time.Date(2026, 5, 6, 9, 0, 0, 0, time.UTC)
	for _, name := range append(toolNames[1:], "mcp__x__publish", "", "Other") {
		in := CallInput{ID: "toolu_1", Name: name, At: Evidence{File: "a.jsonl", Line: 7, Time: t0},
			Description: "d", Prompt: "p", SubagentType: "s", RunInBackground: true, AgentName: "n",
			WorkflowName: "w", ResumeFromRun: "r", Command: "git push", FilePath: "/f", TaskID: "t1", Copied: true,
			Result: NewToolResult(ResultInput{ToolUseID: "toolu_1"})}
		if got := NewToolCall(in).Input(); !reflect.DeepEqual(got, in) {
			t.Errorf("%q: got %+v, want %+v", name, got, in)
		}
		only := CallInput{Name: name, Command: "c"}
		c := NewToolCall(only)
		if c.Command() != "c" || c.FilePath() != "" || c.TaskID() != "" || c.Description() != "" || c.Copied() || c.RunInBackground() {
			t.Errorf("%q: inputs not given are not empty: %+v", name, c.Input())
		}
	}
	tr := &Transcript{File: "s.jsonl"}
	tr.Steps.Append(3, t0)
	tr.Steps.Append(9, t0.Add(time.Minute))
	for _, c := range []struct {
		line int
		want Evidence
	}{
		{1, Evidence{File: "s.jsonl", Line: 1, Time: t0}},
		{8, Evidence{File: "s.jsonl", Line: 8, Time: t0}},
		{9, Evidence{File: "s.jsonl", Line: 9, Time: t0.Add(time.Minute)}},
		{math.MaxUint32 + 5, Evidence{File: "s.jsonl", Line: math.MaxUint32 + 5, Time: t0.Add(time.Minute)}},
	} {
		call := tr.NewToolCall(CallInput{ID: "x", Name: "Bash", At: c.want, Command: "ls"})
		if got := call.At(); got != c.want {
			t.Errorf("line %d: At() = %+v, want %+v", c.line, got, c.want)
		}
	}
	set := tr.NewToolCall(CallInput{ID: "x", Name: "Bash", At: Evidence{File: "s.jsonl", Line: 9, Time: t0.Add(time.Minute)}, Command: "ls"})
	in := set.Input()
	in.Name, in.Command, in.FilePath = "Write", "", "/a"
	set.Set(in)
	if set.Name() != "Write" || set.FilePath() != "/a" || set.Command() != "" || set.At().Line != 9 {
		t.Errorf("Set: %+v", set.Input())
	}
}
