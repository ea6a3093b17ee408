package detect_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/pmcheck/pmcheck/analyze/detect"
	"github.com/pmcheck/pmcheck/analyze/detect/ship"
	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/internal/testcorpus"
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
// shipped (the subagent stays killed-subagent-not-shipped-unreviewed), and a harmless
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
// outstanding (the background agent is killed only after the command
// ran), the same unproven command is no ship fact: the inversion adds no
// noise to a run while nothing is at risk. (Its named push, in the same
// place, is a fact that counts nothing outstanding.)
func TestTrustPossibleShipsOnlyWhileOutstanding(t *testing.T) {
	run := loadRun(t, "rule-ship-while-killed-outstanding-good", model.KindSession)
	n := 0
	for _, c := range run.Main.ToolCalls {
		if c.Name() == "Bash" {
			setCommand(c, "./scripts/release.sh")
			n++
		}
	}
	if n == 0 {
		t.Fatal("no Bash call to replace")
	}
	f := detect.Analyze(run, detect.Options{})
	if len(f.Ships) != 0 {
		t.Errorf("ship facts with nothing outstanding: %+v", f.Ships)
	}
	killed := false
	for _, s := range f.Subagents {
		killed = killed || s.Killed
	}
	if !killed {
		t.Fatal("the fixture's agent is no longer killed: the test shows nothing")
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

// TestCorpusReadOnlyRowsAreNotPossibleShips checks the inversion's noise on
// real rows: every Bash command of the fixtures and the corpus
// (PMCHECK_CORPUS) that is one plain read-only or build command (no
// separator, substitution or redirection; ls, cat, grep, find without
// -exec, git status/log/diff/show, go test/build, npm test, mix test, …) is
// no possible ship, and commands not proven harmless stay a minority of
// the corpus's commands (143 of 478 when this was written, most of them a
// project's own CLI).
func TestCorpusReadOnlyRowsAreNotPossibleShips(t *testing.T) {
	plain := map[string]bool{"ls": true, "cat": true, "head": true, "tail": true, "wc": true, "grep": true,
		"rg": true, "find": true, "pwd": true, "sleep": true, "tree": true, "stat": true, "which": true, "echo": true,
		"git status": true, "git log": true, "git diff": true, "git show": true, "git branch": true, "git add": true,
		"git commit": true, "git rev-parse": true, "git ls-files": true, "go build": true, "go test": true,
		"go vet": true, "npm test": true, "npm install": true, "pytest": true, "mix test": true, "mix compile": true,
		"cargo test": true, "cargo build": true, "make test": true, "pnpm install": true}
	total, possible, checked := 0, 0, 0
	for _, root := range testcorpus.With(t, fixtures) {
		for _, run := range loadRuns(t, root, false, nil) {
			ts := append([]*model.Transcript{run.Main}, run.Agents...)
			for _, tr := range ts {
				if tr == nil {
					continue
				}
				for _, c := range tr.ToolCalls {
					if c.Name() != "Bash" {
						continue
					}
					cmd := c.Command()
					total++
					acts := ship.ShipActions(ship.Classify(cmd, ship.Options{}), cmd)
					if len(acts) > 0 && acts[0].Kind == ship.KindShip {
						possible++
					}
					f := strings.Fields(cmd)
					if len(f) == 0 || strings.ContainsAny(cmd, "|&;$`()<>\n") || strings.Contains(cmd, "-exec") || strings.Contains(cmd, "-delete") {
						continue
					}
					key := f[0]
					if !plain[key] && len(f) > 1 {
						key += " " + f[1]
					}
					if !plain[key] {
						continue
					}
					checked++
					if len(acts) > 0 {
						t.Errorf("%q: %+v, want no ship action (a plain read-only or build command)", cmd, acts)
					}
				}
			}
		}
	}
	t.Logf("%d Bash commands, %d possible ships, %d plain read-only or build commands checked", total, possible, checked)
	if checked == 0 {
		t.Fatal("no plain read-only command checked")
	}
	if possible*10 > total*4 {
		t.Errorf("%d of %d commands are possible ships: the harmless set misses common real shapes", possible, total)
	}
}
