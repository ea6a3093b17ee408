package analyze

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/pmcheck/pmcheck/analyze/interpret"
	"github.com/pmcheck/pmcheck/analyze/model"
)

// subagentFacts loads a fixture and returns its subagent facts by tool-use id.
func subagentFacts(t *testing.T, name string) (map[string]model.SubagentFact, []model.Facts) {
	t.Helper()
	res := loadOne(t, filepath.Join(fixtures, name))
	facts := Facts(res.Runs, FactsOptions{})
	out := map[string]model.SubagentFact{}
	for _, f := range facts {
		for _, s := range f.Subagents {
			out[s.ToolUseID] = s
		}
	}
	return out, facts
}

// TestRealShapeOutcomes reads each real-world shape's fixture and checks the
// outcome package interpret gives every call, and what follows from it.
func TestRealShapeOutcomes(t *testing.T) {
	cases := []struct {
		fixture string
		want    map[string]string // tool-use id -> outcome
		killed  map[string]bool
	}{
		{"interpret-rejected-agent-calls",
			map[string]string{"toolu_rej01a": interpret.OutcomeRejected, "toolu_rej01b": interpret.OutcomeRejected, "toolu_rej01c": interpret.OutcomeRejected, "toolu_rej01d": interpret.OutcomeCompleted},
			map[string]bool{}},
		{"interpret-interrupted-agent-call",
			map[string]string{"toolu_int02": interpret.OutcomeStopped, "toolu_int02b": interpret.OutcomeStopped},
			map[string]bool{"toolu_int02": true, "toolu_int02b": true}},
		{"interpret-background-polled",
			map[string]string{"toolu_bg03a": interpret.OutcomeCompleted, "toolu_bg03b": interpret.OutcomeNeverReturned},
			map[string]bool{}},
		{"interpret-notification-redacted-id",
			map[string]string{"toolu_red04": interpret.OutcomeKilled},
			map[string]bool{"toolu_red04": true}},
		{"rule-subagent-open-at-end-bad",
			map[string]string{"toolu_open05": interpret.OutcomeOpenAtEnd},
			map[string]bool{"toolu_open05": true}},
		{"rule-subagent-open-at-end-good",
			map[string]string{"toolu_open06a": interpret.OutcomeNeverReturned, "toolu_open06b": interpret.OutcomeCompleted},
			map[string]bool{}},
	}
	for _, c := range cases {
		got, facts := subagentFacts(t, c.fixture)
		if len(got) != len(c.want) {
			t.Errorf("%s: %d subagent facts, want %d", c.fixture, len(got), len(c.want))
		}
		for id, want := range c.want {
			f := got[id]
			if f.Outcome != want || f.Killed != c.killed[id] {
				t.Errorf("%s: %s is %q (killed %v), want %q (killed %v)", c.fixture, id, f.Outcome, f.Killed, want, c.killed[id])
			}
		}
		for _, fs := range facts {
			for _, s := range fs.Ships {
				if c.fixture == "interpret-rejected-agent-calls" && s.Outstanding {
					t.Errorf("%s: a rejected call is outstanding at the push: %v", c.fixture, s.OutstandingKilled)
				}
				if c.fixture == "interpret-interrupted-agent-call" && !s.Outstanding {
					t.Errorf("%s: the stopped agent is not outstanding at the push", c.fixture)
				}
			}
		}
	}
}

// TestRedactedNotificationLinksTheAgent: the notification whose tool-use id
// names no call is linked by its task id and names the agent.
func TestRedactedNotificationLinksTheAgent(t *testing.T) {
	res := loadOne(t, filepath.Join(fixtures, "interpret-notification-redacted-id"))
	sc := res.Runs[0].Subagents[0]
	if sc.LastNotification == nil || sc.LastNotification.ToolUseID != "REDACTED" || sc.Status != "killed" {
		t.Fatalf("notification not linked: %+v", sc.LastNotification)
	}
}

// TestCorpusParentKilledMidCall: the Irrlicht 3-4 recording, whose parent
// was killed inside a foreground Agent call, has one open-at-end subagent.
func TestCorpusParentKilledMidCall(t *testing.T) {
	dir := filepath.Join(corpus(t), "ingo-eichhorst__Irrlicht/replaydata/agents/claudecode/scenarios/3-4_subagent-orphan-cleanup")
	res := loadOne(t, dir)
	facts := Facts(res.Runs, FactsOptions{})
	n := 0
	for _, f := range facts {
		for _, s := range f.Subagents {
			if s.Outcome == interpret.OutcomeOpenAtEnd {
				n++
			}
		}
	}
	if n != 1 {
		t.Fatalf("%d open-at-end subagents in the 3-4 recording, want 1", n)
	}
}

// TestResumeCopiesAreOneFact: rows a CLI 2.0 resume copied into a new file
// are marked copies by uuid, so the killed subagent is one fact (in the file
// that launched it), while the second file's push still has it outstanding.
func TestResumeCopiesAreOneFact(t *testing.T) {
	res := loadOne(t, filepath.Join(fixtures, "interpret-resume-copied-rows"))
	facts := Facts(res.Runs, FactsOptions{})
	if len(facts) != 2 {
		t.Fatalf("%d runs, want 2", len(facts))
	}
	first, second := facts[0], facts[1]
	if len(first.Subagents) != 1 || !first.Subagents[0].Killed || first.Run.Agents != 1 {
		t.Errorf("first file: %d subagent facts (%+v)", len(first.Subagents), first.Run)
	}
	if len(second.Subagents) != 0 || second.Run.Agents != 0 {
		t.Errorf("second file repeats the copied call: %d subagent facts, %d agents", len(second.Subagents), second.Run.Agents)
	}
	if len(second.Ships) != 1 || !second.Ships[0].Outstanding || second.Ships[0].OutstandingKilled[0] != "Fix the parser module" {
		t.Errorf("second file's push: %+v", second.Ships)
	}
	if m := res.Runs[1].Main; m.Copied != 4 || res.Runs[0].Main.Copied != 0 {
		t.Errorf("copied rows: %d in the second file, %d in the first; want 4 and 0", m.Copied, res.Runs[0].Main.Copied)
	}
}

// TestBorrowedUUIDsAreNotCopies: a file that borrows another file's uuids
// with other content (a forged decoy placed beside it) marks nothing as
// copied, so an added file cannot make another file's calls disappear. The
// second file no longer holds every row of the decoy as it is, so it is no
// copy of it at all (issue 29: only a file that contains another is its copy).
func TestBorrowedUUIDsAreNotCopies(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(fixtures, "interpret-resume-copied-rows")
	first, err := os.ReadFile(filepath.Join(src, "70000000-0000-4000-8000-000000000007.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	second, err := os.ReadFile(filepath.Join(src, "70000000-0000-4000-8000-000000000008.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	// The decoy: the same uuids, but the Agent call answered as completed.
	decoy := bytes.ReplaceAll(first, []byte("Agent terminated early"), []byte("All done, nothing"))
	if bytes.Equal(decoy, first) {
		t.Fatal("the decoy did not change")
	}
	for name, data := range map[string][]byte{"70000000-0000-4000-8000-000000000007.jsonl": decoy, "70000000-0000-4000-8000-000000000008.jsonl": second} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res := loadOne(t, dir)
	facts := Facts(res.Runs, FactsOptions{})
	if n := len(facts[1].Subagents); n != 1 || !facts[1].Subagents[0].Killed {
		t.Fatalf("the second file's killed call was hidden by a decoy: %d subagent facts", n)
	}
	if c := res.Runs[1].Main.Copied; c != 0 {
		t.Errorf("%d rows marked copied, want 0 (the decoy is not contained in the file)", c)
	}
}
