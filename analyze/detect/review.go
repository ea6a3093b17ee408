package detect

import (
	"sort"
	"strings"

	"github.com/pmcheck/pmcheck/analyze/interpret"
)

// nameIndex finds which items a text names (killedItem.namedBy), for many
// texts at once: an Aho-Corasick automaton over every item's names (lower
// case), so each text is read once whatever the number of items, and names
// that share a prefix (tool-use ids all start "toolu_") cost nothing extra.
// Searching each item's names in each text grew with items × texts.
//
// Only the first indexedPrefix bytes of a name go into the automaton, and a
// match of that prefix is confirmed against the whole name in the text: a
// hostile run of thousands of killed subagents with kilobyte descriptions
// would otherwise build one automaton node per description byte.
type nameIndex struct {
	next  map[uint64]int32 // node<<8 | byte -> child node
	fail  []int32
	depth []int32
	out   [][]nameRef // names whose indexed prefix ends at the node
	dict  []int32     // nearest node on the failure chain with an output, or -1
	exact map[string][]int
}

// nameRef is one item's name (lower case) whose indexed prefix ends at a node.
type nameRef struct {
	item int
	name string
}

// indexedPrefix is how many bytes of each name the automaton holds.
const indexedPrefix = 32

func newNameIndex(items []*killedItem) *nameIndex {
	x := &nameIndex{next: map[uint64]int32{}, fail: []int32{0}, depth: []int32{0}, out: [][]nameRef{nil}, dict: []int32{-1}, exact: map[string][]int{}}
	add := func(s string, item int) {
		node := int32(0)
		for i := 0; i < len(s) && i < indexedPrefix; i++ {
			key := uint64(node)<<8 | uint64(s[i])
			child, ok := x.next[key]
			if !ok {
				child = int32(len(x.fail))
				x.next[key] = child
				x.fail = append(x.fail, 0)
				x.depth = append(x.depth, x.depth[node]+1)
				x.out = append(x.out, nil)
				x.dict = append(x.dict, -1)
			}
			node = child
		}
		x.out[node] = append(x.out[node], nameRef{item, s})
	}
	for i, k := range items {
		for _, s := range []string{k.id, k.toolUseID} {
			if len(s) >= 7 {
				add(strings.ToLower(s), i)
			}
		}
		if k.kind == "subagent" && len(k.name) >= 8 && k.name != interpret.NoDescription {
			add(strings.ToLower(k.name), i)
		}
		for _, s := range k.names() {
			e := strings.ToLower(strings.TrimSpace(s))
			x.exact[e] = append(x.exact[e], i)
		}
	}
	// Failure links, breadth first: children by node, in byte order so the
	// automaton is the same on every run.
	children := make([][]uint64, len(x.fail))
	for key := range x.next {
		children[key>>8] = append(children[key>>8], key)
	}
	for _, c := range children {
		sort.Slice(c, func(i, j int) bool { return c[i] < c[j] })
	}
	queue := []int32{0}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, key := range children[n] {
			child, b := x.next[key], byte(key)
			if n != 0 {
				f := x.fail[n]
				for {
					if c, ok := x.next[uint64(f)<<8|uint64(b)]; ok {
						x.fail[child] = c
						break
					}
					if f == 0 {
						break
					}
					f = x.fail[f]
				}
			}
			if fc := x.fail[child]; len(x.out[fc]) > 0 {
				x.dict[child] = fc
			} else {
				x.dict[child] = x.dict[fc]
			}
			queue = append(queue, child)
		}
	}
	return x
}

// named returns, sorted, the items text names: an id or description of the
// item occurs in it (case-insensitively), or, with exact, text is one of the
// item's names.
func (x *nameIndex) named(text string, exact bool) []int {
	seen := map[int]bool{}
	low := strings.ToLower(text)
	node := int32(0)
	for i := 0; i < len(low); i++ {
		b := uint64(low[i])
		for {
			if c, ok := x.next[uint64(node)<<8|b]; ok {
				node = c
				break
			}
			if node == 0 {
				break
			}
			node = x.fail[node]
		}
		for n := node; n > 0; n = x.dict[n] {
			start := i + 1 - int(x.depth[n])
			for _, r := range x.out[n] {
				if !seen[r.item] && strings.HasPrefix(low[start:], r.name) {
					seen[r.item] = true
				}
			}
			if x.dict[n] < 0 {
				break
			}
		}
	}
	if exact {
		for _, it := range x.exact[strings.ToLower(strings.TrimSpace(text))] {
			seen[it] = true
		}
	}
	out := make([]int, 0, len(seen))
	for it := range seen {
		out = append(out, it)
	}
	sort.Ints(out)
	return out
}
