package detect_test

import (
	"reflect"
	"testing"

	"github.com/pmcheck/pmcheck/analyze"
	"github.com/pmcheck/pmcheck/analyze/detect"
	"github.com/pmcheck/pmcheck/analyze/interpret"
	"github.com/pmcheck/pmcheck/analyze/model"
)

const fixtures = "../../fixtures/runs/"

// loadRun reads a generated fixture through the real readers and returns its
// run of the given kind.
func loadRun(t testing.TB, name, kind string) *model.Run {
	t.Helper()
	res, err := analyze.Load([]string{fixtures + name}, analyze.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Runs {
		if r.Kind == kind {
			return r
		}
	}
	t.Fatalf("%s: no %s run", name, kind)
	return nil
}

// rulesOf lists "description=rule" for every subagent fact with a signature.
func rulesOf(f model.Facts) []string {
	var out []string
	for _, s := range f.Subagents {
		if s.Signature != "" {
			out = append(out, s.Description+"="+s.Rule)
		}
	}
	return out
}

// TestSeedTestingTable runs every case of seed 002's testing table (plus the
// newer delivery and the corrupt-mark fall-back) on its generated fixture.
func TestSeedTestingTable(t *testing.T) {
	cases := []struct {
		name  string
		items []string
		rules []string
	}{
		{"detect-sync-killed", []string{"Fix three disclosure defects"}, []string{"Fix three disclosure defects=" + interpret.RuleA}},
		{"detect-async-unconsumed", []string{"Review the readability commit"}, []string{"Review the readability commit=" + interpret.RuleBQueue}},
		{"detect-async-consumed-clean", nil, nil},
		{"detect-async-failed-consumed", nil, nil},
		{"detect-async-status-missing", []string{"Summarise the incident"}, []string{"Summarise the incident=" + interpret.RuleBQueue}},
		{"detect-background-bash", nil, nil},
		{"detect-clean-ending", nil, nil},
		{"detect-discussion", nil, nil},
		{"detect-review-subagent", nil, nil},
		{"detect-already-warned", nil, nil},
		{"detect-malformed", nil, nil},
		{"detect-corrupt-newest-mark", []string{"Rewrite the release notes"}, []string{"Rewrite the release notes=" + interpret.RuleA}},
		{"detect-user-row-killed", []string{"Find session structs"}, []string{"Find session structs=" + interpret.RuleBUserRow}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			run := loadRun(t, tc.name, model.KindSession)
			scan := interpret.ScanTranscript(run.Main)
			if !reflect.DeepEqual(scan.Items, tc.items) {
				t.Errorf("items = %q, want %q (hits %+v)", scan.Items, tc.items, scan.Hits)
			}
			if got := rulesOf(detect.Analyze(run, detect.Options{})); !reflect.DeepEqual(got, tc.rules) {
				t.Errorf("signature facts = %q, want %q", got, tc.rules)
			}
		})
	}
}

// The negative fixtures must genuinely contain what they must not fire on;
// otherwise "silent" would only mean "nothing to find".

// agentIDs are the Agent/Task call ids of a transcript.
func agentIDs(tr *model.Transcript) map[string]bool {
	m := map[string]bool{}
	for _, c := range tr.ToolCalls {
		if c.IsSubagentSpawn() {
			m[c.ID()] = true
		}
	}
	return m
}

// queueBalance is enqueues minus removes per tool-use id, and the last status.
func queueBalance(tr *model.Transcript) (map[string]int, map[string]string) {
	bal, status := map[string]int{}, map[string]string{}
	for _, op := range tr.QueueOps {
		if op.Notification == nil || op.Notification.ToolUseID == "" {
			continue
		}
		id := op.Notification.ToolUseID
		switch op.Operation {
		case "enqueue":
			bal[id]++
		case "remove":
			bal[id]--
		}
		status[id] = op.Notification.Status
	}
	return bal, status
}

func TestNegativeFixturesContainWhatTheyMustNotFireOn(t *testing.T) {
	t.Run("async-consumed-clean has an unmatched completed enqueue for an Agent call", func(t *testing.T) {
		tr := loadRun(t, "detect-async-consumed-clean", model.KindSession).Main
		bal, status := queueBalance(tr)
		if bal["toolu_async03"] != 1 || status["toolu_async03"] != "completed" || !agentIDs(tr)["toolu_async03"] {
			t.Fatalf("balance %v status %v", bal, status)
		}
	})
	t.Run("clean-ending has unmatched completed enqueues", func(t *testing.T) {
		tr := loadRun(t, "detect-clean-ending", model.KindSession).Main
		bal, status := queueBalance(tr)
		n := 0
		for id, b := range bal {
			if b > 0 && status[id] == "completed" && agentIDs(tr)[id] {
				n++
			}
		}
		if n < 2 {
			t.Fatalf("want at least 2 unmatched completed Agent enqueues, have %d (%v %v)", n, bal, status)
		}
	})
	t.Run("async-failed-consumed has a failed Agent notification enqueued and removed", func(t *testing.T) {
		tr := loadRun(t, "detect-async-failed-consumed", model.KindSession).Main
		ops := map[string]int{}
		for _, op := range tr.QueueOps {
			ops[op.Operation]++
			if op.Operation == "enqueue" && (op.Notification == nil || op.Notification.Status != "failed" || !agentIDs(tr)[op.Notification.ToolUseID]) {
				t.Fatalf("enqueue is not a failed Agent notification: %+v", op.Notification)
			}
			if op.Operation == "remove" && op.Notification == nil {
				t.Fatalf("reader gap: the remove at line %d carries a task-notification but the reader left QueueOp.Notification nil (analyze/transcript parses enqueue content only); the reference balance needs removes", op.At.Line)
			}
		}
		if ops["enqueue"] != 1 || ops["remove"] != 1 {
			t.Fatalf("queue operations %v", ops)
		}
	})
	t.Run("background-bash has a non-completed unmatched notification for a Bash call", func(t *testing.T) {
		tr := loadRun(t, "detect-background-bash", model.KindSession).Main
		bal, status := queueBalance(tr)
		c := tr.CallByID("toolu_bash06")
		if bal["toolu_bash06"] != 1 || status["toolu_bash06"] != "failed" || c == nil || c.Name() != "Bash" {
			t.Fatalf("balance %v status %v call %+v", bal, status, c)
		}
	})
	for _, name := range []string{"detect-discussion", "detect-review-subagent"} {
		t.Run(name+" has the notice inside an Agent tool_result, not prefix-anchored", func(t *testing.T) {
			tr := loadRun(t, name, model.KindSession).Main
			ids := agentIDs(tr)
			found := false
			for _, r := range tr.ToolResults {
				if ids[r.ToolUseID()] && r.HasPartialNotice() && !r.StartsWithAPIErrorPrefix() {
					found = true
				}
			}
			if !found {
				t.Fatal("no Agent tool_result holds the notice")
			}
		})
	}
	t.Run("already-warned has a qualifying kill before a decodable mark that lists it", func(t *testing.T) {
		tr := loadRun(t, "detect-already-warned", model.KindSession).Main
		seg := interpret.ReadSegments(tr)
		if len(seg.Marks) == 0 {
			t.Fatal("reader gap: the fixture stores its segment mark with the bracket JSON-escaped (as the notice is); analyze/transcript must look for marks in decoded string values, not only in the raw line")
		}
		var kill *model.ToolResult
		for _, r := range tr.ToolResults {
			if agentIDs(tr)[r.ToolUseID()] && interpret.SignatureA(r) {
				kill = r
			}
		}
		if kill == nil || seg.State != interpret.MarkItems || !reflect.DeepEqual(seg.Items, []string{"Fix three disclosure defects"}) || seg.InWindow(kill.At().Line) {
			t.Fatalf("kill %+v segments %+v", kill, seg)
		}
	})
	t.Run("malformed has malformed lines and a queued user message", func(t *testing.T) {
		tr := loadRun(t, "detect-malformed", model.KindSession).Main
		plain := 0
		for _, op := range tr.QueueOps {
			if op.Operation == "enqueue" && op.Notification == nil {
				plain++
			}
		}
		if len(tr.Malformed) < 2 || plain != 1 {
			t.Fatalf("malformed %v, plain enqueues %d", tr.Malformed, plain)
		}
	})
	t.Run("corrupt-newest-mark has an undecodable newest mark after a decodable one", func(t *testing.T) {
		tr := loadRun(t, "detect-corrupt-newest-mark", model.KindSession).Main
		seg := interpret.ReadSegments(tr)
		if len(seg.Marks) != 2 || !seg.Marks[0].OK || seg.Marks[1].OK || seg.State != interpret.MarkUndecodable {
			t.Fatalf("segments %+v", seg)
		}
	})
}

// TestConsumedFailureIsNotOutstanding: a background agent whose failure
// the parent consumed (enqueued and removed) is killed, but its work is not
// outstanding at a later push (seed 002: no hit); one whose failure was
// only enqueued is. Check and the resume gate read it alike
// (internal/differential).
func TestConsumedFailureIsNotOutstanding(t *testing.T) {
	run := loadRun(t, "detect-consumed-failure-then-push", model.KindSession)
	f := detect.Analyze(run, detect.Options{})
	if len(f.Ships) != 1 || !reflect.DeepEqual(f.Ships[0].OutstandingKilled, []string{"Audit the image links"}) {
		t.Fatalf("ships %+v, want the push with only the unconsumed failure outstanding", f.Ships)
	}
	for _, s := range f.Subagents {
		if !s.Killed {
			t.Errorf("%s: not killed; a consumed failure is still a kill", s.Description)
		}
	}
	if g := detect.GateOf(run, detect.Options{}); !reflect.DeepEqual(g.Outstanding, []string{"Audit the image links"}) {
		t.Errorf("the gate has %q outstanding", g.Outstanding)
	}
}
