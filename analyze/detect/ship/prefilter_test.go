package ship

import (
	"reflect"
	"strings"
	"testing"

	"github.com/pmcheck/pmcheck/internal/fuzzseed"
)

// quietCases are lines the prefilter answers; each must also be empty for
// the parser.
var quietCases = []string{
	`ls -la && git status && git diff`,
	`cat a.txt | grep -n foo | wc -l`,
	`git log --oneline -5; git show HEAD:go.mod`,
	"pwd\nls src/*.go",
	`grep -rn TODO . || true`,
	`du -sh /tmp/x  ;  df`,
	`git diff --stat main...HEAD`,
	`git status 2>&1`,
	`ls /tmp/x/ 2>&1; git log -3 2>/dev/null | head`,
	`find . -type f -name *.go | sort`,
	`grep -rn foo src >/dev/null && echo found`,
}

// loudCases must go to the parser: anything the prefilter does not fully
// understand, and every way a ship or a write can hide.
var loudCases = []string{
	`git push`, `git push origin main`, `$(echo git) push`, "`echo git` push", `eval git push`,
	`echo git push | xargs git`, `alias g=git; g push`, `bash -c 'git push'`, `sh -c "git push"`,
	`bash -lc git`, `ls -c`, `ls 'a'`, `ls "a"`, `ls a\ b`, `ls |`, `ls &`, `ls & git push`, `ls;;`,
	`; ls`, `ls && && ls`, `git -c alias.p=push p`, `git p`, `git commit -m x`, `git stash`,
	`ls > out.txt`, `cat < in`, `cat <<EOF`, `ls $HOME`, `ls ${X}`, `ls ~`, `(ls)`, `{ ls; }`,
	`ls [ab]`, `! ls`, `ls # comment`, `echo hi > f`, `python3 x.py`, `env ls`, `sudo ls`,
	`time ls`, `exec ls`, `FOO=1 ls`, `gh pr merge 3`, `npm publish`, `find . -delete`, `git`,
	`cd x && make`, "ls\r", `ls é`, ``, `   `, `ls 2>&1 > out`, `ls 2>out`, `ls x2>&1`, `2>&1`,
	`ls | 2>&1`, `ls >/dev/nullx`, `ls 3>/dev/null`, `find . -exec rm {} +`, `find . -delete`,
	`find . -execdir touch x ;`, `find . -fprint out`, `find . -okdir rm ;`, `ls 2>&1>x`,
}

func TestQuietCases(t *testing.T) {
	for _, c := range quietCases {
		if !quiet(c) || !Inert(c) {
			t.Errorf("quiet(%q) = %v, Inert %v, want true", c, quiet(c), Inert(c))
		}
	}
	for _, c := range loudCases {
		if quiet(c) || Inert(c) {
			t.Errorf("quiet(%q) = %v, Inert %v: it must go to the parser", c, quiet(c), Inert(c))
		}
	}
}

// TestQuietImpliesNothingFound: whenever the prefilter skips the parser,
// the parser would have found nothing (no action, possible action, write,
// possible write, commit or parse error), on every command of the
// package's tests and the cases above.
func TestQuietImpliesNothingFound(t *testing.T) {
	n := 0
	lits := fuzzseed.Literals(".", nil)
	lits = append(lits, quietCases...)
	lits = append(lits, loudCases...)
	for _, c := range lits {
		for _, line := range append([]string{c}, strings.Split(c, "\n")...) {
			if quiet(line) {
				n++
				checkQuiet(t, line)
			}
		}
	}
	if n < len(quietCases) {
		t.Fatalf("only %d quiet lines checked", n)
	}
}

func checkQuiet(t *testing.T, line string) {
	t.Helper()
	// Inert promises the empty analysis whatever the options: labels that
	// name the line's words, and aliases named like its programs and git
	// subcommands that would push.
	aliases := map[string][]string{"status": {"push"}, "log": {"push --force"}, "ls": {"push"}, "cat": {"commit -am x"}, "diff": {"!git push"}}
	for _, opts := range []Options{{}, {DeployLabels: []string{"auto-deploy", "ls", "status"}}, {Aliases: aliases}} {
		if a := classify(line, opts); !reflect.DeepEqual(a, Analysis{}) {
			t.Fatalf("quiet(%q) skips the parser, which finds %+v with %+v", line, a, opts)
		}
	}
}

// FuzzQuiet: the prefilter never skips a line the parser finds anything in.
//
//	go test ./analyze/detect/ship -run '^$' -fuzz FuzzQuiet
func FuzzQuiet(f *testing.F) {
	for _, s := range fuzzseed.Literals(".", nil) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if quiet(line) {
			checkQuiet(t, line)
		}
	})
}

// quietVocab is what FuzzQuietLines builds lines from: quiet and loud
// programs, git subcommands, arguments and separators, so that most lines
// come close to what the prefilter accepts.
var quietVocab = []string{
	"ls", "cat", "grep", "echo", "git", "status", "log", "diff", "push", "commit", "alias", "eval", "xargs",
	"bash", "sh", "-c", "-la", "--stat", "-n", "a.txt", "*.go", "x=y", "main", "origin", "deploy", "gh",
	"pr", "merge", "npm", "publish", "tee", "rm", "sed", "-i", "cd", "true", "|", "||", "&&", ";", "\n",
	"&", " ", "\t", "$", "`", "'", "\"", "\\", ">", "<", "(", ")", "#", "~", "?", "%", "@", ":", ",", "+",
	"2>&1", ">/dev/null", "2>/dev/null", "&>/dev/null", ">&2", "2", "1", "/dev/null", "find", "-exec", "-delete",
	"-type", "f", "-name", "-fprint", "out",
}

// FuzzQuietLines: the same property on lines built from quietVocab.
func FuzzQuietLines(f *testing.F) {
	f.Add([]byte{0, 38, 4, 6, 40, 4, 7, 36, 3, 79})
	f.Add([]byte{1, 20, 37, 2, 32, 36, 5})
	f.Fuzz(func(t *testing.T, picks []byte) {
		var b strings.Builder
		for i, p := range picks {
			if i > 0 && i%2 == 0 {
				b.WriteByte(' ')
			}
			b.WriteString(quietVocab[int(p)%len(quietVocab)])
		}
		if line := b.String(); quiet(line) {
			checkQuiet(t, line)
		}
	})
}

// TestInertCommandMayBeDropped: a reader that keeps only the classification
// of an inert command leaves an empty command in the model; whoever
// classifies that again, with whatever options, finds what the command held.
func TestInertCommandMayBeDropped(t *testing.T) {
	aliases := map[string][]string{"p": {"push"}, "status": {"push"}}
	for _, opts := range []Options{{}, {DeployLabels: []string{}}, {DeployLabels: []string{"", "x"}}, {Aliases: aliases}} {
		if a := Classify("", opts); !reflect.DeepEqual(a, Analysis{}) {
			t.Errorf("Classify(\"\", %+v) = %+v, want the empty analysis", opts, a)
		}
	}
}
