package rules

import (
	"testing"

	"github.com/pmcheck/pmcheck/analyze/model"
)

// TestWhyNotNamesTheFalseConditions (issue 31, item 3): a killed subagent
// that no rule reported: each rule's false conditions are named, with the
// parts of a false ||.
func TestWhyNotNamesTheFalseConditions(t *testing.T) {
	fact := &model.SubagentFact{Killed: true, Signature: "A", Reviewed: false}
	got, err := WhyNot("killed && !reviewed && (on_shipped_branch || shipped_after_kill)", model.FactSubagent, fact)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Expr != "on_shipped_branch || shipped_after_kill" || len(got[0].Parts) != 2 || got[0].Parts[0].Value {
		t.Fatalf("why not: %+v", got)
	}
	if s := got[0].Sentence(); s != "`on_shipped_branch || shipped_after_kill` is false (`on_shipped_branch` is false, `shipped_after_kill` is false)" {
		t.Errorf("sentence: %s", s)
	}
	fact.Reviewed = true
	got, _ = WhyNot(`signature != "" && !reviewed && !(on_shipped_branch || shipped_after_kill)`, model.FactSubagent, fact)
	if len(got) != 1 || got[0].Expr != "!reviewed" {
		t.Errorf("why not, reviewed: %+v", got)
	}
	if got, _ := WhyNot("killed", model.FactSubagent, fact); len(got) != 0 {
		t.Errorf("a where that holds has no false condition: %+v", got)
	}
}
