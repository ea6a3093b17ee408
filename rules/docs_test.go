package rules

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var updateDocs = flag.Bool("update-docs", false, "rewrite docs/rules.md from the rule metadata")

const docsPath = "../docs/rules.md"

// TestDocsAreCurrent fails when docs/rules.md is not what the rule metadata
// generates; regenerate with: go test ./rules -run TestDocsAreCurrent -update-docs
func TestDocsAreCurrent(t *testing.T) {
	pack, err := Defaults()
	if err != nil {
		t.Fatal(err)
	}
	want, err := Markdown(pack)
	if err != nil {
		t.Fatal(err)
	}
	if *updateDocs {
		if err := os.WriteFile(docsPath, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(docsPath)
	if err != nil {
		t.Fatalf("%v: generate it with go test ./rules -run TestDocsAreCurrent -update-docs", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("docs/rules.md is stale: regenerate it with go test ./rules -run TestDocsAreCurrent -update-docs")
	}
}

// TestEveryDefaultRuleHasDocsAndFixtures is the meta-test: a default rule needs
// its section in docs/rules.md, a documented field for everything it reads,
// and a good and a bad generated fixture.
func TestEveryDefaultRuleHasDocsAndFixtures(t *testing.T) {
	pack, err := Defaults()
	if err != nil {
		t.Fatal(err)
	}
	docs, err := os.ReadFile(docsPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range pack.Rules {
		if !bytes.Contains(docs, []byte("\n### `"+r.ID+"`\n")) {
			t.Errorf("%s has no section in docs/rules.md", r.ID)
		}
		for _, side := range []string{"good", "bad"} {
			dir := filepath.Join("..", "fixtures", "runs", "rule-"+r.ID+"-"+side)
			entries, err := os.ReadDir(dir)
			if err != nil || len(entries) == 0 {
				t.Errorf("%s has no %s fixture: add rule-%s-%s to fixtures/gen/scenarios_rules.go and regenerate (go run ./cmd/pmcheck fixtures write --all fixtures/runs)", r.ID, side, r.ID, side)
			}
		}
	}
	for _, k := range Kinds {
		for _, f := range FieldDocs(k) {
			if f.Doc == "" {
				t.Errorf("field %s of the %s fact is not described: add it to fieldDocs in rules/fields.go", f.Name, k)
			}
		}
	}
}

// TestDocsExamplesLoad: every YAML example in docs/rules.md that is a rule
// file or a baseline loads, so the docs cannot teach a syntax the loader
// rejects.
func TestDocsExamplesLoad(t *testing.T) {
	docs, err := os.ReadFile(docsPath)
	if err != nil {
		t.Fatal(err)
	}
	blocks := 0
	for _, part := range strings.Split(string(docs), "```yaml\n")[1:] {
		block := part[:strings.Index(part, "```")]
		switch {
		case strings.HasPrefix(block, "version: 1\nrules:"), strings.HasPrefix(block, "version: 1\nreview:"):
			blocks++
			if _, err := Parse("docs/rules.md", []byte(block)); err != nil {
				t.Errorf("rule file example does not load: %v", err)
			}
		case strings.HasPrefix(block, "version: 1\nfindings:"):
			blocks++
			if _, err := ParseBaseline("docs/rules.md", []byte(block)); err != nil {
				t.Errorf("baseline example does not load: %v", err)
			}
		}
	}
	if blocks != 3 {
		t.Errorf("found %d loadable examples in docs/rules.md, want 3", blocks)
	}
}
