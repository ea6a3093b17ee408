package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/sebdah/goldie/v2"

	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/rules"
)

func render(t testing.TB, doc *Document, format string, opts Options) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Render(&buf, doc, format, opts); err != nil {
		t.Fatalf("Render %s: %v", format, err)
	}
	return buf.Bytes()
}

// jsonEqual compares two JSON texts by value: for the JSON and SARIF goldens
// the layout is not the point (determinism is tested byte for byte below).
func jsonEqual(actual, expected []byte) bool {
	var a, e any
	if json.Unmarshal(actual, &a) != nil || json.Unmarshal(expected, &e) != nil {
		return false
	}
	return reflect.DeepEqual(a, e)
}

// TestGolden renders every fixture in every format against golden/report.
// Regenerate with: go test ./report -run TestGolden -update
func TestGolden(t *testing.T) {
	semantic := goldie.New(t, goldie.WithFixtureDir("../golden/report"), goldie.WithNameSuffix(".golden"),
		goldie.WithEqualFn(jsonEqual))
	exact := goldie.New(t, goldie.WithFixtureDir("../golden/report"), goldie.WithNameSuffix(".golden"))
	for _, fx := range fixtures {
		doc := fx.build(t)
		for _, format := range Formats {
			t.Run(fx.name+"/"+format, func(t *testing.T) {
				got := render(t, doc, format, Options{})
				name := fx.name + "." + goldenExt[format]
				if format == FormatText {
					// Verbose text adds the runs analyzed; its golden keeps
					// them (and their escaping) under review.
					exact.Assert(t, fx.name+".verbose."+goldenExt[format], render(t, doc, format, Options{Verbose: true}))
				}
				if format == FormatJSON || format == FormatSARIF {
					semantic.Assert(t, name, got)
				} else {
					exact.Assert(t, name, got)
				}
			})
		}
	}
}

// TestRenderFromSavedJSON proves the renderers read only the Document: a
// report saved as JSON and decoded again renders to the same bytes.
func TestRenderFromSavedJSON(t *testing.T) {
	for _, fx := range fixtures {
		doc := fx.build(t)
		saved := render(t, doc, FormatJSON, Options{})
		back, err := Decode(bytes.NewReader(saved), fx.name+".json")
		if err != nil {
			t.Fatalf("%s: Decode: %v", fx.name, err)
		}
		for _, format := range Formats {
			for _, opts := range []Options{{}, {JUnitNoFileLine: true, SARIFCategory: "pmcheck"}} {
				direct := render(t, doc, format, opts)
				again := render(t, back, format, opts)
				if !bytes.Equal(direct, again) {
					t.Errorf("%s/%s: rendering the saved JSON differs from the direct rendering", fx.name, format)
				}
			}
		}
	}
}

// TestByteIdenticalAcrossGOMAXPROCS renders everything under GOMAXPROCS 1 and
// 8, sequentially and from many goroutines at once, and expects one output.
func TestByteIdenticalAcrossGOMAXPROCS(t *testing.T) {
	renderAll := func() map[string][]byte {
		out := map[string][]byte{}
		var mu sync.Mutex
		var wg sync.WaitGroup
		for _, fx := range fixtures {
			for _, format := range Formats {
				wg.Go(func() {
					b := render(t, fx.build(t), format, Options{})
					mu.Lock()
					out[fx.name+"/"+format] = b
					mu.Unlock()
				})
			}
		}
		wg.Wait()
		return out
	}
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	one := renderAll()
	runtime.GOMAXPROCS(8)
	eight := renderAll()
	for k, b := range one {
		if !bytes.Equal(b, eight[k]) {
			t.Errorf("%s differs between GOMAXPROCS=1 and GOMAXPROCS=8", k)
		}
	}
	if len(one) != len(fixtures)*len(Formats) {
		t.Fatalf("rendered %d outputs, want %d", len(one), len(fixtures)*len(Formats))
	}
}

// TestInputOrderDoesNotMatter: New sorts, so shuffled inputs give the same
// bytes.
func TestInputOrderDoesNotMatter(t *testing.T) {
	doc := fixtureMixed(t)
	in := Input{Tool: doc.Tool, Root: doc.Root, Inputs: doc.Inputs, StaleBaseline: doc.StaleBaseline, Git: doc.Git, Review: doc.Review}
	for i := len(doc.Facts) - 1; i >= 0; i-- {
		in.Facts = append(in.Facts, doc.Facts[i])
	}
	for i := len(doc.Rules) - 1; i >= 0; i-- {
		in.Rules = append(in.Rules, doc.Rules[i])
	}
	for i := len(doc.Findings) - 1; i >= 0; i-- {
		in.Findings = append(in.Findings, doc.Findings[i])
	}
	for i := len(doc.Runs) - 1; i >= 0; i-- {
		in.Runs = append(in.Runs, doc.Runs[i])
	}
	rev := mustNew(t, in)
	for _, format := range Formats {
		if !bytes.Equal(render(t, doc, format, Options{}), render(t, rev, format, Options{})) {
			t.Errorf("%s: output depends on input order", format)
		}
	}
}

// TestEveryReportExplains: each report a person opens names the rule, what
// happened, the evidence as file:line with simulated time, and what to do.
func TestEveryReportExplains(t *testing.T) {
	doc := fixtureMixed(t)
	want := map[string][]string{
		FormatText:     {"PM001", "Unreviewed killed subagent", "refactor parser", "agent-runs/s1.jsonl:120", "2026-05-06T09:12:00Z", "Review what the killed subagent wrote", "agent-runs/s1/subagents/agent-b7.jsonl:88"},
		FormatJUnit:    {"PM001", "Unreviewed killed subagent", "refactor parser", "agent-runs/s1.jsonl:120", "2026-05-06T09:12:00Z", "Review what the killed subagent wrote"},
		FormatMarkdown: {"PM001", "Unreviewed killed subagent", "refactor parser", "agent-runs/s1.jsonl:120", "2026-05-06T09:12:00Z", "Review what the killed subagent wrote"},
		FormatGitHub:   {"PM001", "Unreviewed killed subagent", "refactor parser", "file=agent-runs/s1.jsonl,line=120", "2026-05-06T09:12:00Z", "Review what the killed subagent wrote"},
		FormatSARIF:    {"PM001", "Unreviewed killed subagent", "refactor parser", `"uri": "agent-runs/s1.jsonl"`, `"startLine": 120`, "2026-05-06T09:12:00Z", "Review what the killed subagent wrote"},
	}
	for format, needles := range want {
		out := string(render(t, doc, format, Options{}))
		for _, n := range needles {
			if !strings.Contains(out, n) {
				t.Errorf("%s report lacks %q", format, n)
			}
		}
	}
}

func TestTextIsInert(t *testing.T) {
	out := render(t, fixtureHostile(t), FormatText, Options{})
	if bytes.ContainsAny(out, "\x1b\x00\r") {
		t.Errorf("text report carries raw control characters:\n%q", out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "::") {
			t.Errorf("text report line could be read as a workflow command: %q", line)
		}
	}
	if !strings.Contains(string(out), `killed\x1b[31m red`) {
		t.Errorf("the escape character should be shown as \\x1b:\n%s", out)
	}
}

func TestNewRejectsBadInput(t *testing.T) {
	good := func() Input {
		return Input{Tool: testTool, Rules: testRules(), Runs: testRuns(), Findings: []rules.Finding{{
			RuleID: "PM001", Severity: "error", RunID: "s1", Message: "m", Evidence: []model.Evidence{{File: "s1.jsonl", Line: 1}},
		}}}
	}
	if _, err := New(good()); err != nil {
		t.Fatalf("good input rejected: %v", err)
	}
	cases := []struct {
		name  string
		edit  func(*Input)
		wants string
	}{
		{"unknown rule", func(in *Input) { in.Findings[0].RuleID = "PM999" }, "not among the evaluated rules"},
		{"bad finding severity", func(in *Input) { in.Findings[0].Severity = "critical" }, `severity "critical"`},
		{"bad rule severity", func(in *Input) { in.Rules[0].Severity = "high" }, `severity "high"`},
		{"windows evidence", func(in *Input) { in.Findings[0].Evidence[0].File = `C:\runs\s1.jsonl` }, "backslash"},
		{"no evidence", func(in *Input) { in.Findings[0].Evidence = nil }, "no evidence with a file"},
		{"negative line", func(in *Input) { in.Findings[0].Evidence[0].Line = -1 }, "1-based"},
		{"too many tags", func(in *Input) { in.Rules[0].Tags = make([]string, 21) }, "21 tags"},
		{"duplicate rule", func(in *Input) { in.Rules = append(in.Rules, in.Rules[0]) }, "listed twice"},
		{"rule without id", func(in *Input) { in.Rules[1].ID = "" }, "no id"},
		{"rule without title", func(in *Input) { in.Rules[1].Title = " " }, "no title"},
		{"bad fail level", func(in *Input) { in.FailLevel = "fatal" }, `fail level "fatal"`},
		{"absolute root", func(in *Input) { in.Root = "/work/runs" }, "is absolute"},
		{"no tool name", func(in *Input) { in.Tool.Name = "" }, "no tool name"},
	}
	for _, c := range cases {
		in := good()
		c.edit(&in)
		_, err := New(in)
		if err == nil || !strings.Contains(err.Error(), c.wants) {
			t.Errorf("%s: got error %v, want one containing %q", c.name, err, c.wants)
		}
	}
}

// TestAbsoluteEvidenceIsKept: evidence under an absolute root outside the
// working directory keeps its full path (the root stays relative); SARIF
// locates it with a file: URI and no %SRCROOT% base, the text names it.
func TestAbsoluteEvidenceIsKept(t *testing.T) {
	in := Input{Tool: testTool, Rules: testRules(), Runs: testRuns(), Findings: []rules.Finding{{
		RuleID: "PM001", Severity: "error", RunID: "s1", Message: "m", Evidence: []model.Evidence{{File: "s1.jsonl", Line: 1}},
	}}}
	in.Findings[0].Evidence[0].File = "/home/me/runs/s1.jsonl"
	in.Runs[0].Path = "/home/me/runs/s1.jsonl"
	doc, err := New(in)
	if err != nil {
		t.Fatal(err)
	}
	sarif := string(render(t, doc, FormatSARIF, Options{}))
	if !strings.Contains(sarif, `"uri": "file:///home/me/runs/s1.jsonl"`) {
		t.Errorf("SARIF lacks the file: URI:\n%s", sarif)
	}
	if text := string(render(t, doc, FormatText, Options{})); !strings.Contains(text, "/home/me/runs/s1.jsonl:") {
		t.Errorf("text lacks the full path:\n%s", text)
	}
}

func TestNewDoesNotModifyInput(t *testing.T) {
	rs := testRules()
	in := Input{Tool: testTool, Rules: rs}
	before := rs[0].ID
	mustNew(t, in)
	if rs[0].ID != before {
		t.Fatalf("New sorted the caller's slice")
	}
}

func TestOutcome(t *testing.T) {
	doc := fixtureMixed(t)
	o := doc.Outcome
	if !o.Failed || o.Errors != 2 || o.Warnings != 1 || o.Notes != 1 || o.Suppressed != 1 {
		t.Fatalf("outcome %+v, want failed with 2 errors, 1 warning, 1 note, 1 suppressed", o)
	}
	clean := fixtureClean(t)
	if clean.Outcome.Failed {
		t.Fatalf("a clean document failed")
	}
	// A warning fails at fail level warning, not at error; "none" never fails;
	// a suppressed error never fails.
	for _, c := range []struct {
		level, sev string
		suppressed bool
		failed     bool
	}{
		{"error", "warning", false, false},
		{"warning", "warning", false, true},
		{"note", "note", false, true},
		{"warning", "note", false, false},
		{"none", "error", false, false},
		{"error", "error", true, false},
	} {
		d := mustNew(t, Input{Tool: testTool, Rules: testRules(), FailLevel: c.level, Findings: []rules.Finding{{
			RuleID: "PM001", Severity: c.sev, Suppressed: c.suppressed, Evidence: []model.Evidence{{File: "a", Line: 1}},
		}}})
		if d.Outcome.Failed != c.failed {
			t.Errorf("fail level %s, %s finding (suppressed %v): failed=%v, want %v", c.level, c.sev, c.suppressed, d.Outcome.Failed, c.failed)
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	saved := string(render(t, fixtureMixed(t), FormatJSON, Options{}))
	cases := []struct {
		name, input, wants string
	}{
		{"not json", "hello", "line 1: invalid JSON"},
		{"foreign json", `{"runs": []}`, "not a pmcheck report"},
		{"newer schema", strings.Replace(saved, `"schema_version": 2`, `"schema_version": 3`, 1), "schema_version 3 is not supported (this pmcheck reads 1 to 2)"},
		{"no schema", strings.Replace(saved, `"schema_version": 2`, `"schema_version": 0`, 1), "schema_version 0 is not supported"},
		{"facts of a run twice", strings.Replace(saved, `"facts": [`, `"facts": [{"run": {"kind": "session", "id": "s1", "path": "s1.jsonl", "agents": 0, "attempts": 0, "verdict": "", "segments": 1, "malformed": 0, "shipped": false, "branch": "", "at": {"file": "s1.jsonl", "line": 1}}, "attempts": [], "subagents": [], "ships": [], "watchdogs": []},`, 1), "has facts twice"},
		{"unknown field", strings.Replace(saved, `"root": "agent-runs"`, `"root": "agent-runs", "extra": 1`, 1), `unknown field "extra"`},
		{"wrong type", strings.Replace(saved, `"files": 7`, `"files": "seven"`, 1), "line "},
		{"edited to break", strings.Replace(saved, `"rule_id": "PM002"`, `"rule_id": "PM404"`, 1), "not among the evaluated rules"},
		{"two values", saved + saved, "after top-level value"},
	}
	for _, c := range cases {
		_, err := Decode(strings.NewReader(c.input), "saved.json")
		if err == nil || !strings.Contains(err.Error(), c.wants) || !strings.HasPrefix(err.Error(), "saved.json: ") {
			t.Errorf("%s: got %v, want an error starting with saved.json: and containing %q", c.name, err, c.wants)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error is not one line: %q", c.name, err)
		}
	}
}

func TestMerge(t *testing.T) {
	full := fixtureMixed(t)
	shard := func(runID string, stale []BaselineEntry) *Document {
		in := Input{Tool: full.Tool, Root: full.Root, Rules: full.Rules, Inputs: Inputs{Files: 1}, StaleBaseline: stale}
		for _, f := range full.Findings {
			if f.RunID == runID {
				in.Findings = append(in.Findings, f)
			}
		}
		for _, r := range full.Runs {
			if r.ID == runID {
				in.Runs = append(in.Runs, r)
			}
		}
		return mustNew(t, in)
	}
	both := BaselineEntry{Fingerprint: "fp-gone-1", RuleID: "PM002", Note: "pushed by hand, reviewed in #12"}
	onlyA := BaselineEntry{Fingerprint: "fp-matches-in-b"}
	a := shard("s1", []BaselineEntry{both, onlyA})
	b := shard("wf-7f3a", []BaselineEntry{both})
	merged, err := Merge(a, b, a) // a repeated shard adds nothing
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(merged.Findings, full.Findings) || !reflect.DeepEqual(merged.Runs, full.Runs) {
		t.Errorf("merged findings/runs differ from the unsharded document")
	}
	if !reflect.DeepEqual(merged.StaleBaseline, []BaselineEntry{both}) {
		t.Errorf("stale baseline %+v, want only the entry stale in every shard", merged.StaleBaseline)
	}
	if merged.Outcome != full.Outcome {
		t.Errorf("outcome %+v, want %+v", merged.Outcome, full.Outcome)
	}
	if merged.Inputs.Files != 3 {
		t.Errorf("files %d, want 3", merged.Inputs.Files)
	}

	other := shard("s1", nil)
	other.Rules[0].Help = "different help"
	if _, err := Merge(a, other); err == nil || !strings.Contains(err.Error(), "defines rule PM001 differently") {
		t.Errorf("conflicting rules: got %v", err)
	}
	lvl := shard("s1", nil)
	lvl.Outcome.FailLevel = "warning"
	if _, err := Merge(a, lvl); err == nil || !strings.Contains(err.Error(), "--fail-level") {
		t.Errorf("different fail levels: got %v", err)
	}
	ver := shard("s1", nil)
	ver.Tool.Version = "9.9.9"
	if _, err := Merge(a, ver); err == nil || !strings.Contains(err.Error(), "one pmcheck version") {
		t.Errorf("different versions: got %v", err)
	}
	if _, err := Merge(); err == nil {
		t.Errorf("merging nothing should fail")
	}
}

func TestParseOutputs(t *testing.T) {
	outs, err := ParseOutputs([]string{"sarif=out.sarif", "junit=out.xml", "text"})
	if err != nil {
		t.Fatal(err)
	}
	want := []Output{{FormatSARIF, "out.sarif"}, {FormatJUnit, "out.xml"}, {FormatText, ""}}
	if !reflect.DeepEqual(outs, want) {
		t.Fatalf("got %+v, want %+v", outs, want)
	}
	if outs, _ := ParseOutputs(nil); !reflect.DeepEqual(outs, []Output{{Format: FormatText}}) {
		t.Errorf("no --format should mean text on standard output, got %+v", outs)
	}
	for spec, wants := range map[string]string{
		"xml=out.xml": `unknown format "xml"`,
		"sarif=":      "empty path",
		"":            "unknown format",
	} {
		if _, err := ParseOutputs([]string{spec}); err == nil || !strings.Contains(err.Error(), wants) {
			t.Errorf("%q: got %v, want %q", spec, err, wants)
		}
	}
	for _, specs := range [][]string{{"text", "github"}, {"json", "sarif=x.sarif", "text=-"}} {
		if _, err := ParseOutputs(specs); err == nil || !strings.Contains(err.Error(), "both write to standard output") {
			t.Errorf("%v: two formats on standard output: got %v", specs, err)
		}
	}
	if _, err := ParseOutputs([]string{"sarif=a/out", "json=a/../a/out"}); err == nil || !strings.Contains(err.Error(), "same file") {
		t.Errorf("two outputs to one file: got %v", err)
	}
}

func TestWriteOutputs(t *testing.T) {
	dir := t.TempDir()
	doc := fixtureMixed(t)
	sarifPath := filepath.Join(dir, "out.sarif")
	if err := os.WriteFile(sarifPath, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	outs := []Output{{FormatSARIF, sarifPath}, {FormatJUnit, filepath.Join(dir, "out.xml")}, {FormatText, ""}}
	var stdout bytes.Buffer
	if err := WriteOutputs(doc, outs, &stdout, Options{}); err != nil {
		t.Fatal(err)
	}
	for _, o := range outs[:2] {
		got, err := os.ReadFile(o.Path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, render(t, doc, o.Format, Options{})) {
			t.Errorf("%s: file content differs from Render", o.Path)
		}
	}
	if !bytes.Equal(stdout.Bytes(), render(t, doc, FormatText, Options{})) {
		t.Errorf("standard output differs from the text rendering")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("temporary files left behind: %v", entries)
	}

	// A missing directory fails with the path named, and nothing reaches
	// standard output after it.
	stdout.Reset()
	err := WriteOutputs(doc, []Output{{FormatSARIF, filepath.Join(dir, "missing", "x.sarif")}}, &stdout, Options{})
	if err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("missing directory: got %v", err)
	}

	// A document that fails validation writes nothing at all.
	bad := *doc
	bad.Findings = append([]rules.Finding{}, doc.Findings...)
	bad.Findings[0].RuleID = "nope"
	keep := filepath.Join(dir, "keep.sarif")
	if err := WriteOutputs(&bad, []Output{{FormatSARIF, keep}, {FormatText, ""}}, &stdout, Options{}); err == nil {
		t.Errorf("invalid document rendered")
	}
	if _, err := os.Stat(keep); !os.IsNotExist(err) || stdout.Len() != 0 {
		t.Errorf("a failed render still wrote output")
	}
}

func TestUnknownFormatFails(t *testing.T) {
	if err := Render(&bytes.Buffer{}, fixtureClean(t), "pdf", Options{}); err == nil || !strings.Contains(err.Error(), "unknown report format") {
		t.Fatalf("got %v", err)
	}
}

// TestDecodeVersion1 reads a report written before facts were recorded: it
// renders as it did, with no facts and findings that name none.
func TestDecodeVersion1(t *testing.T) {
	doc := fixtureMixed(t)
	var v1 map[string]any
	if err := json.Unmarshal(render(t, doc, FormatJSON, Options{}), &v1); err != nil {
		t.Fatal(err)
	}
	v1["schema_version"] = 1
	delete(v1, "facts")
	delete(v1, "review")
	for _, f := range v1["findings"].([]any) {
		delete(f.(map[string]any), "fact")
	}
	old, _ := json.Marshal(v1)
	got, err := Decode(bytes.NewReader(old), "v1.json")
	if err != nil {
		t.Fatalf("a version 1 report is refused: %v", err)
	}
	if len(got.Facts) != 0 || got.SchemaVersion != SchemaVersion {
		t.Fatalf("version 1 report read with %d facts, version %d", len(got.Facts), got.SchemaVersion)
	}
	// The text report does not show facts, so it is the same as the original's.
	if a, b := render(t, got, FormatText, Options{}), render(t, doc, FormatText, Options{}); !bytes.Equal(a, b) {
		t.Errorf("version 1 report renders differently:\n%s\nwant\n%s", a, b)
	}
	// The HTML page renders too, saying why it has no timelines.
	if page := string(render(t, got, FormatHTML, Options{})); !strings.Contains(page, "holds no facts (schema version 1)") || strings.Contains(page, `class="to-timeline"`) {
		t.Error("the HTML of a version 1 report does not say it has no timelines")
	}
}

// TestFactCaps: a run with more facts, list items or longer strings than
// the caps keeps a bounded report and says what it left out.
func TestFactCaps(t *testing.T) {
	var f model.Facts
	f.Run = model.RunFact{Kind: "session", ID: "big", Path: "big.jsonl"}
	long := strings.Repeat("é", MaxFactString) // 2 bytes a rune: cut mid-string
	for i := range MaxFactsPerKind + 7 {
		f.Watchdogs = append(f.Watchdogs, model.WatchdogFact{Kind: "QUIET", Message: long, At: model.Evidence{File: "big.jsonl", Line: i + 1}})
	}
	paths := make([]string, MaxFactListItems+3)
	for i := range paths {
		paths[i] = fmt.Sprintf("p%d", i)
	}
	f.Subagents = []model.SubagentFact{{Paths: paths}}
	rf := NewRunFacts(f)
	if len(rf.Watchdogs) != MaxFactsPerKind || len(rf.Subagents[0].Paths) != MaxFactListItems {
		t.Fatalf("caps not applied: %d watchdogs, %d paths", len(rf.Watchdogs), len(rf.Subagents[0].Paths))
	}
	want := Omitted{Watchdogs: 7, ListItems: 3, Strings: MaxFactsPerKind}
	if rf.Omitted == nil || *rf.Omitted != want {
		t.Fatalf("omitted %+v, want %+v", rf.Omitted, want)
	}
	if m := rf.Watchdogs[0].Message; len(m) > MaxFactString+len("…") || !utf8.ValidString(m) {
		t.Fatalf("capped string is %d bytes, valid UTF-8 %v", len(m), utf8.ValidString(m))
	}
	if len(f.Watchdogs) != MaxFactsPerKind+7 || len(f.Subagents[0].Paths) != MaxFactListItems+3 {
		t.Fatal("NewRunFacts modified its input")
	}
	doc := mustNew(t, Input{Tool: testTool, Rules: testRules(), Facts: []RunFacts{rf}})
	if _, err := doc.Fact(&rules.FactRef{Run: "big.jsonl", RunID: "big", Kind: "watchdog", Index: MaxFactsPerKind + 2}); err == nil || !strings.Contains(err.Error(), "size cap") {
		t.Errorf("a fact beyond the cap: %v", err)
	}
}

// TestHTMLKeepsTranscriptTextInert: hostile descriptions, commands, paths
// and branch names (script tags, attribute breakers, javascript: URLs, bidi
// controls, ANSI escapes) reach the page only as text.
func TestHTMLKeepsTranscriptTextInert(t *testing.T) {
	page := string(render(t, fixtureHostile(t), FormatHTML, Options{}))
	if n := strings.Count(page, "<script"); n != 1 {
		t.Errorf("%d script elements, want only the page's own", n)
	}
	for _, bad := range []string{"<img", "<svg onload", "\u202e", "\u2066", "\x1b", "<b>", "'\"<x>"} {
		if strings.Contains(page, bad) {
			t.Errorf("page contains %q unescaped", bad)
		}
	}
	if m := regexp.MustCompile(`<[a-z][^>]*\son[a-z]+=`).FindString(page); m != "" {
		t.Errorf("an element has an event-handler attribute: %q", m)
	}
	for _, m := range regexp.MustCompile(`(?:href|src|xlink:href)="([^"]*)"`).FindAllStringSubmatch(page, -1) {
		if !strings.HasPrefix(m[1], "#") {
			t.Errorf("link %q leaves the page", m[1])
		}
	}
	// The hostile text is there, as text.
	for _, want := range []string{"&lt;script&gt;alert(1)&lt;/script&gt;", "javascript:alert(3)", `\x1b[31m`} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks the escaped text %q", want)
		}
	}
	// Nothing can reach the network.
	if !strings.Contains(page, "default-src 'none'") || regexp.MustCompile(`(?i)(https?:)?//[a-z0-9.-]+\.[a-z]{2,}/`).MatchString(strings.ReplaceAll(page, "https://github.com/pmcheck/pmcheck", "")) {
		t.Errorf("the page may load something from the network")
	}
}

// TestFactsOfRunsSharingAPath: orphaned sessions in one folder share a path;
// path and id together pick a run's facts.
func TestFactsOfRunsSharingAPath(t *testing.T) {
	mk := func(id string) RunFacts {
		return NewRunFacts(model.Facts{Run: model.RunFact{Kind: "session", ID: id, Path: "proj", Agents: len(id)}})
	}
	doc := mustNew(t, Input{Tool: testTool, Rules: testRules(), Facts: []RunFacts{mk("bb"), mk("a")}})
	for _, id := range []string{"a", "bb"} {
		if rf := doc.FactsOf("proj", id); rf == nil || rf.Run.ID != id || rf.Run.Agents != len(id) {
			t.Errorf("FactsOf(proj, %s) = %+v", id, rf)
		}
	}
	if doc.FactsOf("proj", "c") != nil {
		t.Error("an unknown id matched")
	}
}

// TestMarkdownLinksFindingsToTheHTMLReport: with the HTML report's address,
// the job summary links every finding to its anchor, and each anchor is a
// finding's id in the HTML page; addresses that could break the link are
// refused.
func TestMarkdownLinksFindingsToTheHTMLReport(t *testing.T) {
	doc := fixtureMixed(t)
	const url = "https://github.com/o/r/actions/runs/1/artifacts/2"
	var md bytes.Buffer
	if err := Render(&md, doc, FormatMarkdown, Options{HTMLLink: url}); err != nil {
		t.Fatal(err)
	}
	page := string(render(t, doc, FormatHTML, Options{}))
	links := regexp.MustCompile(`\]\(`+regexp.QuoteMeta(url)+`#(f[0-9]+)\)`).FindAllStringSubmatch(md.String(), -1)
	if len(links) != len(doc.Findings) {
		t.Fatalf("%d finding links in the summary, %d findings", len(links), len(doc.Findings))
	}
	for _, l := range links {
		if !strings.Contains(page, `<article class="finding`) || !strings.Contains(page, `id="`+l[1]+`"`) {
			t.Errorf("summary links to #%s, which the HTML report does not have", l[1])
		}
	}
	if plain := string(render(t, doc, FormatMarkdown, Options{})); strings.Contains(plain, "HTML report") {
		t.Error("without a link the summary mentions the HTML report")
	}
	for _, bad := range []string{"http://x", "javascript:alert(1)", "https://x/a b", "https://x/a)(", "https://x/<b>", "https://x/\x1b"} {
		if err := Render(&bytes.Buffer{}, doc, FormatMarkdown, Options{HTMLLink: bad}); err == nil {
			t.Errorf("link %q accepted", bad)
		}
	}
}

// TestHTMLLargeRunStaysLegible: a six-hour run with 600 subagents draws the
// ones that matter (killed, failed, with a finding) in its main timeline and
// collapses the rest; the axis keeps about ten ticks and the page stays small.
func TestHTMLLargeRunStaysLegible(t *testing.T) {
	var f model.Facts
	f.Run = model.RunFact{Kind: "session", ID: "big", Path: "big.jsonl", Agents: 600, Segments: 1, Start: tm(0), End: tm(360)}
	for i := range 600 {
		s := model.SubagentFact{RunID: "big", ToolUseID: fmt.Sprintf("toolu_%03d", i), Description: fmt.Sprintf("task %03d", i), Mode: "async",
			Outcome: "completed", Time: tm(i * 360 / 600), End: tm(i*360/600 + 5), At: ev("big.jsonl", 10+i, i*360/600)}
		if i%50 == 7 {
			s.Outcome, s.Killed = "killed", true
		}
		f.Subagents = append(f.Subagents, s)
	}
	doc := mustNew(t, Input{Tool: testTool, Rules: testRules(), Facts: []RunFacts{NewRunFacts(f)}, Runs: []RunSummary{RunSummaryFromFact(f.Run)},
		Findings: []rules.Finding{{RuleID: "PM001", Severity: "error", RunID: "big", RunKind: "session", Message: "killed", Fingerprint: "fp",
			Evidence: []model.Evidence{ev("big.jsonl", 17, 0)}, Fact: &rules.FactRef{Run: "big.jsonl", RunID: "big", Kind: "subagent", Index: 7}}}})
	page := string(render(t, doc, FormatHTML, Options{}))
	svgs := strings.Split(page, "<svg class=\"timeline\"")[1:]
	if len(svgs) != 2 {
		t.Fatalf("%d timelines, want the main one and the collapsed one", len(svgs))
	}
	main, rest := strings.Count(svgs[0], `<g class="lane`), strings.Count(svgs[1], `<g class="lane`)
	if main != 1+12 || rest != htmlCollapsedLanes {
		t.Errorf("main timeline has %d lanes (want the run and its 12 killed subagents), collapsed block %d (want %d)", main, rest, htmlCollapsedLanes)
	}
	if !strings.Contains(page, `<details class="more-lanes"><summary>588 more lanes`) || !strings.Contains(page, "288 more lanes not drawn") {
		t.Error("the collapsed lanes are not counted")
	}
	if ticks := strings.Count(strings.SplitN(svgs[0], "</g>", 2)[0], "<line"); ticks < 4 || ticks > 11 {
		t.Errorf("%d axis ticks over six hours", ticks)
	}
	if !strings.Contains(svgs[0], `id="r0-subagent7"`) {
		t.Error("the lane a finding links to is not in the main timeline")
	}
	if len(page) > 1<<20 {
		t.Errorf("page is %d bytes", len(page))
	}
}
