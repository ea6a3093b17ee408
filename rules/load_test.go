package rules

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// validRule is a minimal rule that loads; cases below break one thing at a time.
const validRule = `version: 1
rules:
  - id: r1
    title: T
    severity: error
    select: subagent
    where: killed
    message: m {{ description }}
`

// loadErrorCases covers every error path of the loader. want is the first
// error, exactly, with its position; n is how many errors the file has.
var loadErrorCases = []struct {
	name string
	src  string
	want string
	n    int
}{
	{"invalid utf8", "version: 1\nrules: [\xff]\n", "t.yaml:1:1: the file is not valid UTF-8; save it as UTF-8", 1},
	{"empty file", "", `t.yaml:1:1: the file is empty; a rule file starts with "version: 1" and a "rules" list`, 1},
	{"comments only", "# nothing\n", `t.yaml:1:1: the file is empty; a rule file starts with "version: 1" and a "rules" list`, 1},
	{"yaml syntax", "version: 1\nrules:\n  - id: [\n", "t.yaml:3:1: invalid YAML: did not find expected node content", 1},
	{"yaml tab indent", "version: 1\n\trules: []\n", "t.yaml:2:1: invalid YAML: found a tab character that violates indentation", 1},
	{"second document", validRule + "---\nversion: 1\n", "t.yaml:9:1: a second YAML document starts here; a rule file holds one document, so remove the \"---\" separator", 1},
	{"second document is broken", validRule + "---\n[\n", "t.yaml:10:1: invalid YAML: did not find expected node content", 1},
	{"version has a custom tag", "version: !v 1\nrules: []\n", `t.yaml:1:10: "version" must be an integer, got a value tagged "!v"; write "version: 1"`, 2}, // and the empty rules list
	{"title is a timestamp", strings.Replace(validRule, "title: T", "title: 2026-05-06", 1), `t.yaml:4:12: "title" must be a string, got a timestamp; quote the value to make it a string`, 1},
	{"title is binary", strings.Replace(validRule, "title: T", "title: !!binary aGVsbG8=", 1), `t.yaml:4:12: "title" must be a string, got binary data; quote the value to make it a string`, 1},
	{"root is a list", "- a\n- b\n", "t.yaml:1:1: the rule file must be a mapping, got a list", 1},
	{"root is a scalar", "hello\n", "t.yaml:1:1: the rule file must be a mapping, got a string", 1},
	{"non-string key", "version: 1\n1: x\nrules: []\n", "t.yaml:2:1: a key of the rule file must be a string, got an integer; expected one of \"review\", \"rules\", \"ship\", \"version\"", 2},
	{"unknown top key", validRule + "colour: red\n", "t.yaml:9:1: unknown key \"colour\" in the rule file; expected one of \"review\", \"rules\", \"ship\", \"version\"", 1},
	{"duplicate top key", "version: 1\nversion: 1\nrules: []\n", "t.yaml:2:1: duplicate key \"version\" in the rule file; the first is at line 1, column 1", 2},
	{"missing version", "rules: []\n", "t.yaml:1:1: missing key \"version\"; a rule file starts with \"version: 1\"", 2},                         // and the empty rules list
	{"version is a string", "version: \"1\"\nrules: []\n", "t.yaml:1:10: \"version\" must be an integer, got a string; write \"version: 1\"", 2}, // and the empty rules list
	{"version is a list", "version: [1]\nrules: []\n", "t.yaml:1:10: \"version\" must be an integer, got a list; write \"version: 1\"", 2},       // and the empty rules list
	{"unsupported version", "version: 2\nrules: []\n", "t.yaml:1:10: unsupported rule file version 2; this pmcheck reads version 1", 2},          // and the empty rules list
	{"missing rules", "version: 1\n", "t.yaml:1:1: missing key \"rules\"; add a list of rules", 1},
	{"rules is a mapping", "version: 1\nrules:\n  id: x\n", "t.yaml:3:3: \"rules\" must be a list of rules, got a mapping", 1},
	{"rules is empty", "version: 1\nrules: []\n", "t.yaml:2:8: \"rules\" is empty; a rule file defines at least one rule", 1},
	{"rule is a string", "version: 1\nrules:\n  - just-an-id\n", "t.yaml:3:5: a rule must be a mapping, got a string", 1},
	{"rule is an alias", "version: 1\nx: &a {id: r}\nrules:\n  - *a\n", "t.yaml:2:1: unknown key \"x\" in the rule file; expected one of \"review\", \"rules\", \"ship\", \"version\"", 2},
	{"unknown rule key", strings.Replace(validRule, "where:", "wher:", 1), "t.yaml:3:5: rule \"r1\" is missing required key \"where\"", 2},
	{"unknown rule key with a suggestion", validRule + "    titel: x\n", `t.yaml:9:5: unknown key "titel" in a rule; did you mean "title"? expected one of "aliases", "description", "help", "id", "message", "select", "severity", "tags", "title", "where"`, 1},
	{"unknown rule key without a suggestion", validRule + "    colour: red\n", `t.yaml:9:5: unknown key "colour" in a rule; expected one of "aliases", "description", "help", "id", "message", "select", "severity", "tags", "title", "where"`, 1},
	{"missing several keys", "version: 1\nrules:\n  - id: r1\n    tags: [a]\n", `t.yaml:3:5: rule "r1" is missing required keys "title", "severity", "select", "where", "message"`, 1},
	{"duplicate rule key", strings.Replace(validRule, "    title: T\n", "    title: T\n    title: U\n", 1), "t.yaml:5:5: duplicate key \"title\" in a rule; the first is at line 4, column 5", 1},
	{"missing key with id", strings.Replace(validRule, "    where: killed\n", "", 1), "t.yaml:3:5: rule \"r1\" is missing required key \"where\"", 1},
	{"missing key without id", strings.Replace(validRule, "  - id: r1\n    title", "  - title", 1), "t.yaml:3:5: a rule is missing required key \"id\"", 1},
	{"id is an integer", strings.Replace(validRule, "id: r1", "id: 5", 1), "t.yaml:3:9: \"id\" must be a string, got an integer; quote the value to make it a string", 1},
	{"id is null", strings.Replace(validRule, "id: r1", "id:", 1), "t.yaml:3:8: \"id\" must be a string, got null", 1},
	{"id too long", strings.Replace(validRule, "id: r1", "id: "+strings.Repeat("a", 65), 1), "t.yaml:3:9: rule id \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\" is longer than 64 characters", 1},
	{"id with spaces", strings.Replace(validRule, "id: r1", "id: my rule", 1), "t.yaml:3:9: rule id \"my rule\" is not valid; use letters and digits separated by single '-', '_' or '.', starting with a letter (e.g. \"my-rule\")", 1},
	{"id with double dash", strings.Replace(validRule, "id: r1", "id: my--rule", 1), "t.yaml:3:9: rule id \"my--rule\" is not valid; use letters and digits separated by single '-', '_' or '.', starting with a letter (e.g. \"my-rule\")", 1},
	{"title empty", strings.Replace(validRule, "title: T", "title: \"  \"", 1), "t.yaml:4:12: \"title\" is empty; give the rule a one-line title", 1},
	{"title two lines", strings.Replace(validRule, "title: T", "title: \"a\\nb\"", 1), "t.yaml:4:12: \"title\" must be one line", 1},
	{"unknown anchor", strings.Replace(validRule, "title: T", "title: *t", 1), "t.yaml:1:1: invalid YAML: unknown anchor 't' referenced", 1},
	{"value is an alias", strings.Replace(validRule, "title: T", "title: &t T\n    description: *t", 1), "t.yaml:5:18: aliases are not supported in rule files; write the value out", 1},
	{"severity unknown", strings.Replace(validRule, "severity: error", "severity: critical", 1), "t.yaml:5:15: unknown severity \"critical\"; expected one of \"error\", \"note\", \"warning\"", 1},
	{"severity is a list", strings.Replace(validRule, "severity: error", "severity: [error]", 1), "t.yaml:5:15: \"severity\" must be a string, got a list", 1},
	{"description is a mapping", validRule + "    description: {a: b}\n", "t.yaml:9:18: \"description\" must be a string, got a mapping", 1},
	{"help is a number", validRule + "    help: 1.5\n", "t.yaml:9:11: \"help\" must be a string, got a number; quote the value to make it a string", 1},
	{"alias is not a rule id", validRule + "    aliases: [old-id, \"not an id\"]\n", "t.yaml:9:23: alias \"not an id\" is not a valid rule id", 1},
	{"alias too long", validRule + "    aliases: [" + strings.Repeat("a", 65) + "]\n", "t.yaml:9:15: alias \"" + strings.Repeat("a", 65) + "\" is not a valid rule id", 1},
	{"tags is a string", validRule + "    tags: kill\n", "t.yaml:9:11: \"tags\" must be a list of strings, got a string", 1},
	{"tag has a space", validRule + "    tags: [ok, \"not ok\"]\n", "t.yaml:9:16: tag \"not ok\" is not valid; use letters, digits, '.', '_' and '-'", 1},
	{"tag is a boolean", validRule + "    tags: [yes, true]\n", "t.yaml:9:17: \"tags item\" must be a string, got a boolean; quote the value to make it a string", 1},
	{"duplicate tag", validRule + "    tags: [a, b, a]\n", "t.yaml:9:18: duplicate tag \"a\"", 1},
	{"too many tags", validRule + "    tags: [a, b, c, d, e, f, g, h, i, j, k]\n", "t.yaml:9:11: a rule has at most 10 tags, this one has 11", 1},
	{"select unknown kind", strings.Replace(validRule, "select: subagent", "select: subagents", 1), "t.yaml:6:13: unknown fact kind \"subagents\" in \"select\"; expected one of \"attempt\", \"commit\", \"run\", \"ship\", \"subagent\", \"watchdog\"", 1},
	{"select unknown kind in list", strings.Replace(validRule, "select: subagent", "select: [subagent, agent]", 1), "t.yaml:6:24: unknown fact kind \"agent\" in \"select\"; expected one of \"attempt\", \"commit\", \"run\", \"ship\", \"subagent\", \"watchdog\"", 1},
	{"select empty list", strings.Replace(validRule, "select: subagent", "select: []", 1), "t.yaml:6:13: \"select\" is empty; name a fact kind: one of \"attempt\", \"commit\", \"run\", \"ship\", \"subagent\", \"watchdog\"", 1},
	{"select twice", strings.Replace(validRule, "select: subagent", "select: [subagent, subagent]", 1), "t.yaml:6:24: fact kind \"subagent\" is selected twice", 1},
	{"select is a mapping", strings.Replace(validRule, "select: subagent", "select: {kind: subagent}", 1), "t.yaml:6:13: \"select\" must be a string or a list of strings, got a mapping", 1},
	{"select item is a number", strings.Replace(validRule, "select: subagent", "select: [subagent, 3]", 1), "t.yaml:6:24: \"select item\" must be a string, got an integer; quote the value to make it a string", 1},
	{"where empty", strings.Replace(validRule, "where: killed", "where: \"\"", 1), "t.yaml:7:12: \"where\" is empty; write a boolean expression, e.g. \"killed && !reviewed\"", 1},
	{"where is a boolean", strings.Replace(validRule, "where: killed", "where: true", 1), "t.yaml:7:12: \"where\" must be a string, got a boolean; quote the value to make it a string", 1},
	{"where not boolean", strings.Replace(validRule, "where: killed", "where: description", 1), "t.yaml:7:12: \"where\": expected bool, but got string", 1},
	{"where starts with ! and an anchor", strings.Replace(validRule, "where: killed", "where: !reviewed && kiled", 1), "t.yaml:7:1: invalid YAML: did not find expected alphabetic or numeric character", 1},
	{"where starts with !", strings.Replace(validRule, "where: killed", "where: !reviewed", 1), "t.yaml:7:12: \"where\" must be a string, but YAML read \"!reviewed\" as a tag; quote the whole value, e.g. where: \"!reviewed ...\"", 1},
	{"where misspelt field", strings.Replace(validRule, "where: killed", "where: '!reviewed && kiled'", 1), "t.yaml:7:26: \"where\": \"kiled\" is not a field of the subagent fact; did you mean \"killed\"?", 1},
	{"where unknown field far from any", strings.Replace(validRule, "where: killed", "where: banana_split > 3", 1), "t.yaml:7:12: \"where\": \"banana_split\" is not a field of the subagent fact; see 'pmcheck rules explain' or docs/rules.md for the fields", 1},
	{"where syntax error", strings.Replace(validRule, "where: killed", "where: killed &&", 1), "t.yaml:7:20: \"where\": unexpected token EOF", 1},
	{"where quoted", strings.Replace(validRule, "where: killed", "where: \"killed && kiled\"", 1), "t.yaml:7:23: \"where\": \"kiled\" is not a field of the subagent fact; did you mean \"killed\"?", 1},
	{"where literal block", strings.Replace(validRule, "where: killed", "where: |\n      killed &&\n        !reviewd", 1), "t.yaml:9:10: \"where\": \"reviewd\" is not a field of the subagent fact; did you mean \"reviewed\"?", 1},
	{"where field missing in second kind", strings.Replace(strings.Replace(validRule, "select: subagent", "select: [subagent, attempt]", 1), "where: killed", "where: killed && false_done", 1), "t.yaml:7:12: \"where\" (compiled for attempt): \"killed\" is not a field of the attempt fact; see 'pmcheck rules explain' or docs/rules.md for the fields", 2},
	{"where uses now", strings.Replace(validRule, "where: killed", "where: time < now()", 1), "t.yaml:7:19: \"where\": now() is not available: a rule's verdict must not depend on when pmcheck runs; compare with the fact's own times", 1},
	{"message empty", strings.Replace(validRule, "message: m {{ description }}", "message: \" \"", 1), "t.yaml:8:14: \"message\" is empty; say what happened, e.g. \"subagent {{ description }} was killed\"", 1},
	{"message unterminated placeholder", strings.Replace(validRule, "message: m {{ description }}", "message: m {{ description", 1), "t.yaml:8:16: \"message\": \"{{\" has no closing \"}}\"", 1},
	{"message empty placeholder", strings.Replace(validRule, "message: m {{ description }}", "message: m {{ }} x", 1), "t.yaml:8:16: \"message\": empty placeholder {{ }}; put a field name inside, e.g. {{ agent_id }}", 1},
	{"message unknown field", strings.Replace(validRule, "message: m {{ description }}", "message: m {{ descripton }}", 1), "t.yaml:8:19: \"message\": \"descripton\" is not a field of the subagent fact; did you mean \"description\"?", 1},
	{"message bad expression", strings.Replace(validRule, "message: m {{ description }}", "message: \"m {{ description + }}\"", 1), "t.yaml:8:33: \"message\": unexpected token EOF", 1},
	{"message is a list", strings.Replace(validRule, "message: m {{ description }}", "message: [a]", 1), "t.yaml:8:14: \"message\" must be a string, got a list", 1},
	{"duplicate rule id", validRule + strings.TrimPrefix(validRule, "version: 1\nrules:\n"), "t.yaml:9:5: duplicate rule id \"r1\"; the first is at line 3, column 5", 1},
	{"several problems", strings.Replace(strings.Replace(validRule, "severity: error", "severity: bad", 1), "where: killed", "where: kiled", 1), "t.yaml:5:15: unknown severity \"bad\"; expected one of \"error\", \"note\", \"warning\"", 2},
}

func TestLoadErrors(t *testing.T) {
	for _, tc := range loadErrorCases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Parse("t.yaml", []byte(tc.src))
			if err == nil {
				t.Fatalf("loaded %d rules, want an error", len(p.Rules))
			}
			var le *LoadError
			if !errors.As(err, &le) {
				t.Fatalf("error is %T, want *LoadError: %v", err, err)
			}
			if os.Getenv("PRINT") != "" {
				t.Logf("%q %d", le.Errs[0].Error(), len(le.Errs))
				for _, e := range le.Errs[1:] {
					t.Logf("  also %q", e.Error())
				}
			}
			if got := le.Errs[0].Error(); got != tc.want {
				t.Errorf("first error\n got: %s\nwant: %s", got, tc.want)
			}
			if len(le.Errs) != tc.n {
				t.Errorf("got %d errors, want %d: %v", len(le.Errs), tc.n, le.Errs)
			}
		})
	}
}

// TestValidateListsEveryProblemInOnePass: a version problem does not stop
// the rules from being checked, and a duplicate id is reported even when the
// duplicate rule has problems of its own.
func TestValidateListsEveryProblemInOnePass(t *testing.T) {
	src := "rules:\n" +
		"  - id: a\n    title: x\n    severity: error\n    select: run\n    where: \"true\"\n    message: m\n" +
		"  - id: a\n    title: y\n    severity: fatal\n    select: run\n    where: \"true\"\n    message: m\n"
	_, err := Parse("t.yaml", []byte(src))
	var le *LoadError
	if !errors.As(err, &le) {
		t.Fatalf("error %v", err)
	}
	var got []string
	for _, e := range le.Errs {
		got = append(got, e.Error())
	}
	want := []string{
		`t.yaml:1:1: missing key "version"; a rule file starts with "version: 1"`,
		`t.yaml:8:5: duplicate rule id "a"; the first is at line 2, column 5`,
		`t.yaml:10:15: unknown severity "fatal"; expected one of "error", "note", "warning"`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestLoadValid(t *testing.T) {
	p, err := Parse("t.yaml", []byte(validRule))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Rules) != 1 || p.Rules[0].ID != "r1" || p.Rules[0].Pos.String() != "t.yaml:3:5" {
		t.Fatalf("got %+v", p.Rules)
	}
}

func TestLoadErrorIsOneLine(t *testing.T) {
	src := strings.Replace(strings.Replace(validRule, "severity: error", "severity: bad", 1), "where: killed", "where: kiled", 1)
	_, err := Parse("t.yaml", []byte(src))
	want := `t.yaml:5:15: unknown severity "bad"; expected one of "error", "note", "warning" (and 1 more problems in this file; run 'pmcheck rules validate t.yaml' to see them all)`
	if err == nil || err.Error() != want {
		t.Fatalf("got  %v\nwant %s", err, want)
	}
}

func TestLoadFileErrors(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(big, []byte(validRule+"#"+strings.Repeat("x", MaxFileSize)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(dir, "good.yaml")
	if err := os.WriteFile(good, []byte(validRule), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.yaml")
	for _, tc := range []struct{ path, want string }{
		{missing, `cannot read rule file "` + missing + `": no such file or directory`},
		{dir, `cannot read rule file "` + dir + `": it is a directory; pass a YAML file`},
		{big, `rule file "` + big + `" is larger than 1048576 bytes; a rule file is a short YAML file`},
	} {
		_, err := LoadFile(tc.path)
		if err == nil || err.Error() != tc.want {
			t.Errorf("LoadFile(%s)\n got %v\nwant %s", filepath.Base(tc.path), err, tc.want)
		}
	}
	p, err := LoadFile(good)
	if err != nil || len(p.Rules) != 1 || p.Rules[0].Pos.File != good {
		t.Fatalf("LoadFile(good) = %v, %v", p, err)
	}
}

// TestLoadPositionsInBlocks pins the column arithmetic for each scalar style.
func TestLoadPositionsInBlocks(t *testing.T) {
	for _, tc := range []struct{ where, want string }{
		{"where: kiled", "t.yaml:7:12"},
		{"where: \"killed && kiled\"", "t.yaml:7:23"},
		{"where: 'killed && kiled'", "t.yaml:7:23"},
		{"where: |\n      killed &&\n      kiled", "t.yaml:9:7"},
		{"where: |-\n        killed &&\n          kiled", "t.yaml:9:11"},
		{"where: >\n      killed &&\n      kiled", "t.yaml:7:12"}, // folded: the scalar's own position
	} {
		_, err := Parse("t.yaml", []byte(strings.Replace(validRule, "where: killed", tc.where, 1)))
		var le *LoadError
		if !errors.As(err, &le) {
			t.Fatalf("%q: no load error: %v", tc.where, err)
		}
		if got := le.Errs[0].Pos.String(); got != tc.want {
			t.Errorf("%q: error at %s, want %s (%s)", tc.where, got, tc.want, le.Errs[0].Msg)
		}
	}
}

// TestEveryProblemOfARule (issue 31, item 6): a rule whose where and
// message are both wrong shows both problems, not only the first.
func TestEveryProblemOfARule(t *testing.T) {
	src := strings.Replace(strings.Replace(validRule, "where: killed", "where: killed && nosuchfield", 1), "message: m {{ description }}", "message: m {{ alsonosuch }}", 1)
	_, err := Parse("t.yaml", []byte(src))
	var le *LoadError
	if !errors.As(err, &le) {
		t.Fatalf("not a LoadError: %v", err)
	}
	var all []string
	for _, e := range le.Errs {
		all = append(all, e.Error())
	}
	for _, want := range []string{`"where": "nosuchfield" is not a field`, `"message": "alsonosuch" is not a field`} {
		if !strings.Contains(strings.Join(all, "\n"), want) {
			t.Errorf("the problems do not list %s:\n%s", want, strings.Join(all, "\n"))
		}
	}
}

// TestEveryFieldsProblemInOrder: a rule wrong in every field gets one
// problem per field, each at its value, in the order the fields are read.
func TestEveryFieldsProblemInOrder(t *testing.T) {
	src := "version: 1\nrules:\n" +
		"  - id: my--rule\n" +
		"    title: \"a\\nb\"\n" +
		"    severity: fatal\n" +
		"    description: [d]\n" +
		"    help: {h: 1}\n" +
		"    aliases: [\"no good\"]\n" +
		"    tags: [\"bad tag\", x, x]\n" +
		"    select: [subagent, subagent, agent]\n" +
		"    where: \" \"\n" +
		"    message: \"\"\n" +
		"  - title: T\n    severity: note\n    select: run\n    where: \"true\"\n    message: m\n" +
		"  - id: r3\n    title: T\n    severity: note\n    select: run\n    where: nosuch\n    message: \"{{ alsonosuch }}\"\n"
	_, err := Parse("t.yaml", []byte(src))
	var le *LoadError
	if !errors.As(err, &le) {
		t.Fatalf("not a LoadError: %v", err)
	}
	var got []string
	for _, e := range le.Errs {
		got = append(got, e.Error())
	}
	want := []string{
		`t.yaml:3:9: rule id "my--rule" is not valid; use letters and digits separated by single '-', '_' or '.', starting with a letter (e.g. "my-rule")`,
		`t.yaml:4:12: "title" must be one line`,
		`t.yaml:5:15: unknown severity "fatal"; expected one of "error", "note", "warning"`,
		`t.yaml:6:18: "description" must be a string, got a list`,
		`t.yaml:7:11: "help" must be a string, got a mapping`,
		`t.yaml:8:15: alias "no good" is not a valid rule id`,
		`t.yaml:9:12: tag "bad tag" is not valid; use letters, digits, '.', '_' and '-'`,
		`t.yaml:9:26: duplicate tag "x"`,
		`t.yaml:10:24: fact kind "subagent" is selected twice`,
		`t.yaml:10:34: unknown fact kind "agent" in "select"; expected one of "attempt", "commit", "run", "ship", "subagent", "watchdog"`,
		`t.yaml:11:12: "where" is empty; write a boolean expression, e.g. "killed && !reviewed"`,
		`t.yaml:12:14: "message" is empty; say what happened, e.g. "subagent {{ description }} was killed"`,
		`t.yaml:13:5: a rule is missing required key "id"`,
		`t.yaml:22:12: "where": "nosuch" is not a field of the run fact; see 'pmcheck rules explain' or docs/rules.md for the fields`,
		`t.yaml:23:18: "message": "alsonosuch" is not a field of the run fact; see 'pmcheck rules explain' or docs/rules.md for the fields`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
