package ship

import (
	"strings"
	"testing"

	"github.com/pmcheck/pmcheck/analyze/shell"
	"github.com/pmcheck/pmcheck/internal/fuzzseed"
)

// outputOf is shell.OutputOf with the classifier's inert commands, as the
// check gives them to the transcript reader.
func outputOf(cmd string, a *Analysis) shell.Output { return shell.OutputOf(cmd, a, Inert) }

// readerOutput is the rule the transcript reader applied itself before the
// decision moved to the classifier (its mentionsVCS and mayCommit): a command naming git
// or "gh " kept the head of its output, one with a quote or backslash a
// sliver, any other none. OutputOf must never keep less.
func readerOutput(cmd string) shell.Output {
	switch {
	case strings.Contains(cmd, "git") || strings.Contains(cmd, "gh "):
		return shell.OutputHead
	case strings.ContainsAny(cmd, `'"\`):
		return shell.OutputSliver
	}
	return shell.OutputNone
}

// outputCases are commands whose output a reader keeps, as OutputOf decides
// with the command's analysis and without one.
var outputCases = []struct {
	command string
	want    shell.Output
}{
	{"ls -la", shell.OutputNone},
	{"go test ./... 2>&1 | tail -40", shell.OutputNone},
	{"python3 run.py --seed 7", shell.OutputNone},
	{`echo "hello" > notes.txt`, shell.OutputSliver},
	{"grep -rn 'func main' .", shell.OutputSliver},
	{"cat <<'EOF' > notes.md\nsome text\nEOF", shell.OutputSliver},
	// Inert: no commit whatever the aliases, so nothing reads the output
	// although the text names git (the reader kept the head of these).
	{"git status", shell.OutputNone},
	{"git log --oneline -20 -- src/a.go", shell.OutputNone},
	{"ls | grep gitignore", shell.OutputNone},
	{"git status --short > status.txt", shell.OutputHead}, // a redirection: not inert
	{"git commit -m x", shell.OutputHead},
	{"cd repo && git commit -am 'step two'", shell.OutputHead},
	{"git -C ../wt commit -m x", shell.OutputHead},
	{"bash -c 'git commit -m x'", shell.OutputHead},
	{"sh -c \"cd repo && git commit -m 'x'\"", shell.OutputHead},
	{"git commit -F - <<'EOF'\nsubject\n\nbody\nEOF", shell.OutputHead},
	{"bash <<EOF\ngit commit -m x\nEOF", shell.OutputHead},
	{"gh pr create --fill", shell.OutputHead},
	// A git alias: the run's definition may make it commit (GitNotBuiltin).
	{"git ci -m x", shell.OutputHead},
	{"git config alias.ci commit && git ci -m x", shell.OutputHead},
	// git spelled through quoting: the parser reads git, and so does the
	// rule (the reader kept only a sliver of these).
	{"g'i't commit -m x", shell.OutputHead},
	{`g\it commit -m x`, shell.OutputHead},
	{"gi\\\nt commit -m x", shell.OutputHead},
	{`gi''t commit -m x`, shell.OutputHead},
	{`gi""t commit -m x`, shell.OutputHead},
	{`gi$''t commit -m x`, shell.OutputHead},
	{`$"git" commit -m x`, shell.OutputHead},
	{`"g"'i't commit -m x`, shell.OutputHead},
	{`g'h' pr create`, shell.OutputHead},
	{"g\x00it commit -m x", shell.OutputHead}, // the parser skips NUL bytes
	// Escapes bash, printf and echo decode: the classifier decodes them
	// (ship gaps), and so does the rule.
	{`$'\x67it' commit -m x`, shell.OutputHead},
	{`$'\147\151\164' commit -m x`, shell.OutputHead},
	{`printf '\x67it commit -m x' | sh`, shell.OutputHead},
	{`echo -e '\0147it commit -m x' | sh`, shell.OutputHead},
	// Octal past \377 keeps its low byte, in the shell as in printf and
	// echo -e: \551 is i.
	{`$'\147\551\164' commit -m x`, shell.OutputHead},
	{`printf '\147\551t commit -m x' | sh`, shell.OutputHead},
	{`echo -e 'g\0551t commit -m x' | sh`, shell.OutputHead},
	{`printf '%s%s' gi 't commit -m x' | sh`, shell.OutputHead},
	{`printf '\x5cx67it commit'`, shell.OutputHead}, // a backslash decoded, then git: more than needed
	// Escapes of no letter of git: a sliver.
	{`printf '\x66it commit -m x' | sh`, shell.OutputSliver},
	{`echo '%s' | sh`, shell.OutputSliver},
}

// TestOutputOf: each command keeps what its table row says, analysed or
// not; an analysis that counts a commit, or a git subcommand an alias may
// define, keeps the head whatever the text.
func TestOutputOf(t *testing.T) {
	for _, c := range outputCases {
		a := Classify(c.command, Options{})
		if got := outputOf(c.command, nil); got != c.want {
			t.Errorf("outputOf(%q, nil) = %d, want %d", c.command, got, c.want)
		}
		if got := outputOf(c.command, &a); got != c.want {
			t.Errorf("outputOf(%q, its analysis %+v) = %d, want %d", c.command, a, got, c.want)
		}
	}
	for _, a := range []Analysis{{Commits: 1}, {GitNotBuiltin: true}} {
		if got := outputOf("run-it", &a); got != shell.OutputHead {
			t.Errorf("OutputOf with %+v = %d, want the head", a, got)
		}
	}
	if got := outputOf("run-it", &Analysis{MayWrite: true}); got != shell.OutputNone {
		t.Errorf("OutputOf of a command that only writes = %d, want none", got)
	}
}

// TestOutputKeepsWhatTheReaderKept: over every command literal of the
// package's tests, OutputOf keeps at least what the reader's own rule kept,
// and the head of every command whose analysis counts a commit or an
// aliasable git subcommand even without the analysis (a read that
// classifies nothing keeps what one that classifies keeps). The corpus's
// commands are compared in the transcript reader's differential test.
func TestOutputKeepsWhatTheReaderKept(t *testing.T) {
	raised := 0
	for _, cmd := range fuzzseed.Literals(".", nil) {
		checkOutput(t, cmd)
		if outputOf(cmd, nil) > readerOutput(cmd) {
			raised++
		}
	}
	if raised == 0 {
		t.Fatal("no command keeps more than the reader's rule: the table lost its quoted git commands")
	}
}

// checkOutput fails when OutputOf keeps less of cmd's output than the
// reader's rule, less with an analysis than without, or less than the head
// of a command whose analysis may commit, with or without that analysis.
func checkOutput(t *testing.T, cmd string) {
	t.Helper()
	a := Classify(cmd, Options{})
	bare, with := outputOf(cmd, nil), outputOf(cmd, &a)
	if Inert(cmd) {
		if bare != shell.OutputNone || with != shell.OutputNone {
			t.Fatalf("inert %q: OutputOf keeps %d without its analysis, %d with it; nothing reads it", cmd, bare, with)
		}
		return
	}
	if old := readerOutput(cmd); bare < old {
		t.Fatalf("outputOf(%q, nil) = %d, less than the reader kept (%d)", cmd, bare, old)
	}
	if with < bare {
		t.Fatalf("outputOf(%q) = %d with its analysis, %d without", cmd, with, bare)
	}
	if a.Commits > 0 || a.GitNotBuiltin {
		if with != shell.OutputHead || bare != shell.OutputHead {
			t.Fatalf("%q: analysis %+v may commit, but OutputOf keeps %d with it and %d without", cmd, a, with, bare)
		}
	}
}

// FuzzOutputOf: checkOutput on arbitrary command lines, seeded from the
// package's table tests (a longer run:
// go test ./analyze/detect/ship -run '^$' -fuzz '^FuzzOutputOf$' -fuzztime 10m).
func FuzzOutputOf(f *testing.F) {
	for _, s := range fuzzseed.Literals(".", nil) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cmd string) { checkOutput(t, cmd) })
}
