package rules

import (
	_ "embed"
	"fmt"
	"strings"
	"sync"
)

// DefaultsName is how the embedded default pack is named in positions.
const DefaultsName = "rules/defaults.yaml"

//go:embed defaults.yaml
var defaultsYAML []byte

// DefaultsSource returns the embedded default rule file.
func DefaultsSource() []byte { return append([]byte(nil), defaultsYAML...) }

var defaults = sync.OnceValues(func() (*Pack, error) { return Parse(DefaultsName, defaultsYAML) })

// Warm loads the embedded default pack now (parsing it compiles every
// rule's expression and message template: 2-3 ms, a sixth of a check of an
// empty folder), so that a caller can do it on another core while it does
// other start-up work; Defaults then returns at once.
func Warm() { _, _ = defaults() }

// Defaults returns a fresh copy of the embedded default pack, the rules
// `pmcheck check` evaluates when no --rules is given. A test guarantees it
// loads; an error here means the binary was built from a broken checkout.
func Defaults() (*Pack, error) {
	p, err := defaults()
	if err != nil {
		return nil, fmt.Errorf("the embedded default rules do not load (a build defect, please report it): %w", err)
	}
	return p.clone(), nil
}

// Options select and adjust the rules, as the command-line flags do.
type Options struct {
	// Files are rule files. A plain path replaces the default pack (several
	// plain paths are merged); a path written "+path" extends whatever the
	// other entries produced, the defaults when there is no plain path.
	Files []string
	// Disable lists rule ids to drop.
	Disable []string
	// Severity lists "ID=LEVEL" overrides (LEVEL: error, warning or note).
	Severity []string
	// Range adds the range rules (RangeDefaults) to the default pack: the
	// check reads a commit range. A plain rule file replaces both.
	Range bool
}

// DefaultsOnly reports whether the options select the embedded default pack
// unchanged: no rule files, nothing disabled or re-levelled.
func (o Options) DefaultsOnly() bool {
	return len(o.Files) == 0 && len(o.Disable) == 0 && len(o.Severity) == 0
}

// Build loads the pack the options describe: the defaults or the given files,
// then disables and re-levels rules by id. Unknown ids are errors, so a typo
// in a flag cannot silently keep a rule on.
func Build(opts Options) (*Pack, error) {
	var base, extra []string
	for _, f := range opts.Files {
		if rest, ok := strings.CutPrefix(f, "+"); ok {
			if rest == "" {
				return nil, fmt.Errorf("--rules +: a file name must follow the '+'; e.g. --rules +team-rules.yaml")
			}
			extra = append(extra, rest)
		} else {
			if f == "" {
				return nil, fmt.Errorf("--rules: empty file name; pass a rule file, or +FILE to extend the defaults")
			}
			base = append(base, f)
		}
	}
	var pack *Pack
	if len(base) == 0 {
		d, err := Defaults()
		if err != nil {
			return nil, err
		}
		pack = d
		if opts.Range {
			r, err := RangeDefaults()
			if err != nil {
				return nil, err
			}
			if err := pack.extend(r); err != nil {
				return nil, err
			}
		}
	} else {
		pack = &Pack{settingsFrom: settingsFrom{}}
	}
	for _, path := range append(base, extra...) {
		p, err := LoadFile(path)
		if err != nil {
			return nil, err
		}
		if err := pack.extend(p); err != nil {
			return nil, err
		}
	}
	for _, spec := range opts.Severity {
		id, level, ok := strings.Cut(spec, "=")
		if !ok || id == "" {
			return nil, fmt.Errorf("--severity %q: write ID=LEVEL, e.g. --severity quiet-agent=warning", spec)
		}
		r := pack.Rule(id)
		if r == nil {
			return nil, unknownID("--severity", id, pack)
		}
		if severityRank(level) == 0 {
			return nil, fmt.Errorf("--severity %s: unknown level %q; expected one of %s", spec, level, quoteList(sortedCopy(Severities)))
		}
		r.Severity = level
	}
	if len(opts.Disable) > 0 {
		drop := map[string]bool{}
		for _, id := range opts.Disable {
			r := pack.Rule(id) // an id or a former id (alias)
			if r == nil {
				return nil, unknownID("--disable", id, pack)
			}
			drop[r.ID] = true
		}
		kept := pack.Rules[:0]
		for _, r := range pack.Rules {
			if !drop[r.ID] {
				kept = append(kept, r)
			}
		}
		pack.Rules = kept
	}
	if len(pack.Rules) == 0 {
		return nil, fmt.Errorf("no rule is left to evaluate (the rule files define none, or every rule is disabled); a check that evaluates nothing would always pass")
	}
	return pack, nil
}

func unknownID(flag, id string, p *Pack) error {
	return fmt.Errorf("%s: unknown rule id %q; known ids: %s (see 'pmcheck rules list')", flag, id, strings.Join(p.IDs(), ", "))
}
