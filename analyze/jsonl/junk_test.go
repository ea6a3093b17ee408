package jsonl

import "testing"

// TestNotJSONReason: valid JSON that is not an object is named so, torn or
// not; anything else is a torn final line when torn, else not JSON.
func TestNotJSONReason(t *testing.T) {
	for _, c := range []struct {
		line string
		torn bool
		want string
	}{
		{`[1,2]`, false, "not a JSON object"},
		{`"a string"`, true, "not a JSON object"},
		{`-1.5e3`, false, "not a JSON object"},
		{`null`, false, "not a JSON object"},
		{`{"type":"user"`, true, "torn final line (not JSON, no newline at end of file)"},
		{`[1,`, true, "torn final line (not JSON, no newline at end of file)"},
		{`{"type":"user"`, false, "not JSON"},
		{`{"a":1}x`, false, "not JSON"},
		{`[1,]`, false, "not JSON"},
		{`hello`, false, "not JSON"},
		{"\"\x01\"", false, "not JSON"},
	} {
		if got := NotJSONReason([]byte(c.line), c.torn); got != c.want {
			t.Errorf("NotJSONReason(%q, torn %v) = %q, want %q", c.line, c.torn, got, c.want)
		}
	}
}
