package freeze

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"
)

type node struct {
	name    string
	next    *node
	friends []*node
	byPtr   map[*node]bool
	at      time.Time
	counts  map[string]int
	arr     [2]int16
	f       func()
	skipped *int
	Public  float64
}

type graph struct {
	root  *node
	all   []*node
	first *node
	flags []bool
}

var skipSkipped = Options{Skip: func(_ reflect.Type, f reflect.StructField) bool { return f.Name == "skipped" }}

func newGraph() *graph {
	a := &node{name: "a", at: time.Date(2026, 12, 2, 10, 0, 0, 5, time.UTC), counts: map[string]int{"x": 3}, arr: [2]int16{-1, 7}, Public: 2.5}
	b := &node{name: "b", at: time.Date(2026, 1, 1, 0, 0, 0, 0, time.FixedZone("X", 3600))}
	c := &node{name: "c"}
	a.next, b.next, c.next = b, c, a // a cycle
	a.friends = []*node{b, c, b}
	b.byPtr = map[*node]bool{a: true, c: false}
	one := 1
	a.skipped = &one
	a.f = func() {}
	return &graph{root: a, all: []*node{a, b, c}, first: a, flags: []bool{true, false}}
}

// TestRoundTripKeepsTheGraph: the thawed graph has the same values and the
// same sharing (one node per node, however many pointers lead to it), and
// skipped and function fields come back zero.
func TestRoundTripKeepsTheGraph(t *testing.T) {
	g := newGraph()
	data, err := Freeze(g, skipSkipped)
	if err != nil {
		t.Fatal(err)
	}
	var h graph
	if err := Thaw(data, &h, skipSkipped); err != nil {
		t.Fatal(err)
	}
	a, b, c := h.root, h.root.next, h.root.next.next
	if a.name != "a" || b.name != "b" || c.name != "c" || c.next != a || h.first != a || h.all[1] != b || h.all[2] != c {
		t.Fatalf("nodes or sharing lost: %+v", h)
	}
	if a.friends[0] != b || a.friends[2] != b || a.friends[1] != c {
		t.Error("a slice's pointers no longer point at the nodes")
	}
	if len(b.byPtr) != 2 || !b.byPtr[a] || b.byPtr[c] {
		t.Errorf("a map keyed by pointers: %v", b.byPtr)
	}
	if !a.at.Equal(g.root.at) || !b.at.Equal(g.root.next.at) || b.at.Format(time.RFC3339) != g.root.next.at.Format(time.RFC3339) {
		t.Errorf("times: %v %v", a.at, b.at)
	}
	if a.counts["x"] != 3 || a.arr != [2]int16{-1, 7} || a.Public != 2.5 || !reflect.DeepEqual(h.flags, []bool{true, false}) {
		t.Errorf("values: %+v", a)
	}
	if a.skipped != nil || a.f != nil {
		t.Error("a skipped or function field came back")
	}
	if c.friends != nil || c.byPtr != nil || b.counts != nil {
		t.Error("a nil slice or map came back non-nil")
	}
}

type holder struct {
	items []item
	p     *item
	s     []int
	t     []int
	iface any
}

type item struct{ n int }

// TestRefusesWhatACopyWouldSplit: memory the graph reaches two ways other
// than through one pointer, and values it cannot copy, are errors.
func TestRefusesWhatACopyWouldSplit(t *testing.T) {
	items := []item{{1}, {2}}
	h := &holder{items: items, p: &items[1]}
	if _, err := Freeze(h, Options{}); err == nil || !strings.Contains(err.Error(), "share memory") {
		t.Errorf("a pointer into a slice's array: %v", err)
	}
	s := []int{1, 2, 3}
	h = &holder{s: s, t: s[1:]}
	if _, err := Freeze(h, Options{}); err == nil {
		t.Error("two slices of one array were not refused")
	}
	h = &holder{iface: 1}
	if _, err := Freeze(h, Options{}); err == nil {
		t.Error("a non-nil interface was not refused")
	}
	if _, err := Freeze(holder{}, Options{}); err == nil {
		t.Error("a root that is not a pointer was not refused")
	}
}

// TestThawRefusesOtherBytes: another type graph's bytes, bytes cut short,
// trailing bytes and every single-byte change are errors or a graph, never
// a panic.
func TestThawRefusesOtherBytes(t *testing.T) {
	data, err := Freeze(newGraph(), skipSkipped)
	if err != nil {
		t.Fatal(err)
	}
	var h holder
	if err := Thaw(data, &h, Options{}); err == nil {
		t.Error("bytes of another type graph were read")
	}
	var g graph
	if err := Thaw(data, &g, Options{}); err == nil {
		t.Error("the same graph with other skipped fields was read")
	}
	if err := Thaw(append(bytes.Clone(data), 0), &g, skipSkipped); err == nil {
		t.Error("trailing bytes were read")
	}
	for n := range len(data) {
		if err := Thaw(data[:n], &g, skipSkipped); err == nil {
			t.Errorf("cut at %d: read", n)
		}
	}
	for i := 8; i < len(data); i++ {
		for _, x := range []byte{0x01, 0x80, 0xff} {
			c := bytes.Clone(data)
			c[i] ^= x
			_ = Thaw(c, &g, skipSkipped) // must not panic
		}
	}
}

// FuzzThaw: no input makes Thaw panic or allocate beyond its size allows.
func FuzzThaw(f *testing.F) {
	data, err := Freeze(newGraph(), skipSkipped)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add(data[:20])
	f.Fuzz(func(t *testing.T, in []byte) {
		var g graph
		if err := Thaw(in, &g, skipSkipped); err != nil {
			return
		}
		// What reads must write back and read again to the same graph.
		out, err := Freeze(&g, skipSkipped)
		if err != nil {
			t.Fatalf("a thawed graph does not freeze: %v", err)
		}
		var g2 graph
		if err := Thaw(out, &g2, skipSkipped); err != nil {
			t.Fatalf("a refrozen graph does not thaw: %v", err)
		}
	})
}
