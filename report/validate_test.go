package report

import (
	"strings"
	"testing"

	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/rules"
)

// TestValidateNamesEveryBrokenInvariant: each invariant a renderer relies
// on, broken alone in an otherwise valid report, gives its own error, word
// for word (a saved report that was edited is refused with it).
func TestValidateNamesEveryBrokenInvariant(t *testing.T) {
	if err := fixtureMixed(t).Validate(); err != nil {
		t.Fatalf("the valid report: %v", err)
	}
	tooManyTags := make([]string, MaxTagsPerRule+1)
	for i := range tooManyTags {
		tooManyTags[i] = "t"
	}
	cases := []struct {
		name  string
		spoil func(d *Document)
		want  string
	}{
		{"kind", func(d *Document) { d.Kind = "other" }, `not a pmcheck report: kind is "other", want "pmcheck-report"`},
		{"schema", func(d *Document) { d.SchemaVersion = 9 }, `report schema_version 9 is not supported (this pmcheck reads 2): render it with the pmcheck version that wrote it`},
		{"tool", func(d *Document) { d.Tool.Name = "" }, `report has no tool name: set tool.name`},
		{"root", func(d *Document) { d.Root = "/abs" }, `root "/abs" is absolute: reports carry paths relative to the root`},
		{"fail level", func(d *Document) { d.Outcome.FailLevel = "fatal" }, `fail level "fatal" is not one of error, warning, note, none`},
		{"rule id", func(d *Document) { d.Rules[0].ID = "" }, `a rule has no id (title "Unreviewed killed subagent on a shipped branch"): every rule needs an id`},
		{"rule twice", func(d *Document) { d.Rules[1].ID = d.Rules[0].ID }, `rule PM001 is listed twice: rule ids must be unique`},
		{"rule severity", func(d *Document) { d.Rules[0].Severity = "fatal" }, `rule PM001 has severity "fatal": use error, warning or note`},
		{"rule title", func(d *Document) { d.Rules[0].Title = " " }, `rule PM001 has no title: every rule needs a title`},
		{"rule select", func(d *Document) { d.Rules[0].Select = []string{"run", "bogus"} }, `rule PM001 selects ["run" "bogus"]: a rule selects run, attempt, subagent, ship, watchdog or commit facts`},
		{"rule tags", func(d *Document) { d.Rules[0].Tags = tooManyTags }, `rule PM001 has 21 tags: GitHub code scanning accepts at most 20`},
		{"finding rule", func(d *Document) { d.Findings[0].RuleID = "PM404" }, `finding 1 (rule PM404, run s1): rule "PM404" is not among the evaluated rules: add it to the document's rules`},
		{"finding severity", func(d *Document) { d.Findings[0].Severity = "fatal" }, `finding 1 (rule PM001, run s1): severity "fatal": use error, warning or note`},
		{"finding evidence", func(d *Document) { d.Findings[0].Evidence = []model.Evidence{{Line: 3}} }, `finding 1 (rule PM001, run s1) has no evidence with a file: every finding must point at the row that proves it`},
		{"finding run kind", func(d *Document) { d.Findings[0].RunKind = "bogus" }, `finding 1 (rule PM001, run s1): run_kind "bogus": a run is a session or a workflow (or a commit range)`},
		{"finding evidence_more", func(d *Document) { d.Findings[0].EvidenceMore = -1 }, `finding 1 (rule PM001, run s1): evidence_more is -1: it counts locations not listed, so it is 0 or more`},
		{"finding evidence path", func(d *Document) {
			d.Findings[0].Evidence = append(d.Findings[0].Evidence, model.Evidence{Line: 2}, model.Evidence{File: `a\b`, Line: 1})
		}, `finding 1 (rule PM001, run s1) evidence "a\\b" contains a backslash: use slash-separated paths`},
		{"finding evidence line", func(d *Document) {
			d.Findings[0].Evidence = append(d.Findings[0].Evidence, model.Evidence{Line: 2}, model.Evidence{File: "x.jsonl", Line: -1})
		}, `finding 1 (rule PM001, run s1): evidence x.jsonl has line -1: lines are 1-based (0 means the whole file)`},
		{"run kind", func(d *Document) { d.Runs[0].Kind = "bogus" }, `run s1 has kind "bogus": a run is a session or a workflow`},
		{"run path", func(d *Document) { d.Runs[0].Path = `wf\7f3a` }, `run s1 path "wf\\7f3a" contains a backslash: use slash-separated paths`},
		{"facts kind", func(d *Document) { d.Facts[0].Run.Kind = "bogus" }, `the facts of run s1 have kind "bogus": a run is a session or a workflow`},
		{"facts twice", func(d *Document) { d.Facts = append(d.Facts[:1], d.Facts...) }, `run s1.jsonl (s1) has facts twice: a report holds one set of facts per run`},
		{"fact of no run", func(d *Document) {
			d.Findings[0].Fact = &rules.FactRef{Run: "gone.jsonl", RunID: "gone", Kind: "subagent"}
		}, `finding 1 (rule PM001) points at run "gone.jsonl", which has no facts in the report`},
		{"fact out of range", func(d *Document) { d.Findings[0].Fact.Index = 99 }, `finding 1 (rule PM001): `},
	}
	for _, c := range cases {
		d := fixtureMixed(t)
		c.spoil(d)
		err := d.Validate()
		switch {
		case err == nil:
			t.Errorf("%s: no error, want %q", c.name, c.want)
		case strings.HasSuffix(c.want, ": ") && !(strings.HasPrefix(err.Error(), c.want) && strings.HasSuffix(err.Error(), ": the report was edited or is damaged")):
			t.Errorf("%s: %q, want %q… the report was edited or is damaged", c.name, err, c.want)
		case !strings.HasSuffix(c.want, ": ") && err.Error() != c.want:
			t.Errorf("%s:\n got %q\nwant %q", c.name, err, c.want)
		}
	}
}
