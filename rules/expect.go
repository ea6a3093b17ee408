package rules

import (
	"fmt"
	"io"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// An expectations file is one case of `pmcheck rules test`: the findings the
// rules under test must report on one run, and no others.
//
//	version: 1
//	run: session.jsonl      # optional: the run, relative to this file
//	rules: [+team.yaml]     # optional: the rule files under test, as --rules
//	findings:
//	  - rule: team-killed-migration
//	    at: session.jsonl:12          # evidence file:line, relative to this file
//	    severity: warning             # optional
//	    message: 'wrote a migration'  # optional regular expression (RE2)
//
// It loads as strictly as a rule file: unknown keys, malformed values, bad
// "at" locations and patterns are errors with file:line:col, and rule ids are
// checked against the pack under test (CheckRuleIDs).

var (
	expectTopKeys   = []string{"findings", "rules", "run", "version"}
	expectEntryKeys = []string{"at", "message", "rule", "severity"}
)

// Expectations is one loaded expectations file.
type Expectations struct {
	// File is the file's path as given.
	File string
	// Run is the run under test relative to the file's folder (slash
	// separated), "" when the file does not say.
	Run string
	// Rules are the rule files under test, relative to the file's folder,
	// each optionally prefixed "+" as for --rules; nil when the file does not
	// say.
	Rules []string
	// Findings are the expected findings in file order.
	Findings []Expectation
}

// Expectation is one expected finding.
type Expectation struct {
	Pos  Position // of the list entry
	Rule string
	// File and Line are the primary evidence location, File relative to the
	// expectations file's folder. File is "" for a finding without a location.
	File string
	Line int
	// Severity is "" when any severity is accepted.
	Severity string
	// Message is a regular expression the message must match, "" for any.
	Message string

	rulePos Position
	re      *regexp.Regexp
}

// At is the expected location as written, "file:line" ("" when none).
func (e Expectation) At() string { return formatAt(e.File, e.Line) }

func formatAt(file string, line int) string {
	if file == "" {
		return ""
	}
	return file + ":" + strconv.Itoa(line)
}

// LoadExpectations reads an expectations file strictly.
func LoadExpectations(path string) (*Expectations, error) {
	data, err := readSmallFile(path, "expectations file")
	if err != nil {
		return nil, err
	}
	return ParseExpectations(path, data)
}

// ParseExpectations reads an expectations file held in memory; name is used
// in error positions. Every problem is reported (a *LoadError).
func ParseExpectations(name string, data []byte) (*Expectations, error) {
	return parseDocument(name, data, expectationsFile, (*loader).expectations)
}

func (l *loader) expectations(root *yaml.Node) *Expectations {
	top := l.mapping(root, "the expectations file", expectTopKeys)
	if top == nil {
		return nil
	}
	l.version(root, top)
	e := &Expectations{File: l.file}
	if n, ok := top["run"]; ok {
		if s, ok := l.str(n, "run"); ok {
			if msg := relPathProblem(s); msg != "" {
				l.nodeErrorf(n, "\"run\" %s", msg)
			} else {
				e.Run = s
			}
		}
	}
	if n, ok := top["rules"]; ok {
		files, nodes, _ := l.strList(n, "rules", true)
		for i, f := range files {
			if msg := relPathProblem(strings.TrimPrefix(f, "+")); msg != "" {
				l.nodeErrorf(nodes[i], "rule file %s", msg)
				continue
			}
			e.Rules = append(e.Rules, f)
		}
		if e.Rules == nil {
			e.Rules = []string{}
		}
		if n.Kind == yaml.SequenceNode && len(n.Content) == 0 {
			l.nodeErrorf(n, "\"rules\" is empty; name the rule files under test, or remove the key to test the default rules")
		}
	}
	fn, ok := top["findings"]
	if !ok {
		l.nodeErrorf(root, "missing key \"findings\"; list the expected findings (\"findings: []\" when the rules must report nothing)")
		return e
	}
	if fn.Kind != yaml.SequenceNode {
		l.nodeErrorf(fn, "\"findings\" must be a list, got %s", describe(fn))
		return e
	}
	for _, n := range fn.Content {
		if x, ok := l.expectation(n); ok {
			e.Findings = append(e.Findings, x)
		}
	}
	return e
}

func (l *loader) expectation(n *yaml.Node) (Expectation, bool) {
	m := l.mapping(n, "an expected finding", expectEntryKeys)
	if m == nil {
		return Expectation{}, false
	}
	x := Expectation{Pos: l.pos(n)}
	good := true
	rn, ok := m["rule"]
	if !ok {
		l.nodeErrorf(n, "an expected finding is missing required key \"rule\" (the rule id)")
		good = false
	} else if x.Rule, ok = l.str(rn, "rule"); !ok {
		good = false
	} else {
		x.rulePos = l.pos(rn)
	}
	if an, ok := m["at"]; ok {
		s, ok := l.str(an, "at")
		if ok {
			x.File, x.Line, ok = parseAt(s)
			if !ok {
				l.nodeErrorf(an, "\"at\" %q must be FILE:LINE, a slash-separated path relative to this file and a line number from 1, e.g. \"session.jsonl:12\"", s)
			}
		}
		good = good && ok
	}
	if sn, ok := m["severity"]; ok {
		s, ok := l.str(sn, "severity")
		if ok && !slices.Contains([]string{SeverityError, SeverityWarning, SeverityNote}, s) {
			l.nodeErrorf(sn, "severity %q must be error, warning or note", s)
			ok = false
		}
		x.Severity = s
		good = good && ok
	}
	if mn, ok := m["message"]; ok {
		s, ok := l.str(mn, "message")
		if ok {
			re, err := regexp.Compile(s)
			if err != nil {
				l.nodeErrorf(mn, "\"message\" is not a valid regular expression (RE2): %s", oneLine(strings.TrimPrefix(err.Error(), "error parsing regexp: ")))
				ok = false
			}
			x.Message, x.re = s, re
		}
		good = good && ok
	}
	return x, good
}

// parseAt splits "file:line"; the file is a clean relative slash path.
func parseAt(s string) (string, int, bool) {
	i := strings.LastIndexByte(s, ':')
	if i <= 0 {
		return "", 0, false
	}
	line, err := strconv.Atoi(s[i+1:])
	if err != nil || line < 1 || s[i+1] == '+' {
		return "", 0, false
	}
	if relPathProblem(s[:i]) != "" {
		return "", 0, false
	}
	return s[:i], line, true
}

// relPathProblem says what is wrong with a path in an expectations file, ""
// when it is a clean relative slash-separated path.
func relPathProblem(p string) string {
	switch {
	case p == "":
		return "is empty"
	case strings.Contains(p, `\`):
		return fmt.Sprintf("%q contains a backslash; use slash-separated paths", p)
	case path.IsAbs(p) || (len(p) >= 2 && p[1] == ':'):
		return fmt.Sprintf("%q is absolute; write it relative to the expectations file", p)
	case path.Clean(p) != p:
		return fmt.Sprintf("%q is not a clean path; write %q", p, path.Clean(p))
	}
	return ""
}

// CheckRuleIDs reports every expected finding whose rule the pack under test
// does not hold, with its position (a *LoadError), or nil.
func (e *Expectations) CheckRuleIDs(p *Pack) error {
	ids := p.IDs()
	var errs []*PosError
	for i, x := range e.Findings {
		if r := p.Rule(x.Rule); r != nil {
			e.Findings[i].Rule = r.ID // a former id (alias) names the rule by its id
			continue
		}
		errs = append(errs, &PosError{Pos: x.rulePos, Msg: fmt.Sprintf("unknown rule id %q; %sthe rules under test are %s",
			x.Rule, didYouMean(x.Rule, ids), quoteList(ids))})
	}
	if len(errs) == 0 {
		return nil
	}
	return &LoadError{Errs: errs}
}

// Actual is a finding as a rule test compares it: its primary evidence
// location relative to the expectations file's folder.
type Actual struct {
	Rule     string `json:"rule"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
	File     string `json:"file,omitempty"`
	Line     int    `json:"line,omitempty"`
}

// At is the location as an expectation writes it.
func (a Actual) At() string { return formatAt(a.File, a.Line) }

// Kinds of rule test failure.
const (
	MismatchMissing    = "missing"
	MismatchUnexpected = "unexpected"
	MismatchLine       = "wrong-line"
	MismatchSeverity   = "wrong-severity"
	MismatchMessage    = "message-mismatch"
)

// Mismatch is one difference between the expectations and the findings.
type Mismatch struct {
	Kind string `json:"kind"`
	Rule string `json:"rule"`
	// Expectation is the expected finding's entry (nil for an unexpected
	// finding); Got is the finding (nil for a missing one).
	Expectation *Expectation `json:"-"`
	Got         *Actual      `json:"-"`
}

// Compare matches findings against expectations and returns every
// difference: a finding of the expected rule at the expected location whose
// severity or message does not fit; a finding of the rule in the expected
// file at another line (wrong line); an expectation nothing matched
// (missing); a finding nothing expected (unexpected). Each expectation
// matches at most one finding, so two findings at one location need two
// entries. The result is in a stable order: expectation order, then the
// unexpected findings in the order given.
func Compare(exp []Expectation, got []Actual) []Mismatch {
	usedE := make([]bool, len(exp))
	usedG := make([]bool, len(got))
	var out []Mismatch
	pair := func(fits func(Expectation, Actual) bool, onPair func(i, j int)) {
		for i, e := range exp {
			if usedE[i] {
				continue
			}
			for j, a := range got {
				if !usedG[j] && fits(e, a) {
					usedE[i], usedG[j] = true, true
					onPair(i, j)
					break
				}
			}
		}
	}
	sameSpot := func(e Expectation, a Actual) bool { return e.Rule == a.Rule && e.File == a.File && e.Line == a.Line }
	severityOK := func(e Expectation, a Actual) bool { return e.Severity == "" || e.Severity == a.Severity }
	messageOK := func(e Expectation, a Actual) bool { return e.re == nil || e.re.MatchString(a.Message) }
	type found struct {
		m   Mismatch
		pos int // expectation index, for the order of the report
	}
	var fs []found
	add := func(kind string, i, j int) {
		m := Mismatch{Kind: kind}
		if i >= 0 {
			m.Expectation = &exp[i]
			m.Rule = exp[i].Rule
		}
		if j >= 0 {
			m.Got = &got[j]
			m.Rule = got[j].Rule
		}
		pos := len(exp) + j
		if i >= 0 {
			pos = i
		}
		fs = append(fs, found{m, pos})
	}
	// Exact matches first, so a near miss never takes a finding that fits
	// another expectation exactly.
	pair(func(e Expectation, a Actual) bool { return sameSpot(e, a) && severityOK(e, a) && messageOK(e, a) }, func(int, int) {})
	pair(sameSpot, func(i, j int) {
		if !severityOK(exp[i], got[j]) {
			add(MismatchSeverity, i, j)
		}
		if !messageOK(exp[i], got[j]) {
			add(MismatchMessage, i, j)
		}
	})
	pair(func(e Expectation, a Actual) bool { return e.Rule == a.Rule && e.File == a.File && e.File != "" }, func(i, j int) {
		add(MismatchLine, i, j)
	})
	for i := range exp {
		if !usedE[i] {
			add(MismatchMissing, i, -1)
		}
	}
	for j := range got {
		if !usedG[j] {
			add(MismatchUnexpected, -1, j)
		}
	}
	slices.SortStableFunc(fs, func(a, b found) int { return a.pos - b.pos })
	for _, f := range fs {
		out = append(out, f.m)
	}
	return out
}

// WriteExpectations writes an expectations file that expects exactly the
// given findings, keeping old's run and rules keys and, for a finding an old
// entry matched, that entry's message pattern. It is what `rules test
// --update` writes; comments in the old file are not kept.
func WriteExpectations(w io.Writer, old *Expectations, got []Actual) error {
	type entry struct {
		Rule     string `yaml:"rule"`
		At       string `yaml:"at,omitempty"`
		Severity string `yaml:"severity"`
		Message  string `yaml:"message,omitempty"`
	}
	doc := struct {
		Version  int      `yaml:"version"`
		Run      string   `yaml:"run,omitempty"`
		Rules    []string `yaml:"rules,omitempty"`
		Findings []entry  `yaml:"findings"`
	}{Version: FormatVersion, Findings: []entry{}}
	var keep []Expectation
	if old != nil {
		doc.Run, doc.Rules, keep = old.Run, old.Rules, old.Findings
	}
	used := make([]bool, len(keep))
	for _, a := range got {
		en := entry{Rule: a.Rule, At: a.At(), Severity: a.Severity}
		for i, e := range keep {
			if !used[i] && e.re != nil && e.Rule == a.Rule && e.File == a.File && e.Line == a.Line && e.re.MatchString(a.Message) {
				used[i] = true
				en.Message = e.Message
				break
			}
		}
		doc.Findings = append(doc.Findings, en)
	}
	if _, err := io.WriteString(w, "# pmcheck rules test: the findings the rules under test must report on this run, and no others.\n"); err != nil {
		return err
	}
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return err
	}
	return enc.Close()
}
