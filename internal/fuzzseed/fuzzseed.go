// Package fuzzseed seeds fuzz targets from a package's own table tests: it
// reads the package's _test.go files and returns their string literals, so a
// row, command line or notification added to a table test becomes a fuzz seed
// without being copied by hand.
package fuzzseed

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"strconv"
)

// Literals returns the distinct string literals of the _test.go files in dir
// (the package under test when dir is "."), sorted, keeping those keep
// accepts. Errors yield no seeds rather than failing: a fuzz target still
// runs on its hand-written seeds.
func Literals(dir string, keep func(string) bool) []string {
	files, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
	seen := map[string]bool{}
	fset := token.NewFileSet()
	for _, f := range files {
		af, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			continue
		}
		ast.Inspect(af, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err == nil && !seen[s] && (keep == nil || keep(s)) {
				seen[s] = true
			}
			return true
		})
	}
	out := make([]string, 0, len(seen))
	for s := range seen {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}
