package rules

import (
	"fmt"
	"strings"

	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/parser"
	"github.com/expr-lang/expr/vm"
)

// Condition is one part of a rule's where and its value on a fact.
type Condition struct {
	Expr  string `json:"expr"`
	Value bool   `json:"value"`
	// Parts are the values of a false disjunction's alternatives (a || b),
	// which say what would have made it true.
	Parts []Condition `json:"parts,omitempty"`
}

// WhyNot answers "why no finding?": it evaluates each condition of where
// that must hold (the operands of its top-level &&, through parentheses)
// on fact, a fact of kind as a report holds it, and returns the false
// ones, with the parts of a false ||. Empty when where holds on the fact.
// The conditions are compiled as rules are (the kind's fields, no now()),
// so they fail on what the rule itself would.
func WhyNot(where, kind string, fact any) ([]Condition, error) {
	if factTypes[kind] == nil {
		return nil, fmt.Errorf("unknown fact kind %q", kind)
	}
	tree, err := parser.Parse(where)
	if err != nil {
		return nil, err
	}
	var c exprCompiler
	var machine vm.VM
	eval := func(n ast.Node) (Condition, error) {
		src := n.String()
		prog, err := c.compile(src, kind, true)
		if err != nil {
			return Condition{}, err
		}
		v, err := machine.Run(prog, fact)
		if err != nil {
			return Condition{}, err
		}
		b, _ := v.(bool)
		return Condition{Expr: src, Value: b}, nil
	}
	var out []Condition
	for _, n := range operands(tree.Node, "&&", "and") {
		cond, err := eval(n)
		if err != nil {
			return nil, err
		}
		if cond.Value {
			continue
		}
		if alts := operands(n, "||", "or"); len(alts) > 1 {
			for _, a := range alts {
				part, err := eval(a)
				if err != nil {
					return nil, err
				}
				cond.Parts = append(cond.Parts, part)
			}
		}
		out = append(out, cond)
	}
	return out, nil
}

// operands flattens a chain of one binary operator (given by its two
// spellings) into its operands, in order.
func operands(n ast.Node, ops ...string) []ast.Node {
	if b, ok := n.(*ast.BinaryNode); ok && (b.Operator == ops[0] || b.Operator == ops[1]) {
		return append(operands(b.Left, ops...), operands(b.Right, ops...)...)
	}
	return []ast.Node{n}
}

// Sentence says a false condition in words: "`!reviewed` is false", with
// the values of a disjunction's parts.
func (c Condition) Sentence() string {
	s := "`" + c.Expr + "` is false"
	if len(c.Parts) > 0 {
		var parts []string
		for _, p := range c.Parts {
			parts = append(parts, fmt.Sprintf("`%s` is %v", p.Expr, p.Value))
		}
		s += " (" + strings.Join(parts, ", ") + ")"
	}
	return s
}
