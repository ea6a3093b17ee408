// Package explain shows why pmcheck concluded what it did: for a finding, a
// fact or a whole run of a report, the rows that made each decision (with a
// one-line excerpt of each row), the review evidence that was
// searched for and found, the ship actions and branch matches that made work
// "shipped", and the rule that turned the fact into the finding.
//
// It reads only a report.Document (saved, or built from the inputs by the
// command) and, for the excerpts, the rows kept while the inputs were read
// (Rows) or, for a saved report, the few rows it cites.
package explain

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/internal/lazyre"
	"github.com/pmcheck/pmcheck/report"
	"github.com/pmcheck/pmcheck/rules"
)

// Kind and Version identify explain's JSON output; Version changes when a
// field is renamed, removed or changes meaning.
const (
	Kind    = "pmcheck-explain"
	Version = 1
)

// Output is explain's JSON document.
type Output struct {
	Kind         string        `json:"kind"`
	Version      int           `json:"version"`
	Explanations []Explanation `json:"explanations"`
}

// Explanation is the evidence chain of one finding, fact or run.
type Explanation struct {
	// Target is "finding", "fact" or "run".
	Target  string         `json:"target"`
	Run     RunRef         `json:"run"`
	Finding *rules.Finding `json:"finding,omitempty"`
	Fact    *Fact          `json:"fact,omitempty"`
	// Decision lists the rows behind the fact, in order.
	Decision []Step   `json:"decision"`
	Review   *Review  `json:"review,omitempty"`
	Shipped  *Shipped `json:"shipped,omitempty"`
	// Rule is the rule that turned the fact into the finding.
	Rule *Rule `json:"rule,omitempty"`
	// Findings are the fingerprints of the findings on this fact (fact
	// targets) or in this run (run targets).
	Findings []string `json:"findings,omitempty"`
	// WhyNot, for a fact no rule reported, says for every rule that selects
	// its kind which conditions of its where were false.
	WhyNot []report.WhyNot `json:"why_not,omitempty"`
	// Agents, Kills, Ships and Segments describe a whole run (run targets).
	Agents   []Agent `json:"agents,omitempty"`
	Kills    []Step  `json:"kills,omitempty"`
	Ships    []Ship  `json:"ships,omitempty"`
	Segments int     `json:"segments,omitempty"`
}

// Step is one row: what it showed, where (file as the report shows it,
// 1-based line), its simulated time and a one-line excerpt of the row (""
// when the file is not readable from here).
type Step struct {
	What    string    `json:"what"`
	File    string    `json:"file"`
	Line    int       `json:"line"`
	Time    time.Time `json:"time,omitzero"`
	Excerpt string    `json:"excerpt"`
}

// RunRef names a run.
type RunRef struct {
	Kind    string    `json:"kind"`
	ID      string    `json:"id"`
	Path    string    `json:"path"`
	Agents  int       `json:"agents"`
	Verdict string    `json:"verdict,omitempty"`
	Start   time.Time `json:"start,omitzero"`
	End     time.Time `json:"end,omitzero"`
	Shipped bool      `json:"shipped"`
	Branch  string    `json:"branch,omitempty"`
}

// Fact names a fact and says what it is in one line.
type Fact struct {
	Kind    string `json:"kind"`
	Index   int    `json:"index"`
	Summary string `json:"summary"`
}

// Review is what counted as review evidence, what was searched and what was found.
type Review struct {
	Reviewed bool     `json:"reviewed"`
	Found    []string `json:"found"`
	Searched []string `json:"searched"`
}

// Shipped says whether and how the work reached a shipped branch.
type Shipped struct {
	OnShippedBranch  bool              `json:"on_shipped_branch"`
	ShippedAfterKill bool              `json:"shipped_after_kill"`
	Branch           *report.GitBranch `json:"branch,omitempty"`
	// Matches are the branch's commits and paths that carry the work.
	Matches []string `json:"matches"`
	// Ships are the run's ship actions after the work ended.
	Ships []Ship `json:"ships"`
}

// Ship is one ship action.
type Ship struct {
	Kind    string `json:"kind"`
	Tool    string `json:"tool"`
	Command string `json:"command"`
	Branch  string `json:"branch,omitempty"`
	// Outstanding are the unreviewed killed subagents outstanding when it ran.
	Outstanding []string `json:"outstanding"`
	At          Step     `json:"at"`
}

// Rule is the rule that made a finding.
type Rule struct {
	ID       string   `json:"id"`
	Title    string   `json:"title"`
	Severity string   `json:"severity"`
	Select   []string `json:"select"`
	Where    string   `json:"where"`
}

// Agent is one subagent or Workflow attempt of a run.
type Agent struct {
	Kind     string    `json:"kind"` // subagent | attempt
	Name     string    `json:"name"`
	Mode     string    `json:"mode,omitempty"`
	Ordinal  int       `json:"ordinal,omitempty"`
	Outcome  string    `json:"outcome"`
	Killed   bool      `json:"killed"`
	Reviewed bool      `json:"reviewed"`
	Segment  int       `json:"segment,omitempty"`
	Start    time.Time `json:"start,omitzero"`
	End      time.Time `json:"end,omitzero"`
	At       Step      `json:"at"`
}

// Query is what to explain: a fingerprint (or a unique prefix of at least
// 8 characters), FILE:LINE, a rule id, or a run (its path or id). Run
// narrows a rule id (or anything else) to one run.
type Query struct {
	Target string
	Run    string
	// Saved says the Document was read from a saved report, which anyone
	// could have written: excerpts are then read only from run paths under
	// the report's root (not absolute). A Document pmcheck built from the
	// inputs cites the files it read, wherever they are.
	Saved bool
	// Rows, when set, are the excerpts kept while the Document was built
	// from the inputs (NewRows, analyze.Options.Rows): the rows cited are
	// quoted from them and no file is opened. Without them (a saved
	// report) each cited file is read once, up to its last cited row.
	Rows *Rows
}

var fileLine = lazyre.New(`^(.+):([0-9]+)$`)

// Explain resolves the query against the Document and returns the
// explanations, their rows' excerpts read from the files. Its errors are one
// line and say what to give instead.
func Explain(doc *report.Document, q Query) (*Output, error) {
	if len(doc.Facts) == 0 && len(doc.Runs) > 0 {
		return nil, fmt.Errorf("this report holds no facts (written by schema version 1): run pmcheck check again, or explain the inputs instead of the saved report")
	}
	e := &explainer{doc: doc, saved: q.Saved, rows: q.Rows}
	if q.Run != "" {
		rf := e.findRun(q.Run)
		if rf == nil {
			return nil, fmt.Errorf("--run %q names no run of the report: give a run's path or id (pmcheck scan lists them)", q.Run)
		}
		e.only = rf
	}
	if err := e.resolve(strings.TrimSpace(q.Target)); err != nil {
		return nil, err
	}
	e.fillExcerpts()
	return &Output{Kind: Kind, Version: Version, Explanations: e.out}, nil
}

type explainer struct {
	doc   *report.Document
	saved bool
	rows  *Rows
	only  *report.RunFacts
	out   []Explanation
}

func (e *explainer) inScope(rf *report.RunFacts) bool {
	return e.only == nil || e.only == rf
}

// findRun finds a run by path (as reports show it, or root-relative) or by
// id; a value several runs share matches none (give the other one).
func (e *explainer) findRun(s string) *report.RunFacts {
	var byPath, byID []*report.RunFacts
	for i := range e.doc.Facts {
		rf := &e.doc.Facts[i]
		if rf.Run.Path == s || strings.TrimSuffix(e.doc.DisplayPath(rf.Run.Path), "/") == strings.TrimSuffix(s, "/") {
			byPath = append(byPath, rf)
		}
		if rf.Run.ID == s {
			byID = append(byID, rf)
		}
	}
	switch {
	case len(byPath) == 1:
		return byPath[0]
	case len(byID) == 1:
		return byID[0]
	}
	return nil
}

func (e *explainer) resolve(t string) error {
	if t == "" {
		return fmt.Errorf("nothing to explain: give a fingerprint, FILE:LINE, a rule id or a run")
	}
	// A fingerprint, or a unique prefix of one.
	var fs []*rules.Finding
	for i := range e.doc.Findings {
		f := &e.doc.Findings[i]
		if (f.Fingerprint == t || (len(t) >= 8 && strings.HasPrefix(f.Fingerprint, t))) && e.findingInScope(f) {
			fs = append(fs, f)
		}
	}
	if len(fs) > 0 {
		return e.findings(fs)
	}
	// A rule id.
	for _, r := range e.doc.Rules {
		if r.ID != t {
			continue
		}
		for i := range e.doc.Findings {
			if f := &e.doc.Findings[i]; f.RuleID == t && e.findingInScope(f) {
				fs = append(fs, f)
			}
		}
		if len(fs) == 0 {
			where := "in the report"
			if e.only != nil {
				where = "in run " + e.doc.DisplayPath(e.only.Run.Path)
			}
			return fmt.Errorf("rule %s has no finding %s: nothing to explain (pmcheck rules explain %s describes the rule)", t, where, t)
		}
		return e.findings(fs)
	}
	// A run.
	if rf := e.findRun(t); rf != nil {
		e.out = append(e.out, e.run(rf))
		return nil
	}
	// FILE:LINE.
	if m := fileLine().FindStringSubmatch(t); m != nil {
		line, _ := strconv.Atoi(m[2])
		return e.location(m[1], line)
	}
	return fmt.Errorf("%q is not a fingerprint, rule id, run or FILE:LINE of this report: give one of those (the text report prints fingerprints and file:line)", t)
}

func (e *explainer) findingInScope(f *rules.Finding) bool {
	if e.only == nil {
		return true
	}
	if f.Fact != nil {
		return f.Fact.Run == e.only.Run.Path && f.Fact.RunID == e.only.Run.ID
	}
	return f.RunID == e.only.Run.ID
}

func (e *explainer) findings(fs []*rules.Finding) error {
	for _, f := range fs {
		x, err := e.finding(f)
		if err != nil {
			return err
		}
		e.out = append(e.out, x)
	}
	return nil
}

// location explains the findings whose evidence is at FILE:LINE, else the
// facts whose rows are there.
func (e *explainer) location(file string, line int) error {
	match := func(ev model.Evidence) bool {
		return ev.Line == line && (ev.File == file || e.doc.DisplayPath(ev.File) == file)
	}
	var fs []*rules.Finding
	for i := range e.doc.Findings {
		f := &e.doc.Findings[i]
		if e.findingInScope(f) && slices.ContainsFunc(f.Evidence, match) {
			fs = append(fs, f)
		}
	}
	if len(fs) > 0 {
		return e.findings(fs)
	}
	for i := range e.doc.Facts {
		rf := &e.doc.Facts[i]
		if !e.inScope(rf) {
			continue
		}
		for _, ref := range factsAt(rf, match) {
			e.out = append(e.out, e.fact(rf, ref, nil))
		}
	}
	if len(e.out) == 0 {
		return fmt.Errorf("no finding or fact of the report has evidence at %s:%d: give a line the text report or `pmcheck explain RUN` shows", file, line)
	}
	return nil
}

// factsAt lists the facts of a run with a row at the location.
func factsAt(rf *report.RunFacts, match func(model.Evidence) bool) []rules.FactRef {
	var out []rules.FactRef
	anyReason := func(rs []model.Reason) bool {
		return slices.ContainsFunc(rs, func(r model.Reason) bool { return match(r.At) })
	}
	for i, s := range rf.Subagents {
		if match(s.At) || anyReason(s.Reasons) {
			out = append(out, rules.FactRef{Run: rf.Run.Path, RunID: rf.Run.ID, Kind: model.FactSubagent, Index: i})
		}
	}
	for i, a := range rf.Attempts {
		if match(a.At) || anyReason(a.Reasons) {
			out = append(out, rules.FactRef{Run: rf.Run.Path, RunID: rf.Run.ID, Kind: model.FactAttempt, Index: i})
		}
	}
	for i, s := range rf.Ships {
		if match(s.At) {
			out = append(out, rules.FactRef{Run: rf.Run.Path, RunID: rf.Run.ID, Kind: model.FactShip, Index: i})
		}
	}
	for i, w := range rf.Watchdogs {
		if match(w.At) {
			out = append(out, rules.FactRef{Run: rf.Run.Path, RunID: rf.Run.ID, Kind: model.FactWatchdog, Index: i})
		}
	}
	return out
}

func (e *explainer) finding(f *rules.Finding) (Explanation, error) {
	if f.Fact == nil && f.RunKind == model.KindRange {
		return Explanation{}, fmt.Errorf("finding %s is about a commit of the range under check, not a run: its evidence is the report's coverage (pmcheck render --format text shows it)", f.Fingerprint)
	}
	if f.Fact == nil {
		return Explanation{}, fmt.Errorf("finding %s names no fact (a report written by schema version 1): run pmcheck check again", f.Fingerprint)
	}
	rf := e.doc.FactsOf(f.Fact.Run, f.Fact.RunID)
	if rf == nil {
		return Explanation{}, fmt.Errorf("finding %s: run %s has no facts in the report", f.Fingerprint, f.Fact.Run)
	}
	if _, err := e.doc.Fact(f.Fact); err != nil {
		return Explanation{}, fmt.Errorf("finding %s: %v", f.Fingerprint, err)
	}
	x := e.fact(rf, *f.Fact, f)
	return x, nil
}

func (e *explainer) runRef(rf *report.RunFacts) RunRef {
	r := rf.Run
	return RunRef{Kind: r.Kind, ID: r.ID, Path: e.doc.DisplayPath(r.Path), Agents: r.Agents, Verdict: r.Verdict,
		Start: r.Start, End: r.End, Shipped: r.Shipped, Branch: r.Branch}
}

func (e *explainer) step(what string, at model.Evidence) Step {
	return Step{What: what, File: e.doc.DisplayPath(at.File), Line: at.Line, Time: at.Time}
}

func (e *explainer) reasons(rs []model.Reason) []Step {
	out := []Step{}
	for _, r := range rs {
		out = append(out, e.step(r.What, r.At))
	}
	return out
}

// fact explains one fact; f is the finding it made, or nil.
func (e *explainer) fact(rf *report.RunFacts, ref rules.FactRef, f *rules.Finding) Explanation {
	x := Explanation{Target: "fact", Run: e.runRef(rf), Decision: []Step{}}
	if f != nil {
		x.Target = "finding"
		x.Finding = f
		if r := e.rule(f.RuleID); r != nil {
			x.Rule = r
		}
	} else {
		for _, g := range e.doc.Findings {
			if g.Fact != nil && *g.Fact == ref {
				x.Findings = append(x.Findings, g.Fingerprint)
			}
		}
	}
	fact := &Fact{Kind: ref.Kind, Index: ref.Index}
	x.Fact = fact
	switch ref.Kind {
	case model.FactRun:
		fact.Summary = runSummary(rf.Run)
		x.Decision = append(x.Decision, e.step("run starts", rf.Run.At))
		// A stream's run: the format read, how it ended, the runtime's
		// counts next to the messages' (each with both numbers).
		x.Decision = append(x.Decision, e.reasons(rf.Run.Reasons)...)
	case model.FactSubagent:
		s := rf.Subagents[ref.Index]
		fact.Summary = subagentSummary(s)
		x.Decision = e.reasons(s.Reasons)
		x.Review = e.review(s.Reviewed, s.ReviewEvidence)
		x.Shipped = e.shipped(rf, s.OnShippedBranch, s.ShippedAfterKill, s.BranchMatches, s.End, s.Description)
	case model.FactAttempt:
		a := rf.Attempts[ref.Index]
		fact.Summary = attemptSummary(a)
		x.Decision = e.reasons(a.Reasons)
		x.Review = e.review(a.Reviewed, a.ReviewEvidence)
		x.Shipped = e.shipped(rf, a.OnShippedBranch, false, a.BranchMatches, a.End, "")
	case model.FactShip:
		s := rf.Ships[ref.Index]
		fact.Summary = fmt.Sprintf("%s by %s: %s", s.Kind, s.Tool, s.Command)
		x.Decision = append(x.Decision, e.step("ship action: "+s.Kind, s.At))
		// The killed subagents it names, with the rows that ended them.
		for _, sub := range rf.Subagents {
			if slices.Contains(s.OutstandingKilled, sub.Description) && len(sub.Reasons) > 0 {
				last := sub.Reasons[len(sub.Reasons)-1]
				x.Decision = append(x.Decision, e.step(fmt.Sprintf("outstanding: subagent %q, %s (%s)", sub.Description, sub.Outcome, last.What), last.At))
			}
		}
		slices.SortStableFunc(x.Decision, compareSteps)
		x.Shipped = &Shipped{Branch: e.doc.Git, Matches: []string{}, Ships: []Ship{e.ship(s)}}
	case model.FactWatchdog:
		w := rf.Watchdogs[ref.Index]
		fact.Summary = watchdogSummary(w)
		x.Decision = append(x.Decision, e.step(w.Source+" "+w.Kind, w.At))
	}
	if x.Target == "fact" && len(x.Findings) == 0 {
		if v, err := e.doc.Fact(&ref); err == nil {
			x.WhyNot = e.doc.WhyNoFinding(ref.Kind, v)
		}
	}
	return x
}

func compareSteps(a, b Step) int {
	if a.File == b.File {
		return a.Line - b.Line
	}
	return a.Time.Compare(b.Time)
}

func (e *explainer) rule(id string) *Rule {
	for _, r := range e.doc.Rules {
		if r.ID == id {
			sel := r.Select
			if sel == nil {
				sel = []string{}
			}
			return &Rule{ID: r.ID, Title: r.Title, Severity: r.Severity, Select: sel, Where: r.Where}
		}
	}
	return nil
}

// review says what was searched for as review evidence, and where.
func (e *explainer) review(reviewed bool, found []string) *Review {
	rs := e.doc.Review
	var searched []string
	if e.doc.Git != nil {
		if len(rs.Trailers) > 0 {
			searched = append(searched, fmt.Sprintf("commit trailers %s naming the agent, on branch %s (%s..%s, %d commits)",
				strings.Join(rs.Trailers, ", "), e.doc.Git.Name, e.doc.Git.Base, e.doc.Git.Head, e.doc.Git.Commits))
		}
	} else if len(rs.Trailers) > 0 {
		searched = append(searched, fmt.Sprintf("commit trailers %s: not searched, no branch under check (--git)", strings.Join(rs.Trailers, ", ")))
	}
	if len(rs.Files) > 0 {
		where := "among files written by work that was not killed"
		if e.doc.Git != nil {
			where = "on branch " + e.doc.Git.Name + " and " + where
		}
		searched = append(searched, "review files matching "+strings.Join(rs.Files, ", ")+" "+where)
	} else {
		searched = append(searched, "review files: no pattern configured (settings.review_files)")
	}
	if len(rs.ReviewerKeywords) > 0 {
		searched = append(searched, "later completed subagents of this run whose description or type contains "+
			strings.Join(rs.ReviewerKeywords, ", ")+" and whose prompt names the agent")
	}
	if found == nil {
		found = []string{}
	}
	return &Review{Reviewed: reviewed, Found: found, Searched: searched}
}

// shipped gathers the ship actions of the run at or after the work ended
// (or that name it as outstanding) and the branch matches.
func (e *explainer) shipped(rf *report.RunFacts, onBranch, afterKill bool, matches []string, end time.Time, name string) *Shipped {
	s := &Shipped{OnShippedBranch: onBranch, ShippedAfterKill: afterKill, Branch: e.doc.Git, Matches: matches, Ships: []Ship{}}
	if s.Matches == nil {
		s.Matches = []string{}
	}
	for _, sh := range rf.Ships {
		if (name != "" && slices.Contains(sh.OutstandingKilled, name)) || (!end.IsZero() && !sh.Time.Before(end)) {
			s.Ships = append(s.Ships, e.ship(sh))
		}
	}
	return s
}

func (e *explainer) ship(s model.ShipFact) Ship {
	out := s.OutstandingKilled
	if out == nil {
		out = []string{}
	}
	return Ship{Kind: s.Kind, Tool: s.Tool, Command: s.Command, Branch: s.Branch, Outstanding: out, At: e.step("ship action: "+s.Kind, s.At)}
}

// run explains a whole run: agents and attempts, kills, ship actions,
// segments, and the findings in it.
func (e *explainer) run(rf *report.RunFacts) Explanation {
	x := Explanation{Target: "run", Run: e.runRef(rf), Decision: []Step{}, Segments: rf.Run.Segments,
		Agents: []Agent{}, Kills: []Step{}, Ships: []Ship{}, Findings: []string{}}
	x.Fact = &Fact{Kind: model.FactRun, Summary: runSummary(rf.Run)}
	x.Decision = append(x.Decision, e.step("run starts", rf.Run.At))
	for _, s := range rf.Subagents {
		x.Agents = append(x.Agents, Agent{Kind: model.FactSubagent, Name: s.Description, Mode: s.Mode, Outcome: s.Outcome,
			Killed: s.Killed, Reviewed: s.Reviewed, Segment: s.Segment, Start: s.Time, End: s.End, At: e.step("spawned", s.At)})
		if s.Killed && len(s.Reasons) > 0 {
			last := s.Reasons[len(s.Reasons)-1]
			x.Kills = append(x.Kills, e.step(fmt.Sprintf("subagent %q %s (%s)", s.Description, s.Outcome, last.What), last.At))
		}
	}
	for _, a := range rf.Attempts {
		x.Agents = append(x.Agents, Agent{Kind: model.FactAttempt, Name: a.Agent, Ordinal: a.Ordinal, Outcome: a.Outcome,
			Killed: a.Killed(), Reviewed: a.Reviewed, Start: a.Time, End: a.End, At: e.step("journal started", a.At)})
		if a.Killed() && len(a.Reasons) > 0 {
			last := a.Reasons[len(a.Reasons)-1]
			x.Kills = append(x.Kills, e.step(fmt.Sprintf("attempt %d of %s killed (%s)", a.Ordinal, a.Agent, last.What), last.At))
		}
	}
	for _, w := range rf.Watchdogs {
		if w.Kind == "KILL" || w.Kind == "sigkill" || w.Kind == "inactivity-timeout" {
			x.Kills = append(x.Kills, e.step(watchdogSummary(w), w.At))
		}
	}
	for _, s := range rf.Ships {
		x.Ships = append(x.Ships, e.ship(s))
	}
	for _, f := range e.doc.Findings {
		if f.Fact != nil && f.Fact.Run == rf.Run.Path && f.Fact.RunID == rf.Run.ID {
			x.Findings = append(x.Findings, f.Fingerprint)
		}
	}
	return x
}

func runSummary(r model.RunFact) string {
	s := fmt.Sprintf("%s %s: %s, %s, %s", r.Kind, r.ID, plural(r.Agents, "agent"), plural(r.Attempts, "attempt"), plural(r.Segments, "segment"))
	if r.Verdict != "" {
		s += ", verdict " + r.Verdict
	}
	if r.Source != "" {
		s += ", read from " + r.Source + " (" + r.StreamFormat + "), ended " + r.Ending
	}
	if r.Shipped {
		s += ", shipped"
		if r.Branch != "" {
			s += " (branch " + r.Branch + ")"
		}
	}
	return s
}

func subagentSummary(s model.SubagentFact) string {
	out := fmt.Sprintf("%s subagent %q (%s", s.Mode, s.Description, s.ToolUseID)
	if s.AgentID != "" {
		out += ", agent " + s.AgentID
	}
	out += "): " + s.Outcome
	if s.Killed {
		out += ", killed"
	}
	if s.Signature != "" {
		out += " (Signature " + s.Signature + ")"
	}
	if s.FalseDone {
		out += ", false done"
	}
	return out + fmt.Sprintf(", segment %d", s.Segment)
}

func attemptSummary(a model.AttemptFact) string {
	out := fmt.Sprintf("attempt %d of %s (key %s): %s", a.Ordinal, a.Agent, a.Key, a.Outcome)
	if a.FailureCause != "" {
		out += " (" + a.FailureCause + ")"
	}
	if a.SilenceSeconds >= 0 {
		out += fmt.Sprintf(" after %gs of silence", a.SilenceSeconds)
	}
	if a.SupersededBy > 0 {
		out += fmt.Sprintf(", superseded by attempt %d", a.SupersededBy)
	}
	return out
}

func watchdogSummary(w model.WatchdogFact) string {
	out := w.Source + " " + w.Kind
	if w.Agent != "" {
		out += " " + w.Agent
	}
	if w.SilenceSeconds >= 0 {
		out += fmt.Sprintf(" after %gs", w.SilenceSeconds)
	}
	if w.Predicted != "" || w.Observed != "" {
		out += fmt.Sprintf(" (predicted %q, observed %q)", w.Predicted, w.Observed)
	}
	return out
}

// fillExcerpts quotes every cited row of the report's own runs: from the
// excerpts kept while the inputs were read, or (a saved report) from the
// files, each read once.
func (e *explainer) fillExcerpts() {
	var locs []Loc
	each := func(fn func(*Step)) {
		for i := range e.out {
			x := &e.out[i]
			for j := range x.Decision {
				fn(&x.Decision[j])
			}
			for j := range x.Kills {
				fn(&x.Kills[j])
			}
			for j := range x.Agents {
				fn(&x.Agents[j].At)
			}
			for j := range x.Ships {
				fn(&x.Ships[j].At)
			}
			if x.Shipped != nil {
				for j := range x.Shipped.Ships {
					fn(&x.Shipped.Ships[j].At)
				}
			}
		}
	}
	readable := e.runFiles()
	linkFreeFile := map[string]bool{}
	each(func(s *Step) {
		if !readable(s.File) {
			return
		}
		if e.saved {
			ok, seen := linkFreeFile[s.File]
			if !seen {
				ok = linkFree(s.File)
				linkFreeFile[s.File] = ok
			}
			if !ok {
				return
			}
		}
		locs = append(locs, Loc{s.File, s.Line})
	})
	var ex map[Loc]string
	if e.rows != nil {
		ex = e.rows.Excerpts(locs, e.doc.DisplayPath)
	} else {
		ex = Excerpts(locs)
	}
	each(func(s *Step) { s.Excerpt = ex[Loc{s.File, s.Line}] })
}

// runFiles returns what decides whether explain may read a file (as
// reports show it) for an excerpt: only the files of the report's own runs
// are read, whatever the report cites. A saved report can be crafted, and
// its evidence could name /etc/passwd or ../../secrets.jsonl; an excerpt
// shows the start of any line. A file of a run is a .jsonl file that is
// the run's transcript, under its session folder (<stem>/: subagents and
// Workflow runs), beside it as a legacy agent-*.jsonl, or under a Workflow
// run's directory. The run's path must be relative to the report's root
// and stay under it (no "..", not absolute); the file's path is clean.
func (e *explainer) runFiles() func(file string) bool {
	var files, dirs []string // display paths; dirs end in "/"
	var besides []string     // folders whose agent-*.jsonl files are a session's legacy agents
	for i := range e.doc.Facts {
		r := e.doc.Facts[i].Run
		if r.Path == "" || (e.saved && report.IsAbsPath(r.Path)) || path.Clean(r.Path) != r.Path || slices.Contains(strings.Split(r.Path, "/"), "..") {
			continue
		}
		d := e.doc.DisplayPath(r.Path)
		switch r.Kind {
		case model.KindSession:
			files = append(files, d)
			dirs = append(dirs, strings.TrimSuffix(d, ".jsonl")+"/")
			besides = append(besides, path.Dir(d))
		case model.KindWorkflow:
			dirs = append(dirs, d+"/")
		}
	}
	return func(file string) bool {
		if file == "" || path.Clean(file) != file || !strings.HasSuffix(file, ".jsonl") {
			return false
		}
		if slices.Contains(files, file) {
			return true
		}
		for _, d := range dirs {
			if strings.HasPrefix(file, d) && !slices.Contains(strings.Split(file[len(d):], "/"), "..") {
				return true
			}
		}
		if base := path.Base(file); strings.HasPrefix(base, "agent-") {
			return slices.Contains(besides, path.Dir(file))
		}
		return false
	}
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}
