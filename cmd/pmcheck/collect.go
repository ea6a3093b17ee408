package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/pmcheck/pmcheck/collect"
	"github.com/pmcheck/pmcheck/collect/redact"
)

// CollectCmd copies this repository's runs from ~/.claude/projects into a
// folder check reads, with secrets redacted.
type CollectCmd struct {
	Root        string   `name:"root" placeholder:"DIR" help:"Folder of Claude Code projects to collect from (default ~/.claude/projects)."`
	Cwd         string   `name:"cwd" placeholder:"DIR" help:"Repository folder: sessions with a row whose cwd is it or under it are collected (default: the git top-level of the working directory)."`
	Branch      string   `name:"branch" placeholder:"NAME" help:"Git branch the matching rows must name (default: the branch checked out in --cwd)."`
	AllBranches bool     `name:"all-branches" help:"Collect the folder's sessions of every branch."`
	Since       string   `name:"since" placeholder:"TIME" help:"Only sessions with a matching row at or after TIME (RFC 3339, a date YYYY-MM-DD, or a duration such as 72h before now)."`
	Out         string   `name:"out" short:"o" default:".agent-runs" placeholder:"DIR" help:"Folder to copy into, in the layout check reads; a manifest pmcheck-collect.json lists every file."`
	NoRedact    bool     `name:"no-redact" help:"Copy transcripts as they are, secrets included (redaction is on by default)."`
	RedactValue []string `name:"redact-value" sep:"none" placeholder:"VALUE" help:"A value to redact wherever it appears, besides the built-in patterns (repeatable)."`
	RedactFile  string   `name:"redact-values-file" placeholder:"FILE" help:"File of values to redact, one per line (blank lines and lines starting with # are ignored)."`
	DryRun      bool     `name:"dry-run" short:"n" help:"List what would be collected and redacted; write nothing."`
	LineCap     int      `name:"line-cap" default:"67108864" help:"Longest line scanned, in bytes; a longer line stops the collection (it cannot be scanned for secrets)."`
}

// Run collects.
func (c *CollectCmd) Run(env *Env) error {
	root, label := c.Root, c.Root
	if root == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return usageError("the home directory is unknown; give --root DIR")
		}
		root, label = filepath.Join(home, ".claude", "projects"), "~/.claude/projects"
	}
	cwd := c.Cwd
	if cwd == "" {
		top, err := gitOut(".", "rev-parse", "--show-toplevel")
		if err != nil {
			if cwd, err = os.Getwd(); err != nil {
				return usageError("the working directory is unknown; give --cwd DIR")
			}
		} else {
			cwd = top
		}
	}
	abs, err := filepath.Abs(cwd)
	if err != nil {
		return usageError("--cwd %s: %v", cwd, err)
	}
	branch := c.Branch
	if c.AllBranches && branch != "" {
		return usageError("--branch and --all-branches exclude each other: give one")
	}
	if branch == "" && !c.AllBranches {
		b, err := gitOut(abs, "rev-parse", "--abbrev-ref", "HEAD")
		if err != nil || b == "HEAD" {
			return usageError("no branch to match: %s is not a git checkout on a branch; give --branch NAME or --all-branches", abs)
		}
		branch = b
	}
	since, err := parseSince(c.Since, time.Now())
	if err != nil {
		return usageError("--since %q: %v", c.Since, err)
	}
	var red *redact.Redactor
	if !c.NoRedact {
		values := append([]string(nil), c.RedactValue...)
		if c.RedactFile != "" {
			more, err := readValues(c.RedactFile)
			if err != nil {
				return usageError("--redact-values-file %s: %v", c.RedactFile, err)
			}
			values = append(values, more...)
		}
		if red, err = redact.New(values); err != nil {
			return usageError("%v", err)
		}
	} else if len(c.RedactValue) > 0 || c.RedactFile != "" {
		return usageError("--no-redact with values to redact: drop one of them")
	}
	m, err := collect.Run(collect.Options{
		Root: root, RootLabel: label, Cwd: abs, Branch: branch, AllBranches: c.AllBranches,
		Since: since, Out: c.Out, Redactor: red, LineCap: c.LineCap, DryRun: c.DryRun,
	}, "pmcheck "+Version)
	if err != nil {
		return usageError("%v", err)
	}
	printCollectSummary(env, m, c.Out, c.DryRun)
	if len(m.Sessions) == 0 {
		what := "branch " + branch
		if c.AllBranches {
			what = "any branch"
		}
		return usageError("no sessions under %s ran in %s on %s: check --root, --cwd and --branch (pmcheck scan %s lists what is there)", label, abs, what, label)
	}
	return nil
}

func printCollectSummary(env *Env, m *collect.Manifest, out string, dry bool) {
	verb := "collected"
	if dry {
		verb = "would collect"
	}
	var size int64
	for _, f := range m.Files {
		size += f.Size
	}
	fmt.Fprintf(env.Stdout, "%s %d session(s), %d file(s), %d bytes into %s\n", verb, len(m.Sessions), len(m.Files), size, out)
	for _, f := range m.Files {
		line := fmt.Sprintf("  %-16s %s", f.Kind, f.Path)
		if n := f.Redactions.Total(); n > 0 {
			line += "  redacted " + countsText(f.Redactions)
		}
		fmt.Fprintln(env.Stdout, line)
	}
	switch {
	case !m.Redaction.Enabled:
		fmt.Fprintln(env.Stdout, "redaction: off (--no-redact): review the files before committing them")
	case m.Redaction.Total.Total() == 0:
		fmt.Fprintln(env.Stdout, "redaction: nothing found")
	default:
		fmt.Fprintf(env.Stdout, "redaction: %d replaced (%s)\n", m.Redaction.Total.Total(), countsText(m.Redaction.Total))
	}
	if !dry && len(m.Sessions) > 0 { // with none, nothing was written
		fmt.Fprintf(env.Stdout, "manifest: %s\n", filepath.Join(out, collect.ManifestName))
	}
}

func countsText(c redact.Counts) string {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, c[k]))
	}
	return strings.Join(parts, ", ")
}

// parseSince reads an RFC 3339 time, a date, or a duration before now.
func parseSince(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, nil
	}
	if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, fmt.Errorf("not a time: give RFC 3339 (2026-05-01T12:00:00Z), a date (2026-05-01) or a duration (72h)")
}

func readValues(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		v := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(v) == "" || strings.HasPrefix(v, "#") {
			continue
		}
		out = append(out, v)
	}
	return out, sc.Err()
}

func gitOut(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	out, err := cmd.Output()
	return strings.TrimSpace(string(out)), err
}
