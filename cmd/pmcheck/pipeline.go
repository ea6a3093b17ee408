package main

import (
	"fmt"

	"github.com/pmcheck/pmcheck/analyze"
	"github.com/pmcheck/pmcheck/rules"
)

// pipeline is the one path from input paths to findings: load the runs,
// derive their facts with the detectors configured by the rule pack's
// settings (and the flags that override them), evaluate the rules. check and
// `rules test` both run it, so a rule test sees exactly what check reports.
type pipeline struct {
	Pack *rules.Pack
	Load analyze.Options
	// PublishTools and DeployLabels override the rule file's settings when
	// set; Git is the branch under check (nil: no git join).
	PublishTools []string
	DeployLabels []string
	Git          *analyze.GitBranch
}

// evaluated is what the pipeline produced.
type evaluated struct {
	Res      *analyze.Result
	Facts    []analyze.RunFacts
	Findings []rules.Finding
}

// run loads paths and evaluates the rules. Unreadable inputs are a usage
// error (exit 2): every problem but the first goes to stderr, the first is the
// error. No runs is not an error here; callers decide what it means.
func (p pipeline) run(env *Env, paths []string) (*evaluated, error) {
	res, err := analyze.Load(paths, p.Load)
	if err != nil {
		return nil, usageError("%v", err)
	}
	if errs := res.CheckErrors(); len(errs) > 0 {
		for _, e := range errs[1:] {
			fmt.Fprintf(env.Stderr, "pmcheck: %s\n", oneLine(e))
		}
		return nil, usageError("%s", errs[0])
	}
	facts := analyze.Facts(res.Runs, analyze.FactsOptions{Detect: p.detectOptions(), Jobs: p.Load.Jobs})
	findings, err := rules.Evaluate(p.Pack, facts)
	if err != nil {
		return nil, usageError("%v", err)
	}
	return &evaluated{Res: res, Facts: facts, Findings: findings}, nil
}

// detectOptions: the rule file's settings configure the detectors; flags
// override them.
func (p pipeline) detectOptions() analyze.DetectOptions {
	set := p.Pack.Settings
	dopts := analyze.DetectOptions{
		PublishTools: set.PublishTools,
		DeployLabels: set.DeployLabels,
		Review: analyze.ReviewOptions{
			Trailers:         set.ReviewTrailers,
			FilePatterns:     set.ReviewFiles,
			ReviewerKeywords: set.ReviewerKeywords,
			AgentAuthors:     set.AgentAuthors,
		},
		Git: p.Git,
	}
	if len(p.PublishTools) > 0 {
		dopts.PublishTools = p.PublishTools
	}
	if len(p.DeployLabels) > 0 {
		dopts.DeployLabels = p.DeployLabels
	}
	return dopts
}
