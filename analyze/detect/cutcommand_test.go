package detect_test

import (
	"strings"
	"testing"

	"github.com/pmcheck/pmcheck/analyze/detect"
	"github.com/pmcheck/pmcheck/analyze/detect/ship"
	"github.com/pmcheck/pmcheck/analyze/interpret"
	"github.com/pmcheck/pmcheck/analyze/model"
)

// TestCutCommandIsAPossiblePush: a command longer than the reader keeps
// (model.CommandLimit) may hide a push past the cut, so a check that only
// sees the head must not pass it. The pushing call's head here is byte for
// byte a complete command the run ran before it, so a classification found
// by the command's text alone (the reader's memo, the check's cache, the
// detectors' index) would read the hidden push as nothing. Read with and
// without classifying at read time, and with or without a cache, the cut
// call is a possible push with the killed work outstanding, its ledger is
// partial, and the complete command ships nothing.
func TestCutCommandIsAPossiblePush(t *testing.T) {
	head := strings.Repeat("true; ", model.CommandLimit/6) // then "true" up to the limit
	head += strings.Repeat("t", model.CommandLimit-len(head))
	// The subagent's shell call, then the session's four in order: a push,
	// the call the killed work is outstanding at, a deploy label, an echo.
	root := withCommands(t, "detect-ship-after-kill", []string{"echo sub", head, head + "; git push origin main", "echo done", "echo end"})
	for _, shell := range []bool{false, true} {
		for _, labels := range labelSets {
			runs := loadRuns(t, root, shell, labels)
			if len(runs) != 1 {
				t.Fatalf("%d runs", len(runs))
			}
			var calls []*model.ToolCall
			for _, c := range runs[0].Main.ToolCalls {
				if c.Name() == "Bash" {
					calls = append(calls, c)
				}
			}
			if len(calls) < 3 || calls[0].CommandCut() || !calls[1].CommandCut() || calls[0].Command() != calls[1].Command() {
				t.Fatalf("want a complete command, then one cut to the same text; got %d calls", len(calls))
			}
			if _, _, ok := calls[1].ShellClass(); ok {
				t.Errorf("the reader classified a cut command by its text")
			}
			f := detect.Analyze(runs[0], detect.Options{DeployLabels: labels, Classifications: detect.NewClassifications()})
			var atFirst, atCut *model.ShipFact
			for i := range f.Ships {
				switch f.Ships[i].At {
				case calls[0].At():
					atFirst = &f.Ships[i]
				case calls[1].At():
					atCut = &f.Ships[i]
				}
			}
			if atFirst != nil {
				t.Errorf("shell %v labels %q: the complete command ships %+v", shell, labels, *atFirst)
			}
			if atCut == nil || atCut.Kind != ship.KindPush || !atCut.Possible || !atCut.Outstanding {
				t.Errorf("shell %v labels %q: the cut command: want a possible push with the killed work outstanding, got %+v", shell, labels, atCut)
			}
			if l := interpret.LedgerOf(runs[0].Main, detect.ShellReader(ship.Options{DeployLabels: labels})); !l.Partial {
				t.Errorf("shell %v labels %q: the ledger of a transcript with a cut command is not partial", shell, labels)
			}
		}
	}
}

// TestCutAtACharacterIsStillCut: the reader cuts a command before a
// character the cap would split, so the head is shorter than the cap; it is
// still a cut command.
func TestCutAtACharacterIsStillCut(t *testing.T) {
	head := strings.Repeat("a", model.CommandLimit-1) + "é; git push origin main" // é is two bytes: the cut falls inside it
	root := withCommands(t, "detect-ship-after-kill", []string{"echo hi", head, "echo done"})
	runs := loadRuns(t, root, true, nil)
	c := runs[0].Main.ToolCalls
	var cut *model.ToolCall
	for _, x := range c {
		if x.Name() == "Bash" && strings.HasPrefix(x.Command(), "aaaa") {
			cut = x
		}
	}
	if cut == nil || !cut.CommandCut() || len(cut.Command()) != model.CommandLimit-1 {
		t.Fatalf("want the command cut before é, at %d bytes", model.CommandLimit-1)
	}
	a := ship.Classify(cut.Command(), ship.Options{Truncated: true})
	if !a.MayWrite || len(a.Actions) != 1 || !a.Actions[0].Possible || a.Actions[0].Kind != ship.KindPush {
		t.Errorf("a truncated head: want may write and one possible push, got %+v", a)
	}
	if l := interpret.LedgerOf(runs[0].Main, detect.ShellReader(ship.Options{})); !l.Partial {
		t.Error("the ledger of a transcript with a cut command is not partial")
	}
}
