package rules

import (
	"strings"
	"testing"

	"github.com/pmcheck/pmcheck/internal/allocs"
)

// A fingerprinter is made once per rule, kind and run: for a fleet of
// 20,000 runs, 20,000 times. Its head is sized at once (grown from nil it
// took three allocations more for a run path of about 80 bytes).
func TestFingerprinterAllocatesOnce(t *testing.T) {
	allocs.SkipUnderRace(t)
	path := "projects/-work-repo/" + strings.Repeat("0", 36) + ".jsonl"
	n := testing.AllocsPerRun(100, func() { newFingerprinter("subagent-killed-unreviewed", path, strings.Repeat("4", 36), "subagent") })
	t.Logf("%.0f allocations", n)
	if n > 5 {
		t.Errorf("making a fingerprinter allocated %.0f times, want at most 5 (8 when its head grew from nil)", n)
	}
}
