// Package freeze writes a graph of Go values to bytes and reads it back,
// in the same binary: the hook keeps a transcript reader's state between
// two short-lived processes (docs/hooks.md, "What the hook remembers") and
// a reader's state is a graph of pointers (calls and their results, events
// the tail and the lists share), unexported fields, maps keyed by pointers.
// encoding/gob reads none of that, and a codec written field by field for
// each type would be one more thing to keep in step with every change of
// the model.
//
// What it keeps: every field, exported or not, of every value reachable
// from the root, each pointer's target once (two pointers to one value are
// two pointers to one value again, cycles included), maps, slices (length,
// not capacity), strings, times (as time.Time.MarshalBinary keeps them).
// What it refuses (an error, never a wrong copy): a non-nil interface,
// channel or unsafe pointer, and memory two parts of the graph share other
// than through one pointer — a pointer into a slice's array or into a
// value another pointer holds, two slices of one array — which a copy
// would split in two. Fields of function type, and those Options.Skip
// names, are not written and read back zero: the caller sets them again.
//
// The bytes are for the binary that wrote them: they begin with a
// fingerprint of the root's type graph (every type's name, kind and
// fields), and a reader of another graph refuses them. Reading never
// panics on bytes it did not write: a malformed input is an error, and no
// length makes it allocate more than the input's size allows.
package freeze

import (
	"fmt"
	"hash/fnv"
	"reflect"
)

// Options say which fields are left out.
type Options struct {
	// Skip reports whether a field of a struct type is left out (written
	// as nothing, read back zero). Fields of function type always are.
	Skip func(owner reflect.Type, f reflect.StructField) bool
}

func (o Options) skips(owner reflect.Type, f reflect.StructField) bool {
	return f.Type.Kind() == reflect.Func || o.Skip != nil && o.Skip(owner, f)
}

// Codec writes and reads the graphs under one root type with one set of
// options. It knows, made once, the fields written of every struct type of
// the graph, the fewest bytes each type takes and the graph's fingerprint
// (asking Skip of every field of every value, and hashing the type graph
// at every call, cost more than writing a small graph). It is safe for
// concurrent use.
type Codec struct {
	root   reflect.Type
	fields map[reflect.Type][]int
	sizes  map[reflect.Type]int
	coders map[reflect.Type]*coder
	fp     uint64
}

// New makes the codec of the graphs root points to (root: a pointer of
// the type Freeze and Thaw are given; its value is not read).
func New(root any, opts Options) *Codec {
	t := reflect.TypeOf(root)
	c := &Codec{root: t, fields: map[reflect.Type][]int{}, sizes: map[reflect.Type]int{}}
	h := fnv.New64a()
	seen := map[reflect.Type]bool{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		fmt.Fprintf(h, "%s|%s|%d;", t.String(), t.Kind(), t.Size())
		if seen[t] {
			return
		}
		seen[t] = true
		switch t.Kind() {
		case reflect.Array, reflect.Slice, reflect.Pointer:
			walk(t.Elem())
		case reflect.Map:
			walk(t.Key())
			walk(t.Elem())
		case reflect.Struct:
			if t == timeType {
				return
			}
			written := []int{}
			for i := range t.NumField() {
				f := t.Field(i)
				skip := opts.skips(t, f)
				fmt.Fprintf(h, "%s:%v:", f.Name, skip)
				if !skip {
					written = append(written, i)
					walk(f.Type)
				}
			}
			c.fields[t] = written
		}
	}
	walk(t)
	c.fp = h.Sum64()
	for t := range seen {
		c.minSize(t)
	}
	c.coders = map[reflect.Type]*coder{}
	c.coderOf(t) // and every type under it: read only from here on
	return c
}

// minSize is the fewest bytes a value of type t takes in the input.
func (c *Codec) minSize(t reflect.Type) int {
	if n, ok := c.sizes[t]; ok {
		return n
	}
	c.sizes[t] = 0 // a type that holds itself does so through a pointer (1 byte)
	n := 1
	switch t.Kind() {
	case reflect.Array:
		n = t.Len() * c.minSize(t.Elem())
	case reflect.Struct:
		if t == timeType {
			break
		}
		n = 0
		for _, i := range c.fields[t] {
			n += c.minSize(t.Field(i).Type)
		}
	}
	c.sizes[t] = n
	return n
}

// Freeze writes the graph root points to (a non-nil pointer).
func Freeze(root any, opts Options) ([]byte, error) { return New(root, opts).Append(nil, root) }

// Thaw reads into root (a non-nil pointer to the type Freeze was given)
// what Freeze wrote; root's target is replaced.
func Thaw(data []byte, root any, opts Options) error { return New(root, opts).Thaw(data, root) }
