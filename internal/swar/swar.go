// Package swar tests the eight bytes of a word at once (SIMD within a
// register), for the loops that skip plain runs of JSON strings and text:
// the JSON scanner both decoders share (internal/jsonscan), the JSON
// report's string writer and the reports' escaping.
//
// Each function flags, in the high bit of its byte, the bytes of w that
// match. A flag is exact where the comment says so; where a borrow or carry
// may run upwards, it can flag a byte above a real match, never one below
// the lowest, and never when no byte matches, so a test of "any byte" and
// the position of the lowest flag are both exact.
package swar

const (
	// Lo8 has the low bit of every byte set.
	Lo8 = 0x0101010101010101
	// Hi8 has the high bit of every byte set.
	Hi8 = 0x8080808080808080
)

// Stops flags each quote, backslash and control character (< 0x20): where
// a JSON string scan must stop. Only the lowest flag is exact.
func Stops(w uint64) uint64 {
	q := w ^ ('"' * Lo8)
	b := w ^ ('\\' * Lo8)
	// q and b have w's high bits (the quote and the backslash are below
	// 0x80), so one &^ w stands for the three haszero masks.
	return ((q - Lo8) | (b - Lo8) | (w - 0x20*Lo8)) &^ w & Hi8
}

// Control flags each control character (< 0x20). Only the lowest flag is
// exact.
func Control(w uint64) uint64 {
	return (w - 0x20*Lo8) &^ w & Hi8
}

// AboveTilde flags each byte >= 0x7f (DEL and every byte outside ASCII):
// a high bit of w, or of w+1 in a byte below 0x80 (no carry crosses bytes
// when none is >= 0x80, and a byte >= 0x80 is flagged by its own high bit).
func AboveTilde(w uint64) uint64 {
	return (w | (w + Lo8)) & Hi8
}
