package ship

import (
	"fmt"
	"strings"
	"testing"
)

// TestAliasExpansionsAreBounded: every use of a git alias runs every value
// the run gave it, so a line of many definitions and many uses made actions
// in proportion to their product (a 64 KiB line: 5.4 million). The actions
// must grow with the line, and a use past the bound must still read as a
// possible push.
func TestAliasExpansionsAreBounded(t *testing.T) {
	line := func(defs, uses int) string {
		var b strings.Builder
		for i := range defs {
			fmt.Fprintf(&b, "git config --add alias.p 'push origin b%d'; ", i)
		}
		for range uses {
			b.WriteString("git p; ")
		}
		return b.String()
	}
	const bound = 64 // maxAliasExpansions, written out so that the test does not move with it
	for _, n := range []int{100, 400} {
		cmd := line(n, 4*n)
		a := Classify(cmd, Options{})
		if len(a.Actions) > 4*n+bound {
			t.Errorf("%d definitions, %d uses: %d actions, want at most one a use beyond %d values run", n, 4*n, len(a.Actions), bound)
		}
		if len(a.Actions) == 0 || !a.Actions[len(a.Actions)-1].Possible || a.Actions[len(a.Actions)-1].Kind != KindPush {
			t.Fatalf("%d definitions: a use past the bound is not a possible push: %+v", n, a.Actions[len(a.Actions)-1:])
		}
	}
	// Within the bound every value still runs: two values, two uses.
	a := Classify(line(2, 2), Options{})
	var branches []string
	for _, act := range a.Actions {
		branches = append(branches, act.Branch)
	}
	if got := strings.Join(branches, " "); got != "b0 b1 b0 b1" {
		t.Errorf("two values used twice: branches %q, want %q", got, "b0 b1 b0 b1")
	}
	// Aliases that use aliases: eight values each, four deep.
	var b strings.Builder
	for _, name := range []string{"a", "b", "c", "d"} {
		next := map[string]string{"a": "b", "b": "c", "c": "d", "d": "push origin x"}[name]
		for i := range 8 {
			fmt.Fprintf(&b, "git config --add alias.%s '%s %d'; ", name, next, i)
		}
	}
	b.WriteString("git a")
	if a := Classify(b.String(), Options{}); len(a.Actions) > bound+1 {
		t.Errorf("nested aliases: %d actions, want at most %d", len(a.Actions), bound+1)
	}
}

// TestAliasUnion: values keep the order first given, without repeats, and
// a hundred thousand values of one alias are gathered in linear time (the
// union searched each name's values for every value added: a run of many
// `git config --add` calls was quadratic).
func TestAliasUnion(t *testing.T) {
	var u AliasUnion
	if u.Map() != nil {
		t.Fatal("an empty union is not nil")
	}
	u.Add(map[string][]string{"p": {"push", "status"}})
	u.Add(map[string][]string{"p": {"status", "push -f"}, "q": {"log"}})
	if got := fmt.Sprint(u.Map()); got != "map[p:[push status push -f] q:[log]]" {
		t.Errorf("union = %s", got)
	}
	var big AliasUnion
	for i := range 100_000 {
		big.Add(map[string][]string{"p": {fmt.Sprintf("push origin b%d", i%50_000)}})
	}
	if n := len(big.Map()["p"]); n != 50_000 {
		t.Errorf("%d values, want 50000", n)
	}
}
