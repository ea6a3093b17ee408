package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRulesTestingDocsAreReal replays the worked example of docs/rules.md
// ("Testing your rules") in a temporary folder: the commands it shows, the
// files it shows, and the outputs it prints, byte for byte.
func TestRulesTestingDocsAreReal(t *testing.T) {
	docs, err := os.ReadFile("../../docs/rules.md")
	if err != nil {
		t.Fatal(err)
	}
	sec := string(docs)
	i := strings.Index(sec, "\n## Testing your rules\n")
	if i < 0 {
		t.Fatal(`docs/rules.md lost its "Testing your rules" section`)
	}
	sec = sec[i+1:]
	sec = sec[:strings.Index(sec, "\n## ")]
	block := func(after, fence string) string {
		t.Helper()
		j := strings.Index(sec, after)
		if j < 0 {
			t.Fatalf("the section lost %q", after)
		}
		rest := sec[j:]
		rest = rest[strings.Index(rest, fence)+len(fence):]
		return rest[:strings.Index(rest, "```")]
	}

	dir := t.TempDir()
	wd, _ := os.Getwd()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)

	cmd := strings.TrimSpace(block("Two generated scenarios fit", "```sh\n"))
	args := strings.Fields(strings.TrimPrefix(cmd, "pmcheck "))
	if _, e, code := runRulesCLI(t, args...); code != 0 {
		t.Fatalf("%s: exit %d, %s", cmd, code, e)
	}
	files := 0
	for _, part := range strings.Split(sec, "```yaml\n# ")[1:] {
		name, body, _ := strings.Cut(part[:strings.Index(part, "```")], "\n")
		if err := os.WriteFile(filepath.FromSlash(name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		files++
	}
	if files != 3 {
		t.Fatalf("the example has %d files, want 3 (the rule and two expectations files)", files)
	}
	out, e, code := runRulesCLI(t, "rules", "test", "ruletests")
	if want := block("`pmcheck rules test ruletests` prints:", "```text\n"); code != 0 || out != want {
		t.Errorf("exit %d (%s); the documented output is stale:\n--- docs\n%s--- actual\n%s", code, e, want, out)
	}

	rule, _ := os.ReadFile("ruletests/team.yaml")
	os.WriteFile("ruletests/team.yaml", []byte(strings.Replace(string(rule), "!reviewed && ", "", 1)), 0o644)
	out, _, code = runRulesCLI(t, "rules", "test", "ruletests")
	if want := block("Had the rule forgotten `!reviewed`", "```text\n"); code != ExitFindings || !strings.Contains(out, want) {
		t.Errorf("exit %d; the documented failure is stale:\n--- docs\n%s--- actual\n%s", code, want, out)
	}
}
