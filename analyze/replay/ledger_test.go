package replay_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pmcheck/pmcheck/analyze"
	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/analyze/replay"
	"github.com/pmcheck/pmcheck/fixtures/gen"
)

// aliasCommitRun writes a Workflow run whose killed attempt 1 commits only
// through a git alias it defined earlier (`git config alias.ci commit`, then
// `git ci`), shaped like the replay-kill-retry fixture, and loads it. It is
// built here rather than registered in fixtures/gen so that no fixture or
// golden changes.
func aliasCommitRun(t *testing.T) *model.Run {
	t.Helper()
	const day, sid, runID, taskID = "2026-05-07T10:00:00Z", "30000000-0000-4000-8000-000000000901", "wf_alias001", "w0000901"
	base, _ := time.Parse(time.RFC3339, day)
	parent := gen.NewTranscript(sid, day, 1)
	parent.User("Run the workflow.")
	parent.At(2*time.Second).ToolUse("toolu_wf_"+runID, "Workflow", gen.O("script", "export const meta = {name: 'fixture'}\n"))
	parent.At(3*time.Second).ToolResult("toolu_wf_"+runID, "Workflow launched in background. Task ID: "+taskID+"\nRun ID: "+runID, false,
		gen.O("status", "async_launched", "taskId", taskID, "runId", runID, "summary", "fixture"))
	parent.At(310 * time.Second).Notification(gen.TaskNotification(taskID, "toolu_wf_"+runID, "completed", `Dynamic workflow "fixture" completed`, `{"ok":true}`))

	agent := func(ns int, id string, offset time.Duration) *gen.Transcript {
		a := gen.NewTranscript(sid, base.Format(time.RFC3339), ns)
		a.AgentID = id
		a.At(offset).User("Review module A.")
		return a
	}
	a1 := agent(2, "ak00000000000901", 4*time.Second)
	a1.At(10*time.Second).ToolUse("toolu_a1_1", "Write", gen.O("file_path", "/work/repo/a.go", "content", "package a\n"))
	a1.At(11*time.Second).ToolResult("toolu_a1_1", "File created successfully at: /work/repo/a.go", false, nil)
	a1.At(15*time.Second).ToolUse("toolu_a1_2", "Bash", gen.O("command", "git config alias.ci commit"))
	a1.At(16*time.Second).ToolResult("toolu_a1_2", "", false, nil)
	a1.At(20*time.Second).ToolUse("toolu_a1_3", "Bash", gen.O("command", "git ci -am 'wip: module A'"))
	a1.At(21*time.Second).ToolResult("toolu_a1_3", "[main 1a2b3c4] wip: module A\n 1 file changed", false, nil)
	a1.At(30 * time.Second).Assistant("Still reviewing module A.")
	a1.At(230 * time.Second).UserText("[Request interrupted by user]")
	a2 := agent(3, "ak00000000000902", 232*time.Second)
	a2.At(300 * time.Second).Assistant("Module A looks fine.")
	var journal gen.Journal
	journal.Started(gen.Key("A"), a1.AgentID).Started(gen.Key("A"), a2.AgentID).Result(gen.Key("A"), a2.AgentID, gen.O("ok", true))

	root := t.TempDir()
	runDir := filepath.Join(root, sid, "subagents", "workflows", runID)
	files := map[string][]byte{
		filepath.Join(root, sid+".jsonl"):                     parent.Bytes(),
		filepath.Join(runDir, "journal.jsonl"):                journal.Bytes(),
		filepath.Join(runDir, "agent-ak00000000000901.jsonl"): a1.Bytes(),
		filepath.Join(runDir, "agent-ak00000000000902.jsonl"): a2.Bytes(),
	}
	meta := append(gen.Line(gen.O("agentType", "workflow-subagent", "spawnDepth", 1)), '\n')
	files[filepath.Join(runDir, "agent-ak00000000000901.meta.json")] = meta
	files[filepath.Join(runDir, "agent-ak00000000000902.meta.json")] = meta
	for p, data := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res, err := analyze.Load([]string{root}, analyze.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Runs {
		if r.Kind == model.KindWorkflow {
			return r
		}
	}
	t.Fatal("no workflow run")
	return nil
}

// killLedger is the second line of the run's one KILL, and its --json.
func killLedger(t *testing.T, events []replay.Event) (string, string) {
	t.Helper()
	var kills []replay.Event
	for _, e := range events {
		if e.Kind == replay.KindKill {
			kills = append(kills, e)
		}
	}
	if len(kills) != 1 || len(kills[0].Text()) != 2 {
		t.Fatalf("want one KILL with a ledger line, got %+v", kills)
	}
	return strings.TrimSpace(kills[0].Text()[1]), kills[0].JSON()
}

// TestKillLedgerUsesRunAliases: the KILL line counts a killed attempt's work
// as the detectors do, with the git aliases the run defines, so a commit made
// through `git ci` (alias.ci = commit) is reported once by both — in replay
// (`pmcheck replay`) and in watch's live engine.
func TestKillLedgerUsesRunAliases(t *testing.T) {
	run := aliasCommitRun(t)
	facts := analyze.Facts([]*model.Run{run}, analyze.FactsOptions{})[0]
	var killed *model.AttemptFact
	for i, a := range facts.Attempts {
		if a.Ordinal == 1 {
			killed = &facts.Attempts[i]
		}
	}
	if killed == nil || killed.Outcome != model.OutcomeKilled {
		t.Fatalf("detectors: attempt 1 = %+v, want killed", killed)
	}
	// The detectors' ledger: one path (and maybe more: git writes), one
	// commit through the alias.
	if len(killed.Paths) != 1 || !killed.PathsPartial || !slices.Equal(killed.Commits, []string{"1a2b3c4"}) || killed.CommitsReported != 1 {
		t.Fatalf("detectors' ledger of attempt 1: paths %v partial %v commits %v reported %d; want [a.go] partial, [1a2b3c4], 1",
			killed.Paths, killed.PathsPartial, killed.Commits, killed.CommitsReported)
	}
	const wantLine = "attempt 1 wrote 1+ paths, reported 1 commit."
	const wantJSON = `"paths_written": 1, "commits": 1`

	line, js := killLedger(t, replay.Workflow(run, replay.Config{Ledgers: analyze.Ledgers}).Outcome.Events)
	if !strings.HasPrefix(line, wantLine) || !strings.Contains(js, wantJSON) {
		t.Errorf("replay's KILL disagrees with the detectors' ledger:\n%s\n%s\nwant %q and %s", line, js, wantLine, wantJSON)
	}

	live := replay.NewLive(run.Launch.At.Time, replay.DefaultOptions(), analyze.Ledgers)
	now := run.Launch.At.Time.Add(6 * time.Minute)
	live.Update(now, run, false)
	var events []replay.Event
	for range 200 {
		es, done, _ := live.Poll(now)
		events = append(events, es...)
		if done {
			break
		}
		now = now.Add(5 * time.Second)
	}
	line, js = killLedger(t, events)
	if !strings.HasPrefix(line, wantLine) || !strings.Contains(js, wantJSON) {
		t.Errorf("watch's KILL disagrees with the detectors' ledger:\n%s\n%s\nwant %q and %s", line, js, wantLine, wantJSON)
	}
}
