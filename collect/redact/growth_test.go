package redact

import (
	"fmt"
	"strings"
	"testing"
)

// manyMatchesOneLine is one line of n generic-api-key matches (a keyword, an
// assignment and a high-entropy value each), about 40 bytes apiece.
func manyMatchesOneLine(n int) string {
	const digits = "0123456789012345"
	var b strings.Builder
	for i := range n {
		b.WriteString("api_key=Zq")
		for v := uint32(i+3) * 2654435761; v > 0; v >>= 4 {
			b.WriteByte(digits[v&0xf])
		}
		b.WriteString("Xw7kLpR3vT9mBc5dEf8aU ")
	}
	return b.String()
}

// TestRedactionOfOneLineGrowsLinearly (issue 29, item 14): the line an
// allowlist tests is found and tested once for the matches on it, not once
// per match (64k matches in one 1.5 MB string took 102 s). Counted through
// lineBytesTested: the bytes of line the allowlists' regexes run on, for n
// and 4n matches on one line. Every match is still replaced.
func TestRedactionOfOneLineGrowsLinearly(t *testing.T) {
	r := newRedactor(t)
	tested := func(n int) int {
		total := 0
		lineBytesTested = func(k int) { total += k }
		defer func() { lineBytesTested = nil }()
		s := manyMatchesOneLine(n)
		out, c := r.String(s, "")
		// gitleaks' stopwords spare the odd value whose digits spell one.
		if c.Total() < n*99/100 || strings.Count(out, "Xw7kLpR3vT9m") > n/100 {
			t.Fatalf("%d matches: %d replaced", n, c.Total())
		}
		return total
	}
	small, large := tested(2000), tested(8000)
	t.Logf("line bytes tested: %d for 2,000 matches, %d for 8,000 (%.1fx)", small, large, float64(large)/float64(small))
	if small == 0 || large > 5*small {
		t.Errorf("4x the matches on one line: %d → %d line bytes tested (%.1fx), want at most 5x", small, large, float64(large)/float64(small))
	}
}

// BenchmarkRedactManyMatchesOneLine: n matches on one line, n and 4n.
func BenchmarkRedactManyMatchesOneLine(b *testing.B) {
	r, err := New(nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{8000, 32000} {
		s := manyMatchesOneLine(n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			for b.Loop() {
				r.String(s, "")
			}
		})
	}
}
