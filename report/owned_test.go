package report

import (
	"fmt"
	"slices"
	"testing"

	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/rules"
)

// unsortedFindings are n findings in reverse order, with evidence times not
// in UTC (New sorts them and puts the times in UTC).
func unsortedFindings(n int) []rules.Finding {
	fs := make([]rules.Finding, n)
	for i := range fs {
		line := n - i
		fs[i] = rules.Finding{RuleID: "PM001", Severity: rules.SeverityError, Message: fmt.Sprint("m", line), RunID: "s1", RunKind: model.KindSession,
			Evidence: []model.Evidence{{File: "s1.jsonl", Line: line}}, Fingerprint: fmt.Sprintf("%032d", line)}
	}
	return fs
}

// TestNewOwned: without Owned, New copies the findings and problems and the
// caller's slices are left as they were; with Owned (what check passes: a
// check of 200,000 findings and as many input problems held two copies of
// each) it sorts and normalizes them in place, and the Document is the same.
func TestNewOwned(t *testing.T) {
	in := Input{Tool: testTool, Rules: testRules(), Runs: testRuns(), Findings: unsortedFindings(50),
		Inputs: Inputs{Files: 1, Problems: []Problem{{File: "b", Line: 2, Message: "x"}, {File: "a", Line: 1, Message: "y"}}}}
	before := slices.Clone(in.Findings)
	copied := mustNew(t, in)
	if !slices.EqualFunc(in.Findings, before, func(a, b rules.Finding) bool { return a.Message == b.Message }) || in.Inputs.Problems[0].File != "b" {
		t.Fatal("New without Owned modified the caller's slices")
	}
	in.Owned = true
	owned := mustNew(t, in)
	if &owned.Findings[0] != &in.Findings[0] || &owned.Inputs.Problems[0] != &in.Inputs.Problems[0] {
		t.Error("New with Owned copied the findings or problems")
	}
	a, b := render(t, copied, FormatJSON, Options{}), render(t, owned, FormatJSON, Options{})
	if string(a) != string(b) {
		t.Errorf("the owned Document differs:\n%s\n%s", a, b)
	}
	// Owned findings that are sorted already are neither copied nor moved.
	allocs := testing.AllocsPerRun(5, func() {
		in := Input{Tool: testTool, Rules: testRules(), Runs: testRuns(), Findings: slices.Clone(owned.Findings), Owned: true}
		mustNew(t, in)
	})
	if allocs > 20 { // 9; a copy would add one per finding's evidence
		t.Errorf("New of 50 owned sorted findings made %.0f allocations", allocs)
	}
}
