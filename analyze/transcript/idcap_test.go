package transcript

import (
	"strings"
	"testing"

	"github.com/pmcheck/pmcheck/analyze/discover"
)

// TestCappedIDsStayInvalid: the reader caps an id a result names one byte
// over the longest valid id (discover.MaxIDLen), so an id too long to be
// valid is still refused after the cap, and a valid one is kept whole.
func TestCappedIDsStayInvalid(t *testing.T) {
	valid := strings.Repeat("a", discover.MaxIDLen)
	if !discover.ValidID(valid) || capID(valid) != valid {
		t.Errorf("an id of %d bytes: valid %v, kept whole %v", len(valid), discover.ValidID(valid), capID(valid) == valid)
	}
	long := strings.Repeat("a", 2<<20)
	if discover.ValidID(capID(long)) {
		t.Errorf("an id of %d bytes is valid once capped to %d bytes", len(long), len(capID(long)))
	}
}
