package model

import (
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
	"unsafe"
)

// A transcript keeps one call per shell command and file write: a field
// added to ToolCall costs every one of them, so a larger struct fails here.
func TestToolCallIs48Bytes(t *testing.T) {
	if n := unsafe.Sizeof(ToolCall{}); n > 48 {
		t.Errorf("ToolCall is %d bytes, want at most 48 (a transcript keeps one per shell command and file write)", n)
	}
	// Every spawn has a callExtra: 176 bytes is its allocation size class.
	if n := unsafe.Sizeof(callExtra{}); n > 176 {
		t.Errorf("callExtra is %d bytes, want at most 176", n)
	}
}

// The id's length, the tool, the flags and a shell classification's place
// share a word: an id as long as the word holds (1,023 bytes) and the last
// place a transcript's list has leave the others as they were given.
func TestToolCallLongestInlineID(t *testing.T) {
	id := strings.Repeat("i", idLenMask)
	tr := &Transcript{File: "s.jsonl"}
	c := tr.NewToolCall(CallInput{ID: id, Name: "Bash", Command: "git push", RunInBackground: true, Copied: true})
	last := 0
	for i := range maxShellClasses + 1 {
		if j := tr.AddShellClass([]string{"x"}, ShellAnalysis{Commits: i}); j >= 0 {
			last = j
		}
	}
	c.SetShellClass(last)
	a, labels, ok := c.ShellClass()
	if c.ID() != id || c.Name() != "Bash" || c.Command() != "git push" || !c.RunInBackground() || !c.Copied() || c.rare().id != "" {
		t.Errorf("an id of %d bytes: id of %d bytes, name %q, command %q, in background %v, copied %v",
			len(id), len(c.ID()), c.Name(), c.Command(), c.RunInBackground(), c.Copied())
	}
	if len(tr.Shell.List) != maxShellClasses || !ok || a.Commits != maxShellClasses-1 || labels[0] != "x" {
		t.Errorf("%d analyses kept; the last one's place gives %+v %q %v", len(tr.Shell.List), a, labels, ok)
	}
	c.Set(c.Input())
	if _, _, ok := c.ShellClass(); ok {
		t.Error("a call given other inputs keeps its classification")
	}
}

// A reader hands a call views of the row it is decoding, whose bytes are
// reused for the next row: the call must copy the id and every input of a
// shell, file or task tool, of its kind or not, and keep an id too long for
// its length field whole.
func TestToolCallCopiesWhatItIsGiven(t *testing.T) {
	defer func(n int64) { maxIDInline = n }(maxIDInline)
	for _, inline := range []int64{maxIDInline, 3} {
		maxIDInline = inline
		for _, name := range []string{"Bash", "Write", "TaskStop", "Agent", "mcp__x__y"} {
			buf := []byte("toolu_1" + "git push" + "/a/b.go" + "t1")
			view := func(from, to int) string { return unsafe.String(&buf[from], to-from) }
			in := CallInput{ID: view(0, 7), Name: name, Command: view(7, 15), FilePath: view(15, 22), TaskID: view(22, 24)}
			c := NewToolCall(in)
			for i := range buf {
				buf[i] = 'X'
			}
			if c.ID() != "toolu_1" || c.Command() != "git push" || c.FilePath() != "/a/b.go" || c.TaskID() != "t1" {
				t.Errorf("%s (ids inline up to %d): the call reads %q %q %q %q after its input's bytes changed",
					name, inline, c.ID(), c.Command(), c.FilePath(), c.TaskID())
			}
		}
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

// A transcript keeps one ShellAnalysis per distinct analysis of its shell
// commands (ShellClasses): its two flags sit together.
func TestShellAnalysisIs80Bytes(t *testing.T) {
	if n := unsafe.Sizeof(ShellAnalysis{}); n > 80 {
		t.Errorf("ShellAnalysis is %d bytes, want at most 80", n)
	}
}
