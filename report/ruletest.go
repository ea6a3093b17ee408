package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"slices"
	"strings"
)

// RuleTest is the result of `pmcheck rules test`: one case per expectations
// file. Its JSON form is the canonical one; Text and JUnit render the same
// value. Messages come from transcripts and are escaped for each medium like
// every other report.
type RuleTest struct {
	Kind          string         `json:"kind"`
	SchemaVersion int            `json:"schema_version"`
	Cases         []RuleTestCase `json:"cases"`
	Summary       RuleTestTotals `json:"summary"`
}

// RuleTestKind and RuleTestSchemaVersion identify the JSON document.
const (
	RuleTestKind          = "pmcheck-rules-test"
	RuleTestSchemaVersion = 1
)

// Case statuses.
const (
	CasePass  = "pass"
	CaseFail  = "fail"
	CaseError = "error"
)

// RuleTestCase is one expectations file and the run it describes.
type RuleTestCase struct {
	// File is the expectations file and Run the run under test, as paths
	// from the working directory (slash-separated).
	File   string `json:"file"`
	Run    string `json:"run"`
	Status string `json:"status"`
	// Error says why the case could not run (status error).
	Error    string            `json:"error,omitempty"`
	Expected int               `json:"expected"`
	Found    int               `json:"found"`
	Failures []RuleTestFailure `json:"failures"`
}

// RuleTestFailure is one difference between expectations and findings.
type RuleTestFailure struct {
	// Kind is missing, unexpected, wrong-line, wrong-severity or
	// message-mismatch.
	Kind string `json:"kind"`
	Rule string `json:"rule"`
	// Expectation is the expected finding's entry, file:line:col ("" for an
	// unexpected finding).
	Expectation string `json:"expectation,omitempty"`
	// Line is the entry's line in the expectations file (0 for an
	// unexpected finding); JUnit places a failing case there.
	Line int `json:"line,omitempty"`
	// Want is what the entry expects (nil for an unexpected finding); Got is
	// the finding (nil for a missing one).
	Want *RuleTestFinding `json:"want,omitempty"`
	Got  *RuleTestFinding `json:"got,omitempty"`
}

// RuleTestFinding is a finding's location, severity and message (for Want,
// the message is the expected pattern).
type RuleTestFinding struct {
	At       string `json:"at,omitempty"`
	Severity string `json:"severity,omitempty"`
	Message  string `json:"message,omitempty"`
}

// RuleTestTotals counts the cases by status.
type RuleTestTotals struct {
	Cases    int `json:"cases"`
	Passed   int `json:"passed"`
	Failed   int `json:"failed"`
	Errors   int `json:"errors"`
	Failures int `json:"failures"`
}

// NewRuleTest totals the cases.
func NewRuleTest(cases []RuleTestCase) *RuleTest {
	t := &RuleTest{Kind: RuleTestKind, SchemaVersion: RuleTestSchemaVersion, Cases: cases}
	if t.Cases == nil {
		t.Cases = []RuleTestCase{}
	}
	for i := range t.Cases {
		c := &t.Cases[i]
		if c.Failures == nil {
			c.Failures = []RuleTestFailure{}
		}
		t.Summary.Cases++
		t.Summary.Failures += len(c.Failures)
		switch c.Status {
		case CasePass:
			t.Summary.Passed++
		case CaseFail:
			t.Summary.Failed++
		default:
			t.Summary.Errors++
		}
	}
	return t
}

// RuleTestJSON renders the canonical JSON.
func RuleTestJSON(t *RuleTest) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(t); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// RuleTestText renders one line per case, each failure indented under it,
// then the totals.
func RuleTestText(t *RuleTest) []byte {
	var b bytes.Buffer
	for _, c := range t.Cases {
		switch c.Status {
		case CasePass:
			fmt.Fprintf(&b, "ok    %s: %s\n", singleLine(c.File), counts(c))
		case CaseFail:
			fmt.Fprintf(&b, "FAIL  %s: %s, %s\n", singleLine(c.File), counts(c), plural(len(c.Failures), "failure"))
			for _, f := range c.Failures {
				fmt.Fprintf(&b, "  %s\n", failureLine(f))
			}
		default:
			fmt.Fprintf(&b, "ERROR %s: %s\n", singleLine(c.File), singleLine(c.Error))
		}
	}
	s := t.Summary
	verdict := "PASSED"
	if s.Failed > 0 || s.Errors > 0 || s.Cases == 0 {
		verdict = "FAILED"
	}
	fmt.Fprintf(&b, "\nrules test %s: %s, %d passed, %d failed, %s\n", verdict, plural(s.Cases, "case"), s.Passed, s.Failed, plural(s.Errors, "error"))
	return b.Bytes()
}

func counts(c RuleTestCase) string {
	return fmt.Sprintf("%d expected, %d found", c.Expected, c.Found)
}

// failureLine is one failure: what, where (file:line of the finding or of the
// expected location), and the expectation entry it concerns.
func failureLine(f RuleTestFailure) string {
	var s string
	entry := ""
	if f.Expectation != "" {
		entry = " (expected by " + singleLine(f.Expectation) + ")"
	}
	at := func(x *RuleTestFinding) string {
		if x.At == "" {
			return "(no location)"
		}
		return singleLine(x.At)
	}
	switch f.Kind {
	case "missing":
		s = fmt.Sprintf("missing: %s: %s was not reported here%s", at(f.Want), singleLine(f.Rule), entry)
	case "unexpected":
		s = fmt.Sprintf("unexpected: %s: %s %s: %s", at(f.Got), f.Got.Severity, singleLine(f.Rule), truncateRunes(singleLine(f.Got.Message), 300))
	case "wrong-line":
		s = fmt.Sprintf("wrong line: %s: %s was reported here, expected at %s%s", at(f.Got), singleLine(f.Rule), at(f.Want), entry)
	case "wrong-severity":
		s = fmt.Sprintf("wrong severity: %s: %s is %s, expected %s%s", at(f.Got), singleLine(f.Rule), f.Got.Severity, f.Want.Severity, entry)
	case "message-mismatch":
		s = fmt.Sprintf("message mismatch: %s: %s message %q does not match %q%s", at(f.Got), singleLine(f.Rule),
			truncateRunes(singleLine(f.Got.Message), 300), singleLine(f.Want.Message), entry)
	default:
		s = fmt.Sprintf("%s: %s", singleLine(f.Kind), singleLine(f.Rule))
	}
	return s
}

type ruleTestSuites struct {
	XMLName  xml.Name        `xml:"testsuites"`
	Name     string          `xml:"name,attr"`
	Tests    int             `xml:"tests,attr"`
	Failures int             `xml:"failures,attr"`
	Errors   int             `xml:"errors,attr"`
	Time     string          `xml:"time,attr"`
	Suites   []ruleTestSuite `xml:"testsuite"`
}

type ruleTestSuite struct {
	Name     string         `xml:"name,attr"`
	Tests    int            `xml:"tests,attr"`
	Failures int            `xml:"failures,attr"`
	Errors   int            `xml:"errors,attr"`
	Skipped  int            `xml:"skipped,attr"`
	Time     string         `xml:"time,attr"`
	Cases    []ruleTestCase `xml:"testcase"`
}

type ruleTestCase struct {
	Name      string       `xml:"name,attr"`
	Classname string       `xml:"classname,attr"`
	Time      string       `xml:"time,attr"`
	File      string       `xml:"file,attr,omitempty"`
	Line      int          `xml:"line,attr,omitempty"`
	Failure   *junitResult `xml:"failure"`
	Error     *junitResult `xml:"error"`
}

// RuleTestJUnit renders one <testcase> per expectations file: a <failure>
// lists every difference (file and line name the expectations file), an
// <error> says why the case could not run.
func RuleTestJUnit(t *RuleTest) ([]byte, error) {
	const name = "pmcheck rules test"
	suite := ruleTestSuite{Name: name, Time: "0"}
	for _, c := range t.Cases {
		tc := ruleTestCase{Name: xmlText(c.File), Classname: "pmcheck.rules-test", Time: "0", File: xmlText(c.File)}
		switch c.Status {
		case CaseFail:
			var body strings.Builder
			for _, f := range c.Failures {
				body.WriteString(failureLine(f))
				body.WriteByte('\n')
			}
			tc.Failure = &junitResult{
				Message: xmlText(fmt.Sprintf("%s: %s", plural(len(c.Failures), "failure"), failureLine(c.Failures[0]))),
				Type:    c.Failures[0].Kind,
				Body:    xmlText(body.String()),
			}
			// Annotations land on the first failing entry of the
			// expectations file, or its first line when every failure is an
			// unexpected finding.
			tc.Line = 1
			for _, f := range c.Failures {
				if f.Line > 0 {
					tc.Line = f.Line
					break
				}
			}
			suite.Failures++
		case CaseError:
			tc.Error = &junitResult{Message: xmlText(singleLine(c.Error))}
			suite.Errors++
		}
		suite.Tests++
		suite.Cases = append(suite.Cases, tc)
	}
	root := ruleTestSuites{Name: name, Tests: suite.Tests, Failures: suite.Failures, Errors: suite.Errors, Time: "0", Suites: []ruleTestSuite{suite}}
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

// RuleTestFormats are the formats `rules test` writes.
var RuleTestFormats = []string{FormatText, FormatJSON, FormatJUnit}

// WriteRuleTestOutputs renders t once per output, as WriteOutputs does for
// check (files replaced atomically, standard output last). The caller
// pauses workflow commands around standard output under GitHub Actions.
func WriteRuleTestOutputs(t *RuleTest, outs []Output, stdout io.Writer) error {
	for _, o := range outs {
		if !slices.Contains(RuleTestFormats, o.Format) {
			return fmt.Errorf("--format %s: rules test writes %s", o.Format, strings.Join(RuleTestFormats, ", "))
		}
	}
	return writeOutputs(outs, stdout, false, "", func(w io.Writer, o Output) error {
		format := o.Format
		var (
			b   []byte
			err error
		)
		switch format {
		// As in Render: the human formats get the pass that keeps transcript
		// text from reading as a workflow command in a CI log.
		case FormatText:
			b = inertLines(RuleTestText(t), false)
		case FormatJSON:
			b, err = RuleTestJSON(t)
		case FormatJUnit:
			b, err = RuleTestJUnit(t)
			b = inertLines(b, false)
		}
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	})
}
