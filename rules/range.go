package rules

import (
	_ "embed"
	"sync"
)

// RangeName is how the embedded range rules are named in positions.
const RangeName = "rules/range.yaml"

//go:embed range.yaml
var rangeYAML []byte

var rangeRules = sync.OnceValues(func() (*Pack, error) { return Parse(RangeName, rangeYAML) })

// RangeDefaults returns a fresh copy of the range rules: what a check of a
// commit range adds to the default pack (Options.Range). They are apart
// from the defaults so that a check of run folders alone keeps its rule
// list (and its reports) as they were.
func RangeDefaults() (*Pack, error) {
	p, err := rangeRules()
	if err != nil {
		return nil, err
	}
	return p.clone(), nil
}
