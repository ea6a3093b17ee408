package rules

import (
	"reflect"
	"strings"
	"testing"
)

const settingsFile = `version: 1
review:
  trailers: [Reviewed-Killed-Agent, Reviewed-By-Human]
  files: ["reviews/{agent}.md"]
  reviewer_keywords: []
ship:
  publish_tools: ["mcp__*__publish*"]
  deploy_labels: [deploy, ship-it]
`

func TestSettingsLoad(t *testing.T) {
	p, err := Parse("s.yaml", []byte(settingsFile))
	if err != nil {
		t.Fatal(err)
	}
	want := Settings{
		ReviewTrailers: []string{"Reviewed-Killed-Agent", "Reviewed-By-Human"}, ReviewFiles: []string{"reviews/{agent}.md"},
		ReviewerKeywords: []string{}, PublishTools: []string{"mcp__*__publish*"}, DeployLabels: []string{"deploy", "ship-it"},
	}
	if !reflect.DeepEqual(p.Settings, want) || len(p.Rules) != 0 {
		t.Errorf("got %#v with %d rules", p.Settings, len(p.Rules))
	}
	if p.Settings.ReviewerKeywords == nil {
		t.Error("an empty list must stay non-nil: it switches the source off")
	}
	d, _ := Defaults()
	if d.Settings.ReviewTrailers != nil || d.Settings.PublishTools != nil {
		t.Error("the defaults must leave every setting nil (the detectors' defaults)")
	}
}

func TestSettingsErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"version: 1\nreview: {}\n", `s.yaml:1:1: missing key "rules"; add a list of rules`},
		{"version: 1\nreview: [a]\n", `s.yaml:2:9: "review" must be a mapping, got a list`},
		{"version: 1\nreview:\n  trailer: [a]\n", `s.yaml:3:3: unknown key "trailer" in "review"; did you mean "trailers"? expected one of "agent_authors", "files", "reviewer_keywords", "trailers"`},
		{"version: 1\nship:\n  labels: [a]\n", `s.yaml:3:3: unknown key "labels" in "ship"; expected one of "deploy_labels", "publish_tools"`},
		{"version: 1\nreview:\n  trailers: Reviewed-Killed-Agent\n", `s.yaml:3:13: "review.trailers" must be a list of strings, got a string`},
		{"version: 1\nreview:\n  trailers: [\"\"]\n", `s.yaml:3:14: review.trailers: empty value; remove it`},
		{"version: 1\nreview:\n  files: [\" \"]\n", `s.yaml:3:11: review.files: empty value; remove it`},
		{"version: 1\nreview:\n  files: [\"reviews/[x.md\"]\n", `s.yaml:3:11: review.files: "reviews/[x.md" is not a valid path pattern (syntax error in pattern)`},
		{"version: 1\nship:\n  publish_tools: [3]\n", `s.yaml:3:19: "ship.publish_tools item" must be a string, got an integer; quote the value to make it a string`},
	} {
		_, err := Parse("s.yaml", []byte(tc.src))
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q\n got %v\nwant %s", tc.src, err, tc.want)
		}
	}
}

func TestSettingsMerge(t *testing.T) {
	dir := t.TempDir()
	a := writeFile(t, dir, "a.yaml", settingsFile)
	b := writeFile(t, dir, "b.yaml", "version: 1\nship:\n  deploy_labels: [go]\n")
	p, err := Build(Options{Files: []string{"+" + a}})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Rules) != 10 || p.Settings.DeployLabels[1] != "ship-it" {
		t.Errorf("extending the defaults with a settings file: %d rules, %v", len(p.Rules), p.Settings)
	}
	_, err = Build(Options{Files: []string{"+" + a, "+" + b}})
	want := b + `:3:18: ship.deploy_labels is already set at ` + a + `:8:18; set it in one rule file only`
	if err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
	_, err = Build(Options{Files: []string{a}})
	if err == nil || !strings.HasPrefix(err.Error(), "no rule is left to evaluate") {
		t.Errorf("a settings-only file replacing the defaults must be an error, got %v", err)
	}
}
