package ship

import (
	"strings"
	"testing"
)

// TestUnclosedHeredocIsReadAsBashReadsIt (issue 31, item 9): a quoted
// here-document whose delimiter never comes ends at the end of the input,
// as in bash (which warns and runs the line); the commands chained on its
// line are classified, and the file name "auto-merge-prs.sh" is not a
// possible merge of an unparseable line.
func TestUnclosedHeredocIsReadAsBashReadsIt(t *testing.T) {
	script := "cat << 'EOF' > auto-merge-prs.sh && \\\nchmod +x auto-merge-prs.sh && \\\nls -la auto-merge-prs.sh && \\\npython3 -c 'print(1)'\n"
	a := Classify(script, Options{})
	if a.ParseError != "" || len(a.Actions) != 0 {
		t.Errorf("the here-document line: parse error %q, actions %+v; want it parsed, with no ship action", a.ParseError, a.Actions)
	}
	if !containsString(a.Writes, "auto-merge-prs.sh") {
		t.Errorf("writes %v; want the redirection target", a.Writes)
	}
	// A push chained on the line still runs, so it is still found.
	a = Classify("cat <<EOF > notes.md && \\\ngit push origin main\n", Options{})
	if a.ParseError != "" || len(a.Actions) != 1 || a.Actions[0].Kind != KindPush || a.Actions[0].Possible {
		t.Errorf("a push after the here-document's line: %+v (parse error %q); want one certain push", a.Actions, a.ParseError)
	}
	// Lines after the here-document's line are its body: bash does not run them.
	a = Classify("cat <<'EOF' > notes.md\ngit push origin main\n", Options{})
	if len(a.Actions) != 0 {
		t.Errorf("a push inside the unclosed body: %+v; bash writes it to notes.md, it does not run it", a.Actions)
	}
	// Other parse errors stay refused: a possible action, fail closed.
	a = Classify("git merge feature && (", Options{})
	if a.ParseError == "" || len(a.Actions) == 0 {
		t.Errorf("an unparseable line: %+v; want a parse error and an action", a)
	}
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if strings.TrimSpace(x) == s {
			return true
		}
	}
	return false
}
