//go:build goexperiment.simd && amd64

package jsonscan

import (
	"math/bits"
	"simd/archsimd"
)

// With GOEXPERIMENT=simd on amd64, string bodies are scanned 32 bytes at a
// time with AVX2 when the CPU has it: one load, four compares and four
// byte masks give the stops (quote, backslash, control character) and the
// bytes >= 0x80 of 32 bytes as bit masks, and the stops of a block are
// taken from its mask one after another (an escape clears the bits it
// covers) instead of reloading after each. The default build and CPUs
// without AVX2 use stringEndWords; TestStringEndIsByteReference and
// FuzzStringEnd hold both to the same byte-at-a-time definition, and the
// decoders' differential tests run under either (.ci/run runs the
// tests of this package and of both decoders with GOEXPERIMENT=simd too).

var haveAVX2 = archsimd.X86.AVX2()

// StringEnd: see strings.go.
func StringEnd(d []byte, i int) (end int, all uint64, esc, ok bool) {
	if !haveAVX2 {
		return stringEndWords(d, i, 0, false)
	}
	quote := archsimd.BroadcastInt8x32('"')
	bslash := archsimd.BroadcastInt8x32('\\')
	space := archsimd.BroadcastInt8x32(0x20)
	zero := archsimd.BroadcastInt8x32(0)
	var hb uint64 // the bytes >= 0x80 read, by position in their block
	for i+32 <= len(d) {
		v := archsimd.LoadUint8x32Slice(d[i : i+32]).AsInt8x32()
		high := uint64(zero.Greater(v).ToBits()) // bytes >= 0x80
		ctl := uint64(space.Greater(v).ToBits()) &^ high
		stop := uint64(v.Equal(quote).ToBits()) | uint64(v.Equal(bslash).ToBits()) | ctl
		from := 0 // the block's bytes before from are read
		for {
			if stop == 0 {
				hb |= high >> from << from
				i += 32
				break
			}
			k := bits.TrailingZeros64(stop)
			hb |= high & (1<<k - 1) >> from << from
			p := i + k
			switch d[p] {
			case '"':
				return p, highByte(hb), esc, true
			case '\\':
				esc = true
				switch {
				case p+1 < len(d) && simpleEscape[d[p+1]]:
					from = k + 2
				case p+6 <= len(d) && d[p+1] == 'u' && IsHex(d[p+2]) && IsHex(d[p+3]) && IsHex(d[p+4]) && IsHex(d[p+5]):
					from = k + 6
				default:
					return 0, 0, false, false
				}
			default:
				return 0, 0, false, false
			}
			if from >= 32 {
				i += from
				break
			}
			stop &^= 1<<from - 1
		}
	}
	return stringEndWords(d, i, highByte(hb), esc)
}

// highByte is a value whose high bit is set when hb is not 0, as
// stringEndWords's OR of bytes has.
func highByte(hb uint64) uint64 {
	if hb != 0 {
		return 0x80
	}
	return 0
}

// copyBlocks copies body[r:] to out[o:] 32 bytes at a time up to the
// block that holds a backslash (stopping at it) or the last whole block,
// and returns where both stopped; Unescape copies the rest a word at a
// time. out has room for a block past what it copies.
func copyBlocks(out []byte, o int, body []byte, r int) (int, int) {
	if haveAVX2 {
		bslash := archsimd.BroadcastUint8x32('\\')
		for r+32 <= len(body) {
			v := archsimd.LoadUint8x32Slice(body[r : r+32])
			v.StoreSlice(out[o : o+32])
			if m := v.Equal(bslash).ToBits(); m != 0 {
				k := bits.TrailingZeros32(m)
				return r + k, o + k
			}
			r, o = r+32, o+32
		}
	}
	return r, o
}
