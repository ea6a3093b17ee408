package report

import (
	"slices"
	"strings"

	"github.com/pmcheck/pmcheck/rules"
)

// WhyNot is why one rule that selects a fact's kind made no finding of it:
// the conditions of its where that were false on the fact.
type WhyNot struct {
	Rule     string            `json:"rule"`
	Severity string            `json:"severity"`
	Where    string            `json:"where"`
	False    []rules.Condition `json:"false"`
	// Note says what pmcheck could not establish, when a false condition
	// rests on it (on_shipped_branch without --git).
	Note string `json:"note,omitempty"`
	// Error is set when the where could not be evaluated from the report
	// (an edited saved report).
	Error string `json:"error,omitempty"`
}

// WhyNoFinding answers "why no finding?" for a fact of kind (a model fact
// value or pointer, as Fact returns it): for every rule of the Document
// that selects the kind, the false conditions of its where
// (rules.WhyNot). explain and the HTML timeline both ask it.
func (d *Document) WhyNoFinding(kind string, fact any) []WhyNot {
	var out []WhyNot
	for _, r := range d.Rules {
		if r.Where == "" || !slices.Contains(r.Select, kind) {
			continue
		}
		w := WhyNot{Rule: r.ID, Severity: r.Severity, Where: strings.Join(strings.Fields(r.Where), " ")}
		conds, err := rules.WhyNot(r.Where, kind, fact)
		if err != nil {
			w.Error = err.Error()
			out = append(out, w)
			continue
		}
		if len(conds) == 0 {
			continue // it holds: the rule made the finding, or was suppressed
		}
		w.False = conds
		if d.Git == nil && mentions(conds, "on_shipped_branch") {
			w.Note = "on_shipped_branch is not known without --git: no branch under check was joined, so it reads false"
		}
		out = append(out, w)
	}
	return out
}

func mentions(conds []rules.Condition, field string) bool {
	for _, c := range conds {
		if strings.Contains(c.Expr, field) {
			return true
		}
	}
	return false
}

// Sentence is a WhyNot in one line: "rule: `cond` is false; …".
func (w WhyNot) Sentence() string {
	if w.Error != "" {
		return w.Rule + ": its where could not be evaluated: " + w.Error
	}
	parts := make([]string, 0, len(w.False))
	for _, c := range w.False {
		parts = append(parts, c.Sentence())
	}
	s := w.Rule + ": " + strings.Join(parts, "; ")
	if w.Note != "" {
		s += " (" + w.Note + ")"
	}
	return s
}
