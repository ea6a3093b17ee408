package ship

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"testing"
)

// benchCommands are the string literals of the package's table tests of
// the classifier (its command lines, among other strings): a mix of quiet
// lines, git and gh invocations, writes, wrappers and nested scripts.
func benchCommands(b *testing.B) []string {
	b.Helper()
	var out []string
	fset := token.NewFileSet()
	for _, name := range []string{"ship_test.go", "gaps_test.go", "invert_test.go", "prefilter_test.go"} {
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			b.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil {
					out = append(out, s)
				}
			}
			return true
		})
	}
	return out
}

// BenchmarkClassify classifies each command of benchCommands once per
// iteration:
//
//	go test ./analyze/detect/ship -run '^$' -bench Classify -benchtime 200x
func BenchmarkClassify(b *testing.B) {
	cmds := benchCommands(b)
	b.ReportAllocs()
	for b.Loop() {
		for _, c := range cmds {
			Classify(c, Options{})
		}
	}
	b.ReportMetric(float64(len(cmds)), "commands")
}
