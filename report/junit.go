package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"strings"

	"github.com/pmcheck/pmcheck/rules"
)

// JUnit as CI test reporters read it: one <testsuite> per evaluated
// rule and one <testcase> per (rule × run), so a clean check still reports
// passing tests rather than "0 tests", which test reporters read as "did not
// run". classname is the rule id and name the run's path, which keeps
// (classname, name) unique as GitLab requires.
//
// A testcase fails when the run has an unsuppressed finding of the rule at or
// above the fail level; findings below it are listed in <system-out> of a
// passing testcase, and a run whose only findings are suppressed is skipped.
// time is always 0: reports carry no wall-clock time.

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  *int         `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Properties []junitProperty `xml:"properties>property,omitempty"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	File      string        `xml:"file,attr,omitempty"`
	Line      int           `xml:"line,attr,omitempty"`
	Failure   *junitResult  `xml:"failure"`
	Skipped   *junitResult  `xml:"skipped"`
	SystemOut *junitCharBox `xml:"system-out"`
}

type junitResult struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Body    string `xml:",chardata"`
}

type junitCharBox struct {
	Body string `xml:",chardata"`
}

// JUnit renders the Document as JUnit XML.
func JUnit(doc *Document, opts Options) ([]byte, error) {
	threshold := severityRank(doc.Outcome.FailLevel)
	failsCheck := func(f rules.Finding) bool {
		return !f.Suppressed && doc.Outcome.FailLevel != FailLevelNone && severityRank(f.Severity) <= threshold
	}
	// The runs a testcase can name: every analyzed run, plus any run a
	// finding names that the run list lacks (so no finding is dropped).
	// A run is identified by its path and id (several files may carry one
	// session id), so each run is its own testcase.
	type runKey struct{ key, id, name string }
	var runOrder []runKey
	seenRun := map[string]bool{}
	nameUsed := map[string]int{}
	addRun := func(key, id, name string) {
		if seenRun[key] {
			return
		}
		seenRun[key] = true
		nameUsed[name]++
		runOrder = append(runOrder, runKey{key, id, name})
	}
	for _, r := range doc.Runs {
		name := doc.displayPath(r.Path)
		if name == "" {
			name = r.Kind + " " + r.ID
		}
		addRun(runIdentity(r.Path, r.ID), r.ID, name)
	}
	runs := doc.runIndex()
	findingsByRuleRun := map[[2]string][]rules.Finding{}
	for _, f := range doc.Findings {
		key, _ := runs.findingRun(f)
		name := "run " + f.RunID
		if f.RunPath != "" {
			name = doc.displayPath(f.RunPath)
		}
		addRun(key, f.RunID, name)
		k := [2]string{f.RuleID, key}
		findingsByRuleRun[k] = append(findingsByRuleRun[k], f)
	}
	caseName := func(k runKey) string {
		// Two runs with one path (a session and a workflow beside it) stay
		// distinct testcases.
		if nameUsed[k.name] > 1 {
			return fmt.Sprintf("%s [%s]", k.name, k.id)
		}
		return k.name
	}

	root := junitSuites{Name: xmlText(doc.Tool.Name), Time: "0"}
	for _, r := range doc.Rules {
		suite := junitSuite{
			Name: xmlText(r.ID + " " + singleLine(r.Title)),
			Time: "0",
			Properties: []junitProperty{
				{Name: "severity", Value: r.Severity},
				{Name: "what-to-do", Value: xmlText(actionText(visible(r.Help)))},
			},
		}
		for _, k := range runOrder {
			fs := findingsByRuleRun[[2]string{r.ID, k.key}]
			c := junitCase{Name: xmlText(caseName(k)), Classname: xmlText(r.ID), Time: "0"}
			var failing, below, suppressed []rules.Finding
			for _, f := range fs {
				switch {
				case f.Suppressed:
					suppressed = append(suppressed, f)
				case failsCheck(f):
					failing = append(failing, f)
				default:
					below = append(below, f)
				}
			}
			switch {
			case len(failing) > 0:
				c.Failure = &junitResult{
					Message: xmlText(singleLine(failing[0].Message)),
					Type:    xmlText(r.ID),
					Body:    xmlText(junitBody(doc, r, failing)),
				}
				if !opts.JUnitNoFileLine {
					p := primaryEvidence(failing[0])
					c.File = xmlText(doc.displayPath(p.File))
					c.Line = p.Line
				}
				suite.Failures++
			case len(below) == 0 && len(suppressed) > 0:
				c.Skipped = &junitResult{Message: fmt.Sprintf("%s suppressed by the baseline", plural(len(suppressed), "finding"))}
				suite.Skipped++
			}
			if len(below) > 0 {
				c.SystemOut = &junitCharBox{Body: xmlText(fmt.Sprintf("below fail level %s:\n%s", doc.Outcome.FailLevel, junitBody(doc, r, below)))}
			}
			suite.Tests++
			suite.Cases = append(suite.Cases, c)
		}
		root.Tests += suite.Tests
		root.Failures += suite.Failures
		if root.Skipped == nil {
			root.Skipped = new(int)
		}
		*root.Skipped += suite.Skipped
		root.Suites = append(root.Suites, suite)
	}
	if root.Skipped == nil {
		root.Skipped = new(int)
	}
	if opts.JUnitNoFileLine {
		// Jenkins' junit-10.xsd does not allow testsuites@skipped either.
		root.Skipped = nil
	}
	var buf bytes.Buffer
	buf.WriteString(xml.Header)
	enc := xml.NewEncoder(&buf)
	enc.Indent("", "  ")
	if err := enc.Encode(root); err != nil {
		return nil, fmt.Errorf("encoding JUnit XML: %w", err)
	}
	buf.WriteString("\n")
	return buf.Bytes(), nil
}

// junitBody lists findings as "file:line: severity RULE: message" with their
// simulated time and evidence, then what to do.
func junitBody(doc *Document, r Rule, fs []rules.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		p := primaryEvidence(f)
		fmt.Fprintf(&b, "%s: %s %s: %s\n", location(doc.displayPath(p.File), p.Line), f.Severity, f.RuleID, indent(visible(f.Message), "  "))
		fmt.Fprintf(&b, "  when: %s (simulated); run: %s %s\n", simTime(findingTime(f)), singleLine(f.RunKind), singleLine(f.RunID))
		for _, e := range f.Evidence {
			if e.File == "" || e == p {
				continue
			}
			fmt.Fprintf(&b, "  evidence: %s at %s\n", location(doc.displayPath(e.File), e.Line), simTime(e.Time))
		}
	}
	if help := strings.TrimSpace(visible(r.Help)); help != "" {
		fmt.Fprintf(&b, "What to do: %s", indent(help, "  "))
	}
	return b.String()
}

// xmlText makes s safe for XML 1.0: control characters become visible
// escapes (encoding/xml would otherwise write U+FFFD or, for some, invalid
// output) and carriage returns are kept out of attribute values.
func xmlText(s string) string {
	return visible(s)
}
