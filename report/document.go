// Package report holds pmcheck's canonical JSON Document and the renderers
// that turn it into text, JSON, SARIF, JUnit, GitHub annotations and a
// markdown job summary.
//
// Every renderer reads only the Document, so `pmcheck render` on a saved JSON
// report produces the same bytes as the run that saved it. The schema is
// described in docs/report-format.md.
package report

import (
	"cmp"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/rules"
)

// Kind marks a JSON file as a pmcheck report, so render can refuse other JSON
// with a clear message instead of rendering an empty report.
const Kind = "pmcheck-report"

// SchemaVersion is the version of the Document's JSON schema. It changes when
// a field is added, renamed, removed or changes meaning. Version 2 added the
// facts, each finding's fact reference, the git join and the review search;
// render reads version 1 reports as version 2 reports without facts and
// refuses any other version.
const SchemaVersion = 2

// oldestReadableVersion is the oldest schema_version Decode accepts.
const oldestReadableVersion = 1

// Fail levels: the lowest severity that fails the check. "none" never fails.
const (
	FailLevelError   = rules.SeverityError
	FailLevelWarning = rules.SeverityWarning
	FailLevelNote    = rules.SeverityNote
	FailLevelNone    = "none"
)

// MaxTagsPerRule is GitHub code scanning's hard limit on tags per rule.
const MaxTagsPerRule = 20

// Document is the canonical report: everything any renderer needs, and nothing
// that depends on the machine or the wall clock.
type Document struct {
	Kind          string `json:"kind"`
	SchemaVersion int    `json:"schema_version"`
	Tool          Tool   `json:"tool"`
	// Root is the directory that evidence paths are relative to, itself
	// relative to the repository root (or the working directory); "." when
	// evidence paths are already repository-relative. Renderers join it with
	// evidence paths so that SARIF and annotations land on the right file.
	Root string `json:"root"`
	// Rules are every rule that was evaluated, sorted by id, whether it fired
	// or not: SARIF lists them all and JUnit has a suite for each.
	Rules []Rule `json:"rules"`
	// Findings are sorted: severity (error first), rule id, primary evidence
	// file and line, simulated time, run id, fingerprint, message.
	Findings []rules.Finding `json:"findings"`
	// Runs are the runs that were analyzed, sorted by path, kind and id.
	Runs []RunSummary `json:"runs"`
	// Facts are every run's facts, sorted like Runs: what the rules read,
	// and what explain and the HTML timeline show.
	Facts []RunFacts `json:"facts"`
	// Git is the branch under check, when the check joined one.
	Git *GitBranch `json:"git,omitempty"`
	// Coverage is the range under check's commits and the runs they were
	// traced to, when the check read a range (--commits).
	Coverage *Coverage `json:"coverage,omitempty"`
	// Review is what counted as review evidence.
	Review ReviewSearch `json:"review"`
	Inputs Inputs       `json:"inputs"`
	// StaleBaseline lists baseline entries that matched no finding; they can
	// be removed from the baseline file.
	StaleBaseline []BaselineEntry `json:"stale_baseline"`
	Outcome       Outcome         `json:"outcome"`
	// Excerpts are one-line excerpts of the rows that decided the findings
	// (the rows explain cites), re-read from the files by check when it
	// writes an HTML page, which shows them in each finding's card. Sorted
	// by file and line; transcript text, escaped where shown.
	Excerpts []Excerpt `json:"excerpts,omitempty"`
}

// Excerpt is a one-line excerpt of the row at File:Line (File as facts and
// evidence carry it).
type Excerpt struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Text string `json:"text"`
}

// excerpts indexes Excerpts by file and line.
func (d *Document) excerpts() map[Excerpt]string {
	m := make(map[Excerpt]string, len(d.Excerpts))
	for _, e := range d.Excerpts {
		m[Excerpt{File: e.File, Line: e.Line}] = e.Text
	}
	return m
}

// Tool names the program that wrote the Document.
type Tool struct {
	Name           string `json:"name"`
	Version        string `json:"version"`
	InformationURI string `json:"information_uri,omitempty"`
}

// Rule is what reports show of a rule. It is report's own type so that report
// does not depend on how rules are loaded or evaluated.
type Rule struct {
	ID          string `json:"id"`
	Title       string `json:"title"`
	Severity    string `json:"severity"`
	Description string `json:"description"`
	// Help says what to do about a finding, in markdown.
	Help string   `json:"help"`
	Tags []string `json:"tags"`
	// Select and Where are the rule's condition: the fact kinds it reads and
	// the expression a fact must satisfy (empty in version 1 reports).
	Select []string `json:"select,omitempty"`
	Where  string   `json:"where,omitempty"`
}

// RunSummary describes one analyzed run.
type RunSummary struct {
	Kind string `json:"kind"`
	ID   string `json:"id"`
	// Path is the main transcript (sessions) or run directory (workflows),
	// relative to Document.Root.
	Path      string `json:"path"`
	Agents    int    `json:"agents"`
	Attempts  int    `json:"attempts"`
	Malformed int    `json:"malformed"`
}

// RunSummaryFromFact builds a RunSummary from the run fact rules saw.
func RunSummaryFromFact(f model.RunFact) RunSummary {
	return RunSummary{Kind: f.Kind, ID: f.ID, Path: f.Path, Agents: f.Agents, Attempts: f.Attempts, Malformed: f.Malformed}
}

// Inputs summarises what was read.
type Inputs struct {
	// Files counts the input files read (transcripts, journals, sidecars).
	Files int `json:"files"`
	// Malformed counts malformed lines over all files.
	Malformed int `json:"malformed"`
	// Problems are non-fatal input problems (unreadable sidecar, unlinked
	// agent…), each with where it happened.
	Problems []Problem `json:"problems"`
	// Unreadable are the inputs that could not be read or trusted (a file
	// that cannot be read, a transcript that is mostly not JSON, a line over
	// the cap, a launched Workflow run whose directory is missing). The
	// check fails closed on them (exit 2) and still reports every finding
	// of the other inputs; every report lists them first. Each message is
	// the whole line, file and line first.
	Unreadable []Problem `json:"unreadable,omitempty"`
}

// Problem is a non-fatal input problem.
type Problem struct {
	File    string `json:"file"`
	Line    int    `json:"line,omitempty"`
	Message string `json:"message"`
}

// BaselineEntry is a baseline entry that no longer matches any finding.
type BaselineEntry struct {
	Fingerprint string `json:"fingerprint"`
	RuleID      string `json:"rule_id,omitempty"`
	Note        string `json:"note,omitempty"`
}

// Outcome is the verdict at the fail level.
type Outcome struct {
	FailLevel string `json:"fail_level"`
	// Failed is true when an unsuppressed finding is at or above FailLevel.
	Failed     bool `json:"failed"`
	Errors     int  `json:"errors"`
	Warnings   int  `json:"warnings"`
	Notes      int  `json:"notes"`
	Suppressed int  `json:"suppressed"`
	// Unreadable counts Inputs.Unreadable: any makes the check fail, at
	// every fail level.
	Unreadable int `json:"unreadable,omitempty"`
}

// Input is what check hands to New.
type Input struct {
	Tool          Tool
	Root          string
	Rules         []Rule
	Findings      []rules.Finding
	Runs          []RunSummary
	Facts         []RunFacts
	Git           *GitBranch
	Coverage      *Coverage
	Review        ReviewSearch
	Inputs        Inputs
	StaleBaseline []BaselineEntry
	Excerpts      []Excerpt
	// FailLevel defaults to "error".
	FailLevel string
	// Owned says the caller hands its slices over and does not use them
	// again: New sorts and normalizes them in place instead of copying
	// them (a check of 200,000 findings and as many input problems held
	// both copies at once).
	Owned bool
}

// New builds a canonical Document: it copies (unless in.Owned), sorts and
// validates the input and computes the outcome. The input slices are not
// modified unless they are owned.
func New(in Input) (*Document, error) {
	doc := &Document{
		Kind:          Kind,
		SchemaVersion: SchemaVersion,
		Tool:          in.Tool,
		Root:          in.Root,
		Rules:         in.Rules,
		Findings:      in.Findings,
		Runs:          in.Runs,
		Facts:         in.Facts,
		Git:           in.Git,
		Coverage:      in.Coverage,
		Review:        in.Review,
		Inputs:        in.Inputs,
		StaleBaseline: in.StaleBaseline,
		Excerpts:      in.Excerpts,
		Outcome:       Outcome{FailLevel: in.FailLevel},
	}
	if !in.Owned {
		doc.Rules = slices.Clone(doc.Rules)
		for i := range doc.Rules {
			doc.Rules[i].Tags = slices.Clone(doc.Rules[i].Tags)
		}
		doc.Findings = slices.Clone(doc.Findings)
		for i := range doc.Findings {
			doc.Findings[i].Evidence = slices.Clone(doc.Findings[i].Evidence)
		}
		doc.Runs, doc.Facts = slices.Clone(doc.Runs), slices.Clone(doc.Facts)
		doc.StaleBaseline = slices.Clone(doc.StaleBaseline)
		doc.Inputs.Problems = slices.Clone(doc.Inputs.Problems)
		doc.Inputs.Unreadable = slices.Clone(doc.Inputs.Unreadable)
		doc.Excerpts = slices.Clone(doc.Excerpts)
	}
	if doc.Outcome.FailLevel == "" {
		doc.Outcome.FailLevel = FailLevelError
	}
	if doc.Root == "" {
		doc.Root = "."
	}
	doc.normalize()
	if err := doc.Validate(); err != nil {
		return nil, err
	}
	return doc, nil
}

// normalize puts the Document in canonical form: UTC times, nil slices as
// empty ones, everything sorted, the outcome recomputed.
func (d *Document) normalize() {
	for i := range d.Rules {
		r := &d.Rules[i]
		if r.Tags == nil {
			r.Tags = []string{}
		}
	}
	slices.SortStableFunc(d.Rules, func(a, b Rule) int { return cmp.Compare(a.ID, b.ID) })
	for i := range d.Findings {
		f := &d.Findings[i]
		if f.Evidence == nil {
			f.Evidence = []model.Evidence{}
		}
		f.Time = utc(f.Time)
		for j := range f.Evidence {
			f.Evidence[j].Time = utc(f.Evidence[j].Time)
		}
	}
	sortStable(d.Findings, compareFindings)
	slices.SortStableFunc(d.Runs, func(a, b RunSummary) int {
		return cmp.Or(cmp.Compare(a.Path, b.Path), cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.ID, b.ID))
	})
	if d.Runs == nil {
		d.Runs = []RunSummary{}
	}
	d.Facts = nonNilSlice(d.Facts)
	for i := range d.Facts {
		d.Facts[i].normalize()
	}
	slices.SortStableFunc(d.Facts, compareRunFacts)
	d.Review.Trailers = nonNilSlice(d.Review.Trailers)
	d.Review.Files = nonNilSlice(d.Review.Files)
	d.Review.ReviewerKeywords = nonNilSlice(d.Review.ReviewerKeywords)
	sortStable(d.Inputs.Problems, func(a, b Problem) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Message, b.Message))
	})
	if d.Inputs.Problems == nil {
		d.Inputs.Problems = []Problem{}
	}
	slices.SortStableFunc(d.Excerpts, func(a, b Excerpt) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line))
	})
	d.Excerpts = slices.CompactFunc(d.Excerpts, func(a, b Excerpt) bool { return a.File == b.File && a.Line == b.Line })
	slices.SortStableFunc(d.StaleBaseline, func(a, b BaselineEntry) int {
		return cmp.Or(cmp.Compare(a.RuleID, b.RuleID), cmp.Compare(a.Fingerprint, b.Fingerprint), cmp.Compare(a.Note, b.Note))
	})
	if d.StaleBaseline == nil {
		d.StaleBaseline = []BaselineEntry{}
	}
	if d.Rules == nil {
		d.Rules = []Rule{}
	}
	if d.Findings == nil {
		d.Findings = []rules.Finding{}
	}
	d.computeOutcome()
}

func utc(t time.Time) time.Time {
	if t.IsZero() {
		return time.Time{}
	}
	return t.UTC()
}

// severityRank orders severities from most to least severe; unknown last.
func severityRank(s string) int {
	switch s {
	case rules.SeverityError:
		return 0
	case rules.SeverityWarning:
		return 1
	case rules.SeverityNote:
		return 2
	}
	return 3
}

// sortStable is slices.SortStableFunc that first checks whether s is
// sorted already, as findings and problems mostly are (a stable sort of
// 200,000 sorted findings still compared them n log n times).
func sortStable[E any](s []E, cmp func(a, b E) int) {
	if !slices.IsSortedFunc(s, cmp) {
		slices.SortStableFunc(s, cmp)
	}
}

func compareFindings(a, b rules.Finding) int {
	pa, pb := primaryEvidence(a), primaryEvidence(b)
	return cmp.Or(
		cmp.Compare(severityRank(a.Severity), severityRank(b.Severity)),
		cmp.Compare(a.RuleID, b.RuleID),
		cmp.Compare(pa.File, pb.File),
		cmp.Compare(pa.Line, pb.Line),
		a.Time.Compare(b.Time),
		cmp.Compare(a.RunID, b.RunID),
		cmp.Compare(a.RunPath, b.RunPath),
		cmp.Compare(a.Fingerprint, b.Fingerprint),
		cmp.Compare(a.Message, b.Message),
		boolCompare(a.Suppressed, b.Suppressed),
	)
}

func boolCompare(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

// primaryEvidence is the first evidence that names a file (zero if none).
func primaryEvidence(f rules.Finding) model.Evidence {
	for _, e := range f.Evidence {
		if e.File != "" {
			return e
		}
	}
	return model.Evidence{}
}

func (d *Document) computeOutcome() {
	o := Outcome{FailLevel: d.Outcome.FailLevel}
	threshold := severityRank(o.FailLevel)
	for _, f := range d.Findings {
		if f.Suppressed {
			o.Suppressed++
			continue
		}
		switch f.Severity {
		case rules.SeverityError:
			o.Errors++
		case rules.SeverityWarning:
			o.Warnings++
		case rules.SeverityNote:
			o.Notes++
		}
		if o.FailLevel != FailLevelNone && severityRank(f.Severity) <= threshold {
			o.Failed = true
		}
	}
	if o.Unreadable = len(d.Inputs.Unreadable); o.Unreadable > 0 {
		o.Failed = true // fail closed: what they hold was not checked
	}
	d.Outcome = o
}

// Validate checks the invariants every renderer relies on. Its errors name
// the offending rule or finding and say how to fix it.
func (d *Document) Validate() error {
	if err := d.validateHeader(); err != nil {
		return err
	}
	ids, err := d.validateRules()
	if err != nil {
		return err
	}
	for i := range d.Findings {
		if err := validateFinding(i, &d.Findings[i], ids); err != nil {
			return err
		}
	}
	if err := d.validateRuns(); err != nil {
		return err
	}
	return d.validateFactRefs()
}

// validateHeader checks what the report says about itself: kind, schema,
// tool, root and fail level.
func (d *Document) validateHeader() error {
	if d.Kind != Kind {
		return fmt.Errorf("not a pmcheck report: kind is %q, want %q", d.Kind, Kind)
	}
	if d.SchemaVersion != SchemaVersion {
		return fmt.Errorf("report schema_version %d is not supported (this pmcheck reads %d): render it with the pmcheck version that wrote it", d.SchemaVersion, SchemaVersion)
	}
	if d.Tool.Name == "" {
		return fmt.Errorf("report has no tool name: set tool.name")
	}
	if err := checkRelativePath("root", d.Root); err != nil {
		return err
	}
	switch d.Outcome.FailLevel {
	case FailLevelError, FailLevelWarning, FailLevelNote, FailLevelNone:
		return nil
	}
	return fmt.Errorf("fail level %q is not one of error, warning, note, none", d.Outcome.FailLevel)
}

// validateRules checks each rule and returns the set of their ids.
func (d *Document) validateRules() (map[string]bool, error) {
	ids := make(map[string]bool, len(d.Rules))
	for _, r := range d.Rules {
		switch {
		case r.ID == "":
			return nil, fmt.Errorf("a rule has no id (title %q): every rule needs an id", r.Title)
		case ids[r.ID]:
			return nil, fmt.Errorf("rule %s is listed twice: rule ids must be unique", r.ID)
		case severityRank(r.Severity) > 2:
			return nil, fmt.Errorf("rule %s has severity %q: use error, warning or note", r.ID, r.Severity)
		case strings.TrimSpace(r.Title) == "":
			return nil, fmt.Errorf("rule %s has no title: every rule needs a title", r.ID)
		case slices.ContainsFunc(r.Select, func(k string) bool { return !isFactKind(k) }):
			return nil, fmt.Errorf("rule %s selects %q: a rule selects run, attempt, subagent, ship, watchdog or commit facts", r.ID, r.Select)
		case len(r.Tags) > MaxTagsPerRule:
			return nil, fmt.Errorf("rule %s has %d tags: GitHub code scanning accepts at most %d", r.ID, len(r.Tags), MaxTagsPerRule)
		}
		ids[r.ID] = true
	}
	return ids, nil
}

// validateFinding checks finding i (0-based) against the rules' ids: its
// rule, severity, closed-set fields and evidence.
func validateFinding(i int, f *rules.Finding, ids map[string]bool) error {
	// Named only when something is wrong: a Sprintf per finding was a
	// tenth of what a check of 200,000 findings allocated.
	where := func() string { return fmt.Sprintf("finding %d (rule %s, run %s)", i+1, f.RuleID, f.RunID) }
	if !ids[f.RuleID] {
		return fmt.Errorf("%s: rule %q is not among the evaluated rules: add it to the document's rules", where(), f.RuleID)
	}
	if severityRank(f.Severity) > 2 {
		return fmt.Errorf("%s: severity %q: use error, warning or note", where(), f.Severity)
	}
	if primaryEvidence(*f).File == "" {
		return fmt.Errorf("%s has no evidence with a file: every finding must point at the row that proves it", where())
	}
	if err := checkFindingFields(f); err != nil {
		return fmt.Errorf("%s: %w", where(), err)
	}
	if f.EvidenceMore < 0 {
		return fmt.Errorf("%s: evidence_more is %d: it counts locations not listed, so it is 0 or more", where(), f.EvidenceMore)
	}
	for _, e := range f.Evidence {
		if e.File == "" {
			continue
		}
		if checkEvidencePath("", e.File) != nil {
			return checkEvidencePath(where()+" evidence", e.File)
		}
		if e.Line < 0 {
			return fmt.Errorf("%s: evidence %s has line %d: lines are 1-based (0 means the whole file)", where(), e.File, e.Line)
		}
	}
	return nil
}

// validateRuns checks the runs and the runs' facts: kinds, paths, and one
// set of facts per run.
func (d *Document) validateRuns() error {
	for _, r := range d.Runs {
		if !isRunKind(r.Kind) {
			return fmt.Errorf("run %s has kind %q: a run is a session or a workflow", r.ID, r.Kind)
		}
		if r.Path != "" {
			if err := checkEvidencePath("run "+r.ID+" path", r.Path); err != nil {
				return err
			}
		}
	}
	for i, rf := range d.Facts {
		if !isRunKind(rf.Run.Kind) {
			return fmt.Errorf("the facts of run %s have kind %q: a run is a session or a workflow", rf.Run.ID, rf.Run.Kind)
		}
		if i > 0 && d.Facts[i-1].Run.Path == rf.Run.Path && d.Facts[i-1].Run.ID == rf.Run.ID {
			return fmt.Errorf("run %s (%s) has facts twice: a report holds one set of facts per run", rf.Run.Path, rf.Run.ID)
		}
	}
	return nil
}

// validateFactRefs checks that each finding's fact is in the report, when
// the report carries facts (a report written without them cannot be
// checked).
func (d *Document) validateFactRefs() error {
	if len(d.Facts) == 0 {
		return nil
	}
	for i, f := range d.Findings {
		if f.Fact == nil {
			continue
		}
		if d.FactsOf(f.Fact.Run, f.Fact.RunID) == nil {
			return fmt.Errorf("finding %d (rule %s) points at run %q, which has no facts in the report", i+1, f.RuleID, f.Fact.Run)
		}
		// A fact beyond the size cap was left out on purpose.
		if _, err := d.Fact(f.Fact); err != nil && !strings.Contains(err.Error(), "size cap") {
			return fmt.Errorf("finding %d (rule %s): %v: the report was edited or is damaged", i+1, f.RuleID, err)
		}
	}
	return nil
}

// Fields of a report whose values come from a closed set are checked
// against it when a report is read: renderers put some of them into
// attributes, ids and links (a fact kind becomes an anchor), and a value
// outside the set is a forged or damaged report, never something to render.

// isRunKind reports whether k is a kind of run (a commit range's findings
// carry the range's kind).
func isRunKind(k string) bool {
	return k == model.KindSession || k == model.KindWorkflow || k == model.KindRange
}

// isFactKind reports whether k is a fact kind rules select.
func isFactKind(k string) bool {
	switch k {
	case model.FactRun, model.FactAttempt, model.FactSubagent, model.FactShip, model.FactWatchdog, model.FactCommit:
		return true
	}
	return false
}

// checkFindingFields checks a finding's closed-set fields: its run kind and
// its fact reference's kind and index.
func checkFindingFields(f *rules.Finding) error {
	if f.RunKind != "" && !isRunKind(f.RunKind) {
		return fmt.Errorf("run_kind %q: a run is a session or a workflow (or a commit range)", f.RunKind)
	}
	if r := f.Fact; r != nil {
		switch {
		case !isFactKind(r.Kind):
			return fmt.Errorf("fact kind %q is not one of run, attempt, subagent, ship, watchdog, commit", r.Kind)
		case r.Index < 0 || (r.Kind == model.FactRun && r.Index != 0):
			return fmt.Errorf("fact index %d of kind %s: indexes count from 0, and a run has one run fact", r.Index, r.Kind)
		}
	}
	return nil
}

// checkRelativePath rejects host paths: reports carry slash-separated paths
// relative to the root so they are the same on every machine.
func checkRelativePath(what, p string) error {
	switch {
	case p == "":
		return fmt.Errorf("%s is empty: give a relative path (\".\" for the root)", what)
	case strings.Contains(p, `\`):
		return fmt.Errorf("%s %q contains a backslash: use slash-separated paths", what, p)
	case path.IsAbs(p) || (len(p) >= 2 && p[1] == ':'):
		return fmt.Errorf("%s %q is absolute: reports carry paths relative to the root", what, p)
	}
	return nil
}

// checkEvidencePath accepts what checkRelativePath accepts and, in
// addition, an absolute slash-separated path: the input root was given as an
// absolute path outside the working directory, and the report keeps where
// the file is.
func checkEvidencePath(what, p string) error {
	if IsAbsPath(p) && !strings.Contains(p, `\`) {
		return nil
	}
	return checkRelativePath(what, p)
}

// IsAbsPath reports whether a slash-separated report path is absolute
// ("/x" or "C:/x").
func IsAbsPath(p string) bool {
	return strings.HasPrefix(p, "/") || (len(p) >= 3 && p[1] == ':' && p[2] == '/')
}

// displayPath joins the Document root and a root-relative path into the
// repository-relative path that reports show; an absolute path is shown as
// it is.
func (d *Document) displayPath(p string) string {
	if p == "" {
		return ""
	}
	if IsAbsPath(p) {
		return path.Clean(p)
	}
	if d.Root == "" || d.Root == "." {
		return path.Clean(p)
	}
	return path.Join(d.Root, p)
}

// ruleByID returns the rule table as a map (the Document is validated, so
// every finding's rule is present).
func (d *Document) ruleByID() map[string]*Rule {
	m := make(map[string]*Rule, len(d.Rules))
	for i := range d.Rules {
		m[d.Rules[i].ID] = &d.Rules[i]
	}
	return m
}

// runIndex finds the run a finding came from. A run is identified by its
// path and id together: several files may carry one session id, and each is
// its own run.
type runIndex struct {
	byKey map[string]*RunSummary
	byID  map[string]*RunSummary
}

func (d *Document) runIndex() runIndex {
	ix := runIndex{byKey: make(map[string]*RunSummary, len(d.Runs)), byID: make(map[string]*RunSummary, len(d.Runs))}
	for i := range d.Runs {
		r := &d.Runs[i]
		ix.byKey[runIdentity(r.Path, r.ID)] = r
		if _, dup := ix.byID[r.ID]; !dup {
			ix.byID[r.ID] = r
		}
	}
	return ix
}

// of returns the finding's run, or nil. Reports saved before findings carried
// run_path are matched by id alone.
func (ix runIndex) of(f rules.Finding) *RunSummary {
	if f.RunPath != "" {
		return ix.byKey[runIdentity(f.RunPath, f.RunID)]
	}
	return ix.byID[f.RunID]
}

// runIdentity is what identifies a run: its path and id.
func runIdentity(path, id string) string { return path + "\x1f" + id }

// findingRun returns the identity of the run a finding came from, and the run
// when the Document lists it.
func (ix runIndex) findingRun(f rules.Finding) (string, *RunSummary) {
	if r := ix.of(f); r != nil {
		return runIdentity(r.Path, r.ID), r
	}
	return runIdentity(f.RunPath, f.RunID), nil
}

// simTime formats a simulated time for people: RFC 3339 in UTC, to the second.
func simTime(t time.Time) string {
	if t.IsZero() {
		return "unknown time"
	}
	return t.UTC().Format(time.RFC3339)
}

// findingTime is the finding's simulated time, else its primary evidence's.
func findingTime(f rules.Finding) time.Time {
	if !f.Time.IsZero() {
		return f.Time
	}
	return primaryEvidence(f).Time
}
