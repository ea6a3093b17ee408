package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/sebdah/goldie/v2"

	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/report"
	"github.com/pmcheck/pmcheck/rules"
)

func renderTestDoc(t *testing.T, runID string, line int) *report.Document {
	t.Helper()
	doc, err := report.New(report.Input{
		Tool: report.Tool{Name: "pmcheck", Version: "1.2.3"},
		Rules: []report.Rule{{ID: "PM001", Title: "Unreviewed killed subagent", Severity: "error",
			Description: "A killed subagent's work shipped unreviewed.", Help: "Review it."}},
		Runs: []report.RunSummary{{Kind: "session", ID: runID, Path: runID + ".jsonl"}},
		Findings: []rules.Finding{{RuleID: "PM001", Severity: "error", RunID: runID, RunKind: "session", Message: "killed",
			Evidence: []model.Evidence{{File: runID + ".jsonl", Line: line, Time: time.Date(2026, 5, 6, 9, 0, 0, 0, time.UTC)}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func saveDoc(t *testing.T, doc *report.Document) string {
	t.Helper()
	var buf bytes.Buffer
	if err := report.Render(&buf, doc, report.FormatJSON, report.Options{}); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(t.TempDir(), "saved.json")
	if err := os.WriteFile(name, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

func runCLI(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := Run(args, strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// pmcheck render on a saved report gives the bytes a direct rendering gives.
func TestRenderSavedMatchesDirect(t *testing.T) {
	doc := renderTestDoc(t, "s1", 7)
	saved := saveDoc(t, doc)
	for _, format := range report.Formats {
		var want bytes.Buffer
		if err := report.Render(&want, doc, format, report.Options{}); err != nil {
			t.Fatal(err)
		}
		code, out, errOut := runCLI("render", "--format", format, saved)
		if code != 0 || out != want.String() {
			t.Errorf("%s: exit %d, stderr %q; output differs from direct rendering", format, code, errOut)
		}
	}
}

func TestRenderMultiOutputAndMerge(t *testing.T) {
	a := saveDoc(t, renderTestDoc(t, "s1", 7))
	b := saveDoc(t, renderTestDoc(t, "s2", 9))
	dir := t.TempDir()
	sarif, junit := filepath.Join(dir, "out.sarif"), filepath.Join(dir, "out.xml")
	code, out, errOut := runCLI("render", "--format", "sarif="+sarif, "--format", "junit="+junit, "--format", "text", "--fail", a, b)
	if code != ExitFindings {
		t.Fatalf("exit %d (stderr %q), want 1 with --fail on a failed report", code, errOut)
	}
	if !strings.Contains(out, "s1.jsonl:7") || !strings.Contains(out, "s2.jsonl:9") || !strings.Contains(out, "in 2 runs") {
		t.Errorf("merged text lacks a shard:\n%s", out)
	}
	for _, f := range []string{sarif, junit} {
		data, err := os.ReadFile(f)
		if err != nil || !bytes.Contains(data, []byte("s2.jsonl")) {
			t.Errorf("%s: %v, or it lacks the second shard", f, err)
		}
	}
	// Without --fail, render is a converter and exits 0.
	if code, _, _ := runCLI("render", a); code != 0 {
		t.Errorf("render without --fail exited %d", code)
	}
}

func TestRenderErrors(t *testing.T) {
	dir := t.TempDir()
	notReport := filepath.Join(dir, "x.json")
	os.WriteFile(notReport, []byte(`{"hello": 1}`), 0o644)
	for _, c := range []struct {
		args  []string
		wants string
	}{
		{[]string{"render", filepath.Join(dir, "missing.json")}, "missing.json"},
		{[]string{"render", notReport}, "not a pmcheck report"},
		{[]string{"render", "--format", "pdf", notReport}, `unknown format "pdf"`},
		{[]string{"render", "-", "-"}, "given twice"},
	} {
		code, _, errOut := runCLI(c.args...)
		if code != ExitUsage || !strings.Contains(errOut, c.wants) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line containing %q", c.args, code, errOut, c.wants)
		}
	}
}

func TestRenderFromStdin(t *testing.T) {
	doc := renderTestDoc(t, "s1", 7)
	var saved bytes.Buffer
	report.Render(&saved, doc, report.FormatJSON, report.Options{})
	var stdout, stderr bytes.Buffer
	if code := Run([]string{"render", "--format", "json", "-"}, &saved, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var want bytes.Buffer
	report.Render(&want, doc, report.FormatJSON, report.Options{})
	if stdout.String() != want.String() {
		t.Errorf("render of standard input differs")
	}
}

var reportGoldenExt = map[string]string{
	report.FormatText: "txt", report.FormatJSON: "json", report.FormatSARIF: "sarif",
	report.FormatJUnit: "xml", report.FormatGitHub: "github.txt", report.FormatMarkdown: "md", report.FormatHTML: "html",
}

// TestFixtureReports runs check on every generated fixture, writing every
// format at once, and asserts (1) render of the saved JSON gives the bytes
// check wrote, for every format, and (2) each report matches its golden file
// in golden/report/runs (JSON and SARIF compared by value). A fixture that
// check refuses (exit 2) has its error message as golden instead.
// Regenerate with: go test ./cmd/pmcheck -run TestFixtureReports -update
func TestFixtureReports(t *testing.T) {
	t.Chdir("../..") // evidence paths as a user at the repository root sees them
	saved := Version
	Version = "0.0.0-golden" // goldens must not change with each release
	defer func() { Version = saved }()
	dirs, err := filepath.Glob("fixtures/runs/*")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no fixtures under fixtures/runs: %v", err)
	}
	exact := goldie.New(t, goldie.WithFixtureDir("golden/report/runs"), goldie.WithNameSuffix(".golden"))
	semantic := goldie.New(t, goldie.WithFixtureDir("golden/report/runs"), goldie.WithNameSuffix(".golden"),
		goldie.WithEqualFn(func(a, b []byte) bool {
			var x, y any
			return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
		}))
	checked := 0
	for _, dir := range dirs {
		name := filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			out := t.TempDir()
			args := []string{"check", "--fail-level", "none", "--verbose"}
			for _, f := range report.Formats {
				args = append(args, "--format", f+"="+filepath.Join(out, f))
			}
			code, _, errOut := runCLI(append(args, "--", dir)...)
			if code == ExitUsage {
				// A fixture check refuses by design (an input error) has its
				// one-line message as its only golden report.
				exact.Assert(t, name+".error", []byte(errOut))
				return
			}
			if code != ExitOK {
				t.Fatalf("check exited %d: %s", code, errOut)
			}
			checked++
			for _, f := range report.Formats {
				direct, err := os.ReadFile(filepath.Join(out, f))
				if err != nil {
					t.Fatal(err)
				}
				code, rendered, errOut := runCLI("render", "--verbose", "--format", f, filepath.Join(out, report.FormatJSON))
				if code != ExitOK || rendered != string(direct) {
					t.Errorf("%s: render of the saved JSON (exit %d, %s) differs from what check wrote", f, code, errOut)
				}
				golden := name + "." + reportGoldenExt[f]
				if f == report.FormatJSON || f == report.FormatSARIF {
					semantic.Assert(t, golden, direct)
				} else {
					exact.Assert(t, golden, direct)
				}
			}
		})
	}
	if checked == 0 {
		t.Fatalf("no fixture produced a report")
	}
	// A golden whose fixture is gone is stale: it would hide that nothing
	// tests it any more.
	goldens, _ := filepath.Glob("golden/report/runs/*.golden")
	for _, g := range goldens {
		fixture, _, _ := strings.Cut(filepath.Base(g), ".")
		if _, err := os.Stat(filepath.Join("fixtures/runs", fixture)); err != nil {
			t.Errorf("%s is stale: fixtures/runs/%s does not exist; delete it", g, fixture)
		}
	}
}

// TestCheckReportsIdenticalAcrossGOMAXPROCS runs check over every fixture
// that yields a report, at once, under GOMAXPROCS 1 and 8, twice each, and
// expects the same bytes in every format: loading may be parallel, reports
// may not depend on it.
func TestCheckReportsIdenticalAcrossGOMAXPROCS(t *testing.T) {
	t.Chdir("../..")
	dirs := reportFixtures(t, ".")
	if len(dirs) < 2 {
		t.Fatalf("only %d fixtures with reports", len(dirs))
	}
	renderAll := func(procs int) map[string]string {
		prev := runtime.GOMAXPROCS(procs)
		defer runtime.GOMAXPROCS(prev)
		out := t.TempDir()
		args := []string{"check", "--fail-level", "none"}
		for _, f := range report.Formats {
			args = append(args, "--format", f+"="+filepath.Join(out, f))
		}
		if code, _, errOut := runCLI(append(append(args, "--"), dirs...)...); code != ExitOK {
			t.Fatalf("GOMAXPROCS=%d: check exited %d: %s", procs, code, errOut)
		}
		got := map[string]string{}
		for _, f := range report.Formats {
			b, err := os.ReadFile(filepath.Join(out, f))
			if err != nil {
				t.Fatal(err)
			}
			got[f] = string(b)
		}
		return got
	}
	first := renderAll(1)
	for _, procs := range []int{8, 1, 8} {
		again := renderAll(procs)
		for _, f := range report.Formats {
			if again[f] != first[f] {
				t.Errorf("%s report differs under GOMAXPROCS=%d", f, procs)
			}
		}
	}
}

// reportFixtures lists, under the repository root at root, the fixture
// directories check writes a report for: those with a JSON report golden.
// Fixtures check refuses by design (an input that fails closed, with an
// .error golden) are left out, so tests over many fixtures at once can expect
// a completed check.
func reportFixtures(t *testing.T, root string) []string {
	t.Helper()
	goldens, _ := filepath.Glob(filepath.Join(root, "golden/report/runs/*.json.golden"))
	var dirs []string
	for _, g := range goldens {
		dir := filepath.Join(root, "fixtures/runs", strings.TrimSuffix(filepath.Base(g), ".json.golden"))
		if _, err := os.Stat(dir); err == nil {
			dirs = append(dirs, dir)
		}
	}
	if len(dirs) == 0 {
		t.Fatal("no fixture has a JSON report golden")
	}
	return dirs
}

// TestRenderHTMLLink: render --html-link links the summary's findings to the
// HTML report; an address that is not plain https is a usage error.
func TestRenderHTMLLink(t *testing.T) {
	saved := saveDoc(t, renderTestDoc(t, "s1", 7))
	code, out, errOut := runCLI("render", "--format", "markdown", "--html-link", "https://github.com/o/r/actions/runs/1/artifacts/2", saved)
	if code != ExitOK || !strings.Contains(out, "[HTML report](https://github.com/o/r/actions/runs/1/artifacts/2)") {
		t.Fatalf("exit %d (%s), summary:\n%s", code, errOut, out)
	}
	code, _, errOut = runCLI("render", "--format", "markdown", "--html-link", "javascript:alert(1)", saved)
	if code != ExitUsage || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "https://") {
		t.Errorf("a javascript: link: exit %d, %q", code, errOut)
	}
}

// TestRenderRefusesForgedReportFields (issue 29, item 9): a saved report
// whose closed-set fields hold anything else — a fact kind that carries
// markup (it became the HTML report's "On the timeline" link), a fact index
// past the run's facts, a run kind, a rule's selected kind — is refused
// before anything is rendered: exit 2, one line naming the finding or run.
// The HTML never holds the injected markup.
func TestRenderRefusesForgedReportFields(t *testing.T) {
	data, err := os.ReadFile("../../golden/report/mixed.json.golden")
	if err != nil {
		t.Fatal(err)
	}
	inject := `x"><meta http-equiv=refresh content="0;url=https://evil.example"><form action=https://evil.example>`
	for _, c := range []struct {
		name, wants string
		edit        func(d map[string]any)
	}{
		{"fact kind", "fact kind", func(d map[string]any) { finding(d, 0)["fact"].(map[string]any)["kind"] = "subagent" + inject }},
		{"fact index", "no subagent fact 7", func(d map[string]any) { finding(d, 0)["fact"].(map[string]any)["index"] = 7 }},
		{"negative fact index", "fact index -1", func(d map[string]any) { finding(d, 1)["fact"].(map[string]any)["index"] = -1 }},
		{"run kind of a finding", "run_kind", func(d map[string]any) { finding(d, 0)["run_kind"] = "session" + inject }},
		{"run kind", "kind", func(d map[string]any) { d["runs"].([]any)[0].(map[string]any)["kind"] = inject }},
		{"rule select", "selects", func(d map[string]any) {
			d["rules"].([]any)[0].(map[string]any)["select"] = []any{"subagent", inject}
		}},
	} {
		var d map[string]any
		if err := json.Unmarshal(data, &d); err != nil {
			t.Fatal(err)
		}
		c.edit(d)
		forged, _ := json.Marshal(d)
		name := filepath.Join(t.TempDir(), "forged.json")
		if err := os.WriteFile(name, forged, 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, errOut := runCLI("render", "--format", "html", name)
		if code != ExitUsage || !strings.Contains(errOut, c.wants) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 and one line containing %q", c.name, code, errOut, c.wants)
		}
		if strings.Contains(out, "<meta http-equiv=refresh") || strings.Contains(out, "<form") {
			t.Errorf("%s: the HTML holds the injected markup", c.name)
		}
	}
}

func finding(d map[string]any, i int) map[string]any {
	return d["findings"].([]any)[i].(map[string]any)
}
