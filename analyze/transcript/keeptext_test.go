package transcript

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/pmcheck/pmcheck/analyze/detect/ship"
	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/analyze/shell"
)

// readerTextRule is the rule the reader applied itself before the shell
// classifier decided (its mentionsVCS and mayCommit): the head of the
// output of a command naming git or "gh ", a sliver of one with a quote or
// backslash, nothing of the rest.
func readerTextRule(cmd string, _ *model.ShellAnalysis, _ func(string) bool) shell.Output {
	switch {
	case strings.Contains(cmd, "git") || strings.Contains(cmd, "gh "):
		return shell.OutputHead
	case strings.ContainsAny(cmd, `'"\`):
		return shell.OutputSliver
	}
	return shell.OutputNone
}

// TestShellOutputKeepsWhatTheTextRuleKept is the differential test of the
// move of the keep rule into the shell classifier (shell.OutputOf): every
// fixture and corpus transcript, read as check reads it (classifying its
// commands) with the rule the reader had and with the check's, keeps the same
// model but for result texts, and each result text is the one the old
// rule kept or longer with it as its prefix: only where ship reads git in
// a command the old rule did not (quoted, g'i't commit; none in the
// fixtures and corpus), or empty for an inert command (git status, git
// log: nothing reads their output, shell.OutputOf with ship.Inert). A read that classifies
// nothing keeps the same texts. Every Bash command met is also compared:
// ship keeps at least what the old rule kept of it, inert ones aside.
func TestShellOutputKeepsWhatTheTextRuleKept(t *testing.T) {
	roots := realRoots(t)
	type keepRule = func(string, *model.ShellAnalysis, func(string) bool) shell.Output
	// The check's rule: shell.OutputOf with ship's inert commands, whether
	// or not the read is given them (ShellOptions.Inert).
	checkRule := func(cmd string, a *model.ShellAnalysis, _ func(string) bool) shell.Output {
		return shell.OutputOf(cmd, a, ship.Inert)
	}
	readWith := func(rule keepRule, data []byte, p string, opts Options) *model.Transcript {
		t.Helper()
		defer func(was keepRule) { shellOutputOf = was }(shellOutputOf)
		shellOutputOf = rule
		tr, err := Read(bytes.NewReader(data), p, opts)
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	levels := map[shell.Output]int{}
	files, results, kept, longer, narrowed := 0, 0, 0, 0, 0
	compare := func(p string, data []byte) error {
		files++
		check := Options{Shell: shipShell(nil)}
		before := readWith(readerTextRule, data, p, check)
		after := readWith(checkRule, data, p, check)
		bare := readWith(checkRule, data, p, Options{})
		if len(before.ToolResults) != len(after.ToolResults) || len(bare.ToolResults) != len(after.ToolResults) {
			t.Fatalf("%s: %d, %d and %d results", p, len(before.ToolResults), len(after.ToolResults), len(bare.ToolResults))
		}
		callOf := map[string]*model.ToolCall{}
		for _, c := range after.ToolCalls {
			if _, ok := callOf[c.ID()]; !ok {
				callOf[c.ID()] = c
			}
		}
		for i, r := range after.ToolResults {
			old := before.ToolResults[i]
			results++
			if r.Text != "" {
				kept++
			}
			if b := bare.ToolResults[i]; b.Text != r.Text {
				t.Errorf("%s:%d: a read that classifies nothing keeps %q, one that does %q", p, r.At().Line, b.Text, r.Text)
			}
			if r.Text == old.Text {
				continue
			}
			call := callOf[r.ToolUseID()]
			if r.Text == "" && call != nil && call.Name() == "Bash" && ship.Inert(call.Command()) {
				// Narrowed on purpose: nothing reads an inert command's
				// output (shell.OutputOf).
				narrowed++
				old.Text = r.Text
				continue
			}
			if !strings.HasPrefix(r.Text, old.Text) || call == nil || call.Name() != "Bash" {
				t.Errorf("%s:%d: result text %q, %q before", p, r.At().Line, r.Text, old.Text)
				continue
			}
			longer++
			t.Logf("%s:%d: %q keeps %d bytes of its output, %d before", p, r.At().Line, call.Command(), len(r.Text), len(old.Text))
			old.Text = r.Text
		}
		if !reflect.DeepEqual(before, after) {
			t.Errorf("%s: the models differ beyond result texts", p)
		}
		for _, c := range after.ToolCalls {
			if c.Name() != "Bash" {
				continue
			}
			a, _, ok := c.ShellClass()
			if !ok {
				t.Fatalf("%s:%d: a call without its analysis", p, c.At().Line)
			}
			got := shell.OutputOf(c.Command(), &a, ship.Inert)
			if was := readerTextRule(c.Command(), nil, nil); got < was && !ship.Inert(c.Command()) {
				t.Errorf("%s:%d: %q: ship keeps %d, the reader's rule kept %d", p, c.At().Line, c.Command(), got, was)
			}
			levels[got]++
		}
		return nil
	}
	eachTranscript(t, roots, compare)
	// One command of each level, so the test compares them all without
	// the corpus too (the fixtures have no command that keeps a sliver).
	if err := compare("every-level.jsonl", everyOutputLevel()); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d files, %d results (%d with text kept, %d longer than before, %d of inert commands now empty); Bash commands: %d keep nothing, %d a sliver, %d the head",
		files, results, kept, longer, narrowed, levels[shell.OutputNone], levels[shell.OutputSliver], levels[shell.OutputHead])
	if levels[shell.OutputNone] == 0 || levels[shell.OutputSliver] == 0 || levels[shell.OutputHead] == 0 || kept == 0 || narrowed == 0 {
		t.Fatal("some level never occurs: the test compares too little")
	}
}

// everyOutputLevel is a transcript of four Bash calls and their results:
// a command whose output nothing reads (ls), one with a quote (a sliver),
// a commit (the head) and an inert git command (kept whole by the reader's
// old rule, nothing now).
func everyOutputLevel() []byte {
	var b bytes.Buffer
	for i, cmd := range []string{`ls -la`, `echo \"done\"`, `git commit -m wip`, `git status`} {
		fmt.Fprintf(&b, `{"type":"assistant","uuid":"a%d","timestamp":"2026-05-07T09:00:0%d.000Z","sessionId":"s1","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_%d","name":"Bash","input":{"command":"%s"}}]}}`+"\n", i, i, i, cmd)
		fmt.Fprintf(&b, `{"type":"user","uuid":"u%d","timestamp":"2026-05-07T09:00:0%d.500Z","sessionId":"s1","message":{"role":"user","content":[{"tool_use_id":"toolu_%d","type":"tool_result","content":"[main abc1234] wip\\n 1 file changed, output of %d"}]}}`+"\n", i, i, i, i)
	}
	return b.Bytes()
}

// TestShellOutputSeesQuotedGit: a command that commits through quoting
// (g'i't commit) keeps the head of its output, where the commit line is,
// read as check reads or without classifying; the reader's own rule kept a
// sliver of it, which a commit behind a hook's output overran.
func TestShellOutputSeesQuotedGit(t *testing.T) {
	out := strings.Repeat("hook: check passed ....................\\n", 6) + "[main 1a2b3c4] x"
	for _, opts := range []Options{{Shell: shipShell(nil)}, {}} {
		tr, err := Read(strings.NewReader(
			`{"type":"assistant","timestamp":"2026-01-01T00:00:00Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"b1","name":"Bash","input":{"command":"g'i't commit -m x"}}]}}`+"\n"+
				`{"type":"user","timestamp":"2026-01-01T00:00:01Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"b1","content":"`+out+`"}]}}`+"\n"), "f.jsonl", opts)
		if err != nil {
			t.Fatal(err)
		}
		if r := tr.ToolCalls[0].Result; r == nil || !strings.HasSuffix(r.Text, "[main 1a2b3c4] x") {
			t.Errorf("classifying %v: the commit line was not kept: %+v", opts.Shell.Classify != nil, r)
		}
	}
}

// TestInertOutputIsKeptOnlyWhenTheCallerSaysSo: the reader decides how
// much of an output to keep with the inert commands its caller gives it
// (ShellOptions.Inert, the check's ship.Inert), with or without
// classifying: git status's output is then not kept; a read given none
// keeps its head (git), and a commit's head either way.
func TestInertOutputIsKeptOnlyWhenTheCallerSaysSo(t *testing.T) {
	classifying := shipShell(nil)
	classifying.Inert = ship.Inert
	for _, c := range []struct {
		name  string
		opts  Options
		inert bool
	}{
		{"given inert, classifying", Options{Shell: classifying}, true},
		{"given inert only", Options{Shell: ShellOptions{Inert: ship.Inert}}, true},
		{"classifying, no inert", Options{Shell: shipShell(nil)}, false},
		{"neither", Options{}, false},
	} {
		tr, err := Read(bytes.NewReader(everyOutputLevel()), "every-level.jsonl", c.opts)
		if err != nil {
			t.Fatal(err)
		}
		texts := map[string]string{}
		for _, r := range tr.ToolResults {
			texts[r.ToolUseID()] = r.Text
		}
		for _, call := range tr.ToolCalls {
			if call.Result != nil {
				texts[call.ID()] = call.Result.Text
			}
		}
		if commit := texts["toolu_2"]; !strings.HasPrefix(commit, "[main abc1234]") {
			t.Errorf("%s: the commit's output kept %q", c.name, commit)
		}
		if status := texts["toolu_3"]; (status == "") != c.inert {
			t.Errorf("%s: git status's output kept %q", c.name, status)
		}
	}
}
