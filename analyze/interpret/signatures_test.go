package interpret

import (
	"reflect"
	"testing"

	"github.com/pmcheck/pmcheck/analyze/model"
)

// tb builds a transcript by hand, one row per call, lines counting from 1.
type tb struct{ t *model.Transcript }

func newTB() *tb { return &tb{t: &model.Transcript{File: "s.jsonl"}} }

func (b *tb) next() model.Evidence {
	b.t.Rows++
	return model.Evidence{File: b.t.File, Line: b.t.Rows}
}

func (b *tb) call(id, name, desc string) *tb {
	b.t.ToolCalls = append(b.t.ToolCalls, model.NewToolCall(model.CallInput{ID: id, Name: name, Description: desc, At: b.next()}))
	return b
}

func (b *tb) result(id string, notice, prefix bool) *tb {
	b.t.ToolResults = append(b.t.ToolResults, model.NewToolResult(model.ResultInput{ToolUseID: id, HasPartialNotice: notice, StartsWithAPIErrorPrefix: prefix, At: b.next()}))
	return b
}

func (b *tb) queue(op, id, status string) *tb {
	at := b.next()
	n := &model.Notification{At: at, Source: "queue-" + op, ToolUseID: id, Status: status, HasStatus: status != ""}
	b.t.QueueOps = append(b.t.QueueOps, model.QueueOp{At: at, Operation: op, Notification: n})
	return b
}

func (b *tb) userRow(id, status string) *tb {
	at := b.next()
	b.t.Notifications = append(b.t.Notifications, &model.Notification{At: at, Source: "user-row", ToolUseID: id, Status: status, HasStatus: status != ""})
	return b
}

func (b *tb) mark(items ...string) *tb {
	at := b.next()
	m := FindMarks(EncodeMark(items))[0]
	b.t.Marks = append(b.t.Marks, model.Mark{At: at, Outstanding: m[0], Payload: m[1]})
	return b
}

func hitRules(s Scan) []string {
	var out []string
	for _, h := range s.Hits {
		out = append(out, h.Description+"="+h.Rule)
	}
	return out
}

func TestSignatureRules(t *testing.T) {
	cases := []struct {
		name string
		b    *tb
		want []string
	}{
		{"A needs both the notice and the prefix", newTB().call("t1", "Agent", "one").result("t1", true, false).result("t1", false, true), nil},
		{"A fires on both", newTB().call("t1", "Agent", "one").result("t1", true, true), []string{"one=" + RuleA}},
		{"A on a Task call", newTB().call("t1", "Task", "").result("t1", true, true), []string{NoDescription + "=" + RuleA}},
		{"A never on a non-Agent call", newTB().call("t1", "Bash", "grep").result("t1", true, true), nil},
		{"A never on an unresolved id", newTB().result("t9", true, true), nil},
		{"B latest status wins (killed then completed)", newTB().call("t1", "Agent", "one").queue("enqueue", "t1", "killed").queue("enqueue", "t1", "completed"), nil},
		{"B latest status wins (completed then killed)", newTB().call("t1", "Agent", "one").queue("enqueue", "t1", "completed").queue("enqueue", "t1", "killed"), []string{"one=" + RuleBQueue}},
		{"B remove balances", newTB().call("t1", "Agent", "one").queue("enqueue", "t1", "failed").queue("remove", "t1", "failed"), nil},
		{"B dequeue does not balance", newTB().call("t1", "Agent", "one").queue("enqueue", "t1", "stopped").queue("dequeue", "t1", "stopped"), []string{"one=" + RuleBQueue}},
		{"B missing status is outstanding", newTB().call("t1", "Agent", "one").queue("enqueue", "t1", ""), []string{"one=" + RuleBQueue}},
		{"B no fallback label", newTB().queue("enqueue", "t1", "failed"), nil},
		{"B background Bash never counts", newTB().call("t1", "Bash", "grep").queue("enqueue", "t1", "failed").userRow("t1", "failed"), nil},
		{"B user row, non-completed", newTB().call("t1", "Agent", "one").userRow("t1", "killed"), []string{"one=" + RuleBUserRow}},
		{"B user row, completed", newTB().call("t1", "Agent", "one").userRow("t1", "completed"), nil},
		{"B user row defers to queue accounting", newTB().call("t1", "Agent", "one").queue("enqueue", "t1", "failed").queue("remove", "t1", "failed").userRow("t1", "failed"), nil},
		{"order: A first, then B, deduplicated", newTB().call("t1", "Agent", "b-agent").call("t2", "Agent", "a-agent").call("t3", "Agent", "a-agent").
			queue("enqueue", "t1", "killed").result("t2", true, true).result("t3", true, true), []string{"a-agent=" + RuleA, "a-agent=" + RuleA, "b-agent=" + RuleBQueue}},
		{"window: the call may precede the mark", newTB().call("t1", "Agent", "one").mark("x").result("t1", true, true), []string{"one=" + RuleA}},
		{"window: hits before the newest decodable mark are out", newTB().call("t1", "Agent", "one").result("t1", true, true).queue("enqueue", "t1", "killed").mark("one"), nil},
	}
	for _, tc := range cases {
		s := ScanTranscript(tc.b.t)
		if got := hitRules(s); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: hits %q, want %q", tc.name, got, tc.want)
		}
	}
	s := ScanTranscript(cases[15].b.t)
	if !reflect.DeepEqual(s.Items, []string{"a-agent", "b-agent"}) {
		t.Errorf("items %q", s.Items)
	}
}
