package pmcheck_test

import (
	"flag"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

var updateArrows = flag.Bool("update-arrows", false, "rewrite the arrows table of docs/architecture.md from arrows_test.go")

// arrow is one production package of the module: what it owns and the
// packages of the module it may import (the arrows). The table is the
// architecture; docs/architecture.md shows it, generated from here.
type arrow struct {
	pkg, owns string
	imports   []string
}

// arrows is the whole table. A package of the module missing from it, or
// an import it does not allow, fails TestArrows.
var arrows = []arrow{
	{"analyze/model", "plain types: Run, Transcript, ToolCall, SubagentCall, Attempt, Evidence, the facts rules read", nil},
	{"analyze/layout", "where sessions, subagents, sidecars and Workflow run directories sit on disk", nil},
	{"analyze/harness", "the runtime's own strings (partial-output notice, kill sentinel, segment mark), assembled at run time", []string{"internal/lazyre"}},
	{"analyze/jsonl", "capped line reading, torn lines, junk detection, JSON array streams, the lines of a file still being written (Splitter, both followers')", []string{"internal/jsonscan", "internal/swar"}},
	{"analyze/discover", "finding runs under a root; valid ids; path containment", []string{"analyze/layout"}},
	{"analyze/clock", "write times, journal time inference, the simulated clock", []string{"analyze/model"}},
	{"analyze/journal", "the journal reader and the attempt state machine (Machine)", []string{"analyze/jsonl", "analyze/model", "internal/freeze", "internal/incr", "internal/jsonscan"}},
	{"analyze/shell", "reading a shell command: parsing (bounded), static words and escapes, wrappers unwrapped, what echo and printf print, how much of its output to keep", []string{"analyze/model"}},
	{"analyze/transcript", "the streaming row reader: content shapes, notifications, marks, tails", []string{"analyze/harness", "analyze/jsonl", "analyze/model", "analyze/shell", "internal/freeze", "internal/incr", "internal/jsonscan", "internal/lazyre"}},
	{"analyze/interpret", "how each call, subagent, attempt, transcript and run ended: the Signature A/B scan and its merge with each call's outcome, segments and marks, the kill decisions (AttemptKilled, KillSilence, Consumed), the work ledger of a transcript", []string{"analyze/harness", "analyze/model", "internal/lazyre"}},
	{"analyze/detect/ship", "the shell classifier's policy: what a command ships, writes and commits, what is harmless and inert", []string{"analyze/model", "analyze/shell"}},
	{"analyze/detect/gitjoin", "the branch under check, read with git", nil},
	{"analyze/detect/gitjoin/gittest", "(tests only) git repositories built for tests", nil},
	{"analyze/detect", "the facts, built on interpret's readings: items at risk, review, git join, ship facts, the gate's reading", []string{"analyze/detect/gitjoin", "analyze/detect/ship", "analyze/interpret", "analyze/model"}},
	{"analyze/gitsource", "what a check of a commit range reads from git: the commits, their checkpoints' sessions", []string{"analyze/layout", "internal/lazyre"}},
	{"analyze/trace", "linking a range's commits to the runs that made them", []string{"analyze/gitsource", "analyze/interpret", "analyze/jsonl", "analyze/model", "internal/lazyre"}},
	{"analyze/replay", "watch's events and the watchdogs on the simulated clock: timing only", []string{"analyze/clock", "analyze/discover", "analyze/interpret", "analyze/journal", "analyze/model", "internal/exitcode"}},
	{"analyze/load", "loading: a path given on the command line to its root and run (Resolve), reading each file once, linking parents to children, resume copies, message streams", []string{"analyze/discover", "analyze/journal", "analyze/jsonl", "analyze/layout", "analyze/model", "analyze/transcript"}},
	{"analyze", "the façade: paths in (through load), runs and facts out (detect, replay); the hook's one call (ReadGate, ReadGateCarryFrom through the transcript readers it keeps) and what carries its reading over appended rows (GateCarry)", []string{"analyze/*", "internal/incr"}},
	{"rules", "rule schema, strict loader, expr conditions, evaluation into findings", []string{"analyze/model", "internal/lazyre"}},
	{"report", "the canonical Document and one renderer per format", []string{"analyze/model", "internal/swar", "rules"}},
	{"explain", "the evidence chain of a finding, read from the Document", []string{"analyze/model", "internal/lazyre", "report", "rules"}},
	{"hook", "the resume gate's Claude Code hooks and their installer", []string{"analyze", "internal/exitcode", "internal/incr"}},
	{"collect", "packing a run's files for a bug report", []string{"analyze", "collect/redact"}},
	{"collect/redact", "redacting collected files", nil},
	{"config", "the repository's .pmcheck.yaml", []string{"internal/lazyre"}},
	{"fixtures/gen", "the scenario generator behind `pmcheck fixtures`", []string{"analyze", "analyze/model", "fixtures/gen/fleet"}},
	{"fixtures/gen/fleet", "the synthetic fleet (`pmcheck fixtures write --scale N`) and the benchmarks' corpora", nil},
	{"cmd/pmcheck", "main, one file per command, exit codes", []string{"analyze", "collect", "collect/redact", "config", "explain", "fixtures/gen", "hook", "internal/exitcode", "internal/lazyre", "report", "rules"}},
	{"internal/exitcode", "every command's exit codes, in one place (docs/exit-codes.md)", nil},
	{"internal/incr", "what an incremental read keeps of a file it read (its mark) and where (the cache directory)", nil},
	{"internal/freeze", "a graph of values written to bytes and read back in the same binary (the hook's frozen transcript readers)", nil},
	{"internal/jsonscan", "the JSON grammar both decoders share", []string{"internal/swar"}},
	{"internal/swar", "eight bytes at a time", nil},
	{"internal/lazyre", "regexps compiled on first use", nil},
	{"internal/allocs", "allocation bounds for tests", nil},
	{"internal/fuzzseed", "fuzz seeds for tests", nil},
	{"internal/entiretest", "(tests only) git repositories with checkpoints, built at test time", nil},
	{"internal/testcorpus", "finding the shared corpus for tests", nil},
	{"internal/differential", "(tests only) the differential test across consumers", nil},
	{"bench/*", "benchmarks, the synthetic corpus; never imported by a production package", []string{"bench/*", "analyze", "analyze/*", "fixtures/gen/fleet", "internal/*"}},
}

// pending are the imports the table forbids that the code still has, each
// with the reason. TestArrows allows them and fails when one is gone
// (then delete its line): the list only shrinks.
var pending = map[string]string{}

const module = "github.com/pmcheck/pmcheck/"

// allowed reports whether pkg's table entry lets it import imp.
func allowed(a arrow, imp string) bool {
	for _, p := range a.imports {
		if p == imp || strings.HasSuffix(p, "/*") && strings.HasPrefix(imp, strings.TrimSuffix(p, "*")) {
			return true
		}
	}
	return false
}

func entryOf(pkg string) (arrow, bool) {
	for _, a := range arrows {
		if a.pkg == pkg || strings.HasSuffix(a.pkg, "/*") && strings.HasPrefix(pkg, strings.TrimSuffix(a.pkg, "*")) {
			return a, true
		}
	}
	return arrow{}, false
}

// productionImports lists, per package folder, the module's packages its
// non-test files import.
func productionImports(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	err := filepath.WalkDir(".", func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); n == ".git" || n == "testdata" || strings.HasPrefix(n, ".") && p != "." {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(filepath.Dir(p))
		if _, ok := out[pkg]; !ok {
			out[pkg] = []string{}
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if rel, ok := strings.CutPrefix(path, module); ok && !slices.Contains(out[pkg], rel) {
				out[pkg] = append(out[pkg], rel)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestArrows holds every production package to the table: each is in it,
// and it imports only what its row allows (pending aside). No production
// package imports bench/.
func TestArrows(t *testing.T) {
	seen := map[string]bool{}
	for pkg, imps := range productionImports(t) {
		if pkg == "." {
			continue
		}
		a, ok := entryOf(pkg)
		if !ok {
			t.Errorf("%s is not in the arrows table (arrows_test.go): add its row, what it owns and what it may import, then go test . -run TestArrows -update-arrows", pkg)
			continue
		}
		for _, imp := range imps {
			if !strings.HasPrefix(pkg, "bench/") && strings.HasPrefix(imp, "bench/") {
				if _, ok := pending[pkg+" -> "+imp]; !ok {
					t.Errorf("%s imports %s: bench/ is never linked into a production package", pkg, imp)
				}
				seen[pkg+" -> "+imp] = true
				continue
			}
			if allowed(a, imp) {
				continue
			}
			if _, ok := pending[pkg+" -> "+imp]; ok {
				seen[pkg+" -> "+imp] = true
				continue
			}
			t.Errorf("%s imports %s, which docs/architecture.md's table does not allow (it may import %s)", pkg, imp, strings.Join(a.imports, ", "))
		}
	}
	for edge, why := range pending {
		if why != "" && !seen[edge] {
			t.Errorf("pending arrow %q is gone: delete it from pending (arrows_test.go)", edge)
		}
	}
}

// arrowsTable renders the table as docs/architecture.md shows it.
func arrowsTable() string {
	var b strings.Builder
	b.WriteString("| package | owns | may import (of this module) |\n|---|---|---|\n")
	for _, a := range arrows {
		imps := "—"
		if len(a.imports) > 0 {
			q := make([]string, len(a.imports))
			for i, p := range a.imports {
				q[i] = "`" + p + "`"
			}
			imps = strings.Join(q, ", ")
		}
		b.WriteString("| `" + a.pkg + "` | " + a.owns + " | " + imps + " |\n")
	}
	var edges []string
	for e, why := range pending {
		if why != "" {
			edges = append(edges, "- `"+e+"`: "+why+"\n")
		}
	}
	sort.Strings(edges)
	b.WriteString("\nImports the table forbids that the code still has (the test allows them until they are gone, and fails if one disappears without being struck off):\n\n")
	for _, e := range edges {
		b.WriteString(e)
	}
	if len(edges) == 0 {
		b.WriteString("none.\n")
	}
	return b.String()
}

const (
	arrowsBegin = "<!-- arrows: generated from arrows_test.go; go test . -run TestArchitectureDocShowsTheArrows -update-arrows -->\n"
	arrowsEnd   = "<!-- end of arrows -->\n"
)

// TestArchitectureDocShowsTheArrows: docs/architecture.md shows the table
// the test enforces, byte for byte.
func TestArchitectureDocShowsTheArrows(t *testing.T) {
	const doc = "docs/architecture.md"
	data, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	i, j := strings.Index(s, arrowsBegin), strings.Index(s, arrowsEnd)
	if i < 0 || j < i {
		t.Fatalf("%s has no arrows section (%q … %q)", doc, arrowsBegin, arrowsEnd)
	}
	want := s[:i+len(arrowsBegin)] + arrowsTable() + s[j:]
	if *updateArrows {
		if err := os.WriteFile(doc, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if want != s {
		t.Errorf("%s's arrows table differs from arrows_test.go: go test . -run TestArchitectureDocShowsTheArrows -update-arrows", doc)
	}
}
