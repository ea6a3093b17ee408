package interpret

import (
	"testing"

	"github.com/pmcheck/pmcheck/analyze/model"
)

// callOf is the SubagentCall of the tb transcript's Agent call id, linked
// as the loader links it: its result and its last notification.
func callOf(b *tb, id string, mode string) *model.SubagentCall {
	sc := &model.SubagentCall{Owner: b.t.File, ToolUseID: id, Mode: mode, Description: "agent " + id}
	for _, c := range b.t.ToolCalls {
		if c.ID() == id {
			sc.At = c.At()
			sc.Description = c.Description()
		}
	}
	for _, r := range b.t.ToolResults {
		if r.ToolUseID() == id {
			sc.Result = r
			at := r.At()
			sc.ResultAt = &at
		}
	}
	for _, op := range b.t.QueueOps {
		if n := op.Notification; n != nil && n.ToolUseID == id {
			sc.LastNotification = n
		}
	}
	return sc
}

// TestSubagentMergesTheScan: the one reading of a call merges its outcome
// with the resume gate's scan of its owner. The negative cases matter
// most: a consumed failure is killed but not at risk, a completed call is
// neither, and a kill before the newest mark is no hit but Signature A's
// notice still proves it.
func TestSubagentMergesTheScan(t *testing.T) {
	cases := []struct {
		name                       string
		b                          *tb
		mode                       string
		outcome, signature         string
		segment                    int
		killed, atRisk, inLastSegm bool
	}{
		{"completed: nothing at risk", newTB().call("t1", "Agent", "one").result("t1", false, false), model.ModeSync, OutcomeCompleted, "", 1, false, false, true},
		{"Signature A in the segment: a hit, at risk", newTB().call("t1", "Agent", "one").result("t1", true, true), model.ModeSync, OutcomeTerminatedEarly, "A", 1, true, true, true},
		{"Signature A before the newest mark: no hit, still terminated early", newTB().call("t1", "Agent", "one").result("t1", true, true).mark("x"), model.ModeSync, OutcomeTerminatedEarly, "", 1, true, true, false},
		{"a background call's Signature A result before the newest mark: terminated early, not never returned", newTB().call("t1", "Agent", "one").result("t1", true, true).mark("x"), model.ModeAsync, OutcomeTerminatedEarly, "", 1, true, true, false},
		{"the notice without the prefix proves nothing", newTB().call("t1", "Agent", "one").result("t1", true, false), model.ModeSync, OutcomeCompleted, "", 1, false, false, true},
		{"an unbalanced failed notification: Signature B, at risk", newTB().call("t1", "Agent", "one").queue("enqueue", "t1", "failed"), model.ModeAsync, OutcomeFailed, "B", 1, true, true, true},
		{"a consumed failure: killed, not at risk", newTB().call("t1", "Agent", "one").queue("enqueue", "t1", "failed").queue("remove", "t1", "failed"), model.ModeAsync, OutcomeFailed, "", 1, true, false, true},
		{"a call after a mark is in the second segment", newTB().mark("x").call("t1", "Agent", "one").result("t1", false, false), model.ModeSync, OutcomeCompleted, "", 2, false, false, true},
	}
	for _, tc := range cases {
		run := &model.Run{Kind: model.KindSession, Main: tc.b.t}
		sc := callOf(tc.b, "t1", tc.mode)
		run.Subagents = []*model.SubagentCall{sc}
		r := NewOwners(run).Of(sc).Subagent(sc)
		if r.Outcome != tc.outcome || r.Signature != tc.signature || r.Segment != tc.segment || r.Killed != tc.killed || r.AtRisk != tc.atRisk || r.InLastSegment != tc.inLastSegm {
			t.Errorf("%s: outcome %q signature %q segment %d killed %v at risk %v last segment %v; want %q %q %d %v %v %v", tc.name,
				r.Outcome, r.Signature, r.Segment, r.Killed, r.AtRisk, r.InLastSegment, tc.outcome, tc.signature, tc.segment, tc.killed, tc.atRisk, tc.inLastSegm)
		}
		if tc.signature != "" && r.Known != r.Reasons[len(r.Reasons)-1].At {
			t.Errorf("%s: a hit's row (%v) is when the kill became visible, got %v", tc.name, r.Reasons[len(r.Reasons)-1].At, r.Known)
		}
	}
}

// TestReadAttempt: an attempt a result line closed returned, whatever its
// transcript ends in (a false done when that is a failure marker); one
// superseded and ending in the kill sentinel was killed, with its silence.
func TestReadAttempt(t *testing.T) {
	j := func(line int) model.Evidence { return model.Evidence{File: "journal.jsonl", Line: line} }
	closed := j(2)
	sentinel := &model.Transcript{File: "a.jsonl"}
	sentinel.Tail.LastUser = &model.Event{Role: "user", Text: "[Request interrupted by user]", Line: 9}
	sentinel.Tail.LastEvent = sentinel.Tail.LastUser
	cases := []struct {
		name      string
		at        model.Attempt
		outcome   string
		falseDone bool
		atRisk    bool
		at2       model.Evidence
	}{
		{"closed by a result", model.Attempt{Started: j(1), Closed: &closed, ClosedBy: model.OutcomeCompleted}, model.OutcomeCompleted, false, false, closed},
		{"closed by a result, transcript ends in the sentinel: false done", model.Attempt{Started: j(1), Closed: &closed, ClosedBy: model.OutcomeCompleted, SupersededBy: 2, Transcript: sentinel}, model.OutcomeCompleted, true, true, closed},
		{"superseded, sentinel, open: killed", model.Attempt{Started: j(1), SupersededBy: 2, Transcript: sentinel}, model.OutcomeKilled, false, true, j(1)},
		{"superseded, no sentinel: open", model.Attempt{Started: j(1), SupersededBy: 2}, model.OutcomeOpen, false, true, j(1)},
	}
	for _, tc := range cases {
		r := ReadAttempt(&tc.at)
		if r.Outcome != tc.outcome || r.FalseDone != tc.falseDone || r.AtRisk != tc.atRisk || r.At != tc.at2 {
			t.Errorf("%s: outcome %q false done %v at risk %v at %v; want %q %v %v %v", tc.name, r.Outcome, r.FalseDone, r.AtRisk, r.At, tc.outcome, tc.falseDone, tc.atRisk, tc.at2)
		}
		if got := r.AppendReasons(nil, &tc.at); len(got) == 0 || got[0].What != "journal started" {
			t.Errorf("%s: reasons %+v", tc.name, got)
		}
	}
}
