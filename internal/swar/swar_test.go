package swar

import (
	"encoding/binary"
	"math/bits"
	"math/rand/v2"
	"testing"
)

// Every function against its byte-by-byte definition: on words of one
// byte value in a plain background, and on random words, whether any byte
// matches and which is the lowest must be exact.
func TestFlagsAreTheBytesDefinition(t *testing.T) {
	defs := []struct {
		name string
		f    func(uint64) uint64
		is   func(byte) bool
	}{
		{"Stops", Stops, func(c byte) bool { return c == '"' || c == '\\' || c < 0x20 }},
		{"Control", Control, func(c byte) bool { return c < 0x20 }},
		{"AboveTilde", AboveTilde, func(c byte) bool { return c >= 0x7f }},
	}
	check := func(t *testing.T, name string, f func(uint64) uint64, is func(byte) bool, w [8]byte) {
		lowest := 8
		for i := 7; i >= 0; i-- {
			if is(w[i]) {
				lowest = i
			}
		}
		m := f(binary.LittleEndian.Uint64(w[:]))
		got := 8
		if m != 0 {
			got = bits.TrailingZeros64(m) / 8
		}
		if got != lowest {
			t.Fatalf("%s(%q): lowest flag at %d, want %d", name, w[:], got, lowest)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, d := range defs {
		for c := range 256 {
			for pos := range 8 {
				w := [8]byte{'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a'}
				w[pos] = byte(c)
				check(t, d.name, d.f, d.is, w)
			}
		}
		for range 200000 {
			var w [8]byte
			binary.LittleEndian.PutUint64(w[:], r.Uint64())
			check(t, d.name, d.f, d.is, w)
		}
	}
}

// Stops shares one &^ w among its three masks; it is bit for bit the OR of
// the three haszero masks it stands for, each cleared by its own word.
func TestStopsIsItsThreeMasks(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 1 << 20 {
		w := r.Uint64()
		if r.IntN(2) == 0 { // plenty of quotes, backslashes and controls
			for i := range 8 {
				switch r.IntN(4) {
				case 0:
					w = w&^(0xff<<(8*i)) | '"'<<(8*i)
				case 1:
					w = w&^(0xff<<(8*i)) | '\\'<<(8*i)
				case 2:
					w = w&^(0xff<<(8*i)) | uint64(r.IntN(0x20))<<(8*i)
				}
			}
		}
		q, b := w^('"'*Lo8), w^('\\'*Lo8)
		if want := ((q-Lo8)&^q | (b-Lo8)&^b | (w-0x20*Lo8)&^w) & Hi8; Stops(w) != want {
			t.Fatalf("Stops(%#016x) = %#016x, the three masks %#016x", w, Stops(w), want)
		}
	}
}
