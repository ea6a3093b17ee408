package transcript

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/pmcheck/pmcheck/analyze/model"
)

// The index answers as a map from id to the first call added with it does:
// for ids never added, the empty id, ids that differ in one byte or share a
// prefix, and across growth.
func TestCallIndexIsAMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var x callIndex
	m := map[string]*model.ToolCall{}
	ids := []string{"", "a", "toolu_01", "toolu_02", "toolu_0", "toolu_01x"}
	for i := range 30000 {
		switch rng.IntN(3) {
		case 0:
			ids = append(ids, "toolu_"+strconv.Itoa(i))
		case 1:
			ids = append(ids, strconv.Itoa(rng.IntN(50))) // short: many repeats
		default:
			ids = append(ids, ids[rng.IntN(len(ids))]) // a repeat
		}
	}
	for i, id := range ids {
		if got, want := x.get(id), m[id]; got != want {
			t.Fatalf("get #%d (%q) = %p, a map says %p", i, id, got, want)
		}
		if m[id] == nil && id != "" { // the builder adds ids not found, never the empty one
			c := model.NewToolCall(model.CallInput{ID: id, Name: "Bash"})
			x.add(c)
			m[id] = c
		}
		if probe := id + "?"; x.get(probe) != m[probe] {
			t.Fatalf("get(%q) = %p, a map says %p", probe, x.get(probe), m[probe])
		}
	}
	if x.n != len(m) {
		t.Fatalf("index holds %d calls, the map %d", x.n, len(m))
	}
	for id, c := range m {
		if got := x.get(id); got != c {
			t.Fatalf("after growth, get(%q) = %p, want %p", id, got, c)
		}
	}
	// Emptied for a pooled builder: nothing is found, in the same memory,
	// and calls added then are.
	slots := len(x.slots)
	y := x.emptied()
	for id := range m {
		if y.get(id) != nil {
			t.Fatalf("emptied, get(%q) found a call", id)
		}
	}
	c := model.NewToolCall(model.CallInput{ID: "toolu_01", Name: "Bash"})
	y.add(c)
	if y.get("toolu_01") != c || y.get("toolu_02") != nil || len(y.slots) != slots {
		t.Fatalf("emptied index: get after add = %p, want %p (table of %d slots, was %d)", y.get("toolu_01"), c, len(y.slots), slots)
	}
}
