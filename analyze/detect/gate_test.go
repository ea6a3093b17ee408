package detect

import (
	"reflect"
	"testing"

	"github.com/pmcheck/pmcheck/analyze/interpret"
	"github.com/pmcheck/pmcheck/analyze/model"
)

// TestGateMarkOnly: the newest mark's items that no subagent of the run
// has are the gate's MarkOnly, each once and in the mark's order; an item
// the run has (its separator written as a space) is not; an older mark's
// items and an empty newest mark give none.
func TestGateMarkOnly(t *testing.T) {
	withMarks := func(marks ...[]string) *model.Run {
		run := killedManyRun(1) // "Refactor module 000000", killed; a mark after it
		run.Main.Marks = nil
		run.Subagents[0].Description = "Refactor\x1fmodule"
		run.Main.ToolCalls[0] = model.NewToolCall(model.CallInput{ID: run.Subagents[0].ToolUseID, Name: "Agent", Description: "Refactor\x1fmodule", At: run.Subagents[0].At, Result: run.Subagents[0].Result})
		for i, items := range marks {
			m := interpret.FindMarks(interpret.EncodeMark(items))[0]
			run.Main.Marks = append(run.Main.Marks, model.Mark{At: model.Evidence{File: "s.jsonl", Line: 10 + i}, Outstanding: m[0], Payload: m[1]})
		}
		return run
	}
	cases := []struct {
		name      string
		marks     [][]string
		markItems bool
		want      []string
	}{
		{"no mark", nil, false, nil},
		{"the run's own item, and others", [][]string{{"Ghost agent", "Refactor module", "Other", "Ghost agent"}}, true, []string{"Ghost agent", "Other"}},
		{"only the newest mark counts", [][]string{{"Ghost agent"}, {"Refactor module"}}, true, nil},
		{"an empty newest mark disarms", [][]string{{"Ghost agent"}, {}}, false, nil},
	}
	for _, tc := range cases {
		g := GateOf(withMarks(tc.marks...), Options{})
		if g.MarkItems != tc.markItems || !reflect.DeepEqual(g.MarkOnly, tc.want) {
			t.Errorf("%s: mark items %v, mark only %q; want %v, %q", tc.name, g.MarkItems, g.MarkOnly, tc.markItems, tc.want)
		}
	}
}
