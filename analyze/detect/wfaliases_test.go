package detect_test

import (
	"testing"

	"github.com/pmcheck/pmcheck/analyze/detect"
	"github.com/pmcheck/pmcheck/analyze/detect/ship"
	"github.com/pmcheck/pmcheck/analyze/interpret"
	"github.com/pmcheck/pmcheck/analyze/model"
)

// TestWorkflowRunsUseTheirSessionsAliases: a git alias the launching
// session defined (git config persists in the repository the Workflow's
// agents work in) makes an agent's `git NAME` a possible push of the
// Workflow run, in its ship facts and in the ledger replay's KILL line
// counts; without the definition, `git sp` ships nothing.
func TestWorkflowRunsUseTheirSessionsAliases(t *testing.T) {
	for _, define := range []bool{false, true} {
		run := loadRun(t, "detect-workflow-attempts", model.KindWorkflow)
		if run.Main == nil {
			t.Fatal("the Workflow run has no launching session")
		}
		if define {
			run.Main.ToolCalls = append(run.Main.ToolCalls, model.NewToolCall(model.CallInput{
				ID: "toolu_alias", Name: "Bash", Command: "git config alias.sp 'push origin HEAD:main'",
				At: model.Evidence{File: run.Main.File, Line: 1}}))
		}
		var target *model.ToolCall
		var owner *model.Transcript
		for _, at := range run.Attempts {
			if at.Transcript == nil {
				continue
			}
			for _, c := range at.Transcript.ToolCalls {
				if c.Name() == "Bash" && target == nil {
					setCommand(c, "git commit -am wip && git sp")
					target, owner = c, at.Transcript
				}
			}
		}
		if target == nil {
			t.Fatal("no agent shell call in the fixture")
		}
		f := detect.Analyze(run, detect.Options{})
		var push *model.ShipFact
		for i := range f.Ships {
			if f.Ships[i].At == target.At() && f.Ships[i].Kind == ship.KindPush {
				push = &f.Ships[i]
			}
		}
		aliases := detect.ShipOptions(run, nil).Aliases
		switch {
		case define && (push == nil || !push.Possible || len(aliases["sp"]) != 1):
			t.Errorf("the session defined alias.sp: want a possible push at the agent's `git sp`, got %+v (aliases %v)", push, aliases)
		case !define && push != nil:
			t.Errorf("no alias defined: `git sp` ships nothing, got %+v", *push)
		}
		if l := interpret.LedgerOf(owner, detect.ShellReader(detect.ShipOptions(run, nil))); l.CommitCommands+boolInt(l.CommitsUnknown) == 0 {
			t.Errorf("define %v: the agent's commit is not in its ledger: %+v", define, l)
		}
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
