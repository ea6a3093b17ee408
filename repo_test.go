// Repository-wide tests: the needle discipline (seed 002, rule 3), no
// decodable segment mark in any file, and the one-way architecture.
package pmcheck_test

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/pmcheck/pmcheck/analyze/harness"
)

// walkRepo calls fn for every regular file of the work tree except .git.
func walkRepo(t *testing.T, fn func(path string, data []byte)) {
	t.Helper()
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fn(p, data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestNoPlainPartialOutputNotice: a plain copy of the harness's notice in any
// file poisons every agent session that reads it, so none may exist; fixtures
// store it JSON-escaped and code assembles it at run time.
func TestNoPlainPartialOutputNotice(t *testing.T) {
	needle := []byte(harness.PartialNotice())
	lower := bytes.ToLower(needle)
	files := 0
	walkRepo(t, func(p string, data []byte) {
		files++
		if bytes.Contains(data, needle) || bytes.Contains(bytes.ToLower(data), lower) {
			t.Errorf("%s holds the partial-output notice in plain form: store it JSON-escaped (fixtures) or use harness.PartialNotice() (code)", p)
		}
	})
	if files < 20 {
		t.Fatalf("walked only %d files; the test is not looking at the repository", files)
	}
}

// TestNoDecodableSegmentMark: a committed mark that decodes would be trusted
// as gate state by any session that reads the file.
func TestNoDecodableSegmentMark(t *testing.T) {
	re := regexp.MustCompile(`\[resume-gate\] segment-mark v1 outstanding=(\d+) payload=([A-Za-z0-9+/=]*)`)
	walkRepo(t, func(p string, data []byte) {
		if m := re.Find(data); m != nil {
			t.Errorf("%s holds a resume-gate segment mark (%q); build marks at run time in tests", p, m)
		}
	})
}

// TestDataFlowsOneWay: analyze never imports rules or report; rules never
// imports report; report never imports analyze beyond the model.
func TestDataFlowsOneWay(t *testing.T) {
	const mod = "github.com/pmcheck/pmcheck/"
	forbidden := map[string][]string{
		"analyze": {mod + "rules", mod + "report", mod + "cmd"},
		"rules":   {mod + "report", mod + "cmd", mod + "analyze/transcript", mod + "analyze/journal", mod + "analyze/discover"},
		"report":  {mod + "cmd", mod + "analyze/transcript", mod + "analyze/journal", mod + "analyze/discover", mod + "analyze/replay", mod + "analyze/detect"},
		"explain": {mod + "cmd", mod + "analyze/transcript", mod + "analyze/journal", mod + "analyze/discover", mod + "analyze/replay", mod + "analyze/detect"},
	}
	for dir, bans := range forbidden {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
				return err
			}
			f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly)
			if err != nil {
				return err
			}
			for _, imp := range f.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				for _, ban := range bans {
					if path == ban || strings.HasPrefix(path, ban+"/") {
						t.Errorf("%s imports %s: data flows inputs -> analyze -> rules -> report, never back", p, path)
					}
				}
			}
			return nil
		})
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
}

// TestDecisionsDefinedOnce: the cause phrases, the kill sentinel and the
// segment-mark pattern each sit in exactly one string literal of the
// program (test files and the fixture generator, which writes data, aside),
// so the detectors and the replay cannot drift apart on them.
func TestDecisionsDefinedOnce(t *testing.T) {
	exact := []string{
		"interrupted before finishing", "usage limit reached", "API error", "ran out of context",
		"cause not recorded", "hit a usage limit", "ended on an API error",
	}
	contains := []string{"[Request interrupted by user", `outstanding=(\d+)`}
	counts := map[string][]string{}
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" || p == filepath.Join("fixtures", "gen") {
				return fs.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			v, err := strconv.Unquote(lit.Value)
			if err != nil {
				return true
			}
			for _, e := range exact {
				if v == e {
					counts[e] = append(counts[e], p)
				}
			}
			for _, c := range contains {
				if strings.Contains(v, c) {
					counts[c] = append(counts[c], p)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range append(exact, contains...) {
		if len(counts[s]) != 1 {
			t.Errorf("%q is written %d times (%v); define it once and refer to it", s, len(counts[s]), counts[s])
		}
	}
}

// TestOnlyLayoutParsesPaths: the names that make up the on-disk layout
// (subagents/, workflows/, sidecars) appear as string literals only in
// analyze/layout, so no other file takes a run's paths apart. Generators
// that write layouts (fixtures/gen, bench) and tests are left out.
func TestOnlyLayoutParsesPaths(t *testing.T) {
	shapes := map[string]bool{"/subagents/": true, "subagents/": true, "/subagents": true,
		"/workflows/": true, "workflows/": true, "/workflows": true, ".meta.json": true}
	for _, dir := range []string{"analyze", "cmd", "hook", "collect", "report", "rules"} {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if p == filepath.Join("analyze", "layout") {
					return fs.SkipDir
				}
				return nil
			}
			if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
				return nil
			}
			f, err := parser.ParseFile(token.NewFileSet(), p, nil, 0)
			if err != nil {
				return err
			}
			ast.Inspect(f, func(n ast.Node) bool {
				if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					if v, err := strconv.Unquote(lit.Value); err == nil && shapes[v] {
						t.Errorf("%s holds the path shape %q: ask package analyze/layout instead", p, v)
					}
				}
				return true
			})
			return nil
		})
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
}

// TestCommentsStandOnTheirOwn: the program's comments state facts instead of
// citing documents that are not in the repository (the product spec, seed
// numbers, research notes).
func TestCommentsStandOnTheirOwn(t *testing.T) {
	cite := regexp.MustCompile(`PRODUCT\.md|ARCHITECTURE\.md|\b[Ss]eed 0\d\d\b|research/[a-z-]+\.md`)
	walkRepo(t, func(p string, data []byte) {
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return
		}
		if m := cite.Find(data); m != nil {
			t.Errorf("%s cites %q, a document outside the repository: state the fact instead", p, m)
		}
	})
}

// TestCommandImportsAnalyzeOnly: the command line wires packages; it reaches
// the analysis through package analyze alone (and rules and report), never
// analyze's sub-packages, so they can change behind analyze's API.
func TestCommandImportsAnalyzeOnly(t *testing.T) {
	const mod = "github.com/pmcheck/pmcheck/"
	err := filepath.WalkDir(filepath.Join("cmd", "pmcheck"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(path, mod+"analyze/") {
				t.Errorf("%s imports %s: use package analyze's API instead", p, path)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
