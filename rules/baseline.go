package rules

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/pmcheck/pmcheck/internal/lazyre"
)

// A baseline lists the fingerprints of known findings. check marks matching
// findings Suppressed (they are reported but do not fail the check) and reports
// the entries that matched nothing, so a baseline cannot silently rot.
//
//	version: 1
//	findings:
//	  - fingerprint: 0123456789abcdef0123456789abcdef
//	    rule: killed-subagent-shipped-unreviewed   # informational
//	    run: 10000000-0000-4000-8000-000000000001
//	    message: subagent "Refactor the parser" was killed …

var (
	baselineTopKeys   = []string{"findings", "version"}
	baselineEntryKeys = []string{"fingerprint", "message", "rule", "run"}
	fingerprintRE     = lazyre.New(`^[0-9a-f]{32}$`)
)

// Baseline is a loaded baseline file.
type Baseline struct {
	Entries []BaselineEntry
}

// BaselineEntry is one known finding. Only Fingerprint matches; the rest helps
// people read the file.
type BaselineEntry struct {
	Fingerprint string
	RuleID      string
	RunID       string
	Message     string
	Pos         Position
}

// Stale describes an entry that matched no finding.
func (e BaselineEntry) Stale() string {
	return fmt.Sprintf("%s: baseline entry %s (rule %q, run %q) matched no finding; remove it from the baseline", e.Pos, e.Fingerprint, e.RuleID, e.RunID)
}

// LoadBaseline reads a baseline file.
func LoadBaseline(path string) (*Baseline, error) {
	data, err := readSmallFile(path, "baseline")
	if err != nil {
		return nil, err
	}
	return ParseBaseline(path, data)
}

// ParseBaseline reads a baseline held in memory, strictly: unknown keys,
// malformed or duplicate fingerprints are errors with their position.
func ParseBaseline(name string, data []byte) (*Baseline, error) {
	return parseDocument(name, data, baselineFile, (*loader).baseline)
}

func (l *loader) baseline(root *yaml.Node) *Baseline {
	top := l.mapping(root, "the baseline", baselineTopKeys)
	if top == nil {
		return nil
	}
	// A baseline with the wrong version is not read further: its entries
	// could mean something else.
	if !l.version(root, top) {
		return nil
	}
	b := &Baseline{}
	fn, ok := top["findings"]
	if !ok {
		l.nodeErrorf(root, "missing key \"findings\"; add a list (\"findings: []\" for an empty baseline)")
		return nil
	}
	if fn.Kind != yaml.SequenceNode {
		l.nodeErrorf(fn, "\"findings\" must be a list, got %s", describe(fn))
		return nil
	}
	seen := map[string]Position{}
	for _, n := range fn.Content {
		m := l.mapping(n, "a baseline entry", baselineEntryKeys)
		if m == nil {
			continue
		}
		e := BaselineEntry{Pos: l.pos(n)}
		fv, ok := m["fingerprint"]
		if !ok {
			l.nodeErrorf(n, "a baseline entry is missing required key \"fingerprint\"")
			continue
		}
		fp, ok := l.str(fv, "fingerprint")
		if !ok {
			continue
		}
		if !fingerprintRE().MatchString(fp) {
			l.nodeErrorf(fv, "fingerprint %q is not 32 lowercase hex digits; copy it from a report or regenerate the baseline", fp)
			continue
		}
		if prev, dup := seen[fp]; dup {
			l.nodeErrorf(fv, "duplicate fingerprint %s; the first is at line %d, column %d", fp, prev.Line, prev.Col)
			continue
		}
		seen[fp] = e.Pos
		e.Fingerprint = fp
		for key, dst := range map[string]*string{"rule": &e.RuleID, "run": &e.RunID, "message": &e.Message} {
			if v, ok := m[key]; ok {
				if s, ok := l.str(v, key); ok {
					*dst = s
				}
			}
		}
		b.Entries = append(b.Entries, e)
	}
	return b
}

// Apply marks the findings whose fingerprint the baseline lists as Suppressed
// and returns the entries that matched no finding, in file order.
func (b *Baseline) Apply(findings []Finding) (stale []BaselineEntry) {
	stale, _ = b.ApplyLegacy(findings)
	return stale
}

// ApplyLegacy is Apply that also accepts a finding's LegacyFingerprint (the
// working-directory-relative scheme of baselines written before
// fingerprints hashed the repository-relative path), and returns the
// entries that matched only that way: the baseline works as it did, and
// the caller says how to rewrite it.
func (b *Baseline) ApplyLegacy(findings []Finding) (stale, legacy []BaselineEntry) {
	if b == nil {
		return nil, nil
	}
	known := map[string]bool{}
	for _, e := range b.Entries {
		known[e.Fingerprint] = true
	}
	matched := map[string]bool{}
	for i := range findings {
		f := &findings[i]
		for _, fp := range [...]string{f.Fingerprint, f.LegacyFingerprint} {
			if fp != "" && known[fp] {
				f.Suppressed = true
				matched[fp] = true
			}
		}
	}
	current := map[string]bool{}
	for i := range findings {
		current[findings[i].Fingerprint] = true
	}
	for _, e := range b.Entries {
		switch {
		case !matched[e.Fingerprint]:
			stale = append(stale, e)
		case !current[e.Fingerprint]:
			legacy = append(legacy, e)
		}
	}
	return stale, legacy
}

// WriteBaseline writes a baseline that suppresses every given finding, sorted
// by fingerprint so that regenerating it gives a small diff.
func WriteBaseline(w io.Writer, findings []Finding) error {
	type entry struct {
		Fingerprint string `yaml:"fingerprint"`
		Rule        string `yaml:"rule"`
		Run         string `yaml:"run"`
		Message     string `yaml:"message"`
	}
	doc := struct {
		Version  int     `yaml:"version"`
		Findings []entry `yaml:"findings"`
	}{Version: FormatVersion, Findings: []entry{}}
	seen := map[string]bool{}
	for _, f := range findings {
		if seen[f.Fingerprint] {
			continue
		}
		seen[f.Fingerprint] = true
		doc.Findings = append(doc.Findings, entry{f.Fingerprint, f.RuleID, f.RunID, oneLine(f.Message)})
	}
	slices.SortFunc(doc.Findings, func(a, b entry) int { return strings.Compare(a.Fingerprint, b.Fingerprint) })
	if _, err := io.WriteString(w, "# pmcheck baseline: findings listed here are reported as suppressed and do not fail the check.\n"); err != nil {
		return err
	}
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return err
	}
	return enc.Close()
}
