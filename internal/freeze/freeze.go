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
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"reflect"
	"slices"
	"time"
	"unsafe"
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

// Append is Freeze appending to buf: a caller that knows about how large
// the graph is gives a buffer of that capacity (a large graph's buffer
// grown by doubling cost a third of the time it took to write).
func (c *Codec) Append(buf []byte, root any) ([]byte, error) {
	v := reflect.ValueOf(root)
	if !v.IsValid() || v.Type() != c.root || v.Kind() != reflect.Pointer || v.IsNil() {
		return nil, errors.New("freeze: the root is not a non-nil pointer of the codec's type")
	}
	e := &encoder{c: c, ptrs: map[uintptr]target{}, buf: buf}
	e.buf = binary.BigEndian.AppendUint64(e.buf, c.fp)
	if err := e.value(v); err != nil {
		return nil, err
	}
	if err := e.shared(); err != nil {
		return nil, err
	}
	return e.buf, nil
}

// Thaw reads into root what Append wrote; root's target is replaced.
func (c *Codec) Thaw(data []byte, root any) (err error) {
	v := reflect.ValueOf(root)
	if !v.IsValid() || v.Type() != c.root || v.Kind() != reflect.Pointer || v.IsNil() {
		return errors.New("freeze: the root is not a non-nil pointer of the codec's type")
	}
	if len(data) < 8 || binary.BigEndian.Uint64(data) != c.fp {
		return errors.New("freeze: written for another type graph")
	}
	defer func() {
		// A reflect panic on bytes that decode to something no Go value
		// can hold (a corrupt input): an error like any other.
		if r := recover(); r != nil {
			err = fmt.Errorf("freeze: malformed input: %v", r)
		}
	}()
	d := &decoder{c: c, data: data[8:]}
	var p reflect.Value
	if err := d.pointer(&p, v.Type()); err != nil {
		return err
	}
	if len(d.data) != 0 {
		return errors.New("freeze: bytes after the graph")
	}
	if p.IsNil() {
		return errors.New("freeze: the root is nil")
	}
	v.Elem().Set(p.Elem())
	return nil
}

var timeType = reflect.TypeFor[time.Time]()

// target is a pointer's target met: its number, and the pointer's type.
type target struct {
	id uint64
	t  reflect.Type
}

// region is memory the graph holds: a pointer's target or a slice's
// elements (t: the pointer's or the slice's type).
type region struct {
	from, to uintptr
	t        reflect.Type
}

type encoder struct {
	c       *Codec
	buf     []byte
	ptrs    map[uintptr]target
	regions []region
}

func (e *encoder) uvarint(n uint64) { e.buf = binary.AppendUvarint(e.buf, n) }

// readable is v, or a view of it whose unexported fields can be read.
func readable(v reflect.Value) reflect.Value {
	if v.CanInterface() || !v.CanAddr() {
		return v
	}
	return reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem()
}

func (e *encoder) value(v reflect.Value) error {
	switch v.Kind() {
	case reflect.Bool:
		b := byte(0)
		if v.Bool() {
			b = 1
		}
		e.buf = append(e.buf, b)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		e.buf = binary.AppendVarint(e.buf, v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		e.uvarint(v.Uint())
	case reflect.Float32, reflect.Float64:
		e.buf = binary.BigEndian.AppendUint64(e.buf, math.Float64bits(v.Float()))
	case reflect.String:
		e.uvarint(uint64(v.Len()))
		e.buf = append(e.buf, v.String()...)
	case reflect.Array:
		for i := range v.Len() {
			if err := e.value(v.Index(i)); err != nil {
				return err
			}
		}
	case reflect.Slice:
		return e.slice(v)
	case reflect.Map:
		return e.mapValue(v)
	case reflect.Pointer:
		return e.pointer(v)
	case reflect.Struct:
		return e.structValue(v)
	case reflect.Interface, reflect.Chan, reflect.UnsafePointer, reflect.Func:
		if !v.IsNil() {
			return fmt.Errorf("freeze: a non-nil %s (%s)", v.Kind(), v.Type())
		}
		e.buf = append(e.buf, 0)
	default:
		return fmt.Errorf("freeze: a value of kind %s (%s)", v.Kind(), v.Type())
	}
	return nil
}

func (e *encoder) slice(v reflect.Value) error {
	if v.IsNil() {
		e.uvarint(0)
		return nil
	}
	e.uvarint(uint64(v.Len()) + 1)
	if size := v.Type().Elem().Size(); v.Len() > 0 && size > 0 {
		from := v.Pointer()
		e.regions = append(e.regions, region{from, from + uintptr(v.Len())*size, v.Type()})
	}
	switch v.Type().Elem().Kind() {
	case reflect.Uint8:
		e.buf = append(e.buf, unsafe.Slice((*byte)(v.UnsafePointer()), v.Len())...)
		return nil
	case reflect.Uint64:
		// Eight bytes each: most such lists are of hashes, which a
		// uvarint writes in ten, more slowly.
		for _, x := range unsafe.Slice((*uint64)(v.UnsafePointer()), v.Len()) {
			e.buf = binary.LittleEndian.AppendUint64(e.buf, x)
		}
		return nil
	}
	for i := range v.Len() {
		if err := e.value(readable(v.Index(i))); err != nil {
			return err
		}
	}
	return nil
}

func (e *encoder) mapValue(v reflect.Value) error {
	if v.IsNil() {
		e.uvarint(0)
		return nil
	}
	e.uvarint(uint64(v.Len()) + 1)
	// Map entries are not addressable: each is copied into a value that
	// is, so that its unexported fields can be read.
	k, val := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
	for it := v.MapRange(); it.Next(); {
		k.Set(it.Key())
		val.Set(it.Value())
		if err := e.value(k); err != nil {
			return err
		}
		if err := e.value(val); err != nil {
			return err
		}
	}
	return nil
}

// pointer writes 0 for nil, 1 and the target for a pointer met first, and
// 2+n for the n-th pointer met again.
func (e *encoder) pointer(v reflect.Value) error {
	if v.IsNil() {
		e.uvarint(0)
		return nil
	}
	addr := v.Pointer()
	if tg, ok := e.ptrs[addr]; ok {
		if tg.t != v.Type() {
			// A value and its first field, or one memory seen as two
			// types: a copy would split them.
			return fmt.Errorf("freeze: a %s and a %s share memory", tg.t, v.Type())
		}
		e.uvarint(tg.id + 2)
		return nil
	}
	e.ptrs[addr] = target{uint64(len(e.ptrs)), v.Type()}
	e.uvarint(1)
	if size := v.Type().Elem().Size(); size > 0 {
		e.regions = append(e.regions, region{addr, addr + size, v.Type()})
	}
	return e.value(v.Elem())
}

func (e *encoder) structValue(v reflect.Value) error {
	t := v.Type()
	if t == timeType {
		b, err := readable(v).Interface().(time.Time).MarshalBinary()
		if err != nil {
			return err
		}
		e.uvarint(uint64(len(b)))
		e.buf = append(e.buf, b...)
		return nil
	}
	if !v.CanAddr() {
		c := reflect.New(t).Elem()
		c.Set(v)
		v = c
	}
	for _, i := range e.c.fields[t] {
		if err := e.value(readable(v.Field(i))); err != nil {
			return err
		}
	}
	return nil
}

// shared is an error when two regions of the graph overlap: a pointer into
// a slice's array or into another pointer's target, or two slices sharing
// an array, which a thawed copy would hold apart.
func (e *encoder) shared() error {
	r := e.regions
	slices.SortFunc(r, func(a, b region) int { return cmp.Or(cmp.Compare(a.from, b.from), cmp.Compare(a.to, b.to)) })
	end := 0
	for i := 1; i < len(r); i++ {
		if r[i].from < r[end].to {
			return fmt.Errorf("freeze: a %s and a %s share memory", r[end].t, r[i].t)
		}
		if r[i].to > r[end].to {
			end = i
		}
	}
	return nil
}

type decoder struct {
	c    *Codec
	data []byte
	ptrs []reflect.Value
}

var errShort = errors.New("freeze: the input ends early")

func (d *decoder) uvarint() (uint64, error) {
	n, k := binary.Uvarint(d.data)
	if k <= 0 {
		return 0, errShort
	}
	d.data = d.data[k:]
	return n, nil
}

func (d *decoder) bytes(n uint64) ([]byte, error) {
	if n > uint64(len(d.data)) {
		return nil, errShort
	}
	b := d.data[:n]
	d.data = d.data[n:]
	return b, nil
}

// length reads a count of elements of type t, each of which takes at
// least minSize(t) bytes of the input: a count the rest of the input
// cannot hold is an error before anything is allocated.
func (d *decoder) length(n uint64, t reflect.Type) (int, error) {
	if m := d.c.sizes[t]; m > 0 && n > uint64(len(d.data))/uint64(m) || m == 0 && n > uint64(len(d.data))+1<<16 {
		return 0, errShort
	}
	return int(n), nil
}

// settable is v, or a view of it whose unexported fields can be set.
func settable(v reflect.Value) reflect.Value {
	if v.CanSet() {
		return v
	}
	return reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem()
}

func (d *decoder) value(v reflect.Value) error {
	v = settable(v)
	switch v.Kind() {
	case reflect.Bool:
		b, err := d.bytes(1)
		if err != nil {
			return err
		}
		if b[0] > 1 {
			return errors.New("freeze: not a bool")
		}
		v.SetBool(b[0] == 1)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, k := binary.Varint(d.data)
		if k <= 0 || v.OverflowInt(n) {
			return errShort
		}
		d.data = d.data[k:]
		v.SetInt(n)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		n, err := d.uvarint()
		if err != nil || v.OverflowUint(n) {
			return errShort
		}
		v.SetUint(n)
	case reflect.Float32, reflect.Float64:
		b, err := d.bytes(8)
		if err != nil {
			return err
		}
		v.SetFloat(math.Float64frombits(binary.BigEndian.Uint64(b)))
	case reflect.String:
		n, err := d.uvarint()
		if err != nil {
			return err
		}
		b, err := d.bytes(n)
		if err != nil {
			return err
		}
		v.SetString(string(b))
	case reflect.Array:
		for i := range v.Len() {
			if err := d.value(v.Index(i)); err != nil {
				return err
			}
		}
	case reflect.Slice:
		return d.slice(v)
	case reflect.Map:
		return d.mapValue(v)
	case reflect.Pointer:
		var p reflect.Value
		if err := d.pointer(&p, v.Type()); err != nil {
			return err
		}
		v.Set(p)
	case reflect.Struct:
		return d.structValue(v)
	default: // interface, channel, unsafe pointer, function: nil
		b, err := d.bytes(1)
		if err != nil {
			return err
		}
		if b[0] != 0 {
			return errors.New("freeze: a non-nil " + v.Kind().String())
		}
	}
	return nil
}

func (d *decoder) slice(v reflect.Value) error {
	n, err := d.uvarint()
	if err != nil || n == 0 {
		return err
	}
	l, err := d.length(n-1, v.Type().Elem())
	if err != nil {
		return err
	}
	s := reflect.MakeSlice(v.Type(), l, l)
	switch v.Type().Elem().Kind() {
	case reflect.Uint8:
		b, err := d.bytes(uint64(l))
		if err != nil {
			return err
		}
		copy(unsafe.Slice((*byte)(s.UnsafePointer()), l), b)
		v.Set(s)
		return nil
	case reflect.Uint64:
		b, err := d.bytes(8 * uint64(l))
		if err != nil {
			return err
		}
		out := unsafe.Slice((*uint64)(s.UnsafePointer()), l)
		for i := range out {
			out[i] = binary.LittleEndian.Uint64(b[8*i:])
		}
		v.Set(s)
		return nil
	}
	for i := range l {
		if err := d.value(s.Index(i)); err != nil {
			return err
		}
	}
	v.Set(s)
	return nil
}

func (d *decoder) mapValue(v reflect.Value) error {
	n, err := d.uvarint()
	if err != nil || n == 0 {
		return err
	}
	t := v.Type()
	l, err := d.length(n-1, t.Key())
	if err != nil {
		return err
	}
	m := reflect.MakeMapWithSize(t, l)
	for range l {
		k, val := reflect.New(t.Key()).Elem(), reflect.New(t.Elem()).Elem()
		if err := d.value(k); err != nil {
			return err
		}
		if err := d.value(val); err != nil {
			return err
		}
		m.SetMapIndex(k, val)
	}
	if m.Len() != l {
		return errors.New("freeze: a map's keys repeat")
	}
	v.Set(m)
	return nil
}

func (d *decoder) pointer(out *reflect.Value, t reflect.Type) error {
	n, err := d.uvarint()
	switch {
	case err != nil:
		return err
	case n == 0:
		*out = reflect.Zero(t)
		return nil
	case n == 1:
		p := reflect.New(t.Elem())
		d.ptrs = append(d.ptrs, p)
		*out = p
		return d.value(p.Elem())
	case n-2 >= uint64(len(d.ptrs)) || d.ptrs[n-2].Type() != t:
		return errors.New("freeze: a pointer to nothing read")
	}
	*out = d.ptrs[n-2]
	return nil
}

func (d *decoder) structValue(v reflect.Value) error {
	t := v.Type()
	if t == timeType {
		n, err := d.uvarint()
		if err != nil {
			return err
		}
		b, err := d.bytes(n)
		if err != nil {
			return err
		}
		var tm time.Time
		if err := tm.UnmarshalBinary(b); err != nil {
			return err
		}
		v.Set(reflect.ValueOf(tm))
		return nil
	}
	for _, i := range d.c.fields[t] {
		if err := d.value(v.Field(i)); err != nil {
			return err
		}
	}
	return nil
}
