package rules

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/vm"

	"github.com/pmcheck/pmcheck/analyze/model"
)

// EvalError is a rule that failed at evaluation time (an index out of range, a
// nil map access): the check must not pass silently over a rule it could not
// evaluate, so this is an error, not a skipped rule.
type EvalError struct {
	Rule  *Rule
	RunID string
	Kind  string
	At    model.Evidence
	Err   error
}

func (e *EvalError) Error() string {
	where := ""
	if !e.At.IsZero() {
		where = fmt.Sprintf(" at %s:%d", e.At.File, e.At.Line)
	}
	msg := oneLine(e.Err.Error())
	var fe *file.Error
	if errors.As(e.Err, &fe) {
		// expr's own text carries a multi-line source snippet; keep the message.
		msg = oneLine(fe.Message)
	}
	return fmt.Sprintf("%s: rule %q failed on the %s fact of run %q%s: %s; fix the rule's expression",
		e.Rule.Pos, e.Rule.ID, e.Kind, e.RunID, where, msg)
}

// Evaluate runs every rule of the pack over the facts of every run and returns
// the findings sorted by evidence (file, line), then rule id and fingerprint.
// Facts that hash to the same fingerprint under one rule (a watcher repeating
// QUIET at doubling thresholds, one command pushed twice) collapse into one
// finding: the first in fact order, with the others' locations added to its
// evidence.
func Evaluate(pack *Pack, runs []model.Facts) ([]Finding, error) {
	var out []Finding
	var machine vm.VM // reused: one VM per evaluation, not one per fact
	for i := range runs {
		facts := &runs[i]
		for _, r := range pack.Rules {
			index := map[string]int{} // fingerprint -> position in out
			for _, c := range r.compiled {
				err := eachFact(facts, c.kind, func(fact any, pos int, at model.Evidence, t time.Time) error {
					ok, err := machine.Run(c.where, fact)
					if err != nil {
						return &EvalError{Rule: r, RunID: facts.Run.ID, Kind: c.kind, At: at, Err: err}
					}
					if b, _ := ok.(bool); !b {
						return nil
					}
					fp := Fingerprint(r.ID, facts.Run.Path, facts.Run.ID, c.kind, identity(fact))
					if j, seen := index[fp]; seen {
						if !at.IsZero() && !slices.Contains(out[j].Evidence, at) {
							out[j].Evidence = append(out[j].Evidence, at)
						}
						return nil
					}
					msg, err := c.message.render(&machine, fact)
					if err != nil {
						return &EvalError{Rule: r, RunID: facts.Run.ID, Kind: c.kind, At: at, Err: fmt.Errorf("message: %w", err)}
					}
					f := Finding{
						RuleID: r.ID, Severity: r.Severity, Message: msg,
						RunID: facts.Run.ID, RunKind: facts.Run.Kind, RunPath: facts.Run.Path,
						Evidence: []model.Evidence{}, Time: t, Fingerprint: fp,
						Fact: &FactRef{Run: facts.Run.Path, RunID: facts.Run.ID, Kind: c.kind, Index: pos},
					}
					if !at.IsZero() {
						f.Evidence = append(f.Evidence, at)
					}
					if f.Time.IsZero() {
						f.Time = at.Time
					}
					index[fp] = len(out)
					out = append(out, f)
					return nil
				})
				if err != nil {
					return nil, err
				}
			}
		}
	}
	SortFindings(out)
	return out, nil
}

// SortFindings orders findings deterministically: by primary evidence file and
// line, then rule id, run id, fingerprint and message.
func SortFindings(fs []Finding) {
	slices.SortFunc(fs, func(a, b Finding) int {
		ae, be := primary(a), primary(b)
		return cmp.Or(
			strings.Compare(ae.File, be.File),
			cmp.Compare(ae.Line, be.Line),
			strings.Compare(a.RuleID, b.RuleID),
			strings.Compare(a.RunID, b.RunID),
			strings.Compare(a.RunPath, b.RunPath),
			strings.Compare(a.Fingerprint, b.Fingerprint),
			strings.Compare(a.Message, b.Message),
		)
	})
}

func primary(f Finding) model.Evidence {
	if len(f.Evidence) == 0 {
		return model.Evidence{}
	}
	return f.Evidence[0]
}

// eachFact calls fn for every fact of a kind, with its position, evidence and
// simulated time.
func eachFact(f *model.Facts, kind string, fn func(fact any, index int, at model.Evidence, t time.Time) error) error {
	// Facts are handed over by pointer, and identities are built only for
	// facts that match (identity): a value in an interface is a copy, and
	// with 200,000 attempts times every rule the copies and identity strings
	// were most of what evaluation allocated.
	switch kind {
	case model.FactRun:
		return fn(&f.Run, 0, f.Run.At, f.Run.Start)
	case model.FactAttempt:
		for i := range f.Attempts {
			if err := fn(&f.Attempts[i], i, f.Attempts[i].At, f.Attempts[i].Time); err != nil {
				return err
			}
		}
	case model.FactSubagent:
		for i := range f.Subagents {
			if err := fn(&f.Subagents[i], i, f.Subagents[i].At, f.Subagents[i].Time); err != nil {
				return err
			}
		}
	case model.FactShip:
		for i := range f.Ships {
			if err := fn(&f.Ships[i], i, f.Ships[i].At, f.Ships[i].Time); err != nil {
				return err
			}
		}
	case model.FactWatchdog:
		for i := range f.Watchdogs {
			if err := fn(&f.Watchdogs[i], i, f.Watchdogs[i].At, f.Watchdogs[i].Time); err != nil {
				return err
			}
		}
	}
	return nil
}

// identity is the part of the fingerprint that names a fact within its run.
// Identities use ids and names the files carry, never lines or times, so a
// fingerprint survives a transcript growing above the fact.
func identity(fact any) string {
	switch x := fact.(type) {
	case *model.RunFact:
		return "run"
	case *model.AttemptFact:
		return join(x.Key, strconv.Itoa(x.Ordinal), x.AgentID)
	case *model.SubagentFact:
		if x.ToolUseID != "" {
			return x.ToolUseID
		}
		return join("agent", x.AgentID, x.Description)
	case *model.ShipFact:
		return join(x.Tool, x.Kind, x.Branch, x.Command)
	case *model.WatchdogFact:
		return join(x.Source, x.Kind, x.Agent, x.Predicted, x.Observed)
	}
	return ""
}

func join(parts ...string) string { return strings.Join(parts, "\x1f") }

// Fingerprint is the stable identity of a finding: a hash of the rule id, the
// run's path (its main transcript or run directory, as reports show it) and
// id, the fact kind and the fact's identity within the run. It never includes
// line numbers, times, severities or messages, so re-levelling a rule or
// rewording its message keeps baselines valid. The path is what keeps a
// baseline entry from suppressing a finding of another file: several files
// may carry one session id (resumes, copies, a hostile pull request).
// Version 1 hashed the run id without the path; its entries match nothing
// now and are reported as stale.
func Fingerprint(ruleID, runPath, runID, kind, identity string) string {
	// The parts joined by \x1f into a buffer on the stack, not a joined
	// string and its copy as bytes (two allocations per finding).
	var buf [512]byte
	b := append(buf[:0], "pmcheck-finding-v2"...)
	for _, p := range [...]string{ruleID, runPath, runID, kind, identity} {
		b = append(b, '\x1f')
		b = append(b, p...)
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:16])
}

// FailLevels are the values --fail-level accepts, from strictest to laxest.
var FailLevels = []string{SeverityNote, SeverityWarning, SeverityError, "none"}

// ValidFailLevel reports whether level is a --fail-level value.
func ValidFailLevel(level string) bool { return slices.Contains(FailLevels, level) }

// Failing counts the findings that fail a check at the given level: those not
// suppressed by a baseline whose severity is at or above the level. "none"
// never fails.
func Failing(findings []Finding, level string) int {
	threshold := severityRank(level)
	if threshold == 0 {
		return 0
	}
	n := 0
	for _, f := range findings {
		if !f.Suppressed && severityRank(f.Severity) >= threshold {
			n++
		}
	}
	return n
}
