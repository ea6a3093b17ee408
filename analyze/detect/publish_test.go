package detect_test

import (
	"path"
	"testing"

	"github.com/pmcheck/pmcheck/analyze/detect"
)

// IsPublishTool skips path.Match for a pattern whose literal start the name
// lacks: it answers as "equal, or path.Match matches" does, for literal,
// wildcard, class, escaped and malformed patterns.
func TestIsPublishToolIsPathMatch(t *testing.T) {
	patterns := []string{"Artifact", "mcp__*__publish*", "mcp__claude_ai_Gmail__create_draft", "*", "?rtifact", "Art?fact", "[A-Z]rtifact",
		`Art\ifact`, `mcp\_*`, "mcp__[", "[", `\`, "", "Artifact*", "*publish", "mcp__x__publish"}
	names := []string{"Artifact", "artifact", "Artifac", "Artifacts", "mcp__x__publish", "mcp__x__publishDoc", "mcp__claude_ai_Gmail__create_draft",
		"Bash", "", "mcp__", "mcp__[", "[", `\`, "Art\\ifact", "mcp_x", "publish", "x/publish"}
	for _, p := range patterns {
		for _, n := range names {
			ok, _ := path.Match(p, n)
			want := p == n || ok
			if got := detect.IsPublishTool(n, []string{p}); got != want {
				t.Errorf("IsPublishTool(%q, [%q]) = %v, path.Match says %v", n, p, got, want)
			}
		}
	}
}
