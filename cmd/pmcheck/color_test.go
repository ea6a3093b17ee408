package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestColorDecision (issue 31, item 8): --color always and never decide;
// auto colours a terminal only, never with NO_COLOR set or in a CI log.
func TestColorDecision(t *testing.T) {
	// A nil *os.File is no terminal: without one here, auto's terminal
	// case wants false.
	tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0)
	if err == nil {
		defer tty.Close()
	}
	var buf bytes.Buffer
	for _, c := range []struct {
		mode, noColor, ci, gha string
		stdout                 io.Writer
		want                   bool
	}{
		{"always", "1", "true", "true", &buf, true},
		{"never", "", "", "", tty, false},
		{"auto", "", "", "", &buf, false},
		{"auto", "1", "", "", tty, false},
		{"auto", "", "true", "", tty, false},
		{"auto", "", "", "true", tty, false},
		{"auto", "", "", "", tty, tty != nil},
	} {
		t.Setenv("NO_COLOR", c.noColor)
		t.Setenv("CI", c.ci)
		t.Setenv("GITHUB_ACTIONS", c.gha)
		if got := (colorFlag{Color: c.mode}).colored(c.stdout); got != c.want {
			t.Errorf("--color %s NO_COLOR=%q CI=%q GITHUB_ACTIONS=%q (to %T): colored %v, want %v", c.mode, c.noColor, c.ci, c.gha, c.stdout, got, c.want)
		}
	}
}

// TestColorAlwaysColoursStdoutOnly: --color always colours the severities
// and rule ids of the text report on standard output, never a report file.
func TestColorAlwaysColoursStdoutOnly(t *testing.T) {
	file := filepath.Join(t.TempDir(), "r.txt")
	code, out, errs := runIn(t, "../..", "check", "--color", "always", "--format", "text", "--format", "text="+file, "fixtures/runs/rule-killed-subagent-shipped-unreviewed-bad")
	if code != ExitFindings {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.HasPrefix(out, "\x1b[1;31merror\x1b[0m \x1b[1m") {
		t.Errorf("standard output is not coloured:\n%q", out[:min(len(out), 200)])
	}
	data, _ := os.ReadFile(file)
	if bytes.Contains(data, []byte("\x1b")) {
		t.Errorf("the text file is coloured")
	}
	code, out, _ = runIn(t, "../..", "check", "fixtures/runs/rule-killed-subagent-shipped-unreviewed-bad")
	if code != ExitFindings || strings.Contains(out, "\x1b") {
		t.Errorf("auto into a pipe coloured the report")
	}
}
