package report

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
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
	Error     *junitResult  `xml:"error"`
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

// junitMaxListed is how many findings one testcase's failure or
// system-out lists; the rest are counted. A test reporter shows the body
// to a person, and one run with 200,000 findings of a rule made a single
// 70 MB element (the JSON report lists them all).
const junitMaxListed = 1000

// JUnit renders the Document as JUnit XML.
func JUnit(doc *Document, opts Options) ([]byte, error) {
	var buf bytes.Buffer
	if err := writeJUnit(&buf, doc, opts); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// writeJUnit writes the JUnit XML of doc to w as it is made: the counts
// first (the root and each suite carry them as attributes), then one
// testcase at a time, so no second tree of the report is held. The bytes
// are those encoding/xml writes for the whole tree (TestJUnitStreamedIsTree).
func writeJUnit(w io.Writer, doc *Document, opts Options) error {
	cases := newJUnitCases(doc)
	// The counts, before any element that carries them.
	root, suites := cases.count()
	cov := junitCoverage(doc.Coverage)
	if cov != nil {
		root.Tests += cov.Tests
		root.Failures += cov.Failures
	}
	if opts.JUnitNoFileLine {
		// Jenkins' junit-10.xsd does not allow testsuites@skipped either.
		root.Skipped = nil
	}

	bw := bufio.NewWriterSize(w, 64<<10)
	bw.WriteString(xml.Header)
	enc := xml.NewEncoder(bw)
	enc.Indent("", "  ")
	rootStart := junitRootStart(root, len(doc.Inputs.Unreadable))
	if err := writeJUnitHead(enc, rootStart, doc, opts); err != nil {
		return err
	}
	for i, r := range doc.Rules {
		if err := cases.writeSuite(enc, r, suites[i], opts); err != nil {
			return err
		}
	}
	if cov != nil {
		if err := enc.EncodeElement(cov, xml.StartElement{Name: xml.Name{Local: "testsuite"}}); err != nil {
			return fmt.Errorf("encoding JUnit XML: %w", err)
		}
	}
	if err := enc.EncodeToken(rootStart.End()); err != nil {
		return fmt.Errorf("encoding JUnit XML: %w", err)
	}
	if err := enc.Flush(); err != nil {
		return err
	}
	bw.WriteString("\n")
	return bw.Flush()
}

func xmlAttr(name, value string) xml.Attr { return xml.Attr{Name: xml.Name{Local: name}, Value: value} }

// junitRootStart opens testsuites with the counts; each input that could
// not be read is one more test, errored.
func junitRootStart(root junitSuites, unreadable int) xml.StartElement {
	itoa := strconv.Itoa
	start := xml.StartElement{Name: xml.Name{Local: "testsuites"}, Attr: []xml.Attr{
		xmlAttr("name", root.Name), xmlAttr("tests", itoa(root.Tests+unreadable)), xmlAttr("failures", itoa(root.Failures)), xmlAttr("errors", itoa(unreadable)),
	}}
	if root.Skipped != nil {
		start.Attr = append(start.Attr, xmlAttr("skipped", itoa(*root.Skipped)))
	}
	start.Attr = append(start.Attr, xmlAttr("time", "0"))
	return start
}

// junitRun is a run a testcase can name: key identifies it (its path and
// id), name is what the testcase shows.
type junitRun struct{ key, id, name string }

// junitCases are the testcases of every suite: one per run (in runs), with
// the findings of each (rule, run), as indices into doc.Findings, not
// copies of the findings.
type junitCases struct {
	doc       *Document
	threshold int
	runs      []junitRun
	seenRun   map[string]bool
	nameUsed  map[string]int
	findings  map[[2]string][]int
}

// newJUnitCases lists the runs a testcase can name: every analyzed run,
// plus any run a finding names that the run list lacks (so no finding is
// dropped). A run is identified by its path and id (several files may carry
// one session id), so each run is its own testcase.
func newJUnitCases(doc *Document) *junitCases {
	c := &junitCases{doc: doc, threshold: severityRank(doc.Outcome.FailLevel), seenRun: map[string]bool{}, nameUsed: map[string]int{},
		findings: map[[2]string][]int{}}
	for _, r := range doc.Runs {
		name := doc.displayPath(r.Path)
		if name == "" {
			name = r.Kind + " " + r.ID
		}
		c.addRun(runIdentity(r.Path, r.ID), r.ID, name)
	}
	runs := doc.runIndex()
	for i := range doc.Findings {
		f := &doc.Findings[i]
		key, _ := runs.findingRun(*f)
		name := "run " + f.RunID
		if f.RunPath != "" {
			name = doc.displayPath(f.RunPath)
		}
		c.addRun(key, f.RunID, name)
		k := [2]string{f.RuleID, key}
		c.findings[k] = append(c.findings[k], i)
	}
	return c
}

func (c *junitCases) addRun(key, id, name string) {
	if c.seenRun[key] {
		return
	}
	c.seenRun[key] = true
	c.nameUsed[name]++
	c.runs = append(c.runs, junitRun{key, id, name})
}

// name is the testcase's name: two runs with one path (a session and a
// workflow beside it) stay distinct testcases.
func (c *junitCases) name(k junitRun) string {
	if c.nameUsed[k.name] > 1 {
		return fmt.Sprintf("%s [%s]", k.name, k.id)
	}
	return k.name
}

func (c *junitCases) failsCheck(f *rules.Finding) bool {
	return !f.Suppressed && c.doc.Outcome.FailLevel != FailLevelNone && severityRank(f.Severity) <= c.threshold
}

// split sorts a testcase's findings into those that fail the check, those
// below the fail level and those suppressed.
func (c *junitCases) split(ruleID string, k junitRun) (failing, below, suppressed []*rules.Finding) {
	for _, i := range c.findings[[2]string{ruleID, k.key}] {
		f := &c.doc.Findings[i]
		switch {
		case f.Suppressed:
			suppressed = append(suppressed, f)
		case c.failsCheck(f):
			failing = append(failing, f)
		default:
			below = append(below, f)
		}
	}
	return failing, below, suppressed
}

// count is every suite's counts and their sums: a testcase fails with a
// failing finding, and is skipped when its only findings are suppressed.
func (c *junitCases) count() (junitSuites, []junitSuite) {
	suites := make([]junitSuite, len(c.doc.Rules))
	root := junitSuites{Name: xmlText(c.doc.Tool.Name), Time: "0", Skipped: new(int)}
	for i, r := range c.doc.Rules {
		suite := &suites[i]
		for _, k := range c.runs {
			failing, below, suppressed := c.split(r.ID, k)
			switch {
			case len(failing) > 0:
				suite.Failures++
			case len(below) == 0 && len(suppressed) > 0:
				suite.Skipped++
			}
			suite.Tests++
		}
		root.Tests += suite.Tests
		root.Failures += suite.Failures
		*root.Skipped += suite.Skipped
	}
	return root, suites
}

// writeSuite writes rule r's suite: its properties, then one testcase per
// run.
func (c *junitCases) writeSuite(enc *xml.Encoder, r Rule, suite junitSuite, opts Options) error {
	itoa := strconv.Itoa
	start := xml.StartElement{Name: xml.Name{Local: "testsuite"}, Attr: []xml.Attr{
		xmlAttr("name", xmlText(r.ID+" "+singleLine(r.Title))), xmlAttr("tests", itoa(suite.Tests)), xmlAttr("failures", itoa(suite.Failures)),
		xmlAttr("errors", "0"), xmlAttr("skipped", itoa(suite.Skipped)), xmlAttr("time", "0"),
	}}
	if err := enc.EncodeToken(start); err != nil {
		return fmt.Errorf("encoding JUnit XML: %w", err)
	}
	props := struct {
		P []junitProperty `xml:"property"`
	}{[]junitProperty{
		{Name: "severity", Value: r.Severity},
		{Name: "what-to-do", Value: xmlText(actionText(visible(r.Help)))},
	}}
	if err := enc.EncodeElement(props, xml.StartElement{Name: xml.Name{Local: "properties"}}); err != nil {
		return fmt.Errorf("encoding JUnit XML: %w", err)
	}
	for _, k := range c.runs {
		if err := enc.EncodeElement(c.testcase(r, k, opts), xml.StartElement{Name: xml.Name{Local: "testcase"}}); err != nil {
			return fmt.Errorf("encoding JUnit XML: %w", err)
		}
	}
	if err := enc.EncodeToken(start.End()); err != nil {
		return fmt.Errorf("encoding JUnit XML: %w", err)
	}
	return nil
}

// testcase is rule r on run k: failed at its first failing finding,
// skipped when its findings are all suppressed, with the findings below
// the fail level in system-out.
func (c *junitCases) testcase(r Rule, k junitRun, opts Options) junitCase {
	failing, below, suppressed := c.split(r.ID, k)
	tc := junitCase{Name: xmlText(c.name(k)), Classname: xmlText(r.ID), Time: "0"}
	switch {
	case len(failing) > 0:
		tc.Failure = &junitResult{
			Message: xmlText(singleLine(failing[0].Message)),
			Type:    xmlText(r.ID),
			Body:    xmlText(junitBody(c.doc, r, failing)),
		}
		if !opts.JUnitNoFileLine {
			p := primaryEvidence(*failing[0])
			tc.File = xmlText(c.doc.displayPath(p.File))
			tc.Line = p.Line
		}
	case len(below) == 0 && len(suppressed) > 0:
		tc.Skipped = &junitResult{Message: fmt.Sprintf("%s suppressed by the baseline", plural(len(suppressed), "finding"))}
	}
	if len(below) > 0 {
		tc.SystemOut = &junitCharBox{Body: xmlText(fmt.Sprintf("below fail level %s:\n%s", c.doc.Outcome.FailLevel, junitBody(c.doc, r, below)))}
	}
	return tc
}

// junitBody lists findings as "file:line: severity RULE: message" with their
// simulated time and evidence, then what to do.
func junitBody(doc *Document, r Rule, fs []*rules.Finding) string {
	var b strings.Builder
	for i, f := range fs {
		if i == junitMaxListed {
			fmt.Fprintf(&b, "… and %s of this rule in this run not listed (see the JSON report)\n", plural(len(fs)-i, "more finding"))
			break
		}
		p := primaryEvidence(*f)
		fmt.Fprintf(&b, "%s: %s %s: %s\n", location(doc.displayPath(p.File), p.Line), f.Severity, f.RuleID, indent(visible(f.Message), "  "))
		fmt.Fprintf(&b, "  when: %s (simulated); run: %s %s\n", simTime(findingTime(*f)), singleLine(f.RunKind), singleLine(f.RunID))
		for _, e := range f.Evidence {
			if e.File == "" || e == p {
				continue
			}
			fmt.Fprintf(&b, "  evidence: %s at %s\n", location(doc.displayPath(e.File), e.Line), simTime(e.Time))
		}
		if f.EvidenceMore > 0 {
			fmt.Fprintf(&b, "  evidence: %s\n", moreEvidence(f.EvidenceMore))
		}
	}
	if help := strings.TrimSpace(PlainHelp(visible(r.Help))); help != "" {
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

// writeJUnitHead opens the testsuites element and writes the inputs that
// could not be read (writeJUnitUnreadable), before the rules' suites.
func writeJUnitHead(enc *xml.Encoder, rootStart xml.StartElement, doc *Document, opts Options) error {
	if err := enc.EncodeToken(rootStart); err != nil {
		return fmt.Errorf("encoding JUnit XML: %w", err)
	}
	return writeJUnitUnreadable(enc, doc, opts)
}

// writeJUnitUnreadable writes, first, one errored case per input that could
// not be read, under the built-in input-problem rule (the check could not
// test them); nothing when every input was read.
func writeJUnitUnreadable(enc *xml.Encoder, doc *Document, opts Options) error {
	unreadable := len(doc.Inputs.Unreadable)
	if unreadable == 0 {
		return nil
	}
	attr := xmlAttr
	itoa := strconv.Itoa
	// First: one errored case per input that could not be read, under
	// the built-in input-problem rule (the check could not test them).
	start := xml.StartElement{Name: xml.Name{Local: "testsuite"}, Attr: []xml.Attr{
		attr("name", InputProblemRule+" Inputs that could not be read"), attr("tests", itoa(unreadable)), attr("failures", "0"),
		attr("errors", itoa(unreadable)), attr("skipped", "0"), attr("time", "0"),
	}}
	if err := enc.EncodeToken(start); err != nil {
		return fmt.Errorf("encoding JUnit XML: %w", err)
	}
	for _, p := range doc.Inputs.Unreadable {
		name := doc.displayPath(p.File)
		if name == "" {
			name = "input"
		}
		c := junitCase{Name: xmlText(name), Classname: InputProblemRule, Time: "0",
			Error: &junitResult{Message: xmlText(singleLine(p.Message)), Type: InputProblemRule, Body: xmlText(visible(p.Message))}}
		if !opts.JUnitNoFileLine && p.File != "" {
			c.File, c.Line = xmlText(doc.displayPath(p.File)), p.Line
		}
		if err := enc.EncodeElement(c, xml.StartElement{Name: xml.Name{Local: "testcase"}}); err != nil {
			return fmt.Errorf("encoding JUnit XML: %w", err)
		}
	}
	if err := enc.EncodeToken(start.End()); err != nil {
		return fmt.Errorf("encoding JUnit XML: %w", err)
	}
	return nil
}
