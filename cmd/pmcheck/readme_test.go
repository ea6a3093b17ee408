package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// TestReadmeExamplesAreReal: the README shows the output of its own commands;
// this keeps those blocks byte-for-byte true. Regenerate them from the
// commands when a report changes on purpose.
func TestReadmeExamplesAreReal(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		after string
		args  []string
		code  int
	}{
		{"The first command prints this report", []string{"check", "fixtures/runs/rule-killed-subagent-shipped-unreviewed-bad"}, ExitFindings},
		{"$ pmcheck explain c9889b3c fixtures/runs/rule-killed-subagent-shipped-unreviewed-bad", []string{"explain", "c9889b3c", "fixtures/runs/rule-killed-subagent-shipped-unreviewed-bad"}, 0},
		{"$ pmcheck replay fixtures/runs/replay-kill-retry", []string{"replay", "fixtures/runs/replay-kill-retry/30000000-0000-4000-8000-000000000001/subagents/workflows/wf_kill0001", "--timestamps"}, 0},
	}
	for _, c := range cases {
		i := bytes.Index(readme, []byte(c.after))
		if i < 0 {
			t.Fatalf("README lost the paragraph %q", c.after)
		}
		block := string(readme[i:])
		if !strings.HasPrefix(c.after, "$") {
			block = block[strings.Index(block, "```text\n")+len("```text\n"):]
		} else {
			block = block[strings.Index(block, "\n")+1:]
		}
		block = block[:strings.Index(block, "```")]
		var out, errb bytes.Buffer
		wd, _ := os.Getwd()
		if err := os.Chdir("../.."); err != nil {
			t.Fatal(err)
		}
		code := Run(c.args, strings.NewReader(""), &out, &errb)
		os.Chdir(wd)
		if code != c.code {
			t.Errorf("%v: exit %d, want %d (%s)", c.args, code, c.code, errb.String())
		}
		if out.String() != block {
			t.Errorf("README block after %q is stale; regenerate it from: pmcheck %s\n--- README\n%s\n--- actual\n%s", c.after, strings.Join(c.args, " "), block, out.String())
		}
	}
}

// TestReadmeWarnsGoRunCompilesFirst (issue 31, item 10): a first `go run`
// compiles for a minute or two in silence; the README says so right after
// the command, and offers the binary route before it.
func TestReadmeWarnsGoRunCompilesFirst(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(readme)
	cmd := strings.Index(s, "\ngo run ./cmd/pmcheck check ")
	if cmd < 0 {
		t.Fatal("README lost its go run command")
	}
	section := strings.Index(s, "## The two commands")
	if section < 0 || section > cmd || !strings.Contains(s[section:cmd], "release binary") || !strings.Contains(s[section:cmd], "pmcheck check fixtures/") {
		t.Error("the README does not offer the release binary or a build, and its command, before go run")
	}
	end := strings.Index(s[cmd:], "\nRun the tests")
	if end < 0 || !strings.Contains(s[cmd:cmd+end], "cold Go build") || !strings.Contains(s[cmd:cmd+end], "minutes") {
		t.Error("the README does not say next to go run that a cold cache compiles for minutes in silence")
	}
}
