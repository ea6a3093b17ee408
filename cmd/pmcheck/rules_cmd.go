package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/pmcheck/pmcheck/report"
	"github.com/pmcheck/pmcheck/rules"
)

// RuleFlags choose and adjust the rules as check's flags of the same names do,
// so `rules list` and `rules explain` show what check would evaluate.
type RuleFlags struct {
	Rules    []string `name:"rules" sep:"none" placeholder:"[+]FILE" help:"Rule file to evaluate instead of the default rules; +FILE adds its rules to the defaults. Repeatable."`
	Disable  []string `name:"disable" placeholder:"ID" help:"Do not evaluate the rule with this id. Repeatable, or comma-separated."`
	Severity []string `name:"severity" placeholder:"ID=LEVEL" help:"Change a rule's severity: error, warning or note. Repeatable, or comma-separated."`
}

// Pack loads the rules the flags describe. Its errors are usage errors (exit
// 2): a rule file that does not load is a configuration problem.
func (f *RuleFlags) Pack() (*rules.Pack, error) {
	p, err := rules.Build(rules.Options{Files: f.Rules, Disable: f.Disable, Severity: f.Severity})
	if err != nil {
		return nil, usageError("%v", err)
	}
	return p, nil
}

// RulesCmd groups the rule commands (rules test is in rulestest.go).
type RulesCmd struct {
	List     RulesListCmd     `cmd:"" help:"List the rules: id, severity, fact kinds and title."`
	Explain  RulesExplainCmd  `cmd:"" help:"Explain a rule: what it detects, what to do, and the fields it can use."`
	Validate RulesValidateCmd `cmd:"" help:"Check rule files and print every problem with file:line:col."`
	Test     RulesTestCmd     `cmd:"" help:"Run rule tests: each expectations file lists the findings the rules must report on its run, and no others."`
}

// RulesListCmd lists the rules that check would evaluate with the same flags.
type RulesListCmd struct {
	RuleFlags `embed:""`
	JSON      bool `name:"json" help:"Print the rules' metadata as JSON."`
}

// Run prints one line per rule, in evaluation order.
func (c *RulesListCmd) Run(env *Env) error {
	p, err := c.Pack()
	if err != nil {
		return err
	}
	if c.JSON {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(p.Meta())
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSEVERITY\tSELECT\tTITLE")
	for _, r := range p.Rules {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.ID, r.Severity, strings.Join(r.Select, ","), r.Title)
	}
	return tw.Flush()
}

// RulesExplainCmd prints one rule's documentation.
type RulesExplainCmd struct {
	RuleFlags `embed:""`
	ID        string `arg:"" name:"id" help:"The rule id (see 'pmcheck rules list')."`
}

// Run prints the rule's metadata, condition, message and fields.
func (c *RulesExplainCmd) Run(env *Env) error {
	p, err := c.Pack()
	if err != nil {
		return err
	}
	r := p.Rule(c.ID)
	if r == nil {
		return usageError("unknown rule id %q; known ids: %s (see 'pmcheck rules list')", c.ID, strings.Join(p.IDs(), ", "))
	}
	w := env.Stdout
	fmt.Fprintf(w, "%s: %s\n\n", r.ID, r.Title)
	fmt.Fprintf(w, "severity:  %s\n", r.Severity)
	fmt.Fprintf(w, "selects:   %s\n", strings.Join(r.Select, ", "))
	if len(r.Tags) > 0 {
		fmt.Fprintf(w, "tags:      %s\n", strings.Join(r.Tags, ", "))
	}
	fmt.Fprintf(w, "defined:   %s\n", r.Pos)
	fmt.Fprintf(w, "where:     %s\n", indentAfterFirst(r.Where, "           "))
	fmt.Fprintf(w, "message:   %s\n", indentAfterFirst(r.Message, "           "))
	if r.Description != "" {
		fmt.Fprintf(w, "\n%s\n", wrap(r.Description, 90))
	}
	if r.Help != "" {
		fmt.Fprintf(w, "\n%s\n", report.PlainHelp(r.Help))
	}
	for _, kind := range r.Select {
		fmt.Fprintf(w, "\nFields of the %s fact:\n", kind)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		for _, f := range rules.FieldDocs(kind) {
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", f.Name, f.Type, strings.ReplaceAll(f.Doc, "`", ""))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// wrap breaks a paragraph into lines of at most width bytes at spaces.
func wrap(s string, width int) string {
	var b strings.Builder
	n := 0
	for _, word := range strings.Fields(s) {
		switch {
		case n == 0:
		case n+1+len(word) > width:
			b.WriteByte('\n')
			n = 0
		default:
			b.WriteByte(' ')
			n++
		}
		b.WriteString(word)
		n += len(word)
	}
	return b.String()
}

func indentAfterFirst(s, indent string) string {
	return strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+indent)
}

// RulesValidateCmd loads rule files and reports every problem in them.
type RulesValidateCmd struct {
	Files []string `arg:"" name:"file" help:"Rule files to check."`
}

// Run prints "FILE: N rules OK" per good file and every problem of the others
// (one per line, file:line:col first); it exits 2 when any file has a problem.
func (c *RulesValidateCmd) Run(env *Env) error {
	failed := 0
	for _, path := range c.Files {
		p, err := rules.LoadFile(path)
		if err != nil {
			failed++
			var le *rules.LoadError
			if errors.As(err, &le) {
				for _, e := range le.Errs {
					fmt.Fprintf(env.Stderr, "%s\n", e)
				}
			} else {
				fmt.Fprintf(env.Stderr, "%v\n", err)
			}
			continue
		}
		switch len(p.Rules) {
		case 0:
			fmt.Fprintf(env.Stdout, "%s: detector settings only, OK\n", path)
		case 1:
			fmt.Fprintf(env.Stdout, "%s: 1 rule OK\n", path)
		default:
			fmt.Fprintf(env.Stdout, "%s: %d rules OK\n", path, len(p.Rules))
		}
	}
	if failed > 0 {
		return exitf(ExitUsage, "%d of %d rule files have problems", failed, len(c.Files))
	}
	return nil
}
