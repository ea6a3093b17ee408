package transcript

import "testing"

// TestBashResultText: the ledgers read a shell result's text only to find
// commit ids, so a command that cannot commit keeps none of it, while one
// that names git, or could spell it out through quotes, keeps its head.
func TestBashResultText(t *testing.T) {
	cases := []struct {
		command string
		want    string
	}{
		{"ls -la", ""},
		{"go test ./...", ""},
		{"git commit -m x", "[main 1a2b3c4] x"},
		{"gh pr create", "[main 1a2b3c4] x"},
		{"g'i't commit -m x", "[main 1a2b3c4] x"},
		{`g\it commit -m x`, "[main 1a2b3c4] x"},
		{`"git" commit -m x`, "[main 1a2b3c4] x"},
	}
	for _, c := range cases {
		tr := read(t,
			`{"type":"assistant","timestamp":"2026-01-01T00:00:00Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"b1","name":"Bash","input":{"command":`+jsonString(c.command)+`}}]}}`,
			`{"type":"user","timestamp":"2026-01-01T00:00:01Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"b1","content":"[main 1a2b3c4] x"}]}}`,
		)
		if len(tr.ToolCalls) != 1 || tr.ToolCalls[0].Result == nil {
			t.Fatalf("%q: call or result missing: %+v", c.command, tr.ToolCalls)
		}
		r := tr.ToolCalls[0].Result
		if r.Text != c.want || r.TextLen() != len("[main 1a2b3c4] x") {
			t.Errorf("%q: result text %q (len %d), want %q (len %d)", c.command, r.Text, r.TextLen(), c.want, len("[main 1a2b3c4] x"))
		}
	}
}
