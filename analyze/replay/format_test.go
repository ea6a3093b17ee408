package replay

import (
	"testing"

	"github.com/pmcheck/pmcheck/analyze/model"
)

// TestCausePhrases pins pmcheck's choice for watch's non-public cause
// phrases (docs/replay.md, "The four failure markers").
func TestCausePhrases(t *testing.T) {
	cases := []struct {
		e     *model.Event
		want  string
		reset string
	}{
		{nil, CauseNotRecorded, ""},
		{&model.Event{Role: "user", Text: "[Request interrupted by user]"}, CauseInterrupted, ""},
		{&model.Event{Role: "user", Text: "[Request interrupted by user for tool use]"}, CauseInterrupted, ""},
		{&model.Event{Role: "user", Text: "please continue"}, CauseNotRecorded, ""},
		{&model.Event{Role: "assistant", APIError: "rate_limit", Text: "You've hit your session limit · resets 3pm (Europe/Amsterdam)"}, CauseUsageLimit, "3pm (Europe/Amsterdam)"},
		{&model.Event{Role: "assistant", APIError: "rate_limit", Text: "You’ve hit your weekly limit · resets Oct 9, 5pm · progress saved"}, CauseUsageLimit, "Oct 9, 5pm"},
		{&model.Event{Role: "assistant", APIError: "unknown", Text: "5-hour limit reached ∙ resets 3pm"}, CauseUsageLimit, "3pm"},
		{&model.Event{Role: "assistant", Text: "Claude AI usage limit reached|1767200400"}, CauseUsageLimit, "2025-12-31T17:00:00Z"},
		{&model.Event{Role: "assistant", APIError: "unknown", Text: "API Error: Connection closed mid-response."}, CauseAPIError, ""},
		{&model.Event{Role: "assistant", APIError: "invalid_request", Text: "Prompt is too long"}, CauseContext, ""},
		{&model.Event{Role: "assistant", Text: "All done."}, CauseNotRecorded, ""},
		{&model.Event{Role: "assistant", Text: "I will explain what an API Error: is"}, CauseNotRecorded, ""},
	}
	for _, c := range cases {
		got := causeOfEvent(c.e)
		if got.Phrase != c.want || got.ResetTime != c.reset {
			t.Errorf("%+v: got %q reset %q, want %q reset %q", c.e, got.Phrase, got.ResetTime, c.want, c.reset)
		}
	}
}

func TestFormatting(t *testing.T) {
	if got := label("KILL", "x"); got != "KILL   x" {
		t.Errorf("label = %q", got)
	}
	if got := label("", "x"); got != "       x" {
		t.Errorf("indent = %q", got)
	}
	for in, want := range map[float64]int{2.5: 2, 3.5: 4, -0.5: 0, 302.4: 302, 302.6: 303} {
		if got := pyRound(in); got != want {
			t.Errorf("round(%v) = %d, want %d", in, got, want)
		}
	}
	if got := pyObj(kv{"event", "LIMIT"}, kv{"hours", 6.0}, kv{"x", nil}, kv{"ok", true}, kv{"s", "é\"\n"}); got != `{"event": "LIMIT", "hours": 6.0, "x": null, "ok": true, "s": "\u00e9\"\n"}` {
		t.Errorf("pyObj = %s", got)
	}
	if got := pyObj(kv{"h", 0.5}); got != `{"h": 0.5}` {
		t.Errorf("pyObj float = %s", got)
	}
	if formatHours(6) != "6" || formatHours(0.5) != "0.5" {
		t.Error("formatHours")
	}
	for _, c := range []struct {
		p       int
		partial bool
		want    string
	}{{1, false, "1 path"}, {0, false, "0 paths"}, {3, true, "3+ paths"}} {
		if got := pathsWords(c.p, c.partial); got != c.want {
			t.Errorf("pathsWords = %q, want %q", got, c.want)
		}
	}
	for _, c := range []struct {
		c, without int
		want       string
	}{{1, 0, "reported 1 commit"}, {0, 0, "reported 0 commits"}, {2, 1, "reported 2+ commits"}, {0, 2, "commit count unknown"}} {
		if got := commitWords(c.c, c.without); got != c.want {
			t.Errorf("commitWords(%d,%d) = %q, want %q", c.c, c.without, got, c.want)
		}
	}
}

func TestVerdictAndNames(t *testing.T) {
	o := func(key string, n int, closed string) *occ {
		return &occ{key: key, ordinal: n, agentID: "a" + key, closedBy: closed}
	}
	cases := []struct {
		occs []*occ
		want string
	}{
		{[]*occ{o("x", 1, "completed")}, "clean"},
		{[]*occ{o("x", 1, ""), o("x", 2, "completed")}, "clean after 1 retry"},
		{[]*occ{o("x", 1, ""), o("x", 2, ""), o("x", 3, "completed"), o("y", 1, "completed")}, "clean after 2 retries"},
		{[]*occ{o("x", 1, "completed"), o("y", 1, "failed")}, "FAILED: 1 agent returned no result"},
		{[]*occ{o("x", 1, "completed"), o("x", 2, "")}, "FAILED: 1 agent returned no result"},
	}
	for _, c := range cases {
		// Linked as the watcher links them: each occurrence to the one of
		// its key it supersedes.
		for i, x := range c.occs {
			x.index, x.prev = i, -1
			for j := i - 1; j >= 0; j-- {
				if c.occs[j].key == x.key {
					x.prev, c.occs[j].superseded = j, true
					break
				}
			}
		}
		if _, _, got := verdictOf(c.occs); got != c.want {
			t.Errorf("verdict %q, want %q", got, c.want)
		}
	}
	n := newNames()
	if got := n.name(&occ{key: "k", ordinal: 1, agentID: "a55efee1d077b575c"}); got != "a:a55efee1d077b575c" {
		t.Errorf("canonical id: %s", got)
	}
	for i, id := range []string{"", "../x", "bad id", "a/b"} {
		if got, want := n.name(&occ{key: "k", ordinal: i + 1, agentID: id}), "agent-"+string(rune('1'+i)); got != want {
			t.Errorf("id %q named %s, want %s", id, got, want)
		}
	}
	if got := n.name(&occ{key: "k", ordinal: 1, agentID: ""}); got != "agent-1" {
		t.Errorf("the same attempt keeps its positional name: %s", got)
	}
}
