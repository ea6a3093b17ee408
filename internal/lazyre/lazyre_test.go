package lazyre

import (
	"regexp"
	"testing"
)

func TestCompiledOnceOnFirstUse(t *testing.T) {
	re := New(`^a+$`)
	first := re()
	if !first.MatchString("aaa") || first.MatchString("b") {
		t.Fatalf("pattern does not match as written")
	}
	if re() != first {
		t.Fatalf("a second call compiled the pattern again")
	}
	found := false
	for _, p := range Patterns() {
		found = found || p == `^a+$`
	}
	if !found {
		t.Fatalf("Patterns() misses a pattern made by New")
	}
}

func TestBadPatternPanicsWhenUsed(t *testing.T) {
	re := New(`(`)
	defer func() {
		if recover() == nil {
			t.Fatalf("a bad pattern compiled without a panic")
		}
	}()
	_ = re()
	_ = regexp.MustCompile // the panic is regexp.MustCompile's
}
