package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
	"mvdan.cc/sh/v3/syntax"

	"github.com/pmcheck/pmcheck/config"
)

// docsWithCommands are the pages whose shell blocks a reader copies.
var docsWithCommands = []string{"README.md", "docs/ci.md", "docs/config.md", "docs/collect.md"}

var (
	shBlock   = regexp.MustCompile("(?s)```sh\n(.*?)```")
	yamlBlock = regexp.MustCompile("(?s)```yaml\n(.*?)```")
)

// docCommands returns every pmcheck invocation in the page's ```sh blocks
// (pipelines and `go run ./cmd/pmcheck` included), as argument lists. A word
// that is not a plain literal ($VAR, ~/x) becomes "WORD".
func docCommands(t *testing.T, page string) [][]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("../..", page))
	if err != nil {
		t.Fatal(err)
	}
	var out [][]string
	for _, m := range shBlock.FindAllStringSubmatch(string(data), -1) {
		f, err := syntax.NewParser().Parse(strings.NewReader(m[1]), page)
		if err != nil {
			t.Errorf("%s: a sh block does not parse as shell: %v\n%s", page, err, m[1])
			continue
		}
		syntax.Walk(f, func(n syntax.Node) bool {
			call, ok := n.(*syntax.CallExpr)
			if !ok || len(call.Args) == 0 {
				return true
			}
			var words []string
			for _, w := range call.Args {
				if lit := w.Lit(); lit != "" {
					words = append(words, lit)
				} else if s, ok := quoted(w); ok {
					words = append(words, s)
				} else {
					words = append(words, "WORD")
				}
			}
			switch {
			case words[0] == "pmcheck":
				out = append(out, words[1:])
			case len(words) > 2 && words[0] == "go" && words[1] == "run" && words[2] == "./cmd/pmcheck":
				out = append(out, words[3:])
			}
			return true
		})
	}
	return out
}

// quoted returns the text of a word that is one quoted literal.
func quoted(w *syntax.Word) (string, bool) {
	if len(w.Parts) != 1 {
		return "", false
	}
	switch p := w.Parts[0].(type) {
	case *syntax.SglQuoted:
		return p.Value, true
	case *syntax.DblQuoted:
		if len(p.Parts) == 1 {
			if l, ok := p.Parts[0].(*syntax.Lit); ok {
				return l.Value, true
			}
		}
	}
	return "", false
}

// TestDocsCommandsParse: every pmcheck command the README and the CI pages
// show names a real command with real flags and valid values, so a renamed
// flag cannot leave the documentation behind.
func TestDocsCommandsParse(t *testing.T) {
	total := 0
	for _, page := range docsWithCommands {
		cmds := docCommands(t, page)
		if len(cmds) == 0 {
			t.Errorf("%s shows no pmcheck command: has the page lost its examples?", page)
		}
		for _, args := range cmds {
			total++
			var cli CLI
			parser, err := kong.New(&cli, kong.Name("pmcheck"), kong.Vars{"version": Version},
				kong.Exit(func(int) { t.Errorf("%s: pmcheck %s: kong exited", page, strings.Join(args, " ")) }))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := parser.Parse(args); err != nil {
				t.Errorf("%s: `pmcheck %s` does not parse: %v", page, strings.Join(args, " "), err)
			}
		}
	}
	if total < 20 {
		t.Errorf("only %d commands found in the docs", total)
	}
}

// TestDocsConfigExamplesLoad: every .pmcheck.yaml shown in the docs loads.
func TestDocsConfigExamplesLoad(t *testing.T) {
	n := 0
	for _, page := range []string{"docs/ci.md", "docs/config.md"} {
		data, err := os.ReadFile(filepath.Join("../..", page))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range yamlBlock.FindAllStringSubmatch(string(data), -1) {
			if strings.Contains(m[1], "\njobs:") || !strings.Contains(m[1], "paths:") {
				continue // a workflow, linted by actionlint
			}
			n++
			if _, err := config.Parse(page, []byte(m[1])); err != nil {
				t.Errorf("%s: a config example does not load: %v", page, err)
			}
		}
	}
	if n < 2 {
		t.Errorf("found %d config examples in docs/ci.md and docs/config.md, want both pages' examples", n)
	}
}

// TestDocsWorkflowsLint: the workflows docs/ci.md shows, and the project's
// own, pass actionlint (when it is installed; .ci/validate-reports.sh always
// runs it).
func TestDocsWorkflowsLint(t *testing.T) {
	bin, err := exec.LookPath("actionlint")
	if err != nil {
		home, _ := os.UserHomeDir()
		if _, err := os.Stat(filepath.Join(home, "go", "bin", "actionlint")); err != nil {
			t.Skip("actionlint is not installed; .ci/validate-reports.sh installs and runs it")
		}
		bin = filepath.Join(home, "go", "bin", "actionlint")
	}
	data, err := os.ReadFile("../../docs/ci.md")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	wf := filepath.Join(dir, ".github", "workflows")
	os.MkdirAll(wf, 0o755)
	files := []string{"-no-color"}
	for _, m := range yamlBlock.FindAllStringSubmatch(string(data), -1) {
		if strings.Contains(m[1], "\njobs:") {
			f := filepath.Join(wf, "docs-"+string(rune('1'+len(files)-1))+".yml")
			os.WriteFile(f, []byte(m[1]), 0o644)
			files = append(files, f)
		}
	}
	if len(files) == 1 {
		t.Fatal("docs/ci.md shows no workflow")
	}
	own, _ := filepath.Glob("../../.github/workflows/*.yml")
	cmd := exec.Command(bin, append(files, own...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("actionlint on docs/ci.md's workflows: %v\n%s", err, out)
	}
}
