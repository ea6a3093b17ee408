package detect

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/pmcheck/pmcheck/analyze/detect/gitjoin"
	"github.com/pmcheck/pmcheck/analyze/model"
)

// TestStepResultsReachTheirOwnFacts: review, git and ships find things
// about the items by their place in the items list (subagents first, then
// attempts, skipping work not at risk); each finding must land on the fact
// of its own item. Two killed subagents and four attempts, the second of
// which completed: a trailer names the second subagent and the third
// attempt, and the branch holds the path the fourth attempt wrote.
func TestStepResultsReachTheirOwnFacts(t *testing.T) {
	run := killedManyRun(2)
	for i, sc := range run.Subagents {
		sc.AgentID = fmt.Sprintf("a100000000000000%d", i)
	}
	closed := model.Evidence{File: "journal.jsonl", Line: 9}
	wrote := &model.Transcript{File: "a3.jsonl", ToolCalls: []*model.ToolCall{
		model.NewToolCall(model.CallInput{ID: "toolu_w", Name: "Write", FilePath: "x.go", At: model.Evidence{File: "a3.jsonl", Line: 1}}),
	}}
	for i := range 4 {
		at := &model.Attempt{Key: fmt.Sprintf("v2:k%d", i), Ordinal: 1, AgentID: fmt.Sprintf("as0000000000000%d", i), Started: model.Evidence{File: "journal.jsonl", Line: i + 1}}
		switch i {
		case 1:
			at.Closed, at.ClosedBy = &closed, model.OutcomeCompleted
		case 3:
			at.Transcript = wrote
		}
		run.Attempts = append(run.Attempts, at)
	}
	branch := &gitjoin.Branch{Name: "feat", Paths: []string{"x.go"}, Commits: []gitjoin.Commit{
		{ID: "c1c1c1c1c1c1", Trailers: []gitjoin.Trailer{{Key: "Reviewed-Killed-Agent", Value: "toolu_kill000001"}}},
		{ID: "c2c2c2c2c2c2", Trailers: []gitjoin.Trailer{{Key: "Reviewed-Killed-Agent", Value: "as00000000000002"}}},
	}}
	f := Analyze(run, Options{Git: branch})
	var reviewed, onBranch []bool
	for _, s := range f.Subagents {
		reviewed, onBranch = append(reviewed, s.Reviewed), append(onBranch, s.OnShippedBranch)
	}
	for _, a := range f.Attempts {
		reviewed, onBranch = append(reviewed, a.Reviewed), append(onBranch, a.OnShippedBranch)
	}
	if want := []bool{false, true, false, false, true, false}; !reflect.DeepEqual(reviewed, want) {
		t.Errorf("reviewed %v, want %v (subagents, then attempts)", reviewed, want)
	}
	if want := []bool{false, false, false, false, false, true}; !reflect.DeepEqual(onBranch, want) {
		t.Errorf("on the branch %v, want %v (subagents, then attempts)", onBranch, want)
	}
	if got := f.Attempts[3].BranchMatches; !reflect.DeepEqual(got, []string{"path x.go"}) {
		t.Errorf("the fourth attempt's matches %q", got)
	}
	if got := f.Attempts[2].ReviewEvidence; len(got) != 1 || got[0] != "trailer Reviewed-Killed-Agent: as00000000000002 in commit c2c2c2c2c2c2" {
		t.Errorf("the third attempt's evidence %q", got)
	}
}
