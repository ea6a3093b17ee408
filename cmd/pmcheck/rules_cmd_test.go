package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pmcheck/pmcheck/rules"
)

func runRulesCLI(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Run(args, strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), code
}

const teamRules = `version: 1
rules:
  - id: team-killed-migration
    title: Killed subagent wrote a migration
    severity: warning
    select: subagent
    where: killed && any(paths, hasPrefix(#, "migrations/"))
    message: subagent "{{ description }}" was killed after it wrote a migration
`

func TestRulesList(t *testing.T) {
	out, errOut, code := runRulesCLI(t, "rules", "list")
	want := `ID                                      SEVERITY  SELECT            TITLE
killed-subagent-shipped-unreviewed      error     subagent          Unreviewed killed subagent on a shipped branch
killed-subagent-not-shipped-unreviewed  warning   subagent          Killed subagent whose work nobody reviewed, not shipped yet
ship-while-killed-outstanding           error     ship              Ship action while a killed subagent was outstanding
killed-attempt-with-work                warning   attempt           Workflow attempt killed after it wrote files or commits
agent-never-returned                    error     attempt           Workflow agent never returned
subagent-open-at-end                    warning   subagent          Run ended with a subagent call still open
false-done                              warning   attempt,subagent  Agent reported done but its transcript ends in an error
watchdog-disagreement                   warning   watchdog          Watchdog prediction disagrees with the observed kill
quiet-agent                             note      watchdog          Agent quiet for 10 minutes or more
runtime-counts-disagree                 warning   run               The runtime's own subagent counts disagree with the messages
`
	if code != 0 || out != want || errOut != "" {
		t.Errorf("exit %d, stderr %q, stdout:\n%s", code, errOut, out)
	}
}

func TestRulesListWithFlags(t *testing.T) {
	team := filepath.Join(t.TempDir(), "team.yaml")
	if err := os.WriteFile(team, []byte(teamRules), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, code := runRulesCLI(t, "rules", "list", "--rules", "+"+team, "--disable", "quiet-agent,false-done", "--severity", "watchdog-disagreement=note", "--json")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var metas []rules.Meta
	if err := json.Unmarshal([]byte(out), &metas); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range metas {
		got = append(got, m.ID+"="+m.Severity)
	}
	want := "agent-never-returned=error killed-attempt-with-work=warning killed-subagent-not-shipped-unreviewed=warning killed-subagent-shipped-unreviewed=error runtime-counts-disagree=warning ship-while-killed-outstanding=error subagent-open-at-end=warning team-killed-migration=warning watchdog-disagreement=note"
	if strings.Join(got, " ") != want {
		t.Errorf("got  %s\nwant %s", strings.Join(got, " "), want)
	}
	out, _, code = runRulesCLI(t, "rules", "list", "--rules", team)
	if code != 0 || strings.Count(out, "\n") != 2 || !strings.Contains(out, "team-killed-migration") {
		t.Errorf("--rules FILE should replace the defaults: exit %d\n%s", code, out)
	}
}

func TestRulesExplain(t *testing.T) {
	out, _, code := runRulesCLI(t, "rules", "explain", "killed-subagent-shipped-unreviewed")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{
		"killed-subagent-shipped-unreviewed: Unreviewed killed subagent on a shipped branch\n",
		"severity:  error\n",
		"where:     killed && !reviewed && (on_shipped_branch || shipped_after_kill)\n",
		"\nWhat to do:\n",
		"Fields of the subagent fact:\n",
		"  shipped_after_kill ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("explain output lacks %q:\n%s", want, out)
		}
	}
	// The folded description is wrapped for a terminal.
	if !strings.Contains(out, "\nA subagent was killed mid-run (Signature A: the harness's partial-output notice in a\nsynchronous") {
		t.Errorf("description is not wrapped at 90 columns:\n%s", out)
	}
}

func TestRulesErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"rules", "explain", "quiet"}, `pmcheck: unknown rule id "quiet"; known ids: agent-never-returned, false-done, killed-attempt-with-work, killed-subagent-not-shipped-unreviewed, killed-subagent-shipped-unreviewed, quiet-agent, runtime-counts-disagree, ship-while-killed-outstanding, subagent-open-at-end, watchdog-disagreement (see 'pmcheck rules list')` + "\n"},
		{[]string{"rules", "list", "--severity", "quiet-agent=loud"}, `pmcheck: --severity quiet-agent=loud: unknown level "loud"; expected one of "error", "note", "warning"` + "\n"},
		{[]string{"rules", "list", "--rules", "nope.yaml"}, `pmcheck: cannot read rule file "nope.yaml": no such file or directory` + "\n"},
	} {
		_, errOut, code := runRulesCLI(t, tc.args...)
		if code != ExitUsage || errOut != tc.want {
			t.Errorf("%v: exit %d, stderr\n got %q\nwant %q", tc.args, code, errOut, tc.want)
		}
	}
}

func TestRulesValidate(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(good, []byte(teamRules), 0o644); err != nil {
		t.Fatal(err)
	}
	broken := strings.Replace(strings.Replace(teamRules, "severity: warning", "severity: urgent", 1), "killed &&", "kiled &&", 1)
	if err := os.WriteFile(bad, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runRulesCLI(t, "rules", "validate", good)
	if code != 0 || out != good+": 1 rule OK\n" || errOut != "" {
		t.Errorf("good file: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	out, errOut, code = runRulesCLI(t, "rules", "validate", good, bad)
	wantErr := bad + `:5:15: unknown severity "urgent"; expected one of "error", "note", "warning"` + "\n" +
		bad + `:7:12: "where": "kiled" is not a field of the subagent fact; did you mean "killed"?` + "\n" +
		"pmcheck: 1 of 2 rule files have problems\n"
	if code != ExitUsage || out != good+": 1 rule OK\n" || errOut != wantErr {
		t.Errorf("bad file: exit %d, stdout %q, stderr\n got %q\nwant %q", code, out, errOut, wantErr)
	}
	// The embedded defaults validate as a file too.
	if _, _, code := runRulesCLI(t, "rules", "validate", "../../rules/defaults.yaml"); code != 0 {
		t.Errorf("rules/defaults.yaml does not validate: exit %d", code)
	}
}
