package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pmcheck/pmcheck/analyze"
	"github.com/pmcheck/pmcheck/report"
	"github.com/pmcheck/pmcheck/rules"
)

// RulesTestCmd is the rule authors' regression harness: each expectations
// file (expect.yaml, or NAME.expect.yaml beside a run NAME) states the
// findings the rules under test must report on one run, and no others. The
// run goes through check's own pipeline. Exit 0: every case passed (and at
// least one ran); 1: some case failed; 2: usage error, no cases, or a case
// that could not run (an expectations file that does not load, a run that
// cannot be read).
type RulesTestCmd struct {
	Paths     []string `arg:"" optional:"" name:"path" help:"Folders to search for expectations files (expect.yaml, NAME.expect.yaml), or such files (default: the current folder)."`
	RuleFlags `embed:""`
	Format    []string `name:"format" short:"f" placeholder:"FORMAT[=FILE]" help:"Result format, optionally to a file: text, json, junit (repeatable; default text)."`
	Update    bool     `name:"update" help:"Rewrite each expectations file to expect exactly the current findings (keeps run, rules and matching message patterns; drops comments). Review the diff before committing."`
	Jobs      int      `name:"jobs" short:"j" default:"0" help:"Transcripts read at once (0: one per CPU)."`
	LineCap   int64    `name:"line-cap" default:"67108864" help:"Longest transcript line read, in bytes."`
}

// expectSuffix names an expectations file that sits beside its run NAME.
const (
	expectFile   = "expect.yaml"
	expectSuffix = ".expect.yaml"
)

// Run finds the cases, runs each and writes the results.
func (c *RulesTestCmd) Run(env *Env) error {
	outs, err := report.ParseOutputs(c.Format)
	if err != nil {
		return usageError("%v", err)
	}
	for _, o := range outs {
		if !slices.Contains(report.RuleTestFormats, o.Format) {
			return usageError("--format %s: rules test writes %s", o.Format, strings.Join(report.RuleTestFormats, ", "))
		}
	}
	lopts, err := loadOptions(c.LineCap, c.Jobs, "")
	if err != nil {
		return err
	}
	paths := c.Paths
	if len(paths) == 0 {
		paths = []string{"."}
	}
	files, err := findExpectations(paths)
	if err != nil {
		return usageError("%v", err)
	}
	if len(files) == 0 {
		return usageError("no expectations files found in %s: a test case is a run with an %s (or NAME%s beside the run NAME) that lists the findings the rules must report; see docs/rules.md, \"Testing your rules\"", joinPaths(paths), expectFile, expectSuffix)
	}
	// Finding messages are transcript text: under GitHub Actions, pause
	// workflow commands around everything printed.
	defer guardStdout(env)()
	var cases []report.RuleTestCase
	for _, f := range files {
		cases = append(cases, c.runCase(env, f, lopts))
	}
	result := report.NewRuleTest(cases)
	if err := report.WriteRuleTestOutputs(result, outs, env.Stdout); err != nil {
		return usageError("%v", err)
	}
	switch {
	case result.Summary.Errors > 0:
		return &ExitError{Code: ExitUsage}
	case result.Summary.Failed > 0:
		return &ExitError{Code: ExitFindings}
	}
	return nil
}

// findExpectations lists the expectations files under paths, sorted and
// without duplicates. A file given by name counts whatever its name.
func findExpectations(paths []string) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	add := func(p string) {
		p = filepath.Clean(p)
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, given := range paths {
		st, err := os.Stat(given)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("%s: no such file or directory (give folders that hold expectations files, or the files)", given)
			}
			return nil, fmt.Errorf("%s: cannot be read: %v", given, errors.Unwrap(err))
		}
		if !st.IsDir() {
			add(given)
			continue
		}
		err = filepath.WalkDir(given, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return fmt.Errorf("%s: cannot be listed: %v (fix its permissions or leave it out)", p, errors.Unwrap(err))
			}
			if d.IsDir() && d.Name() == ".git" {
				return filepath.SkipDir
			}
			if !d.IsDir() && (d.Name() == expectFile || strings.HasSuffix(d.Name(), expectSuffix)) {
				add(p)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	slices.Sort(out)
	return out, nil
}

// runCase runs one expectations file through check's pipeline and compares.
func (c *RulesTestCmd) runCase(env *Env, file string, lopts analyze.Options) report.RuleTestCase {
	tc := report.RuleTestCase{File: filepath.ToSlash(file), Status: report.CaseError}
	fail := func(err error) report.RuleTestCase {
		var le *rules.LoadError
		if errors.As(err, &le) {
			for _, e := range le.Errs[1:] {
				fmt.Fprintf(env.Stderr, "pmcheck: %s\n", e)
			}
		}
		var ee *ExitError
		if errors.As(err, &ee) && ee.Err != nil {
			err = ee.Err
		}
		tc.Error = oneLine(err.Error())
		return tc
	}
	exp, err := rules.LoadExpectations(file)
	if err != nil {
		return fail(err)
	}
	dir := filepath.Dir(file)
	run := caseRun(file, exp)
	tc.Run = filepath.ToSlash(run)
	ruleFiles := c.Rules
	if exp.Rules != nil {
		ruleFiles = nil
		for _, r := range exp.Rules {
			plus, rest := "", r
			if after, ok := strings.CutPrefix(r, "+"); ok {
				plus, rest = "+", after
			}
			ruleFiles = append(ruleFiles, plus+filepath.Join(dir, filepath.FromSlash(rest)))
		}
	}
	pack, err := (&RuleFlags{Rules: ruleFiles, Disable: c.Disable, Severity: c.Severity}).Pack()
	if err != nil {
		return fail(err)
	}
	if !c.Update {
		if err := exp.CheckRuleIDs(pack); err != nil {
			return fail(err)
		}
	}
	ev, err := pipeline{Rules: func() (*rules.Pack, error) { return pack, nil }, Settings: pack.Settings, Load: lopts}.run(env, []string{run})
	if err != nil {
		return fail(err)
	}
	if len(ev.Runs) == 0 {
		return fail(fmt.Errorf("no runs found in %s: the run under test must be a session transcript, a session folder or a Workflow run directory", tc.Run))
	}
	got := actuals(ev, dir)
	if c.Update {
		var b bytes.Buffer
		if err := rules.WriteExpectations(&b, exp, got); err != nil {
			return fail(err)
		}
		if old, _ := os.ReadFile(file); !bytes.Equal(old, b.Bytes()) {
			if err := report.WriteFileAtomic(file, b.Bytes()); err != nil {
				return fail(err)
			}
			fmt.Fprintf(env.Stderr, "pmcheck: updated %s (%d findings expected)\n", tc.File, len(got))
		}
		if exp, err = rules.ParseExpectations(file, b.Bytes()); err != nil {
			return fail(fmt.Errorf("the updated file does not load (please report this): %w", err))
		}
	}
	tc.Expected, tc.Found = len(exp.Findings), len(got)
	shown := func(at string) string {
		if at == "" {
			return ""
		}
		return path.Join(filepath.ToSlash(dir), at)
	}
	for _, m := range rules.Compare(exp.Findings, got) {
		f := report.RuleTestFailure{Kind: m.Kind, Rule: m.Rule}
		if e := m.Expectation; e != nil {
			f.Expectation, f.Line = e.Pos.String(), e.Pos.Line
			f.Want = &report.RuleTestFinding{At: shown(e.At()), Severity: e.Severity, Message: e.Message}
		}
		if a := m.Got; a != nil {
			f.Got = &report.RuleTestFinding{At: shown(a.At()), Severity: a.Severity, Message: a.Message}
		}
		tc.Failures = append(tc.Failures, f)
	}
	tc.Status = report.CasePass
	if len(tc.Failures) > 0 {
		tc.Status = report.CaseFail
	}
	return tc
}

// caseRun is the run an expectations file describes: its "run" key, else,
// for NAME.expect.yaml, the transcript NAME.jsonl beside it (a session's
// transcript comes before its folder of subagents of the same name) or else
// NAME itself (a run directory or a file), else the folder the file sits in.
func caseRun(file string, exp *rules.Expectations) string {
	dir := filepath.Dir(file)
	if exp.Run != "" {
		return filepath.Join(dir, filepath.FromSlash(exp.Run))
	}
	if name, ok := strings.CutSuffix(filepath.Base(file), expectSuffix); ok && name != "" {
		for _, cand := range []string{name + ".jsonl", name} {
			if _, err := os.Stat(filepath.Join(dir, cand)); err == nil {
				return filepath.Join(dir, cand)
			}
		}
		return filepath.Join(dir, name)
	}
	return dir
}

// actuals places each finding's primary evidence relative to dir (the
// expectations file's folder), sorted by location, rule and message.
func actuals(ev *evaluated, dir string) []rules.Actual {
	var in analyze.Input
	if len(ev.Res.Inputs) > 0 {
		in = ev.Res.Inputs[0]
	}
	out := make([]rules.Actual, 0, len(ev.Findings))
	for _, f := range ev.Findings {
		a := rules.Actual{Rule: f.RuleID, Severity: f.Severity, Message: f.Message}
		for _, e := range f.Evidence {
			if e.File == "" {
				continue
			}
			rel := e.File
			if in.Root != "" {
				rel = strings.TrimPrefix(rel, in.Root+"/")
			}
			onDisk := filepath.Join(in.Dir, filepath.FromSlash(rel))
			if r, err := filepath.Rel(dir, onDisk); err == nil {
				a.File, a.Line = filepath.ToSlash(r), e.Line
			}
			break
		}
		out = append(out, a)
	}
	slices.SortStableFunc(out, func(x, y rules.Actual) int {
		return cmpAll(strings.Compare(x.File, y.File), x.Line-y.Line, strings.Compare(x.Rule, y.Rule), strings.Compare(x.Message, y.Message))
	})
	return out
}

func cmpAll(cs ...int) int {
	for _, c := range cs {
		if c != 0 {
			return c
		}
	}
	return 0
}
