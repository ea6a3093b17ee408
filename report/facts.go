package report

import (
	"cmp"
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/rules"
)

// RunFacts are the facts of one run as the rules saw them (the fields of
// analyze/model's fact types, inlined: run, attempts, subagents, ships,
// watchdogs), cut to the Document's size caps.
type RunFacts struct {
	model.Facts
	// Omitted counts what the caps left out of this run's facts; nil when
	// nothing was.
	Omitted *Omitted `json:"omitted,omitempty"`
}

// Omitted counts what the size caps cut from a run's facts.
type Omitted struct {
	// Facts are whole facts beyond MaxFactsPerKind, per kind.
	Attempts  int `json:"attempts,omitempty"`
	Subagents int `json:"subagents,omitempty"`
	Ships     int `json:"ships,omitempty"`
	Watchdogs int `json:"watchdogs,omitempty"`
	// ListItems are list entries beyond MaxFactListItems (paths, commits,
	// review evidence, reasons…), over every fact of the run.
	ListItems int `json:"list_items,omitempty"`
	// Strings counts strings cut to MaxFactString bytes.
	Strings int `json:"strings,omitempty"`
}

// Size caps on facts. They keep a report of a run with thousands of agents
// or a very long command line a few megabytes at most; what they cut is
// counted in RunFacts.Omitted, and rules always see the whole facts.
const (
	MaxFactsPerKind  = 2000
	MaxFactListItems = 50
	MaxFactString    = 1024
)

// GitBranch is the branch under check a check was joined with (--git).
type GitBranch struct {
	Name    string `json:"name"`
	Base    string `json:"base"`
	Head    string `json:"head"`
	Commits int    `json:"commits"`
	Paths   int    `json:"paths"`
}

// ReviewSearch is what counted as review evidence in this check: the commit
// trailer keys and review-file patterns looked for on the branch under
// check and among files written by work that was not killed, and the
// keywords that make a later subagent a reviewer.
type ReviewSearch struct {
	Trailers         []string `json:"trailers"`
	Files            []string `json:"files"`
	ReviewerKeywords []string `json:"reviewer_keywords"`
	// AgentAuthors is set in the strict review: only trailers on commits by
	// none of these e-mail patterns counted.
	AgentAuthors []string `json:"agent_authors,omitempty"`
}

// NewRunFacts copies one run's facts into the Document's form, applying the
// size caps. The input is not modified.
func NewRunFacts(f model.Facts) RunFacts {
	var om Omitted
	c := capper{om: &om}
	rf := RunFacts{Facts: model.Facts{Run: f.Run}}
	rf.Run.ID, rf.Run.Path, rf.Run.Branch = c.str(f.Run.ID), f.Run.Path, c.str(f.Run.Branch)
	rf.Run.EndingDetail, rf.Run.CountsDisagree, rf.Run.Reasons = c.str(f.Run.EndingDetail), c.list(f.Run.CountsDisagree), c.reasons(f.Run.Reasons)
	rf.Attempts = capFacts(f.Attempts, &om.Attempts)
	for i := range rf.Attempts {
		a := &rf.Attempts[i]
		a.Key, a.Agent, a.FailureCause = c.str(a.Key), c.str(a.Agent), c.str(a.FailureCause)
		a.Paths, a.Commits, a.ReviewEvidence = c.list(a.Paths), c.list(a.Commits), c.list(a.ReviewEvidence)
		a.BranchMatches, a.Reasons = c.list(a.BranchMatches), c.reasons(a.Reasons)
	}
	rf.Subagents = capFacts(f.Subagents, &om.Subagents)
	for i := range rf.Subagents {
		s := &rf.Subagents[i]
		s.Description = c.str(s.Description)
		s.Paths, s.Commits, s.ReviewEvidence = c.list(s.Paths), c.list(s.Commits), c.list(s.ReviewEvidence)
		s.BranchMatches, s.Reasons = c.list(s.BranchMatches), c.reasons(s.Reasons)
	}
	rf.Ships = capFacts(f.Ships, &om.Ships)
	for i := range rf.Ships {
		s := &rf.Ships[i]
		s.Command, s.Branch, s.OutstandingKilled = c.str(s.Command), c.str(s.Branch), c.list(s.OutstandingKilled)
	}
	rf.Watchdogs = capFacts(f.Watchdogs, &om.Watchdogs)
	for i := range rf.Watchdogs {
		w := &rf.Watchdogs[i]
		w.Agent, w.Message, w.Predicted, w.Observed = c.str(w.Agent), c.str(w.Message), c.str(w.Predicted), c.str(w.Observed)
	}
	if om != (Omitted{}) {
		rf.Omitted = &om
	}
	rf.normalize()
	return rf
}

// normalize gives a RunFacts its canonical form: UTC times, empty lists
// instead of nil ones.
func (rf *RunFacts) normalize() {
	rf.Run.Start, rf.Run.End, rf.Run.At.Time = utc(rf.Run.Start), utc(rf.Run.End), utc(rf.Run.At.Time)
	rf.Attempts, rf.Subagents, rf.Ships, rf.Watchdogs = nonNilSlice(rf.Attempts), nonNilSlice(rf.Subagents), nonNilSlice(rf.Ships), nonNilSlice(rf.Watchdogs)
	for i := range rf.Attempts {
		a := &rf.Attempts[i]
		a.Time, a.End, a.At.Time = utc(a.Time), utc(a.End), utc(a.At.Time)
		a.Paths, a.Commits, a.ReviewEvidence, a.BranchMatches = nonNilSlice(a.Paths), nonNilSlice(a.Commits), nonNilSlice(a.ReviewEvidence), nonNilSlice(a.BranchMatches)
		a.Reasons = normalizeReasons(a.Reasons)
	}
	for i := range rf.Subagents {
		s := &rf.Subagents[i]
		s.Time, s.End, s.At.Time = utc(s.Time), utc(s.End), utc(s.At.Time)
		s.Paths, s.Commits, s.ReviewEvidence, s.BranchMatches = nonNilSlice(s.Paths), nonNilSlice(s.Commits), nonNilSlice(s.ReviewEvidence), nonNilSlice(s.BranchMatches)
		s.Reasons = normalizeReasons(s.Reasons)
	}
	for i := range rf.Ships {
		s := &rf.Ships[i]
		s.Time, s.At.Time = utc(s.Time), utc(s.At.Time)
		s.OutstandingKilled = nonNilSlice(s.OutstandingKilled)
	}
	for i := range rf.Watchdogs {
		w := &rf.Watchdogs[i]
		w.Time, w.At.Time = utc(w.Time), utc(w.At.Time)
	}
}

func normalizeReasons(rs []model.Reason) []model.Reason {
	rs = nonNilSlice(rs)
	for i := range rs {
		rs[i].At.Time = utc(rs[i].At.Time)
	}
	return rs
}

func nonNilSlice[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func capFacts[T any](in []T, omitted *int) []T {
	if len(in) > MaxFactsPerKind {
		*omitted += len(in) - MaxFactsPerKind
		in = in[:MaxFactsPerKind]
	}
	return slices.Clone(in)
}

type capper struct{ om *Omitted }

func (c capper) str(s string) string {
	if len(s) <= MaxFactString {
		return s
	}
	c.om.Strings++
	cut := MaxFactString
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func (c capper) list(in []string) []string {
	if len(in) > MaxFactListItems {
		c.om.ListItems += len(in) - MaxFactListItems
		in = in[:MaxFactListItems]
	}
	out := make([]string, len(in))
	for i, s := range in {
		out[i] = c.str(s)
	}
	return out
}

func (c capper) reasons(in []model.Reason) []model.Reason {
	if len(in) > MaxFactListItems {
		c.om.ListItems += len(in) - MaxFactListItems
		in = in[:MaxFactListItems]
	}
	out := make([]model.Reason, len(in))
	for i, r := range in {
		out[i] = model.Reason{What: c.str(r.What), At: r.At}
	}
	return out
}

func compareRunFacts(a, b RunFacts) int {
	return cmp.Or(cmp.Compare(a.Run.Path, b.Run.Path), cmp.Compare(a.Run.Kind, b.Run.Kind), cmp.Compare(a.Run.ID, b.Run.ID))
}

// FactsOf returns the facts of the run with the given path and id, or nil.
func (d *Document) FactsOf(runPath, runID string) *RunFacts {
	i, _ := slices.BinarySearchFunc(d.Facts, runPath, func(rf RunFacts, p string) int { return cmp.Compare(rf.Run.Path, p) })
	for ; i < len(d.Facts) && d.Facts[i].Run.Path == runPath; i++ {
		if d.Facts[i].Run.ID == runID {
			return &d.Facts[i]
		}
	}
	return nil
}

// Fact resolves a finding's fact reference: the fact (a model fact value),
// or nil with a reason when the report does not hold it.
func (d *Document) Fact(ref *rules.FactRef) (any, error) {
	if ref == nil {
		return nil, fmt.Errorf("the finding names no fact (a report written before facts were recorded)")
	}
	rf := d.FactsOf(ref.Run, ref.RunID)
	if rf == nil {
		return nil, fmt.Errorf("run %s has no facts in this report", ref.Run)
	}
	pick := func(n, omitted int) error {
		switch {
		case ref.Index < 0:
			return fmt.Errorf("%s fact %d of run %s: negative index", ref.Kind, ref.Index, ref.Run)
		case ref.Index >= n && ref.Index < n+omitted:
			return fmt.Errorf("%s fact %d of run %s was left out by the report's size cap (%d per kind)", ref.Kind, ref.Index, ref.Run, MaxFactsPerKind)
		case ref.Index >= n:
			return fmt.Errorf("run %s has no %s fact %d", ref.Run, ref.Kind, ref.Index)
		}
		return nil
	}
	om := Omitted{}
	if rf.Omitted != nil {
		om = *rf.Omitted
	}
	switch ref.Kind {
	case model.FactRun:
		return rf.Run, nil
	case model.FactAttempt:
		if err := pick(len(rf.Attempts), om.Attempts); err != nil {
			return nil, err
		}
		return rf.Attempts[ref.Index], nil
	case model.FactSubagent:
		if err := pick(len(rf.Subagents), om.Subagents); err != nil {
			return nil, err
		}
		return rf.Subagents[ref.Index], nil
	case model.FactShip:
		if err := pick(len(rf.Ships), om.Ships); err != nil {
			return nil, err
		}
		return rf.Ships[ref.Index], nil
	case model.FactWatchdog:
		if err := pick(len(rf.Watchdogs), om.Watchdogs); err != nil {
			return nil, err
		}
		return rf.Watchdogs[ref.Index], nil
	}
	return nil, fmt.Errorf("unknown fact kind %q", ref.Kind)
}

// DisplayPath joins the Document root and a root-relative path into the
// repository-relative path reports show.
func (d *Document) DisplayPath(p string) string { return d.displayPath(p) }

// StopCommands wraps output that carries transcript text (explain's) in the
// runner's pause of workflow-command processing, as WriteOutputs does for
// reports on standard output under GitHub Actions.
func StopCommands(b []byte, token string) []byte { return stopCommands(b, token) }
