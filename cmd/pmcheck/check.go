package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/pmcheck/pmcheck/analyze"
	"github.com/pmcheck/pmcheck/explain"
	"github.com/pmcheck/pmcheck/report"
	"github.com/pmcheck/pmcheck/rules"
)

// CheckCmd is the CI command: discover runs, analyze them, evaluate the rules,
// write the reports. Exit 0: nothing at or above the fail level; 1: findings;
// 2: usage, configuration or input error (including no runs found); 3:
// internal error.
type CheckCmd struct {
	Paths []string `arg:"" optional:"" name:"path" help:"Session transcripts, Workflow run directories, or folders to discover runs in (default: the current folder)."`

	Rules           []string `name:"rules" placeholder:"FILE" help:"Rule file: FILE replaces the default rules, +FILE extends them (repeatable)."`
	Disable         []string `name:"disable" placeholder:"ID" help:"Turn a rule off by id (repeatable)."`
	Severity        []string `name:"severity" placeholder:"ID=LEVEL" help:"Re-level a rule: ID=error|warning|note (repeatable)."`
	FailLevel       string   `name:"fail-level" default:"" enum:"error,warning,note,none," help:"Exit 1 when a finding is at or above this level (error, warning, note; none never fails; default error)."`
	Baseline        string   `name:"baseline" placeholder:"FILE" help:"Baseline of known findings (fingerprints) to suppress."`
	WriteBaseline   string   `name:"write-baseline" placeholder:"FILE" help:"Write a baseline that suppresses every current finding, then report as usual (no baseline is read)."`
	Format          []string `name:"format" short:"f" placeholder:"FORMAT[=FILE]" help:"Report format, optionally to a file: text, json, sarif, junit, github, markdown, html (repeatable; default text)."`
	Verbose         bool     `name:"verbose" short:"v" help:"List every analyzed run in the text report."`
	JUnitNoFileLine bool     `name:"junit-no-file-line" help:"Leave the file and line attributes out of JUnit test cases."`

	Git  string `name:"git" placeholder:"DIR" help:"Git repository of the branch under check (with --base and --head)."`
	Base string `name:"base" placeholder:"REV" help:"Base revision of the branch under check."`
	Head string `name:"head" placeholder:"REV" help:"Head revision of the branch under check."`

	AllowedSigners  string   `name:"allowed-signers" placeholder:"FILE" help:"SSH allowed-signers file (git's gpg.ssh.allowedSignersFile) whose keys sign review commits; strict review (review.agent_authors) counts only commits whose signature verifies."`
	VerifiedCommits string   `name:"verified-commits" placeholder:"FILE" help:"Commit ids (one a line) the hosting platform reports as verified, for strict review (the action writes it); ignored without --git."`
	Commits         string   `name:"commits" placeholder:"BASE..HEAD" help:"Check a commit range: read its commits from the repository (--repo), the runs its Entire checkpoints hold, and link each commit to the runs that made them (coverage in every report). Paths given are read too."`
	Repo            string   `name:"repo" placeholder:"DIR" help:"Repository of --commits (default: the working directory)."`
	Checkpoints     []string `name:"checkpoints" placeholder:"DIR" help:"Local clone of a separate Entire checkpoint repository, read after --repo (repeatable)."`

	PublishTools []string `name:"publish-tool" placeholder:"NAME" help:"Tool name (glob allowed) whose calls count as publish actions; replaces the default list (repeatable)."`
	DeployLabels []string `name:"deploy-label" placeholder:"LABEL" help:"PR label whose addition deploys (repeatable; default: labels containing 'deploy')."`

	Jobs  int    `name:"jobs" short:"j" default:"0" help:"Transcripts read at once (0: one per CPU). Reports do not depend on it."`
	Shard string `name:"shard" placeholder:"I/N" help:"Check only shard I of N (1-based) of the discovered runs, for splitting a fleet across CI jobs; merge the JSON reports with pmcheck render."`

	configFlags
	colorFlag
	RepoRoot string `name:"repo-root" placeholder:"DIR" help:"Repository root that report paths (SARIF URIs, annotations) are relative to, when pmcheck runs in a folder below it (default: the working directory)."`

	AllowEmpty bool  `name:"allow-empty" help:"Exit 0 when no runs are found (by default that is an error: a check that evaluated nothing must not pass)."`
	LineCap    int64 `name:"line-cap" default:"67108864" help:"Longest transcript line read, in bytes."`

	dropFacts bool // no report asked for shows the facts (Run)
	// keepRows, when set, is given every row read (analyze.Options.Rows):
	// explain's excerpts.
	keepRows func(file string) func(line int, data []byte)
}

// Run is the whole check pipeline: inputs -> analyze -> facts -> rules ->
// findings -> report.
func (c *CheckCmd) Run(env *Env) error {
	if err := c.applyConfig(); err != nil {
		return err
	}
	outs, err := report.ParseOutputs(c.Format)
	if err != nil {
		return usageError("%v", err)
	}
	// Only the JSON and HTML reports show the facts of every run; without
	// them the facts are dropped as each run is analysed (a fleet's facts
	// are most of what a check would otherwise hold).
	c.dropFacts = true
	for _, o := range outs {
		if o.Format == report.FormatJSON || o.Format == report.FormatHTML {
			c.dropFacts = false
		}
	}
	doc, err := c.document(env)
	if doc == nil {
		return err
	}
	// err, when doc is set, is the inputs that could not be read: every
	// report is written with them listed first, then the check exits 2.
	inputErr := err
	for _, o := range outs {
		if o.Format == report.FormatHTML {
			// The page shows the deciding rows of each finding, as explain
			// does: re-read once here.
			addExcerpts(doc)
			break
		}
	}
	if err := report.WriteOutputs(doc, outs, env.Stdout, report.Options{JUnitNoFileLine: c.JUnitNoFileLine, Verbose: c.Verbose,
		InGitHubActions: env.InGitHubActions, StopToken: env.StopToken, Color: c.colored(env.Stdout)}); err != nil {
		return usageError("%v", err)
	}
	if inputErr != nil {
		return inputErr
	}
	if doc.Outcome.Failed {
		return &ExitError{Code: ExitFindings}
	}
	return nil
}

// document runs the pipeline and builds the canonical Document (writing the
// baseline on the way when asked): what check renders and explain reads.
// When inputs could not be read it returns the Document of the others, with
// them in Inputs.Unreadable, and the usage error (exit 2) of the first.
func (c *CheckCmd) document(env *Env) (*report.Document, error) {
	root, err := reportRoot(c.RepoRoot)
	if err != nil {
		return nil, err
	}
	if c.FailLevel == "" {
		c.FailLevel = "error"
	}
	if err := c.checkBranchFlags(); err != nil {
		return nil, err
	}
	packOf, settings, err := rulePack(rules.Options{Files: c.Rules, Disable: c.Disable, Severity: c.Severity, Range: c.Commits != ""})
	if err != nil {
		return nil, err
	}
	baseline, err := c.readBaseline()
	if err != nil {
		return nil, err
	}
	paths := c.Paths
	if len(paths) == 0 && c.Commits == "" {
		paths = []string{"."}
	}
	lopts, err := loadOptions(c.LineCap, c.Jobs, c.Shard)
	if err != nil {
		return nil, err
	}
	lopts.Rows = c.keepRows
	pipe := pipeline{Rules: packOf, Settings: settings, Load: lopts, PublishTools: c.PublishTools, DeployLabels: c.DeployLabels, DropFacts: c.dropFacts,
		RepoRoot: c.RepoRoot, Legacy: baseline != nil, KeepGoing: true}
	if c.Commits != "" {
		rng, err := analyze.ReadRange(analyze.RangeOptions{Repo: c.Repo, Spec: c.Commits, CheckpointRepos: c.Checkpoints})
		if err != nil {
			return nil, usageError("%v", err)
		}
		defer rng.Close()
		paths = pipe.checkRange(rng, paths)
	}
	if err := c.joinBranch(&pipe, settings); err != nil {
		return nil, err
	}
	ev, runErr := pipe.run(env, paths)
	pack, err := packOf()
	if err != nil {
		return nil, usageError("%v", err)
	}
	if runErr != nil {
		return nil, runErr
	}
	findings, coverage, err := withRangeFindings(pipe.Range, ev, pack)
	if err != nil {
		return nil, err
	}
	inputErr := unreadableError(ev.Unreadable)
	if len(ev.Runs) == 0 && !c.AllowEmpty && pipe.Range == nil && inputErr == nil {
		return nil, usageError("no runs found in %s: give session transcripts (<sessionId>.jsonl), Workflow run directories (journal.jsonl) or a folder that holds them, or pass --allow-empty", joinPaths(paths))
	}
	if err := c.writeBaseline(env, findings, inputErr != nil); err != nil {
		return nil, err
	}
	stale := c.applyBaseline(env, baseline, findings)
	doc, err := report.New(report.Input{
		Tool:          report.Tool{Name: "pmcheck", Version: Version, InformationURI: "https://github.com/pmcheck/pmcheck"},
		Root:          root,
		Rules:         reportRules(pack),
		Findings:      findings,
		Runs:          runSummaries(ev.Runs),
		Facts:         runFacts(ev.Runs, c.dropFacts),
		Git:           gitBranch(pipe.Git),
		Coverage:      coverage,
		Review:        reviewSearch(pipe.detectOptions()),
		Inputs:        rangeProblems(inputsSummary(ev.Res, ev.Runs, ev.Unreadable), pipe.Range),
		StaleBaseline: staleEntries(stale),
		FailLevel:     c.FailLevel,
		Owned:         true, // findings and problems are not used again
	})
	if err != nil {
		return nil, err
	}
	return doc, inputErr
}

// checkBranchFlags refuses the flags about the branch under check (a
// range, or a git join) that do not go together.
func (c *CheckCmd) checkBranchFlags() error {
	if c.Commits != "" && c.Git != "" {
		return usageError("--commits with --git: --commits reads the branch under check from the range; drop --git, --base and --head")
	}
	if c.Commits != "" && c.Shard != "" {
		return usageError("--commits with --shard: a range's coverage needs every run; check the range in one job")
	}
	if c.Commits == "" && (c.Repo != "" || len(c.Checkpoints) > 0) {
		return usageError("--repo and --checkpoints go with --commits BASE..HEAD")
	}
	if (c.Git != "" || c.Base != "" || c.Head != "") && (c.Git == "" || c.Base == "" || c.Head == "") {
		return usageError("--git, --base and --head go together: give all three to join the branch under check, or none")
	}
	return nil
}

// rulePack returns the pack the runs are evaluated with, and its detector
// settings, which reading needs at once.
func rulePack(ropts rules.Options) (packOf func() (*rules.Pack, error), settings rules.Settings, err error) {
	if ropts.DefaultsOnly() {
		// The embedded pack, as it is: it cannot fail to load (a test
		// loads it) and sets no detector settings (TestDefaultsSetNoSettings),
		// so the inputs are read while it compiles on the other core
		// (rules.Warm): 2-3 ms a check spent waiting for it.
		return sync.OnceValues(func() (*rules.Pack, error) { return rules.Build(ropts) }), settings, nil
	}
	pack, err := rules.Build(ropts)
	if err != nil {
		return nil, settings, usageError("%v", err)
	}
	return func() (*rules.Pack, error) { return pack, nil }, pack.Settings, nil
}

// readBaseline reads --baseline; none when there is none to read.
func (c *CheckCmd) readBaseline() (*rules.Baseline, error) {
	// Writing a baseline never reads one: the file it replaces (often the
	// config's baseline, which may not exist yet) has no say in it.
	if c.Baseline == "" || c.WriteBaseline != "" {
		return nil, nil
	}
	baseline, err := rules.LoadBaseline(c.Baseline)
	if err != nil {
		return nil, usageError("%v", err)
	}
	return baseline, nil
}

// checkRange makes the commit range the branch under check, and adds the
// folder its checkpoints were read into to paths.
func (p *pipeline) checkRange(rng *analyze.CommitRange, paths []string) []string {
	p.Range, p.Git = rng, rng.Branch
	p.Load.ShowAs = rng.ShowAs()
	if rng.Dir != "" {
		paths = append(slices.Clip(paths), rng.Dir)
	}
	return paths
}

// joinBranch joins the branch under check named by --git, --base and
// --head, verifying its review commits' signatures when strict review asks
// for them.
func (c *CheckCmd) joinBranch(pipe *pipeline, settings rules.Settings) error {
	if c.Git == "" {
		if c.AllowedSigners != "" {
			// (--verified-commits without a branch is ignored: the action
			// passes it on every pull request, whether or not a branch is
			// joined.)
			return usageError("--allowed-signers verifies the commits of the branch under check: give --git, --base and --head too")
		}
		return nil
	}
	var err error
	if pipe.Git, err = analyze.JoinGit(c.Git, c.Base, c.Head); err != nil {
		return usageError("%v", err)
	}
	if settings.AgentAuthors != nil {
		return c.verifySignatures(pipe.Git)
	}
	return nil
}

// withRangeFindings adds a commit range's findings to the runs' (sorted
// together) and returns its coverage; the runs' findings alone without a
// range. A range is checked even when no run is found: its commits are
// what the check is about ("0 of N commits made by agents").
func withRangeFindings(rng *analyze.CommitRange, ev *evaluated, pack *rules.Pack) ([]rules.Finding, *report.Coverage, error) {
	findings := ev.Findings
	if rng == nil {
		return findings, nil, nil
	}
	coverage, more, err := rangeFindings(rng, ev, pack)
	if err != nil {
		return nil, nil, usageError("%v", err)
	}
	findings = append(findings, more...)
	rules.SortFindings(findings)
	return findings, coverage, nil
}

func reportRules(p *rules.Pack) []report.Rule {
	var out []report.Rule
	for _, m := range p.Meta() {
		out = append(out, report.Rule{ID: m.ID, Title: m.Title, Severity: m.Severity, Description: m.Description, Help: m.Help, Tags: m.Tags, Select: m.Select, Where: m.Where})
	}
	return out
}

func runSummaries(runs []runResult) []report.RunSummary {
	out := make([]report.RunSummary, 0, len(runs))
	for _, r := range runs {
		out = append(out, r.Summary)
	}
	return out
}

// runFacts are the runs' facts for the report; none when they were dropped
// (no report asked for shows them).
func runFacts(runs []runResult, dropped bool) []report.RunFacts {
	if dropped {
		return nil
	}
	out := make([]report.RunFacts, 0, len(runs))
	for _, r := range runs {
		out = append(out, *r.Facts)
	}
	return out
}

func gitBranch(b *analyze.GitBranch) *report.GitBranch {
	if b == nil {
		return nil
	}
	return &report.GitBranch{Name: b.Name, Base: b.Base, Head: b.Head, Commits: len(b.Commits), Paths: len(b.Paths)}
}

// reviewSearch is the review evidence the detectors looked for, defaults
// filled in as the detectors fill them.
func reviewSearch(o analyze.DetectOptions) report.ReviewSearch {
	r := o.WithDefaults().Review
	return report.ReviewSearch{Trailers: r.Trailers, Files: r.FilePatterns, ReviewerKeywords: r.ReviewerKeywords, AgentAuthors: r.AgentAuthors}
}

func inputsSummary(res *analyze.Result, runs []runResult, unreadable []analyze.Problem) report.Inputs {
	in := report.Inputs{Problems: []report.Problem{}}
	for _, p := range unreadable {
		in.Unreadable = append(in.Unreadable, report.Problem{File: p.At.File, Line: p.At.Line, Message: p.Message})
	}
	// A file that belongs to several runs (a Workflow run's parent
	// transcript is also its session's) is listed once per path given.
	type fileOf struct {
		input int32
		file  string
	}
	seen := map[fileOf]bool{}
	for _, r := range runs {
		in.Files += int(r.files)
		in.Malformed += r.bad
		if r.more == nil {
			continue
		}
		for _, fp := range r.more.fileProblems {
			if k := (fileOf{r.input, fp.file}); !seen[k] {
				seen[k] = true
				in.Problems = append(in.Problems, fp.problems...)
			}
		}
		in.Problems = append(in.Problems, r.more.problems...)
	}
	for _, p := range res.Skipped {
		in.Problems = append(in.Problems, report.Problem{File: p.At.File, Line: p.At.Line, Message: "skipped: " + p.Message})
	}
	return in
}

// maxMalformedListed caps the malformed lines listed per file; a file that is
// mostly garbage gets one more line that counts the rest.
const maxMalformedListed = 10

// malformedProblems lists a file's malformed lines with file:line, so a
// report says where the input is broken, not only how often.
// total counts every malformed line of the file; ms may list only the first.
func malformedProblems(file string, ms []analyze.Malformed, total int) []report.Problem {
	var out []report.Problem
	for i, m := range ms {
		if i == maxMalformedListed {
			break
		}
		msg := "malformed line: " + m.Reason
		out = append(out, report.Problem{File: file, Line: m.Line, Message: msg})
	}
	if listed := len(out); total > listed {
		out = append(out, report.Problem{File: file, Message: fmt.Sprintf("%d more malformed lines not listed", total-listed)})
	}
	return out
}

func staleEntries(stale []rules.BaselineEntry) []report.BaselineEntry {
	out := []report.BaselineEntry{}
	for _, e := range stale {
		out = append(out, report.BaselineEntry{Fingerprint: e.Fingerprint, RuleID: e.RuleID, Note: e.Stale()})
	}
	return out
}

func joinPaths(paths []string) string {
	if len(paths) == 1 {
		return paths[0]
	}
	return fmt.Sprintf("%s and %d more", paths[0], len(paths)-1)
}

// verifySignatures marks the branch's commits that carry trailers and whose
// signature verifies (or that the platform reports verified): strict review
// counts trailers only there, since an author or committer e-mail is
// whatever the agent told git.
func (c *CheckCmd) verifySignatures(b *analyze.GitBranch) error {
	opts := analyze.VerifyOptions{AllowedSigners: c.AllowedSigners, Only: func(cm analyze.GitCommit) bool { return len(cm.Trailers) > 0 }}
	if c.AllowedSigners != "" {
		if st, err := os.Stat(c.AllowedSigners); err != nil || !st.Mode().IsRegular() {
			return usageError("--allowed-signers %s: not a readable file; give the SSH allowed-signers file of the keys that sign reviews", c.AllowedSigners)
		}
		abs, err := filepath.Abs(c.AllowedSigners) // git runs in the repository
		if err != nil {
			return usageError("--allowed-signers %s: %v", c.AllowedSigners, err)
		}
		opts.AllowedSigners = abs
	}
	if c.VerifiedCommits != "" {
		data, err := os.ReadFile(c.VerifiedCommits)
		if err != nil {
			return usageError("--verified-commits %s: cannot be read (%v)", c.VerifiedCommits, err)
		}
		opts.Platform = map[string]bool{}
		for n, line := range strings.Split(string(data), "\n") {
			id := strings.ToLower(strings.TrimSpace(line))
			if id == "" {
				continue
			}
			if len(id) < 7 || strings.Trim(id, "0123456789abcdef") != "" {
				return usageError("%s:%d: %q is not a commit id; the file lists full commit ids, one a line", c.VerifiedCommits, n+1, id)
			}
			opts.Platform[id] = true
		}
	}
	if err := analyze.VerifySignatures(c.Git, b, opts); err != nil {
		return usageError("%v", err)
	}
	return nil
}

// addExcerpts reads the rows the HTML page shows behind each finding.
func addExcerpts(doc *report.Document) {
	rows := doc.ExcerptRows()
	locs := make([]explain.Loc, len(rows))
	for i, r := range rows {
		locs[i] = explain.Loc{File: r.File, Line: r.Line}
	}
	var ex []report.Excerpt
	for l, text := range explain.Excerpts(locs) {
		ex = append(ex, report.Excerpt{File: l.File, Line: l.Line, Text: text})
	}
	doc.AddExcerpts(ex)
}

// unreadableError is the usage error (exit 2) of the first input that could
// not be read, or nil.
func unreadableError(unreadable []analyze.Problem) error {
	if len(unreadable) == 0 {
		return nil
	}
	return usageError("%s", unreadable[0].Message)
}

// writeBaseline writes --write-baseline: a baseline of every finding, but
// none when some inputs could not be read (it would leave out theirs).
func (c *CheckCmd) writeBaseline(env *Env, findings []rules.Finding, unreadable bool) error {
	switch {
	case c.WriteBaseline == "":
		return nil
	case unreadable:
		fmt.Fprintf(env.Stderr, "pmcheck: --write-baseline %s: not written: some inputs could not be read\n", c.WriteBaseline)
		return nil
	}
	var b bytes.Buffer
	if err := rules.WriteBaseline(&b, findings); err != nil {
		return err
	}
	if err := report.WriteFileAtomic(c.WriteBaseline, b.Bytes()); err != nil {
		return usageError("--write-baseline %s: %v", c.WriteBaseline, err)
	}
	return nil
}

// applyBaseline marks the findings the baseline lists and returns its stale
// entries; entries that match only by the older, working-directory-relative
// fingerprints match from this folder only, and stderr says to rewrite them.
func (c *CheckCmd) applyBaseline(env *Env, baseline *rules.Baseline, findings []rules.Finding) []rules.BaselineEntry {
	stale, legacy := baseline.ApplyLegacy(findings)
	if len(legacy) > 0 {
		fmt.Fprintf(env.Stderr, "pmcheck: %s: %d of its entries use the older fingerprints (relative to the working directory, not the repository); they still match here, but not from another folder or clone: rewrite it with --write-baseline %s (docs/rules.md, \"Findings and fingerprints\")\n",
			c.Baseline, len(legacy), c.Baseline)
	}
	return stale
}
