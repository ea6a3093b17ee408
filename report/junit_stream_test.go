package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pmcheck/pmcheck/rules"
)

// junitTree is the JUnit renderer as it was before it was streamed and
// capped: the whole tree built, then encoded. TestJUnitStreamedIsTree
// compares the streamed renderer with it.
func junitTree(doc *Document, opts Options) ([]byte, error) {
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
					Body:    xmlText(junitBodyTree(doc, r, failing)),
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
				c.SystemOut = &junitCharBox{Body: xmlText(fmt.Sprintf("below fail level %s:\n%s", doc.Outcome.FailLevel, junitBodyTree(doc, r, below)))}
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

// junitBodyTree lists findings as "file:line: severity RULE: message" with their
// simulated time and evidence, then what to do.
func junitBodyTree(doc *Document, r Rule, fs []rules.Finding) string {
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
	if help := strings.TrimSpace(PlainHelp(visible(r.Help))); help != "" {
		fmt.Fprintf(&b, "What to do: %s", indent(help, "  "))
	}
	return b.String()
}

// The streamed JUnit writer writes what the tree renderer wrote, byte for
// byte, for every saved report golden and every report fixture, with and
// without file and line attributes, as long as no testcase lists more than
// junitMaxListed findings.
func TestJUnitStreamedIsTree(t *testing.T) {
	var docs []*Document
	for _, fx := range fixtures {
		docs = append(docs, fx.build(t))
	}
	for _, f := range savedReportGoldens(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := Decode(bytes.NewReader(data), f)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, doc)
	}
	docs = append(docs, &Document{Kind: Kind, SchemaVersion: SchemaVersion}, manyFindings(junitMaxListed))
	for i, doc := range docs {
		for _, opts := range []Options{{}, {JUnitNoFileLine: true}} {
			want, err := junitTree(doc, opts)
			if err != nil {
				t.Fatal(err)
			}
			got, err := JUnit(doc, opts)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("document %d (%v): streamed JUnit differs from the tree's:\n%s\nwant:\n%s", i, opts.JUnitNoFileLine, got, want)
			}
		}
	}
}

func savedReportGoldens(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("../golden/report/runs/*.json.golden")
	if err != nil {
		t.Fatal(err)
	}
	more, _ := filepath.Glob("../golden/report/*.json.golden")
	files = append(files, more...)
	if len(files) < 50 {
		t.Fatalf("found %d JSON report goldens, want the saved reports of every fixture", len(files))
	}
	return files
}

// manyFindingsMixed is manyFindings with every third finding a warning and
// every seventh suppressed, so failures, output below the fail level and
// suppressed findings all grow.
func manyFindingsMixed(n int) *Document {
	doc := manyFindings(n)
	doc.Outcome.FailLevel = FailLevelError
	for i := range doc.Findings {
		if i%3 == 1 {
			doc.Findings[i].Severity = rules.SeverityWarning
		}
		doc.Findings[i].Suppressed = i%7 == 0
	}
	return doc
}

// TestJUnitManyFindingsStaysBounded (issue 12): 200,000 findings of one
// rule in one run are one testcase; its failure and system-out list
// junitMaxListed findings each and count the rest, so the report is a few
// hundred KB instead of 70 MB, written in pieces, and its counts are right.
func TestJUnitManyFindingsStaysBounded(t *testing.T) {
	doc := manyFindingsMixed(200000)
	cw := &countingWriter{}
	var buf bytes.Buffer
	if err := renderValid(io.MultiWriter(cw, &buf), doc, FormatJUnit, Options{}); err != nil {
		t.Fatal(err)
	}
	if cw.n > 1<<20 {
		t.Errorf("JUnit report of 200,000 findings: %d bytes", cw.n)
	}
	if cw.biggest > 256<<10 {
		t.Errorf("largest single write %d bytes: the report is written in pieces", cw.biggest)
	}
	p := parseJUnit(t, buf.Bytes())
	if p.Tests != 1 || p.Failures != 1 || len(p.Suites) != 1 || len(p.Suites[0].Cases) != 1 {
		t.Fatalf("tests %d, failures %d, suites %+v", p.Tests, p.Failures, p.Suites)
	}
	c := p.Suites[0].Cases[0]
	if c.Failure == nil || c.SystemOut == nil {
		t.Fatalf("testcase %+v: want a failure and output below the fail level", c)
	}
	// 200,000 findings: 66,667 warnings (below the fail level), of the
	// rest 19,048 suppressed.
	errors, warnings := 0, 0
	for i := range 200000 {
		switch {
		case i%7 == 0:
		case i%3 == 1:
			warnings++
		default:
			errors++
		}
	}
	for _, part := range []struct {
		body string
		n    int
	}{{c.Failure.Body, errors}, {*c.SystemOut, warnings}} {
		if got := strings.Count(part.body, "(simulated)"); got != junitMaxListed {
			t.Errorf("%d findings listed, want %d", got, junitMaxListed)
		}
		if want := fmt.Sprintf("… and %d more findings of this rule in this run not listed (see the JSON report)", part.n-junitMaxListed); !strings.Contains(part.body, want) {
			t.Errorf("body does not count the rest (%q)", want)
		}
	}
}
