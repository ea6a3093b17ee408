package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"text/tabwriter"

	"github.com/pmcheck/pmcheck/analyze"
	"github.com/pmcheck/pmcheck/report"
)

// ScanCmd lists every run under a root.
type ScanCmd struct {
	Root       string `arg:"" optional:"" name:"root" help:"Root to discover runs in (default ~/.claude/projects)."`
	JSON       bool   `name:"json" help:"Print JSON instead of a table."`
	AllowEmpty bool   `name:"allow-empty" help:"Exit 0 when no runs are found."`
	LineCap    int64  `name:"line-cap" default:"67108864" help:"Longest transcript line read, in bytes; longer lines are counted and skipped."`
	Jobs       int    `name:"jobs" short:"j" default:"0" help:"Transcripts read at once (0: one per CPU). The output does not depend on it."`
	Shard      string `name:"shard" placeholder:"I/N" help:"Scan only shard I of N (1-based) for splitting a fleet across CI jobs; a project folder (or a session with its side directory) always falls in one shard."`
	Progress   string `name:"progress" enum:"auto,always,never" default:"auto" help:"Progress bar on standard error: auto (only when it is a terminal), always, never."`
}

// scanRun is one row of the listing.
type scanRun struct {
	Kind string `json:"kind"`
	ID   string `json:"id"`
	Path string `json:"path"`
	analyze.Stats
	Problems []analyze.Problem `json:"problems,omitempty"`
}

type scanOutput struct {
	Inputs  []analyze.Input   `json:"inputs"`
	Runs    []scanRun         `json:"runs"`
	Totals  analyze.Stats     `json:"totals"`
	Skipped []analyze.Problem `json:"skipped,omitempty"`
	Errors  []string          `json:"errors,omitempty"`
}

// Run lists the runs.
func (c *ScanCmd) Run(env *Env) error {
	defer guardStdout(env)()
	root := c.Root
	if root == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return usageError("no root given and the home directory is unknown; give a root: pmcheck scan DIR")
		}
		root = filepath.Join(home, ".claude", "projects")
	}
	opts, err := loadOptions(c.LineCap, c.Jobs, c.Shard)
	if err != nil {
		return err
	}
	bar := newProgressBar(env.Stderr, c.Progress)
	opts.Progress = bar.update
	// Each run is listed as soon as it is linked; only its row is kept.
	res, runs, err := analyze.Each([]string{root}, opts, func(r *analyze.Run, _ int) scanRun {
		return scanRun{Kind: r.Kind, ID: r.ID, Path: r.Path, Stats: analyze.RunStats(r), Problems: r.Problems}
	})
	bar.finish()
	if err != nil {
		return usageError("%v", err)
	}
	errs := res.CheckErrors()
	out := scanOutput{Inputs: res.Inputs, Skipped: res.Skipped, Errors: errs, Runs: runs}
	if out.Runs == nil {
		out.Runs = []scanRun{}
	}
	for _, r := range runs {
		s := r.Stats
		out.Totals.Agents += s.Agents
		out.Totals.Attempts += s.Attempts
		out.Totals.Files += s.Files
		out.Totals.Rows += s.Rows
		out.Totals.Malformed += s.Malformed
	}
	if c.JSON {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(out); err != nil {
			return err
		}
		// Transcript text (paths, ids) with C1 or bidi controls is escaped
		// as in the JSON report.
		if _, err := env.Stdout.Write(report.EscapeDisplayControls(b.Bytes())); err != nil {
			return err
		}
	} else {
		printScan(env, out)
	}
	for _, e := range errs {
		fmt.Fprintf(env.Stderr, "pmcheck: %s\n", oneLine(e))
	}
	if len(errs) > 0 {
		return &ExitError{Code: ExitUsage}
	}
	if len(runs) == 0 && !c.AllowEmpty && c.Shard != "" {
		return usageError("no runs in shard %s under %s: use fewer shards, or pass --allow-empty", c.Shard, root)
	}
	if len(runs) == 0 && !c.AllowEmpty {
		return usageError("no runs found under %s: give a folder that holds session transcripts (<sessionId>.jsonl) or Workflow run directories (journal.jsonl), or pass --allow-empty", root)
	}
	return nil
}

func printScan(env *Env, out scanOutput) {
	// The table writer writes each cell and its padding separately: through
	// a buffer, a listing of 10,000 runs is a few writes, not 140,000.
	stdout := bufio.NewWriterSize(env.Stdout, 64<<10)
	defer stdout.Flush()
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KIND\tID\tAGENTS\tATTEMPTS\tROWS\tMALFORMED\tPATH")
	for _, r := range out.Runs {
		attempts := "-"
		if r.Kind == analyze.KindWorkflow {
			attempts = fmt.Sprint(r.Attempts)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%d\t%d\t%s\n", r.Kind, r.ID, r.Agents, attempts, r.Rows, r.Malformed, r.Path)
	}
	tw.Flush()
	sessions, workflows := 0, 0
	for _, r := range out.Runs {
		if r.Kind == analyze.KindWorkflow {
			workflows++
		} else {
			sessions++
		}
	}
	fmt.Fprintf(stdout, "\n%s (%s, %s): %s, %s, %s skipped.\n",
		count(len(out.Runs), "run"), count(sessions, "session"), count(workflows, "workflow run"),
		count(out.Totals.Files, "file"), count(out.Totals.Rows, "row"), count(out.Totals.Malformed, "malformed line"))
	for _, r := range out.Runs {
		for _, p := range r.Problems {
			fmt.Fprintf(stdout, "note: %s: %s\n", where(p.At), p.Message)
		}
	}
	for _, p := range out.Skipped {
		fmt.Fprintf(stdout, "skipped: %s: %s\n", where(p.At), p.Message)
	}
}

// where formats evidence as file:line (or file alone).
func where(e analyze.Evidence) string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d", e.File, e.Line)
	}
	return e.File
}

// count writes "1 run", "2 runs".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// loadOptions turns the reading flags that scan and check share into
// analyze.Options, with a usage error for bad values.
func loadOptions(lineCap int64, jobs int, shard string) (analyze.Options, error) {
	opts := analyze.Options{LineCap: lineCap, Jobs: jobs, GiveUpOnJunk: true}
	if jobs < 0 {
		return opts, usageError("--jobs %d: give 0 (one per CPU) or a positive number", jobs)
	}
	if shard != "" {
		sh, err := analyze.ParseShard(shard)
		if err != nil {
			return opts, usageError("%v", err)
		}
		opts.Shard = sh
	}
	return opts, nil
}
