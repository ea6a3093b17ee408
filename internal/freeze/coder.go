package freeze

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"time"
	"unsafe"
)

// Each type of the graph has a coder, made once by its Codec: functions
// that write and read a value of the type where it lies in memory. A
// reflect.Value per field of every value cost three quarters of the time
// of a thaw (a session's readers hold tens of thousands of calls and
// events); a coder reads a field at its offset.

// coder writes and reads values of one type at p, the value's address.
type coder struct {
	enc func(e *encoder, p unsafe.Pointer) error
	dec func(d *decoder, p unsafe.Pointer) error
}

var timeType = reflect.TypeFor[time.Time]()

// sliceHeader is the memory of a slice value.
type sliceHeader struct {
	data     unsafe.Pointer
	len, cap int
}

// coderOf is the coder of t, made on first use (a type that holds itself
// through a pointer finds its own coder while it is being made).
func (c *Codec) coderOf(t reflect.Type) *coder {
	if k, ok := c.coders[t]; ok {
		return k
	}
	k := &coder{}
	c.coders[t] = k
	switch t.Kind() {
	case reflect.Bool:
		k.enc, k.dec = encBool, decBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		switch t.Size() {
		case 1:
			k.enc, k.dec = signedCoder[int8]()
		case 2:
			k.enc, k.dec = signedCoder[int16]()
		case 4:
			k.enc, k.dec = signedCoder[int32]()
		default:
			k.enc, k.dec = signedCoder[int64]()
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		switch t.Size() {
		case 1:
			k.enc, k.dec = unsignedCoder[uint8]()
		case 2:
			k.enc, k.dec = unsignedCoder[uint16]()
		case 4:
			k.enc, k.dec = unsignedCoder[uint32]()
		default:
			k.enc, k.dec = unsignedCoder[uint64]()
		}
	case reflect.Float32:
		k.enc = func(e *encoder, p unsafe.Pointer) error {
			e.buf = binary.BigEndian.AppendUint64(e.buf, math.Float64bits(float64(*(*float32)(p))))
			return nil
		}
		k.dec = func(d *decoder, p unsafe.Pointer) error {
			b, err := d.bytes(8)
			if err == nil {
				*(*float32)(p) = float32(math.Float64frombits(binary.BigEndian.Uint64(b)))
			}
			return err
		}
	case reflect.Float64:
		k.enc = func(e *encoder, p unsafe.Pointer) error {
			e.buf = binary.BigEndian.AppendUint64(e.buf, math.Float64bits(*(*float64)(p)))
			return nil
		}
		k.dec = func(d *decoder, p unsafe.Pointer) error {
			b, err := d.bytes(8)
			if err == nil {
				*(*float64)(p) = math.Float64frombits(binary.BigEndian.Uint64(b))
			}
			return err
		}
	case reflect.String:
		k.enc, k.dec = encString, decString
	case reflect.Array:
		c.arrayCoder(k, t)
	case reflect.Slice:
		c.sliceCoder(k, t)
	case reflect.Map:
		c.mapCoder(k, t)
	case reflect.Pointer:
		c.pointerCoder(k, t)
	case reflect.Struct:
		c.structCoder(k, t)
	default: // interface, channel, unsafe pointer, function: nil only
		k.enc = func(e *encoder, p unsafe.Pointer) error {
			if !reflect.NewAt(t, p).Elem().IsNil() {
				return fmt.Errorf("freeze: a non-nil %s (%s)", t.Kind(), t)
			}
			e.buf = append(e.buf, 0)
			return nil
		}
		k.dec = func(d *decoder, p unsafe.Pointer) error {
			b, err := d.bytes(1)
			if err == nil && b[0] != 0 {
				err = errors.New("freeze: a non-nil " + t.Kind().String())
			}
			return err
		}
	}
	return k
}

func encBool(e *encoder, p unsafe.Pointer) error {
	b := byte(0)
	if *(*bool)(p) {
		b = 1
	}
	e.buf = append(e.buf, b)
	return nil
}

func decBool(d *decoder, p unsafe.Pointer) error {
	b, err := d.bytes(1)
	if err != nil {
		return err
	}
	if b[0] > 1 {
		return errors.New("freeze: not a bool")
	}
	*(*bool)(p) = b[0] == 1
	return nil
}

// signedCoder writes and reads an integer of type T (a field's size picks
// T: an int is an int64 or an int32 in memory) as a varint; a value read
// that T cannot hold is an error.
func signedCoder[T int8 | int16 | int32 | int64]() (func(*encoder, unsafe.Pointer) error, func(*decoder, unsafe.Pointer) error) {
	enc := func(e *encoder, p unsafe.Pointer) error {
		e.buf = binary.AppendVarint(e.buf, int64(*(*T)(p)))
		return nil
	}
	dec := func(d *decoder, p unsafe.Pointer) error {
		n, k := binary.Varint(d.data)
		if k <= 0 || int64(T(n)) != n {
			return errShort
		}
		d.data = d.data[k:]
		*(*T)(p) = T(n)
		return nil
	}
	return enc, dec
}

// unsignedCoder is signedCoder for unsigned integers, as uvarints.
func unsignedCoder[T uint8 | uint16 | uint32 | uint64]() (func(*encoder, unsafe.Pointer) error, func(*decoder, unsafe.Pointer) error) {
	enc := func(e *encoder, p unsafe.Pointer) error {
		e.uvarint(uint64(*(*T)(p)))
		return nil
	}
	dec := func(d *decoder, p unsafe.Pointer) error {
		n, err := d.uvarint()
		if err != nil || uint64(T(n)) != n {
			return errShort
		}
		*(*T)(p) = T(n)
		return nil
	}
	return enc, dec
}

func encString(e *encoder, p unsafe.Pointer) error {
	s := *(*string)(p)
	e.uvarint(uint64(len(s)))
	e.buf = append(e.buf, s...)
	return nil
}

func decString(d *decoder, p unsafe.Pointer) error {
	n, err := d.uvarint()
	if err != nil {
		return err
	}
	b, err := d.bytes(n)
	if err != nil {
		return err
	}
	*(*string)(p) = string(b)
	return nil
}

func (c *Codec) arrayCoder(k *coder, t reflect.Type) {
	elem, size, n := c.coderOf(t.Elem()), t.Elem().Size(), uintptr(t.Len())
	k.enc = func(e *encoder, p unsafe.Pointer) error {
		for i := range n {
			if err := elem.enc(e, unsafe.Add(p, i*size)); err != nil {
				return err
			}
		}
		return nil
	}
	k.dec = func(d *decoder, p unsafe.Pointer) error {
		for i := range n {
			if err := elem.dec(d, unsafe.Add(p, i*size)); err != nil {
				return err
			}
		}
		return nil
	}
}

func (c *Codec) structCoder(k *coder, t reflect.Type) {
	if t == timeType {
		k.enc = func(e *encoder, p unsafe.Pointer) error {
			b, err := (*time.Time)(p).MarshalBinary()
			e.uvarint(uint64(len(b)))
			e.buf = append(e.buf, b...)
			return err
		}
		k.dec = func(d *decoder, p unsafe.Pointer) error {
			n, err := d.uvarint()
			if err != nil {
				return err
			}
			b, err := d.bytes(n)
			if err != nil {
				return err
			}
			return (*time.Time)(p).UnmarshalBinary(b)
		}
		return
	}
	type field struct {
		off uintptr
		k   *coder
	}
	var fields []field
	for _, i := range c.fields[t] {
		f := t.Field(i)
		fields = append(fields, field{f.Offset, c.coderOf(f.Type)})
	}
	k.enc = func(e *encoder, p unsafe.Pointer) error {
		for _, f := range fields {
			if err := f.k.enc(e, unsafe.Add(p, f.off)); err != nil {
				return err
			}
		}
		return nil
	}
	k.dec = func(d *decoder, p unsafe.Pointer) error {
		for _, f := range fields {
			if err := f.k.dec(d, unsafe.Add(p, f.off)); err != nil {
				return err
			}
		}
		return nil
	}
}

// A slice is written as 0 (nil) or its length + 1, then its elements;
// bytes as they are, uint64s eight bytes each (most such lists are of
// hashes, which a uvarint writes in ten, more slowly).
func (c *Codec) sliceCoder(k *coder, t reflect.Type) {
	elem, size, kind := c.coderOf(t.Elem()), t.Elem().Size(), t.Elem().Kind()
	minSize := c.sizes[t.Elem()]
	k.enc = func(e *encoder, p unsafe.Pointer) error {
		h := (*sliceHeader)(p)
		if h.data == nil {
			e.uvarint(0)
			return nil
		}
		e.uvarint(uint64(h.len) + 1)
		if h.len > 0 && size > 0 {
			from := uintptr(h.data)
			e.regions = append(e.regions, region{from, from + uintptr(h.len)*size, t})
		}
		switch kind {
		case reflect.Uint8:
			e.buf = append(e.buf, unsafe.Slice((*byte)(h.data), h.len)...)
			return nil
		case reflect.Uint64:
			for _, x := range unsafe.Slice((*uint64)(h.data), h.len) {
				e.buf = binary.LittleEndian.AppendUint64(e.buf, x)
			}
			return nil
		}
		for i := range uintptr(h.len) {
			if err := elem.enc(e, unsafe.Add(h.data, i*size)); err != nil {
				return err
			}
		}
		return nil
	}
	k.dec = func(d *decoder, p unsafe.Pointer) error {
		n, err := d.uvarint()
		if err != nil || n == 0 {
			return err
		}
		l, err := d.length(n-1, minSize)
		if err != nil {
			return err
		}
		// Made by reflect, so that the collector knows what it holds.
		reflect.NewAt(t, p).Elem().Set(reflect.MakeSlice(t, l, l))
		data := (*sliceHeader)(p).data
		switch kind {
		case reflect.Uint8:
			b, err := d.bytes(uint64(l))
			copy(unsafe.Slice((*byte)(data), l), b)
			return err
		case reflect.Uint64:
			b, err := d.bytes(8 * uint64(l))
			if err != nil {
				return err
			}
			out := unsafe.Slice((*uint64)(data), l)
			for i := range out {
				out[i] = binary.LittleEndian.Uint64(b[8*i:])
			}
			return nil
		}
		for i := range uintptr(l) {
			if err := elem.dec(d, unsafe.Add(data, i*size)); err != nil {
				return err
			}
		}
		return nil
	}
}

// A map is written as 0 (nil) or its length + 1, then its keys and
// values, through reflect (a model holds few).
func (c *Codec) mapCoder(k *coder, t reflect.Type) {
	key, val := c.coderOf(t.Key()), c.coderOf(t.Elem())
	minKey := c.sizes[t.Key()]
	k.enc = func(e *encoder, p unsafe.Pointer) error {
		m := reflect.NewAt(t, p).Elem()
		if m.IsNil() {
			e.uvarint(0)
			return nil
		}
		e.uvarint(uint64(m.Len()) + 1)
		// Map entries are not addressable: each is copied where it is.
		kv, vv := reflect.New(t.Key()), reflect.New(t.Elem())
		for it := m.MapRange(); it.Next(); {
			kv.Elem().Set(it.Key())
			vv.Elem().Set(it.Value())
			if err := key.enc(e, kv.UnsafePointer()); err != nil {
				return err
			}
			if err := val.enc(e, vv.UnsafePointer()); err != nil {
				return err
			}
		}
		return nil
	}
	k.dec = func(d *decoder, p unsafe.Pointer) error {
		n, err := d.uvarint()
		if err != nil || n == 0 {
			return err
		}
		l, err := d.length(n-1, minKey)
		if err != nil {
			return err
		}
		m := reflect.MakeMapWithSize(t, l)
		for range l {
			kv, vv := reflect.New(t.Key()), reflect.New(t.Elem())
			if err := key.dec(d, kv.UnsafePointer()); err != nil {
				return err
			}
			if err := val.dec(d, vv.UnsafePointer()); err != nil {
				return err
			}
			m.SetMapIndex(kv.Elem(), vv.Elem())
		}
		if m.Len() != l {
			return errors.New("freeze: a map's keys repeat")
		}
		reflect.NewAt(t, p).Elem().Set(m)
		return nil
	}
}

// A pointer is written as 0 (nil), 1 and its target for a pointer met
// first, and 2+n for the n-th pointer met again.
func (c *Codec) pointerCoder(k *coder, t reflect.Type) {
	elemType := t.Elem()
	elem, size := c.coderOf(elemType), elemType.Size()
	k.enc = func(e *encoder, p unsafe.Pointer) error {
		q := *(*unsafe.Pointer)(p)
		if q == nil {
			e.uvarint(0)
			return nil
		}
		addr := uintptr(q)
		if tg, ok := e.ptrs[addr]; ok {
			if tg.t != t {
				// A value and its first field, or one memory seen as
				// two types: a copy would split them.
				return fmt.Errorf("freeze: a %s and a %s share memory", tg.t, t)
			}
			e.uvarint(tg.id + 2)
			return nil
		}
		e.ptrs[addr] = target{id: uint64(len(e.ptrs)), t: t}
		e.uvarint(1)
		if size > 0 {
			e.regions = append(e.regions, region{addr, addr + size, t})
		}
		return elem.enc(e, q)
	}
	k.dec = func(d *decoder, p unsafe.Pointer) error {
		n, err := d.uvarint()
		switch {
		case err != nil:
			return err
		case n == 0:
			*(*unsafe.Pointer)(p) = nil
			return nil
		case n == 1:
			q := reflect.New(elemType).UnsafePointer()
			d.ptrs = append(d.ptrs, target{t: t, p: q})
			*(*unsafe.Pointer)(p) = q
			return elem.dec(d, q)
		case n-2 >= uint64(len(d.ptrs)) || d.ptrs[n-2].t != t:
			return errors.New("freeze: a pointer to nothing read")
		}
		*(*unsafe.Pointer)(p) = d.ptrs[n-2].p
		return nil
	}
}

// Append is Freeze appending to buf: a caller that knows about how large
// the graph is gives a buffer of that capacity (a large graph's buffer
// grown by doubling cost a third of the time it took to write).
func (c *Codec) Append(buf []byte, root any) ([]byte, error) {
	v := reflect.ValueOf(root)
	if !v.IsValid() || v.Type() != c.root || v.Kind() != reflect.Pointer || v.IsNil() {
		return nil, errors.New("freeze: the root is not a non-nil pointer of the codec's type")
	}
	e := &encoder{ptrs: map[uintptr]target{}, buf: buf}
	e.buf = binary.BigEndian.AppendUint64(e.buf, c.fp)
	q := v.UnsafePointer()
	if err := c.coderOf(c.root).enc(e, unsafe.Pointer(&q)); err != nil {
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
	d := &decoder{data: data[8:]}
	var q unsafe.Pointer
	if err := c.coderOf(c.root).dec(d, unsafe.Pointer(&q)); err != nil {
		return err
	}
	if len(d.data) != 0 {
		return errors.New("freeze: bytes after the graph")
	}
	if q == nil {
		return errors.New("freeze: the root is nil")
	}
	v.Elem().Set(reflect.NewAt(c.root.Elem(), q).Elem())
	return nil
}

// target is a pointer's target: its number and the pointer's type (and,
// read, where it is).
type target struct {
	id uint64
	t  reflect.Type
	p  unsafe.Pointer
}

// region is memory the graph holds: a pointer's target or a slice's
// elements (t: the pointer's or the slice's type).
type region struct {
	from, to uintptr
	t        reflect.Type
}

type encoder struct {
	buf     []byte
	ptrs    map[uintptr]target
	regions []region
}

func (e *encoder) uvarint(n uint64) { e.buf = binary.AppendUvarint(e.buf, n) }

// shared is an error when two regions of the graph overlap: a pointer into
// a slice's array or into another pointer's target, or two slices sharing
// an array, which a thawed copy would hold apart.
func (e *encoder) shared() error {
	// Sorted by their start alone (two regions that start at one address
	// overlap, whatever their ends), a third of what freezing cost when
	// the ends were compared too.
	r := e.regions
	slices.SortFunc(r, func(a, b region) int { return cmp.Compare(a.from, b.from) })
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
	data []byte
	ptrs []target
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

// length reads a count of elements each of which takes at least minSize
// bytes of the input: a count the rest of the input cannot hold is an
// error before anything is allocated.
func (d *decoder) length(n uint64, minSize int) (int, error) {
	if minSize > 0 && n > uint64(len(d.data))/uint64(minSize) || minSize == 0 && n > uint64(len(d.data))+1<<16 {
		return 0, errShort
	}
	return int(n), nil
}
