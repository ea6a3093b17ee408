package rules

import (
	"slices"
	"testing"

	"github.com/expr-lang/expr"
)

// TestCompilerMatchesExpr: the shared-configuration compiler gives the
// program expr.Compile gives, and the same error, for every expression of
// the default rules and a set of wrong ones, against every fact kind, in an
// order that moves between kinds and expectations (a configuration reused
// must carry nothing from one expression to the next).
func TestCompilerMatchesExpr(t *testing.T) {
	pack, err := Defaults()
	if err != nil {
		t.Fatal(err)
	}
	srcs := []string{
		"now()", "date('2024-01-01') > date('2023-01-01')", "no_such_field", "1 +", "true", "1",
		"len(description) > 3", "description matches '['", "killed and", "{{", "string(1) + 'a'",
		"let x = 1; x > 0", "all([1, 2], # > 0)", "nil", `"a" in ["a"]`,
	}
	for _, r := range pack.Rules {
		srcs = append(srcs, r.Where)
		_, holes, terr := splitTemplate(r.Message)
		if terr != nil {
			t.Fatalf("%s: %v", r.ID, terr.msg)
		}
		for _, h := range holes {
			srcs = append(srcs, h.src)
		}
	}
	kinds := make([]string, 0, len(factTypes))
	for k := range factTypes {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	var c exprCompiler
	n, ok := 0, 0
	for round := range 2 {
		for _, src := range srcs {
			for _, kind := range kinds {
				for _, asBool := range []bool{round == 0, round != 0} {
					opts := exprOptions(kind)
					if asBool {
						opts = append(opts, expr.AsBool())
					}
					want, werr := expr.Compile(src, opts...)
					got, gerr := c.compile(src, kind, asBool)
					n++
					switch {
					case (werr == nil) != (gerr == nil):
						t.Errorf("%s (%s, bool %v): expr.Compile error %v, compile error %v", src, kind, asBool, werr, gerr)
					case werr != nil:
						if werr.Error() != gerr.Error() {
							t.Errorf("%s (%s, bool %v): errors differ:\n%v\n%v", src, kind, asBool, werr, gerr)
						}
					default:
						ok++
						if w, g := want.Disassemble(), got.Disassemble(); w != g {
							t.Errorf("%s (%s, bool %v): programs differ:\n%s\n%s", src, kind, asBool, w, g)
						}
					}
				}
			}
		}
	}
	if ok < len(pack.Rules) {
		t.Errorf("only %d of %d compiles succeeded: the comparison compares errors only", ok, n)
	}
}
