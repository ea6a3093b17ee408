package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseFullConfig(t *testing.T) {
	src := `version: 1
paths: [.agent-runs]
rules:
  - +policy/extra-rules.yaml
disable: [agent-never-returned]
severity:
  killed-subagent-not-shipped-unreviewed: error
baseline: policy/baseline.json
fail-level: warning
allow-empty: false
publish-tools: ["mcp__*__publish"]
deploy-labels: [ship-it]
git:
  repo: .
  base: origin/main
  head: HEAD
outputs:
  - text
  - sarif=pmcheck.sarif
junit-no-file-line: true
`
	cfg, err := Parse("x.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(cfg.Paths, []string{".agent-runs"}) || !reflect.DeepEqual(cfg.Rules, []string{"+policy/extra-rules.yaml"}) ||
		!reflect.DeepEqual(cfg.Severity, []string{"killed-subagent-not-shipped-unreviewed=error"}) || cfg.Baseline != "policy/baseline.json" ||
		cfg.FailLevel != "warning" || cfg.AllowEmpty == nil || *cfg.AllowEmpty || cfg.Git.Base != "origin/main" ||
		!reflect.DeepEqual(cfg.Outputs, []string{"text", "sarif=pmcheck.sarif"}) || cfg.JUnitNoFileLine == nil || !*cfg.JUnitNoFileLine {
		t.Fatalf("parsed %+v", cfg)
	}
	if cfg, err := Parse("empty.yaml", nil); err != nil || cfg.Paths != nil {
		t.Fatalf("an empty config: %+v, %v", cfg, err)
	}
}

// TestEveryProblemWithItsPosition: all problems of the file in one error,
// each at file:line:col, in file order.
func TestEveryProblemWithItsPosition(t *testing.T) {
	src := `paths: .agent-runs
fail-level: fatal
severity:
  some-rule: critical
git:
  branch: main
outputs: [pdf=x.pdf]
allow-empty: "yes"
colour: blue
`
	_, err := Parse("cfg.yaml", []byte(src))
	var le *LoadError
	if !errors.As(err, &le) {
		t.Fatalf("error %v is not a LoadError", err)
	}
	want := []string{
		`cfg.yaml:2:13: fail-level "fatal" is not one of error, warning, note, none`,
		`cfg.yaml:4:14: severity of some-rule must be error, warning or note`,
		`cfg.yaml:6:3: unknown key "branch" under git; valid keys: base, checkpoints, commits, head, repo`,
		`cfg.yaml:7:11: outputs: "pdf=x.pdf" names no format; use FORMAT or FORMAT=FILE with FORMAT one of text, json, sarif, junit, github, markdown, html`,
		`cfg.yaml:8:14: allow-empty takes true or false`,
		`cfg.yaml:9:1: unknown key "colour"; valid keys: allow-empty, baseline, deploy-labels, disable, fail-level, git, junit-no-file-line, outputs, paths, publish-tools, rules, severity, version`,
	}
	var got []string
	for _, e := range le.Errs {
		got = append(got, e.Error())
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if strings.Contains(err.Error(), "\n") {
		t.Fatal("the error is not one line")
	}
}

func TestBadYAMLAndTypes(t *testing.T) {
	for src, want := range map[string]string{
		"paths: [a\n":          "c.yaml:",
		"- a\n- b\n":           "c.yaml:1:1: the config is a mapping",
		"version: 2\n":         "c.yaml:1:10: version must be 1",
		"paths:\n  - {a: b}\n": "c.yaml:2:5: paths takes a list of strings",
		"baseline: [a, b]\n":   "c.yaml:1:11: baseline takes a single value",
		"rules: a\nrules: b\n": `c.yaml:2:1: "rules" is set twice`,
		"a: 1\n---\nb: 2\n":    "a second YAML document",
		"\xff: 1\n":            "not valid UTF-8",
	} {
		_, err := Parse("c.yaml", []byte(src))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", src, err, want)
		}
	}
}

// TestFindWalksUpToTheRepositoryRoot: the nearest config at or above the
// folder, and none beyond the folder that holds .git.
func TestFindWalksUpToTheRepositoryRoot(t *testing.T) {
	top := t.TempDir()
	repo := filepath.Join(top, "repo")
	deep := filepath.Join(repo, "a", "b")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(top, FileName), []byte("paths: [x]\n"), 0o644)
	os.Mkdir(filepath.Join(repo, ".git"), 0o755)
	if got, err := Find(deep); err != nil || got != "" {
		t.Fatalf("found %q (%v) beyond the repository root", got, err)
	}
	os.WriteFile(filepath.Join(repo, FileName), []byte("paths: [x]\n"), 0o644)
	if got, _ := Find(deep); got != filepath.Join(repo, FileName) {
		t.Fatalf("Find = %q, want the repository's config", got)
	}
	os.WriteFile(filepath.Join(deep, FileName), []byte("paths: [y]\n"), 0o644)
	if got, _ := Find(deep); got != filepath.Join(deep, FileName) {
		t.Fatalf("Find = %q, want the nearest config", got)
	}
}

// TestOutputsTakeEveryFormat (issue 31, item 5): outputs takes every format
// --format takes, html included.
func TestOutputsTakeEveryFormat(t *testing.T) {
	src := "outputs: [text, json=r.json, sarif=r.sarif, junit=r.xml, github, markdown=r.md, html=r.html]\n"
	cfg, err := Parse("x.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Outputs) != 7 {
		t.Errorf("outputs %v, want all 7", cfg.Outputs)
	}
}

// TestEveryKeysProblemWordForWord: one wrong value per key (and per git
// key), each problem at its value, sorted by line and then column, with
// the messages users see.
func TestEveryKeysProblemWordForWord(t *testing.T) {
	src := `version: 2
paths: {a: b}
rules: ["", +x.yaml]
disable: [bad id!, ok-id, "x y"]
severity:
  "not an id!": error
  quiet-agent: fatal
  x: [1]
baseline: [a]
fail-level: panic
allow-empty: maybe
junit-no-file-line: 3
publish-tools: [[x]]
deploy-labels: [~]
outputs: [pdf, json=x]
git:
  repo: [x]
  base: {}
  head: ~
  commits: [a]
  checkpoints: [""]
  unknown: 1
paths: [again]
colour: red
`
	_, err := Parse("c.yaml", []byte(src))
	var le *LoadError
	if !errors.As(err, &le) {
		t.Fatalf("error %v is not a LoadError", err)
	}
	want := []string{
		`c.yaml:1:10: version must be 1 (this pmcheck reads config version 1)`,
		`c.yaml:2:8: paths takes a list of strings; this item is a mapping`,
		`c.yaml:3:9: rules: "" is empty`,
		`c.yaml:4:11: disable: "bad id!" is not a rule id`,
		`c.yaml:4:27: disable: "x y" is not a rule id`,
		`c.yaml:6:3: severity: "not an id!" is not a rule id`,
		`c.yaml:7:16: severity of quiet-agent must be error, warning or note`,
		`c.yaml:8:6: severity of x must be error, warning or note`,
		`c.yaml:9:11: baseline takes a single value, not a list`,
		`c.yaml:10:13: fail-level "panic" is not one of error, warning, note, none`,
		`c.yaml:11:14: allow-empty takes true or false`,
		`c.yaml:12:21: junit-no-file-line takes true or false`,
		`c.yaml:13:17: publish-tools takes a list of strings; this item is a list`,
		`c.yaml:14:17: deploy-labels takes a list of strings; this item is a single value`,
		`c.yaml:15:11: outputs: "pdf" names no format; use FORMAT or FORMAT=FILE with FORMAT one of text, json, sarif, junit, github, markdown, html`,
		`c.yaml:17:9: git.repo takes a single value, not a list`,
		`c.yaml:18:9: git.base takes a single value, not a mapping`,
		`c.yaml:19:9: git.head takes a single value, not a single value`,
		`c.yaml:20:12: git.commits takes a single value, not a list`,
		`c.yaml:21:17: git.checkpoints: "" is empty`,
		`c.yaml:22:3: unknown key "unknown" under git; valid keys: base, checkpoints, commits, head, repo`,
		`c.yaml:23:1: "paths" is set twice; keep one`,
		`c.yaml:24:1: unknown key "colour"; valid keys: allow-empty, baseline, deploy-labels, disable, fail-level, git, junit-no-file-line, outputs, paths, publish-tools, rules, severity, version`,
	}
	var got []string
	for _, e := range le.Errs {
		got = append(got, e.Error())
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestEveryKeyIsRead: each key lands in its field, a single string counts
// as a list of one, and a file of comments or null sets nothing.
func TestEveryKeyIsRead(t *testing.T) {
	src := `version: 1
paths: one
rules: [a.yaml, +b.yaml]
disable: [r1, r2]
severity: {r1: note, r2: warning}
baseline: base.json
fail-level: none
allow-empty: true
junit-no-file-line: false
publish-tools: ["mcp__*__publish"]
deploy-labels: [deploy, ship-it]
outputs: [json=r.json]
git:
  repo: ..
  base: b
  head: h
  commits: b..h
  checkpoints: [cp1, cp2]
`
	cfg, err := Parse("x.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	yes, no := true, false
	want := &Config{File: "x.yaml", Paths: []string{"one"}, Rules: []string{"a.yaml", "+b.yaml"}, Disable: []string{"r1", "r2"},
		Severity: []string{"r1=note", "r2=warning"}, Baseline: "base.json", FailLevel: "none", AllowEmpty: &yes, JUnitNoFileLine: &no,
		PublishTools: []string{"mcp__*__publish"}, DeployLabels: []string{"deploy", "ship-it"}, Outputs: []string{"json=r.json"}}
	want.Git.Repo, want.Git.Base, want.Git.Head, want.Git.Commits, want.Git.Checkpoints = "..", "b", "h", "b..h", []string{"cp1", "cp2"}
	if !reflect.DeepEqual(cfg, want) {
		t.Fatalf("parsed\n%+v\nwant\n%+v", cfg, want)
	}
	for _, src := range []string{"# only a comment\n", "~\n", "null\n"} {
		if cfg, err := Parse("x.yaml", []byte(src)); err != nil || !reflect.DeepEqual(cfg, &Config{File: "x.yaml"}) {
			t.Errorf("%q: %+v, %v; want a config that sets nothing", src, cfg, err)
		}
	}
}

// TestNullConfigIgnoresASecondDocument pins today's behaviour: a first
// document that is null sets nothing, and a second document after it is not
// reported (unlike after a mapping, TestBadYAMLAndTypes).
func TestNullConfigIgnoresASecondDocument(t *testing.T) {
	if cfg, err := Parse("x.yaml", []byte("~\n---\nx: 1\n")); err != nil || !reflect.DeepEqual(cfg, &Config{File: "x.yaml"}) {
		t.Fatalf("%+v, %v", cfg, err)
	}
}
