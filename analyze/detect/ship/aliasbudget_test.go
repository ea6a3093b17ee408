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

// TestAliasTextIsBounded: each use of an alias runs its value again, and a
// run may define the alias in another command of up to the command cap. A
// 446-byte line of 64 uses of a 55 KB `!` alias defined elsewhere in the
// run parsed 3.5 MB (0.76 s); a run of such lines cost uses × value bytes.
// A line runs at most maxAliasBytes of alias text: the bytes it allocates
// must not grow with its uses, and a use past the bound is still a possible
// push.
func TestAliasTextIsBounded(t *testing.T) {
	value := "!" + strings.Repeat("echo $(x \"$(y)\") | grep z; ", 8<<10/30) + "git push origin big"
	opts := Options{Aliases: map[string][]string{"p": {value}}}
	line := func(uses int) string {
		return strings.TrimSuffix(strings.Repeat("git p; ", uses), "; ")
	}
	var a Analysis
	one := allocatedBy(func() { a = Classify(line(1), opts) })
	if len(a.Actions) != 1 || a.Actions[0].Branch != "big" || !a.Actions[0].Possible {
		t.Fatalf("one use of a push alias: %+v, want the possible push of its value", a.Actions)
	}
	many := allocatedBy(func() { a = Classify(line(64), opts) })
	if ratio := float64(many) / float64(one); ratio > 8 {
		t.Errorf("64 uses allocate %d bytes, one use %d: %.0f times as much", many, one, ratio)
	}
	last := a.Actions[len(a.Actions)-1]
	if last.Kind != KindPush || !last.Possible || last.Command != "git p" {
		t.Errorf("the last of 64 uses: %+v, want a possible push of %q", last, "git p")
	}
}
