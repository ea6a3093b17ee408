package main

import (
	"io"
	"os"
	"slices"

	"github.com/pmcheck/pmcheck/report"
)

// RenderCmd renders saved canonical JSON reports in other formats. Several
// inputs (the shards of a split scan) are merged into one report first.
type RenderCmd struct {
	Inputs          []string `arg:"" name:"saved.json" help:"Saved canonical JSON reports ('pmcheck check --format json=FILE'); '-' reads standard input. Several are merged."`
	Format          []string `short:"f" placeholder:"FORMAT[=PATH]" help:"Output format, optionally with a file to write (repeatable): text, json, sarif, junit, github, markdown, html. Default: text on standard output."`
	Verbose         bool     `name:"verbose" short:"v" help:"List every analyzed run in the text report."`
	JUnitNoFileLine bool     `name:"junit-no-file-line" help:"Leave out the file and line attributes of JUnit testcases (for Jenkins' junit-10.xsd)."`
	SARIFCategory   string   `name:"sarif-category" placeholder:"CATEGORY" help:"Write CATEGORY as the SARIF run's automationDetails.id (otherwise upload-sarif's category input applies)."`
	HTMLLink        string   `name:"html-link" placeholder:"URL" help:"https address of the HTML report (the action's uploaded artifact): the markdown summary links each finding to it."`
	Fail            bool     `help:"Exit 1 when the (merged) report has findings at or above its fail level, as check does."`
	colorFlag
}

// Run reads, merges and renders.
func (c *RenderCmd) Run(env *Env) error {
	outs, err := report.ParseOutputs(c.Format)
	if err != nil {
		return usageError("%v", err)
	}
	if c.HTMLLink != "" {
		if err := report.CheckHTMLLink(c.HTMLLink); err != nil {
			return usageError("%v", err)
		}
	}
	if i := slices.Index(c.Inputs, "-"); i >= 0 && slices.Contains(c.Inputs[i+1:], "-") {
		return usageError("standard input ('-') given twice: give it once")
	}
	docs := make([]*report.Document, 0, len(c.Inputs))
	for _, name := range c.Inputs {
		var r io.Reader
		if name == "-" {
			r = env.Stdin
		} else {
			f, err := os.Open(name)
			if err != nil {
				return usageError("reading report: %v", err)
			}
			defer f.Close()
			r = f
		}
		doc, err := report.Decode(r, name)
		if err != nil {
			return usageError("%v", err)
		}
		docs = append(docs, doc)
	}
	doc := docs[0]
	if len(docs) > 1 {
		if doc, err = report.Merge(docs...); err != nil {
			return usageError("merging %d reports: %v", len(docs), err)
		}
	}
	opts := report.Options{JUnitNoFileLine: c.JUnitNoFileLine, Verbose: c.Verbose, SARIFCategory: c.SARIFCategory,
		InGitHubActions: env.InGitHubActions, StopToken: env.StopToken, HTMLLink: c.HTMLLink, Color: c.colored(env.Stdout)}
	if err := report.WriteOutputs(doc, outs, env.Stdout, opts); err != nil {
		// An output that cannot be written (missing folder, permissions) is
		// the user's to fix, as in check.
		return usageError("%v", err)
	}
	if c.Fail && doc.Outcome.Failed {
		return &ExitError{Code: ExitFindings}
	}
	return nil
}
