package main

import (
	"github.com/pmcheck/pmcheck/analyze"
	"github.com/pmcheck/pmcheck/report"
	"github.com/pmcheck/pmcheck/rules"
)

// rangeFindings links the range's commits to the runs the check read,
// evaluates the rules on the commit facts, and sums up the coverage.
func rangeFindings(rng *analyze.CommitRange, ev *evaluated, pack *rules.Pack) (*report.Coverage, []rules.Finding, error) {
	var links []analyze.RunEvidence
	for _, r := range ev.Runs {
		if r.links != nil {
			links = append(links, *r.links)
		}
	}
	commits := rng.CommitFacts(links)
	findings, err := rules.Evaluate(pack, []analyze.RunFacts{rng.RangeFacts(commits)})
	if err != nil {
		return nil, nil, err
	}
	for i := range findings {
		// A commit's facts are in the coverage, not among the runs' facts
		// a reference points into.
		findings[i].Fact = nil
	}
	var prs []report.CoveragePR
	for _, l := range links {
		for _, p := range l.PRs {
			prs = append(prs, report.CoveragePR{Run: l.RunID, Number: p.Number, URL: p.URL, Repository: p.Repository, By: p.By, At: p.At})
		}
	}
	return report.NewCoverage(rng.Spec, rng.Base, rng.Head, commits, prs), findings, nil
}

// rangeProblems adds what could not be read of the range's checkpoints to
// the input problems.
func rangeProblems(in report.Inputs, rng *analyze.CommitRange) report.Inputs {
	if rng == nil {
		return in
	}
	for _, p := range rng.Problems {
		in.Problems = append(in.Problems, report.Problem{File: p.At.File, Line: p.At.Line, Message: p.Message})
	}
	return in
}
