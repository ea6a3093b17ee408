package report

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

// fixtureUnreadable is the mixed report with two inputs that could not be
// read: what check reports when a run's directory is missing.
func fixtureUnreadable(t testing.TB) *Document {
	doc := fixtureMixed(t)
	in := Input{Tool: doc.Tool, Root: doc.Root, Rules: doc.Rules, Findings: doc.Findings, Runs: doc.Runs, Facts: doc.Facts,
		Inputs: doc.Inputs, StaleBaseline: doc.StaleBaseline, FailLevel: doc.Outcome.FailLevel}
	in.Inputs.Unreadable = []Problem{
		{File: "s9.jsonl", Line: 4, Message: "agent-runs/s9.jsonl:4: the session launched Workflow run wf_gone, whose run directory agent-runs/s9/subagents/workflows/wf_gone/ is not in the input, so its agents cannot be checked; give the folder that holds it"},
		{File: "s8.jsonl", Message: "agent-runs/s8.jsonl: cannot be read (permission denied); fix its permissions or remove it from the input"},
	}
	return mustNew(t, in)
}

// TestEveryReportListsUnreadableInputs (issue 31, item 2): inputs that
// could not be read are first-class entries of every report: first in the
// text and the job summary, SARIF notifications of an unsuccessful run and
// results of the built-in input-problem rule, JUnit errored cases, a JSON
// list and an HTML section; the outcome fails at every fail level.
func TestEveryReportListsUnreadableInputs(t *testing.T) {
	doc := fixtureUnreadable(t)
	if !doc.Outcome.Failed || doc.Outcome.Unreadable != 2 {
		t.Fatalf("outcome %+v: unreadable inputs must fail the check", doc.Outcome)
	}
	text := string(render(t, doc, FormatText, Options{}))
	if !strings.HasPrefix(text, "error input-problem: 2 inputs could not be read") || !strings.Contains(text, "FAILED at fail level error: 2 unreadable inputs, ") {
		t.Errorf("text does not list the unreadable inputs first:\n%s", text)
	}
	md := string(render(t, doc, FormatMarkdown, Options{}))
	if i, j := strings.Index(md, "### Inputs that could not be read (2)"), strings.Index(md, "### Findings"); i < 0 || j < 0 || i > j {
		t.Errorf("the job summary does not list them before the findings:\n%s", md)
	}
	sarif := render(t, doc, FormatSARIF, Options{})
	if err := validateSARIFSchema(t, sarif); err != nil {
		t.Errorf("SARIF: %v", err)
	}
	if p := checkGitHubSARIF(sarif); len(p) > 0 {
		t.Errorf("SARIF for GitHub: %v", p)
	}
	var log struct {
		Runs []struct {
			Invocations []struct {
				ExecutionSuccessful bool              `json:"executionSuccessful"`
				Notifications       []json.RawMessage `json:"toolExecutionNotifications"`
			} `json:"invocations"`
			Results []struct {
				RuleID string `json:"ruleId"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(sarif, &log); err != nil {
		t.Fatal(err)
	}
	r := log.Runs[0]
	if len(r.Invocations) != 1 || r.Invocations[0].ExecutionSuccessful || len(r.Invocations[0].Notifications) != 2 {
		t.Errorf("SARIF invocations %+v: want one unsuccessful invocation with 2 notifications", r.Invocations)
	}
	n := 0
	for _, res := range r.Results {
		if res.RuleID == InputProblemRule {
			n++
		}
	}
	if n != 2 {
		t.Errorf("SARIF has %d input-problem results, want 2", n)
	}
	junit := render(t, doc, FormatJUnit, Options{})
	if msgs := checkJUnit(junit, true); len(msgs) > 0 {
		t.Errorf("JUnit: %v", msgs)
	}
	if s := string(junit); !strings.Contains(s, `errors="2"`) || strings.Count(s, "<error message=") != 2 {
		t.Errorf("JUnit has no errored case per unreadable input:\n%s", s)
	}
	js := render(t, doc, FormatJSON, Options{})
	back, err := Decode(strings.NewReader(string(js)), "r.json")
	if err != nil || len(back.Inputs.Unreadable) != 2 || back.Outcome.Unreadable != 2 {
		t.Errorf("JSON round trip lost them (%v): %+v", err, back.Inputs)
	}
	html := string(render(t, doc, FormatHTML, Options{}))
	if !strings.Contains(html, `<section id="unreadable"`) || !strings.Contains(html, "wf_gone") {
		t.Errorf("HTML has no section of unreadable inputs")
	}
	gh := string(render(t, doc, FormatGitHub, Options{}))
	if !strings.HasPrefix(gh, "::error file=agent-runs/s9.jsonl,line=4,") {
		t.Errorf("annotations do not start with the unreadable inputs:\n%s", gh)
	}
}

// TestHTMLIdsAreUniqueAndLegendMatches (issue 31, item 4): no element id
// is used twice (a run's section and its lane were both "r0"), and the
// legend lists exactly the marks and colours drawn.
func TestHTMLIdsAreUniqueAndLegendMatches(t *testing.T) {
	ids := regexp.MustCompile(` id="([^"]+)"`)
	for _, fx := range fixtures {
		page := string(render(t, fx.build(t), FormatHTML, Options{}))
		seen := map[string]bool{}
		for _, m := range ids.FindAllStringSubmatch(page, -1) {
			if seen[m[1]] {
				t.Errorf("%s: id %q is used twice", fx.name, m[1])
			}
			seen[m[1]] = true
		}
		if strings.Contains(page, `class="timeline"`) && !strings.Contains(page, `<ul class="legend">`) {
			t.Errorf("%s: timelines without a legend of what they draw", fx.name)
		}
		if strings.Count(page, `data-key="watchdog-`) > 0 && !strings.Contains(page, "m-watchdog") {
			t.Errorf("%s: a watchdog legend entry with no watchdog drawn", fx.name)
		}
	}
}

// TestUnplacedUnreadableInputIsOnlyANotification: an unreadable input with
// no file is a SARIF notification, not a result code scanning would refuse
// for its missing location.
func TestUnplacedUnreadableInputIsOnlyANotification(t *testing.T) {
	doc := fixtureMixed(t)
	in := Input{Tool: doc.Tool, Root: doc.Root, Rules: doc.Rules, Findings: doc.Findings, Runs: doc.Runs, Facts: doc.Facts, FailLevel: doc.Outcome.FailLevel}
	in.Inputs.Unreadable = []Problem{{Message: "an input could not be read"}}
	sarif := render(t, mustNew(t, in), FormatSARIF, Options{})
	if p := checkGitHubSARIF(sarif); len(p) > 0 {
		t.Errorf("SARIF for GitHub: %v", p)
	}
	if strings.Contains(string(sarif), `"ruleId": "input-problem"`) || !strings.Contains(string(sarif), "an input could not be read") {
		t.Errorf("want the notification only")
	}
}
