package hook

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pmcheck/pmcheck/internal/testcorpus"
)

// TestReferenceFixtures runs both hooks on the reference resume gate's own
// fixtures (its detector reports the incident's two subagents and nothing on
// the other three), then resumes the incident twice through its transcript.
func TestReferenceFixtures(t *testing.T) {
	corpus := testcorpus.Require(t)
	dir := filepath.Join(corpus, "wan-huiyan__agent-traffic-control")
	want := map[string][]string{
		"incident.jsonl":   {"Fix three disclosure defects", "Review the readability commit"},
		"clean.jsonl":      nil,
		"discussion.jsonl": nil,
		"malformed.jsonl":  nil,
	}
	for name, items := range want {
		p := filepath.Join(dir, name)
		d, reason := decision(t, PreToolUse(bashInput(p, "git push origin HEAD:main"), Config{}))
		ctx := addedContext(t, SessionStart(resume(p), Config{}))
		if len(items) == 0 {
			if d != "" || ctx != "" {
				t.Errorf("%s: decision %q context %q, want silence", name, d, ctx)
			}
			continue
		}
		for _, it := range items {
			if d != "ask" || !strings.Contains(reason, it) || !strings.Contains(ctx, "  - "+it+"\n") {
				t.Errorf("%s: %q missing (decision %q reason %q)", name, it, d, reason)
			}
		}
		got, ok := refLastMark(ctx)
		if !ok || strings.Join(got, "|") != strings.Join(items, "|") {
			t.Errorf("%s: mark lists %q %v", name, got, ok)
		}
	}

	// The incident, resumed twice: armed; a review subagent names both
	// killed subagents; disarmed, then allowed.
	data, err := os.ReadFile(filepath.Join(dir, "incident.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "incident.jsonl")
	os.WriteFile(p, data, 0o644)
	appendRows(t, p, hookRows(t, SessionStart(resume(p), Config{}))...)
	if d, _ := decision(t, PreToolUse(bashInput(p, "gh pr merge 12"), Config{})); d != "ask" {
		t.Fatalf("armed incident: %q", d)
	}
	appendRows(t, p, reviewRows("toolu_rev_incident", want["incident.jsonl"]...)...)
	disarm := SessionStart(resume(p), Config{})
	if addedContext(t, disarm) != refEncode(nil) {
		t.Fatalf("second resume: %s", disarm.Stdout)
	}
	appendRows(t, p, hookRows(t, disarm)...)
	if d, _ := decision(t, PreToolUse(bashInput(p, "gh pr merge 12"), Config{})); d != "" {
		t.Fatalf("disarmed incident: %q", d)
	}
}
