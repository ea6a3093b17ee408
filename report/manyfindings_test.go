package report

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/rules"
)

// TestManyFindingsEveryFormat (issue 12): a Document of 200,000 findings
// of one run, rendered in every format, stays bounded where a person reads
// it and is written in pieces where it is a document. Each format is its
// own subtest; sizes and counts are asserted, never time (bench/hostile.sh
// findings-200k measures time and memory on a real 140 MB transcript).
func TestManyFindingsEveryFormat(t *testing.T) {
	const n = 200000
	doc := manyFindingsMixed(n)
	render := func(t *testing.T, format string) ([]byte, *countingWriter, error) {
		cw := &countingWriter{}
		var buf bytes.Buffer
		err := renderValid(io.MultiWriter(cw, &buf), doc, format, Options{StopToken: "t"})
		return buf.Bytes(), cw, err
	}
	count := func(out []byte, re string) int { return len(regexp.MustCompile(re).FindAll(out, -1)) }
	t.Run("text", func(t *testing.T) {
		// Every finding, in pieces: a bounded size per finding.
		out, cw, err := render(t, FormatText)
		if err != nil {
			t.Fatal(err)
		}
		if got := bytes.Count(out, []byte("never returned a result")); got != n {
			t.Errorf("%d findings listed, want %d", got, n)
		}
		if cw.n > n*512 || cw.biggest > 1<<20 {
			t.Errorf("%d bytes (%d per finding), largest write %d", cw.n, cw.n/n, cw.biggest)
		}
	})
	t.Run("json", func(t *testing.T) {
		out, cw, err := render(t, FormatJSON)
		if err != nil {
			t.Fatal(err)
		}
		if got := bytes.Count(out, []byte(`"rule_id": "agent-never-returned"`)); got != n {
			t.Errorf("%d findings, want %d", got, n)
		}
		if cw.n > n*1024 || cw.biggest > 1<<20 {
			t.Errorf("%d bytes (%d per finding), largest write %d", cw.n, cw.n/n, cw.biggest)
		}
	})
	t.Run("junit", func(t *testing.T) {
		// One testcase; its bodies list junitMaxListed findings each
		// (TestJUnitManyFindingsStaysBounded checks the counts).
		_, cw, err := render(t, FormatJUnit)
		if err != nil {
			t.Fatal(err)
		}
		if cw.n > 1<<20 || cw.biggest > 256<<10 {
			t.Errorf("%d bytes, largest write %d", cw.n, cw.biggest)
		}
	})
	t.Run("sarif", func(t *testing.T) {
		// Code scanning takes at most sarifMaxResults results per run; the
		// renderer refuses before it builds anything.
		out, _, err := render(t, FormatSARIF)
		if err == nil || !strings.Contains(err.Error(), "at most 25000 results") || len(out) != 0 {
			t.Errorf("SARIF of %d findings: error %v, %d bytes written", n, err, len(out))
		}
	})
	t.Run("github", func(t *testing.T) {
		// The runner shows ten annotations of each kind per step; the rest
		// but the suppressed (every seventh: 28,572) are counted in one
		// notice.
		out, _, err := render(t, FormatGitHub)
		if err != nil {
			t.Fatal(err)
		}
		if e, w := count(out, `(?m)^::error `), count(out, `(?m)^::warning `); e != annotationMaxErrors || w != annotationMaxWarnings {
			t.Errorf("%d error and %d warning annotations", e, w)
		}
		if !bytes.Contains(out, []byte("171408 more findings not annotated (114275 errors, 57133 warnings, 0 notes)")) || len(out) > 64<<10 {
			t.Errorf("%d bytes; the notice must count the 171,408 findings not annotated:\n%s", len(out), out[max(0, len(out)-600):])
		}
	})
	t.Run("markdown", func(t *testing.T) {
		out, _, err := render(t, FormatMarkdown)
		if err != nil {
			t.Fatal(err)
		}
		if len(out) > markdownBudget {
			t.Errorf("job summary of %d bytes, budget %d", len(out), markdownBudget)
		}
	})
	t.Run("html", func(t *testing.T) {
		out, _, err := render(t, FormatHTML)
		if err != nil {
			t.Fatal(err)
		}
		if got := count(out, `<article class="finding `); got != htmlMaxFindings {
			t.Errorf("%d findings drawn, want %d", got, htmlMaxFindings)
		}
		if !bytes.Contains(out, []byte("… and 198000 more findings (see the JSON report)")) || len(out) > 4<<20 {
			t.Errorf("page of %d bytes; it must count the findings not drawn", len(out))
		}
	})
}

// BenchmarkRenderManyFindings shows each format's growth in findings
// (report it with -benchmem): text, JSON and JUnit grow with the findings
// they list (JUnit up to junitMaxListed per testcase), the others stay flat
// past their caps.
func BenchmarkRenderManyFindings(b *testing.B) {
	for _, n := range []int{10000, 40000} {
		doc := manyFindingsMixed(n)
		for _, format := range Formats {
			if format == FormatSARIF {
				continue // refused above sarifMaxResults
			}
			b.Run(fmt.Sprintf("%s/%d", format, n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if err := renderValid(&countingWriter{}, doc, format, Options{StopToken: "t"}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// TestFindingSaysHowManyMoreLocations (issue 29, item 12): a finding that
// lists rules.MaxEvidence locations and counts the rest says "and N more
// locations" in every format that lists evidence, and JSON keeps the count
// through a decode.
func TestFindingSaysHowManyMoreLocations(t *testing.T) {
	var evs []model.Evidence
	for i := range rules.MaxEvidence {
		evs = append(evs, at("s1.jsonl", i+1, i))
	}
	doc := mustNew(t, Input{
		Tool: testTool, Rules: testRules(),
		Runs: []RunSummary{{Kind: "session", ID: "s1", Path: "s1.jsonl"}},
		Findings: []rules.Finding{{RuleID: "PM001", Severity: "error", RunID: "s1", RunKind: "session", RunPath: "s1.jsonl",
			Message: "git push", Evidence: evs, EvidenceMore: 99980, Fingerprint: "fp"}},
	})
	for _, format := range []string{FormatText, FormatMarkdown, FormatHTML, FormatJUnit, FormatGitHub} {
		if out := render(t, doc, format, Options{}); !bytes.Contains(out, []byte("and 99980 more locations")) {
			t.Errorf("%s does not say how many more locations:\n%s", format, out)
		}
	}
	out := render(t, doc, FormatJSON, Options{})
	back, err := Decode(bytes.NewReader(out), "r.json")
	if err != nil {
		t.Fatal(err)
	}
	if back.Findings[0].EvidenceMore != 99980 || len(back.Findings[0].Evidence) != rules.MaxEvidence {
		t.Errorf("decoded: %d listed, %d more", len(back.Findings[0].Evidence), back.Findings[0].EvidenceMore)
	}
}
