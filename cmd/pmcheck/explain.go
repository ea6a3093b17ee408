package main

import (
	"os"
	"strings"

	"github.com/pmcheck/pmcheck/explain"
	"github.com/pmcheck/pmcheck/report"
)

// ExplainCmd prints the evidence chain of a finding, a fact or a run: from a
// saved JSON report (--report) or from the inputs, analyzed as check does.
type ExplainCmd struct {
	Target string   `arg:"" name:"what" help:"A finding's fingerprint (or a prefix of 8+ characters), FILE:LINE, a rule id (with --run to pick one run), or a run (its path or id)."`
	Paths  []string `arg:"" optional:"" name:"path" help:"Inputs to analyze as check does (default: the current folder); not used with --report."`

	Report string `name:"report" placeholder:"FILE" help:"Explain a saved JSON report ('pmcheck check --format json=FILE') instead of analyzing inputs."`
	InRun  string `name:"run" placeholder:"RUN" help:"Only this run (its path or id)."`
	JSON   bool   `name:"json" help:"Print the explanation as JSON (documented in docs/explain.md)."`

	Rules    []string `name:"rules" placeholder:"FILE" help:"Rule file, as for check (repeatable)."`
	Disable  []string `name:"disable" placeholder:"ID" help:"Turn a rule off by id (repeatable)."`
	Severity []string `name:"severity" placeholder:"ID=LEVEL" help:"Re-level a rule (repeatable)."`
	Baseline string   `name:"baseline" placeholder:"FILE" help:"Baseline of known findings, as for check."`
	Git      string   `name:"git" placeholder:"DIR" help:"Git repository of the branch under check (with --base and --head)."`
	Base     string   `name:"base" placeholder:"REV" help:"Base revision of the branch under check."`
	Head     string   `name:"head" placeholder:"REV" help:"Head revision of the branch under check."`
	LineCap  int64    `name:"line-cap" default:"67108864" help:"Longest transcript line read, in bytes."`
}

// Run builds or reads the Document, then explains. Exit 0 when something was
// explained, 2 when the target matches nothing or the input is bad.
func (c *ExplainCmd) Run(env *Env) error {
	var doc *report.Document
	var rows *explain.Rows // the excerpts, kept while the inputs are read
	if c.Report != "" {
		if len(c.Paths) > 0 {
			return usageError("--report explains a saved report: give inputs (%s) or --report, not both", strings.Join(c.Paths, " "))
		}
		f, err := os.Open(c.Report)
		if err != nil {
			return usageError("reading report: %v", err)
		}
		defer f.Close()
		if doc, err = report.Decode(f, c.Report); err != nil {
			return usageError("%v", err)
		}
	} else {
		check := &CheckCmd{Paths: c.Paths, Rules: c.Rules, Disable: c.Disable, Severity: c.Severity, Baseline: c.Baseline,
			FailLevel: report.FailLevelError, Git: c.Git, Base: c.Base, Head: c.Head, LineCap: c.LineCap}
		// The rows a finding cites are quoted from this reading: explain
		// opens no file the check read.
		rows = explain.NewRows()
		check.keepRows = rows.File
		// The same .pmcheck.yaml as check (paths, rules, baseline, git), so
		// explain sees the findings check reports.
		if err := check.applyConfig(); err != nil {
			return err
		}
		var err error
		if doc, err = check.document(env); err != nil {
			return err
		}
	}
	out, err := explain.Explain(doc, explain.Query{Target: c.Target, Run: c.InRun, Saved: c.Report != "", Rows: rows})
	if err != nil {
		return usageError("explain: %v", err)
	}
	// The text quotes transcripts: "::" at a line start and "##[" are
	// neutralised and bidi controls dropped, as in check's text report.
	b := report.Inert(explain.Text(out))
	if c.JSON {
		if b, err = explain.JSON(out); err != nil {
			return err
		}
	}
	if env.InGitHubActions {
		// Excerpts are transcript text: no line of it may run as a
		// workflow command.
		b = report.StopCommands(b, env.StopToken)
	}
	_, err = env.Stdout.Write(b)
	return err
}
