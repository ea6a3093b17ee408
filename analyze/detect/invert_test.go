package detect_test

import (
	"slices"
	"testing"

	"github.com/pmcheck/pmcheck/analyze/detect"
	"github.com/pmcheck/pmcheck/analyze/model"
)

// afterKill loads detect-ship-after-kill and gives the parent's Bash calls
// after the kill (in file order: a push, a deploy label, an echo) the
// commands given, "" keeping one as it is.
func afterKill(t *testing.T, commands ...string) (*model.Run, []*model.ToolCall) {
	t.Helper()
	run := loadRun(t, "detect-ship-after-kill", model.KindSession)
	var calls []*model.ToolCall
	killed := false
	for _, c := range run.Main.ToolCalls {
		if c.Name() == "Agent" {
			killed = true
		}
		if c.Name() == "Bash" && killed {
			calls = append(calls, c)
		}
	}
	if len(calls) != 3 {
		t.Fatalf("the fixture's calls after the kill changed: %d", len(calls))
	}
	for i, cmd := range commands {
		if cmd != "" {
			setCommand(calls[i], cmd)
		}
	}
	return run, calls
}

// TestTrustPossibleShipWhileKilledOutstanding (issue 29, item 2): while the
// killed subagent's work is outstanding, a command that is not proven
// harmless is a possible ship action of kind "ship" that counts the killed
// work outstanding (the rule ship-while-killed-outstanding reports it):
// `git sync` after an earlier command wrote the alias into .git/config, a
// script, an interpreter's inline code. Such a possible ship marks nothing
// shipped (the subagent stays killed-subagent-unreviewed), and a harmless
// command (a build, a test, git status) is no ship fact at all.
func TestTrustPossibleShipWhileKilledOutstanding(t *testing.T) {
	for _, tc := range []struct {
		commands []string
		ships    []string // kind of each ship fact after the kill, "possible " marking a possible one
	}{
		{[]string{"printf '[alias]\\n\\tsync = push origin HEAD:main\\n' >> .git/config", "git sync", "echo done"}, []string{"possible ship"}},
		{[]string{"go test ./...", "./scripts/release.sh", "git status"}, []string{"possible ship"}},
		{[]string{"perl -e 'system(q(git push))'", "python3 -c 'import os'", "echo done"}, []string{"possible ship", "possible ship"}},
		{[]string{"go test ./...", "npm run build && git status", "echo git push"}, nil},
	} {
		run, calls := afterKill(t, tc.commands...)
		f := detect.Analyze(run, detect.Options{})
		var got []string
		for _, s := range f.Ships {
			if s.At.Line <= run.Main.ToolCalls[0].At().Line || !slices.ContainsFunc(calls, func(c *model.ToolCall) bool { return c.At() == s.At }) {
				continue
			}
			k := s.Kind
			if s.Possible {
				k = "possible " + k
			}
			if !s.Outstanding || s.OutstandingCount != 1 || len(s.OutstandingKilled) != 1 {
				t.Errorf("%q: %+v, want the killed work outstanding", tc.commands, s)
			}
			got = append(got, k)
		}
		if !slices.Equal(got, tc.ships) {
			t.Errorf("%q: ship facts after the kill %q, want %q", tc.commands, got, tc.ships)
		}
		for _, s := range f.Subagents {
			if s.Killed && s.ShippedAfterKill {
				t.Errorf("%q: a possible ship marked %q shipped", tc.commands, s.Description)
			}
		}
		if f.Run.Shipped != true { // the push before the kill
			t.Errorf("%q: run shipped %v", tc.commands, f.Run.Shipped)
		}
	}
}

// TestTrustPossibleShipsOnlyWhileOutstanding: with no killed work
// outstanding (the kill reviewed, or no kill at all), the same unproven
// commands are no ship facts: the inversion adds no noise to a run that
// has nothing at risk.
func TestTrustPossibleShipsOnlyWhileOutstanding(t *testing.T) {
	run := loadRun(t, "detect-clean-ending", model.KindSession)
	n := 0
	for _, c := range run.Main.ToolCalls {
		if c.Name() == "Bash" {
			setCommand(c, "./scripts/release.sh")
			n++
		}
	}
	f := detect.Analyze(run, detect.Options{})
	for _, s := range f.Ships {
		if s.Kind == "ship" {
			t.Errorf("a possible ship with nothing outstanding: %+v", s)
		}
	}
	if n == 0 {
		t.Skip("no Bash call to replace")
	}
}

// TestTrustKilledAgentWritesReadAsReadOnly (issue 29, item 3): a killed
// subagent's command that writes through an option of a program taken for
// read-only (sort -o, git diff --output, uniq IN OUT) is work in its
// ledger: the file is one of its paths, so --git can match it on the
// branch. Before, each was inert and the ledger held only the Write.
func TestTrustKilledAgentWritesReadAsReadOnly(t *testing.T) {
	for cmd, want := range map[string]string{
		"sort -o notes.txt data.txt":                     "notes.txt",
		"git diff --output=/work/repo/fix.patch main":    "fix.patch",
		"git log -p --output=history.txt":                "history.txt",
		"uniq data.txt unique.txt && git status --short": "unique.txt",
	} {
		run := loadRun(t, "detect-sync-killed", model.KindSession)
		replaced := false
		for _, a := range run.Agents {
			for _, c := range a.ToolCalls {
				if c.Name() == "Bash" {
					setCommand(c, cmd)
					replaced = true
				}
			}
		}
		if !replaced {
			t.Fatal("the subagent's shell call is gone")
		}
		f := detect.Analyze(run, detect.Options{})
		found := false
		for _, s := range f.Subagents {
			if s.Killed && slices.Contains(s.Paths, want) {
				found = true
			}
		}
		if !found {
			t.Errorf("%q: no killed subagent's paths hold %q: %+v", cmd, want, f.Subagents)
		}
	}
}
