package shell_test

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/pmcheck/pmcheck/analyze/detect/ship"
	"github.com/pmcheck/pmcheck/analyze/shell"
	"github.com/pmcheck/pmcheck/internal/fuzzseed"
	"github.com/pmcheck/pmcheck/internal/testcorpus"
	"mvdan.cc/sh/v3/syntax"
)

// astDepth is how deeply the parser nested to build n: the most levels
// of recursion on a path from n down, a level for each node the parser
// parses inside its own call (compound commands, substitutions,
// expansions, arithmetic parentheses and unary operators, [[ ]]
// parentheses and !) and for the right side of operators it parses by
// recursion (arithmetic assignments, ** and ?:, && and || in [[ ]]).
// What it builds in a loop adds nothing: a && b && c, a | b, elif, and
// the left-associative arithmetic operators.
func astDepth(n syntax.Node) int {
	var children []syntax.Node
	syntax.Walk(n, func(c syntax.Node) bool {
		if c == n {
			return true
		}
		if c != nil {
			children = append(children, c)
		}
		return false
	})
	deepest := 0
	for _, c := range children {
		deepest = max(deepest, astDepth(c)+edgeLevel(n, c))
	}
	return levelOf(n) + deepest
}

// levelOf is the recursion one node costs the parser.
func levelOf(n syntax.Node) int {
	switch n := n.(type) {
	case *syntax.Subshell, *syntax.Block, *syntax.IfClause, *syntax.WhileClause, *syntax.ForClause,
		*syntax.CaseClause, *syntax.FuncDecl, *syntax.TimeClause, *syntax.CoprocClause, *syntax.TestClause,
		*syntax.ParenTest, *syntax.CmdSubst, *syntax.ProcSubst, *syntax.ArithmExp, *syntax.ArithmCmd,
		*syntax.ParenArithm, *syntax.UnaryArithm, *syntax.LetClause:
		return 1
	case *syntax.ParamExp:
		if !n.Short {
			return 1
		}
	case *syntax.UnaryTest:
		if n.Op == syntax.TsNot {
			return 1
		}
	}
	return 0
}

// edgeLevel is the recursion the parser adds from parent to child.
func edgeLevel(parent, child syntax.Node) int {
	switch p := parent.(type) {
	case *syntax.IfClause:
		if ic, ok := child.(*syntax.IfClause); ok && p.Else == ic {
			return -1 // elif: the parser loops
		}
	case *syntax.BinaryArithm:
		if child != syntax.Node(p.Y) {
			return 0
		}
		switch p.Op {
		case syntax.Assgn, syntax.AddAssgn, syntax.SubAssgn, syntax.MulAssgn, syntax.QuoAssgn, syntax.RemAssgn,
			syntax.AndAssgn, syntax.OrAssgn, syntax.XorAssgn, syntax.ShlAssgn, syntax.ShrAssgn, syntax.Pow, syntax.TernQuest:
			return 1
		}
	case *syntax.BinaryTest:
		if child == syntax.Node(p.Y) && (p.Op == syntax.AndTest || p.Op == syntax.OrTest) {
			return 1
		}
	}
	return 0
}

func TestNestingBoundIsAnUpperBound(t *testing.T) {
	for _, src := range []string{
		"((((1))))", "echo $(( (((1))) ))", "$($($(a)))", "{ { { a; }; }; }", "if if a; then b; fi; then c; fi",
		"f() g() { :; }", "time time time a", "coproc coproc a", "[[ ! ! a && b || ( c ) ]]",
		"echo $((a=a=a?b:c**d**e))", "a[1+1]=x", "echo ${a:-${b:-$(c)}}", "let a=-(-(-1))",
		"case x in a) (b) ;; (c) case y in d) e ;; esac ;; esac", "echo \"$(echo \"$(echo)\")\"",
		"cat <<E\n$(a $(b))\nE\n", "x=`echo \\`a\\``", "for ((i=0;i<3;i++)); do while a; do until b; do c; done; done; done",
		"if a; then b; elif c; then d; elif e; then f; else g; fi", "a && b && c && d || e | f | g",
	} {
		f, err := shell.Parse(src)
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		if d, b := astDepth(f), shell.ScanNesting(src, math.MaxInt); d > b {
			t.Errorf("%q nests %d levels, bound %d", src, d, b)
		}
	}
}

// FuzzNestingBound: for any line that parses, the parser's nesting (the
// syntax tree's, astDepth) is at most nestingBound's estimate, so that no
// line nests deeper than maxNesting and is still parsed (a longer run:
// go test ./analyze/shell -run '^$' -fuzz '^FuzzNestingBound$' -parallel 1 -fuzztime 5m).
func FuzzNestingBound(f *testing.F) {
	for _, s := range fuzzseed.Literals(".", nil) {
		f.Add(s)
	}
	// The classifier's table tests hold most of the commands.
	for _, s := range fuzzseed.Literals(filepath.Join("..", "detect", "ship"), nil) {
		f.Add(s)
	}
	for _, s := range deepShapes(4) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 4096 {
			return
		}
		type result struct{ depth, bound int }
		done := make(chan result, 1)
		go func() {
			b := shell.ScanNesting(src, math.MaxInt)
			file, err := shell.Parse(src)
			if err != nil {
				done <- result{-1, b}
				return
			}
			done <- result{astDepth(file), b}
		}()
		select {
		case r := <-done:
			if r.depth > r.bound {
				t.Fatalf("%q nests %d levels, bound %d", src, r.depth, r.bound)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%q: no answer within 5s", src)
		}
	})
}

// deepShapes are lines that nest levels deep, one for each way the parser
// recurses.
func deepShapes(levels int) []string {
	r := strings.Repeat
	return []string{
		r("(", levels),
		r("$(", levels),
		"echo $(( " + r("(", levels) + "1 ))",
		r("{ ", levels),
		r("if ", levels),
		r("while ", levels),
		r("case a in a) ", levels),
		"echo " + r(`"$(`, levels),
		"echo " + r("${a:-", levels),
		r("cat <(", levels),
		"echo $(( " + r("- ", levels) + "1 ))",
		"echo $(( " + r("a=", levels) + "1 ))",
		"[[ " + r("! ", levels) + "a ]]",
		"[[ " + r("a && ", levels) + "a ]]",
		r("time ", levels) + "a",
		r("f() ", levels) + "{ :; }",
		"a[" + r("-", levels) + "1]=x",
	}
}

// bypassShapes hide the closers of their openers from a naive count, so
// that a count of ( against ) finds nothing open: a level a repeat.
var bypassShapes = []string{
	`( ")" `, "( ')' ", "( $')' ", `( \) `, "( #)\n", "( cat <<E\n)\nE\n", "( cat <<'E'\n)\nE\n",
	"( cat <<-E\n\t)\n\tE\n", "( case a in a) ", "( echo ${a:-)} ", "{ echo }; ", "if a=1 fi; ",
	"( echo `)` ", "$( : \"$(\" ) ", "( [[ a ]] && ( ",
}

// repeatTo repeats unit to about n bytes.
func repeatTo(unit string, n int) string {
	return strings.Repeat(unit, max(1, n/len(unit)))
}

// TestDeepLinesAreNotParsed: a line nested deeper than maxNesting, however
// its closers are hidden, is not parsed (the parser's stack grows with the
// nesting: 60,000 ( took 426 MB) and reads as a line the parser rejects:
// possibly writing, and a push it names is a possible push.
func TestDeepLinesAreNotParsed(t *testing.T) {
	var lines []string
	for _, s := range deepShapes(20000) {
		lines = append(lines, s[:min(len(s), 60<<10)])
	}
	for _, unit := range bypassShapes {
		lines = append(lines, repeatTo(unit, 60<<10))
	}
	for _, line := range lines {
		for _, l := range []string{line, "git push origin main; " + line, line + "\ngit push origin main"} {
			a := ship.Classify(l, ship.Options{})
			if a.ParseError != shell.ErrTooDeep.Error() || !a.MayWrite {
				t.Errorf("%.40q…: parse error %q, may write %v; want %q", l, a.ParseError, a.MayWrite, shell.ErrTooDeep)
				continue
			}
			if strings.Contains(l, "git push") && (len(a.Actions) == 0 || a.Actions[0].Kind != ship.KindPush) {
				t.Errorf("%.40q…: actions %+v, want a push", l, a.Actions)
			}
		}
	}
}

// TestDeepLinesCostTheParserNoMore: what the parser is handed nests at most
// MaxNesting levels however deep the line, and the stack a classification
// grows stays small: before the bound, both grew with the line.
func TestDeepLinesCostTheParserNoMore(t *testing.T) {
	deepest := 0
	shell.SetParsing(func(src string) {
		if f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), ""); f != nil && err == nil {
			deepest = max(deepest, astDepth(f))
		}
	})
	defer shell.SetParsing(nil)
	for _, levels := range []int{1000, 2000, 4000} {
		for i, line := range deepShapes(levels) {
			line += " x ; git push"
			deepest = 0
			stack := stackGrowth(func() { ship.Classify(line, ship.Options{}) })
			if deepest > shell.MaxNesting {
				t.Errorf("shape %d, %d levels: the parser nested %d levels", i, levels, deepest)
			}
			if stack > 4<<20 {
				t.Errorf("shape %d, %d levels: classifying grew the stack by %d bytes", i, levels, stack)
			}
		}
	}
}

// stackGrowth runs f on a new goroutine and returns how much the stacks in
// use grew by its end.
func stackGrowth(f func()) uint64 {
	var before, after runtime.MemStats
	done := make(chan struct{})
	runtime.GC()
	runtime.ReadMemStats(&before)
	go func() {
		defer close(done)
		f()
		runtime.ReadMemStats(&after)
	}()
	<-done
	if after.StackInuse < before.StackInuse {
		return 0
	}
	return after.StackInuse - before.StackInuse
}

// TestLongLegitimateLinesAreParsed: long commands people run — a script
// written through a quoted here-document, a commit message through
// $(cat <<'EOF' …), a chain of hundreds of commands, a long case and many
// substitutions in turn — nest a few levels and are parsed.
func TestLongLegitimateLinesAreParsed(t *testing.T) {
	var py strings.Builder
	py.WriteString("cat > x.py <<'EOF'\n")
	for py.Len() < 60<<10 {
		py.WriteString("def f(a, b):  # don't (call) it if ((a)) isn't ready: {x}\n    if (a and (b or (not a))):\n        return [(i, j) for (i, j) in zip(a, b)]  # it's $(fine) `x`\n")
	}
	py.WriteString("EOF\npython3 x.py")
	var msg strings.Builder
	msg.WriteString("git add -A && git commit -m \"$(cat <<'EOF'\nFix: the (nested) things\n\n")
	for msg.Len() < 30<<10 {
		msg.WriteString("- if (a) then (b); case x in y) don't ${stop} $(here) `now`\n")
	}
	msg.WriteString("EOF\n)\" && git push origin main")
	var chain []string
	for i := range 500 {
		chain = append(chain, "test -f f"+strings.Repeat("x", i%7)+" && echo \"$(date) (ok)\"")
	}
	var script strings.Builder
	for script.Len() < 60<<10 {
		script.WriteString("if [ -n \"$(git status --porcelain)\" ]; then { echo \"a (b)\"; x=$((x + 1)); }; fi\n")
		script.WriteString("case \"$x\" in a|b) echo ${x:-none} ;; (c) ( cd d && ls ) ;; esac\n")
		script.WriteString("for f in $(ls); do while read -r l; do echo \"$l\"; done < \"$f\"; done\n")
		script.WriteString("f() { [[ ! -f $1 && ( -d $1 || -L $1 ) ]] && return 1; }; arr=(a b) # (\n")
	}
	for _, line := range []string{py.String(), msg.String(), strings.Join(chain, " && "), script.String()} {
		if b := shell.NestingBound(line, shell.MaxNesting); b > shell.MaxNesting {
			t.Errorf("%.60q… (%d bytes): bound %d", line, len(line), b)
		}
		if a := ship.Classify(line, ship.Options{}); a.ParseError != "" {
			t.Errorf("%.60q…: %s", line, a.ParseError)
		}
	}
}

// TestRealCommandsAreParsed: every shell command in the fixtures and the
// corpus (PMCHECK_CORPUS) is within the bound, so each is classified as
// before.
func TestRealCommandsAreParsed(t *testing.T) {
	roots := testcorpus.With(t, filepath.Join("..", "..", "fixtures"))
	commands, long := 0, 0
	for _, root := range roots {
		err := filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
			if err != nil || info.IsDir() || !strings.HasSuffix(p, ".jsonl") {
				return err
			}
			f, err := os.Open(p)
			if err != nil {
				return err
			}
			defer f.Close()
			sc := bufio.NewScanner(f)
			sc.Buffer(nil, 64<<20)
			for sc.Scan() {
				var v any
				if json.Unmarshal(sc.Bytes(), &v) != nil {
					continue
				}
				eachCommand(v, func(cmd string) {
					commands++
					if len(cmd) > shell.MaxNesting {
						long++
					}
					if b := shell.NestingBound(cmd, shell.MaxNesting); b > shell.MaxNesting {
						t.Errorf("%s: %.80q… (%d bytes): bound %d", p, cmd, len(cmd), b)
					}
				})
			}
			return sc.Err()
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	// The shapes of the corpus's long commands, so the bound is tested
	// without it too: a commit message from a heredoc, a chain of steps.
	for _, cmd := range []string{
		"git add -A && git commit -m \"$(cat <<'EOF'\nfix(parser): keep the tail of a torn line\n\nThe reader dropped the last row when the file ended without a newline;\nit now keeps it and reports the file as torn.\n\nCo-Authored-By: Claude <noreply@anthropic.com>\nEOF\n)\" && git push origin HEAD",
		"cd /work/repo && npm ci --no-audit --no-fund && npm run build -- --mode production && npm test -- --runInBand --coverage=false && (grep -rn \"TODO\" src || true) | head -n 50 && for f in dist/*.js; do gzip -9 -c \"$f\" | wc -c; done && echo done",
	} {
		commands++
		if len(cmd) > shell.MaxNesting {
			long++
		}
		if b := shell.NestingBound(cmd, shell.MaxNesting); b > shell.MaxNesting {
			t.Errorf("%.80q… (%d bytes): bound %d", cmd, len(cmd), b)
		}
	}
	if commands == 0 || long == 0 {
		t.Fatalf("%d commands, %d longer than %d bytes: nothing tested", commands, long, shell.MaxNesting)
	}
	t.Logf("%d commands, %d longer than %d bytes", commands, long, shell.MaxNesting)
}

// eachCommand calls f with every string under a "command" or "cmd" key in
// v, and in function-call arguments that hold JSON.
func eachCommand(v any, f func(string)) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			switch s, _ := x.(string); {
			case (k == "command" || k == "cmd") && s != "":
				f(s)
			case k == "arguments" && strings.HasPrefix(s, "{"):
				var inner any
				if json.Unmarshal([]byte(s), &inner) == nil {
					eachCommand(inner, f)
				}
			}
			if arr, ok := x.([]any); ok && (k == "command" || k == "cmd") {
				var parts []string
				for _, a := range arr {
					if s, ok := a.(string); ok {
						parts = append(parts, s)
					}
				}
				f(strings.Join(parts, " "))
			}
			eachCommand(x, f)
		}
	case []any:
		for _, x := range v {
			eachCommand(x, f)
		}
	}
}
