package jsonscan

import "testing"

// BenchmarkNumber scans the numbers transcript rows carry (token counts,
// costs, epoch milliseconds, exponents).
func BenchmarkNumber(b *testing.B) {
	nums := [][]byte{
		[]byte("0"), []byte("7"), []byte("1536"), []byte("-42"), []byte("1700000000000"),
		[]byte("0.0123"), []byte("3.14159265358979"), []byte("-2.5e-7"), []byte("6.02E+23"), []byte("12345678901234567890"),
	}
	n := 0
	for _, x := range nums {
		n += len(x)
	}
	b.SetBytes(int64(n))
	var s Scanner
	for b.Loop() {
		for _, x := range nums {
			s.Data, s.I = x, 0
			if !s.Number() || s.I != len(x) {
				b.Fatalf("%s not scanned", x)
			}
		}
	}
}
