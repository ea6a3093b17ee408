package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestBarePmcheckPrintsHelp (issue 31, item 6): pmcheck with no arguments
// prints the help on standard output and exits 0.
func TestBarePmcheckPrintsHelp(t *testing.T) {
	var out, errb bytes.Buffer
	code := Run(nil, strings.NewReader(""), &out, &errb)
	if code != ExitOK || !strings.Contains(out.String(), "Usage: pmcheck") || !strings.Contains(out.String(), "check") || errb.Len() != 0 {
		t.Errorf("bare pmcheck: exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errb.String())
	}
}
