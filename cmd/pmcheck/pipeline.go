package main

import (
	"fmt"
	"slices"

	"github.com/pmcheck/pmcheck/analyze"
	"github.com/pmcheck/pmcheck/report"
	"github.com/pmcheck/pmcheck/rules"
)

// pipeline is the one path from input paths to findings: load the runs,
// derive their facts with the detectors configured by the rule pack's
// settings (and the flags that override them), evaluate the rules. check and
// `rules test` both run it, so a rule test sees exactly what check reports.
type pipeline struct {
	// Rules returns the pack the runs are evaluated with: the first run
	// analysed waits for it, so the inputs are read while it is built.
	// Settings are its detector settings, which reading needs at once.
	Rules    func() (*rules.Pack, error)
	Settings rules.Settings
	Load     analyze.Options
	// PublishTools and DeployLabels override the rule file's settings when
	// set; Git is the branch under check (nil: no git join).
	PublishTools []string
	DeployLabels []string
	Git          *analyze.GitBranch
	// Range is the commit range under check (nil: none): each run's commit
	// evidence is gathered as it is analysed.
	Range *analyze.CommitRange
	// DropFacts keeps only the run fact of each run (no report asked for
	// shows the others).
	DropFacts bool
	// RepoRoot is --repo-root (""): fingerprints hash run paths relative
	// to it, or to the repository found above each input
	// (analyze.RunIdentity). Legacy also computes the fingerprints of
	// baselines written before that (a baseline is loaded).
	RepoRoot string
	Legacy   bool
	// KeepGoing evaluates the readable runs when some inputs cannot be
	// read or trusted, and returns those in Unreadable instead of failing
	// at once: check writes every report with them listed, then exits 2.
	KeepGoing bool
}

// evaluated is what the pipeline produced.
type evaluated struct {
	Res *analyze.Result // Runs is nil: runs are not kept (Runs below)
	// Runs are what each run left, in run order.
	Runs     []runResult
	Findings []rules.Finding
	// Unreadable are the inputs the check must fail on (KeepGoing).
	Unreadable []analyze.Problem
}

// runResult is what the pipeline keeps of one run once it is analysed: its
// summary, its facts (only the run fact when the facts are dropped), what
// the report's input summary needs, and its findings.
type runResult struct {
	Summary report.RunSummary
	Facts   *report.RunFacts // nil when dropped
	input   int32            // index of the path given (problems are listed once per file and path)
	files   int32
	bad     int
	// more holds what few runs have (nil when none), so that a fleet's
	// results stay small.
	more *runMore
	// links is the run's commit evidence, with a range.
	links *analyze.RunEvidence
}

type runMore struct {
	// fileProblems are the malformed lines of the run's transcripts that
	// have any, by file; problems the journal's and the run's.
	fileProblems []fileProblems
	problems     []report.Problem
	findings     []rules.Finding
	err          error
}

type fileProblems struct {
	file     string
	problems []report.Problem
}

// run loads paths and evaluates the rules. Unreadable inputs are a usage
// error (exit 2): every problem but the first goes to stderr, the first is the
// error. No runs is not an error here; callers decide what it means.
//
// Runs stream through: each is analysed and evaluated as soon as it is
// linked (Jobs at once), and only its runResult is kept, so memory grows
// with the findings and summaries, not with the transcripts. With DropFacts
// only the run fact of each run is kept (the reports that show facts, JSON
// and HTML, need them all).
func (p pipeline) run(env *Env, paths []string) (*evaluated, error) {
	fopts := analyze.FactsOptions{Detect: p.detectOptions(), Jobs: 1}
	// A fleet's runs repeat their shell commands: each is parsed once per
	// check, not once per run.
	fopts.Detect.Classifications = analyze.NewClassifications()
	// The reader classifies them as it reads, with the detectors' labels,
	// on every core a large file is decoded on; the detectors reuse it.
	load := p.Load
	load.Shell = analyze.ClassifyWhileReading(fopts.Detect.DeployLabels, fopts.Detect.Classifications)
	identities := make([]func(string) string, len(paths))
	for i, given := range paths {
		identities[i] = analyze.RunIdentity(given, p.RepoRoot)
	}
	res, runs, err := analyze.Each(paths, load, func(run *analyze.Run, input int) runResult {
		return p.analyse(run, input, fopts, rules.EvalOptions{Identity: identities[input], Legacy: p.Legacy})
	})
	if err != nil {
		return nil, usageError("%v", err)
	}
	var unreadable []analyze.Problem
	if errs := res.CheckErrors(); len(errs) > 0 {
		for _, e := range errs[1:] {
			fmt.Fprintf(env.Stderr, "pmcheck: %s\n", oneLine(e))
		}
		if !p.KeepGoing {
			return nil, usageError("%s", errs[0])
		}
		unreadable = res.CheckProblems()
	}
	var findings []rules.Finding
	for i := range runs {
		m := runs[i].more
		if m == nil {
			continue
		}
		if m.err != nil {
			return nil, usageError("%v", m.err)
		}
		if findings == nil {
			findings = m.findings // the first run's findings are not copied (200,000 of one run were)
		} else {
			findings = append(findings, m.findings...)
		}
		m.findings = nil
	}
	rules.SortFindings(findings)
	return &evaluated{Res: res, Runs: runs, Findings: findings, Unreadable: unreadable}, nil
}

// analyse derives one run's facts, evaluates the rules on them and keeps
// what the reports need.
func (p pipeline) analyse(run *analyze.Run, input int, fopts analyze.FactsOptions, eopts rules.EvalOptions) runResult {
	facts := analyze.Facts([]*analyze.Run{run}, fopts)
	r := runResult{Summary: report.RunSummaryFromFact(facts[0].Run), input: int32(input)}
	if p.Range != nil {
		ev := p.Range.ScanRun(run)
		r.links = &ev
	}
	var m runMore
	s := analyze.RunStats(run)
	r.files, r.bad = int32(s.Files), s.Malformed
	for i := -1; i < len(run.Agents); i++ {
		t := run.Main
		if i >= 0 {
			t = run.Agents[i]
		}
		if t != nil {
			if ps := malformedProblems(t.File, t.Malformed, t.MalformedCount); len(ps) > 0 {
				m.fileProblems = append(m.fileProblems, fileProblems{t.File, ps})
			}
		}
	}
	if run.Journal != nil {
		m.problems = append(m.problems, malformedProblems(run.Journal.File, run.Journal.Malformed, run.Journal.MalformedCount)...)
	}
	if len(run.Problems) > 0 {
		m.problems = slices.Grow(m.problems, len(run.Problems))
	}
	for _, pr := range run.Problems {
		m.problems = append(m.problems, report.Problem{File: pr.At.File, Line: pr.At.Line, Message: pr.Message})
	}
	// The run is not read below: what the rules and the report need of it
	// is in facts, r and m, so the model can be collected while the rules
	// run (a journal of 200,000 attempts: 100 MB).
	if pack, err := p.Rules(); err != nil {
		m.err = err
	} else {
		m.findings, m.err = rules.EvaluateWith(pack, facts, eopts)
	}
	if !p.DropFacts {
		rf := report.NewRunFacts(facts[0])
		r.Facts = &rf
	}
	if m.findings != nil || m.err != nil || m.fileProblems != nil || m.problems != nil {
		more := m // only what few runs have is moved to the heap
		r.more = &more
	}
	return r
}

// detectOptions: the rule file's settings configure the detectors; flags
// override them.
func (p pipeline) detectOptions() analyze.DetectOptions {
	set := p.Settings
	dopts := analyze.DetectOptions{
		PublishTools: set.PublishTools,
		DeployLabels: set.DeployLabels,
		Review: analyze.ReviewOptions{
			Trailers:         set.ReviewTrailers,
			FilePatterns:     set.ReviewFiles,
			ReviewerKeywords: set.ReviewerKeywords,
			AgentAuthors:     set.AgentAuthors,
		},
		Git:                  p.Git,
		UnreadChildIsUnknown: p.Range != nil,
	}
	if len(p.PublishTools) > 0 {
		dopts.PublishTools = p.PublishTools
	}
	if len(p.DeployLabels) > 0 {
		dopts.DeployLabels = p.DeployLabels
	}
	return dopts
}
