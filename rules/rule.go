package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/expr-lang/expr/vm"
)

// Kinds lists the fact kinds a rule can select, sorted (model.Fact* values).
var Kinds = []string{"attempt", "commit", "run", "ship", "subagent", "watchdog"}

// Severities lists the severity levels from most to least severe.
var Severities = []string{SeverityError, SeverityWarning, SeverityNote}

// severityRank orders severities: higher is more severe, 0 is unknown.
func severityRank(s string) int {
	switch s {
	case SeverityError:
		return 3
	case SeverityWarning:
		return 2
	case SeverityNote:
		return 1
	}
	return 0
}

// Position is where something was declared: a rule file and a 1-based line
// and column.
type Position struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Col  int    `json:"col"`
}

func (p Position) String() string { return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col) }

// Rule is one compiled rule. Its metadata fields are public; the compiled
// condition and message are not, so a Rule can only come from the loader.
type Rule struct {
	ID          string
	Title       string
	Severity    string
	Description string
	// Help is markdown: what the finding means and what to do about it.
	Help string
	// Select lists the fact kinds the rule reads, in file order.
	Select  []string
	Where   string
	Message string
	Tags    []string
	// Aliases are the rule's former ids: --disable, --severity, the config
	// and expectations files still take them. The first is the id it was
	// first shipped under, which its fingerprints keep hashing, so a
	// baseline survives the rename (fingerprintID).
	Aliases []string
	// Pos is where the rule starts in its file.
	Pos Position

	// compiled holds one condition and one message per selected kind, in the
	// order of Select: the same source compiles against each typed fact.
	compiled []compiledKind
}

type compiledKind struct {
	kind    string
	where   *vm.Program
	message *msgTemplate
}

// Meta is a rule's metadata, what reports need for their rule tables (SARIF
// rules, JUnit suites) and what `pmcheck rules` prints.
type Meta struct {
	ID          string   `json:"id"`
	Title       string   `json:"title"`
	Severity    string   `json:"severity"`
	Description string   `json:"description"`
	Help        string   `json:"help"`
	Select      []string `json:"select"`
	Where       string   `json:"where"`
	Tags        []string `json:"tags"`
}

// Meta returns the rule's metadata.
func (r *Rule) Meta() Meta {
	return Meta{
		ID: r.ID, Title: r.Title, Severity: r.Severity, Description: r.Description, Help: r.Help,
		Select: slices.Clone(r.Select), Where: r.Where, Tags: nonNil(slices.Clone(r.Tags)),
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// Pack is an ordered set of rules with unique ids, and the detector settings
// the rule files made.
type Pack struct {
	Rules    []*Rule
	Settings Settings

	settingsFrom settingsFrom
}

// Rule returns the rule with the given id, or nil.
func (p *Pack) Rule(id string) *Rule {
	for _, r := range p.Rules {
		if r.ID == id || slices.Contains(r.Aliases, id) {
			return r
		}
	}
	return nil
}

// fingerprintID is the id the rule's fingerprints hash: the id it was first
// shipped under (its first alias), else its id.
func (r *Rule) fingerprintID() string {
	if len(r.Aliases) > 0 {
		return r.Aliases[0]
	}
	return r.ID
}

// IDs returns the rule ids, sorted.
func (p *Pack) IDs() []string {
	ids := make([]string, len(p.Rules))
	for i, r := range p.Rules {
		ids[i] = r.ID
	}
	slices.Sort(ids)
	return ids
}

// Meta returns every rule's metadata, sorted by id (the order reports use for
// their rule tables).
func (p *Pack) Meta() []Meta {
	out := make([]Meta, len(p.Rules))
	for i, r := range p.Rules {
		out[i] = r.Meta()
	}
	slices.SortFunc(out, func(a, b Meta) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// clone copies the pack and its rules so that re-levelling one copy never
// changes another; the compiled programs are immutable and shared.
func (p *Pack) clone() *Pack {
	out := &Pack{Rules: make([]*Rule, len(p.Rules)), Settings: p.Settings, settingsFrom: settingsFrom{}}
	for k, v := range p.settingsFrom {
		out.settingsFrom[k] = v
	}
	for i, r := range p.Rules {
		c := *r
		out.Rules[i] = &c
	}
	return out
}

// extend appends other's rules and settings; a rule id defined in both, or a
// setting made in both, is an error that names both places.
func (p *Pack) extend(other *Pack) error {
	if err := p.mergeSettings(other); err != nil {
		return err
	}
	for _, r := range other.Rules {
		for _, id := range append([]string{r.ID}, r.Aliases...) {
			if prev := p.Rule(id); prev != nil {
				return fmt.Errorf("%s: rule id %q is already defined at %s; give your rule another id (and --disable %s to replace it)", r.Pos, id, prev.Pos, prev.ID)
			}
		}
		if prev := p.Rule(r.ID); prev != nil {
			return fmt.Errorf("%s: rule id %q is already defined at %s; give your rule another id (and --disable %s to replace it)", r.Pos, r.ID, prev.Pos, r.ID)
		}
		c := *r
		p.Rules = append(p.Rules, &c)
	}
	return nil
}

// quoteList renders values as "a", "b", "c" for error messages.
func quoteList(vals []string) string {
	q := make([]string, len(vals))
	for i, v := range vals {
		q[i] = fmt.Sprintf("%q", v)
	}
	return strings.Join(q, ", ")
}
