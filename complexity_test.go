package pmcheck_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// maxComplexity is the most branches a production function may have
// (cyclomatic complexity as gocyclo counts it).
const maxComplexity = 30

// overComplexity are the production functions above maxComplexity today,
// with their complexity: none may grow, a new one may not join, and one
// that drops to maxComplexity or below must be struck off (the list only
// shrinks). Each is to be split into steps with names.
var overComplexity = map[string]int{}

// complexity is gocyclo's count for one function: 1, plus one for each
// if, for, range, non-default case and select case, && and ||.
func complexity(fn *ast.FuncDecl) int {
	c := 1
	ast.Inspect(fn, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.IfStmt, *ast.ForStmt, *ast.RangeStmt:
			c++
		case *ast.CaseClause:
			if n.List != nil {
				c++
			}
		case *ast.CommClause:
			if n.Comm != nil {
				c++
			}
		case *ast.BinaryExpr:
			if n.Op == token.LAND || n.Op == token.LOR {
				c++
			}
		}
		return true
	})
	return c
}

func funcName(pkg string, fn *ast.FuncDecl) string {
	name := fn.Name.Name
	if fn.Recv != nil && len(fn.Recv.List) > 0 {
		t := fn.Recv.List[0].Type
		if s, ok := t.(*ast.StarExpr); ok {
			t = s.X
		}
		if g, ok := t.(*ast.IndexExpr); ok {
			t = g.X
		}
		if id, ok := t.(*ast.Ident); ok {
			name = id.Name + "." + name
		}
	}
	return pkg + "." + name
}

// TestComplexity holds production functions (bench/ and tests aside) to
// maxComplexity, with the ratchet above for today's exceptions.
func TestComplexity(t *testing.T) {
	found := map[string]int{}
	err := filepath.WalkDir(".", func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); n == ".git" || n == "testdata" || n == "bench" || strings.HasPrefix(n, ".") && p != "." {
				return filepath.SkipDir
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
		pkg := filepath.ToSlash(filepath.Dir(p))
		for _, decl := range f.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok {
				if c := complexity(fn); c > maxComplexity {
					found[funcName(pkg, fn)] = c
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for n := range found {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		c := found[n]
		was, listed := overComplexity[n]
		switch {
		case !listed:
			t.Errorf("%s has cyclomatic complexity %d, above %d: split it into named steps", n, c, maxComplexity)
		case c > was:
			t.Errorf("%s grew from complexity %d to %d (the limit is %d): split it instead", n, was, c, maxComplexity)
		}
	}
	for n, was := range overComplexity {
		if _, ok := found[n]; !ok {
			t.Errorf("%s (listed at complexity %d) is at most %d now: strike it off overComplexity", n, was, maxComplexity)
		}
	}
}
