package interpret

import (
	"strings"
	"testing"

	"github.com/pmcheck/pmcheck/analyze/model"
)

// TestEventEnding pins the one reading of a last row, including the three
// rows on which the detectors and the replay used to disagree: a usage limit
// written with a middle dot, an "API Error" row without the flag, and a kill
// sentinel after white space.
func TestEventEnding(t *testing.T) {
	cases := []struct {
		name   string
		e      *model.Event
		marker string
		reset  string
	}{
		{"nil", nil, MarkerNone, ""},
		{"sentinel", &model.Event{Role: "user", Text: "[Request interrupted by user]"}, MarkerKillSentinel, ""},
		{"sentinel for tool use", &model.Event{Role: "user", Text: "[Request interrupted by user for tool use]"}, MarkerKillSentinel, ""},
		{"sentinel after white space", &model.Event{Role: "user", Text: " \n[Request interrupted by user]"}, MarkerKillSentinel, ""},
		{"sentinel quoted mid-text", &model.Event{Role: "user", Text: "I saw [Request interrupted by user] earlier"}, MarkerNone, ""},
		{"sentinel from the assistant", &model.Event{Role: "assistant", Text: "[Request interrupted by user]"}, MarkerNone, ""},
		{"usage limit, middle dot", &model.Event{Role: "assistant", Text: "5-hour limit reached · resets 3pm"}, MarkerUsageLimit, "3pm"},
		{"usage limit, bullet", &model.Event{Role: "assistant", APIError: "unknown", Text: "5-hour limit reached ∙ resets 3pm"}, MarkerUsageLimit, "3pm"},
		{"usage limit, lower case", &model.Event{Role: "assistant", APIError: "rate_limit", Text: "you've hit your limit · resets 8pm (Asia/Tokyo)"}, MarkerUsageLimit, "8pm (Asia/Tokyo)"},
		{"usage limit, typographic apostrophe", &model.Event{Role: "assistant", Text: "You’ve hit your weekly limit · resets Oct 9, 5pm · progress saved"}, MarkerUsageLimit, "Oct 9, 5pm"},
		{"usage limit, epoch", &model.Event{Role: "assistant", Text: "Claude AI usage limit reached|1767200400"}, MarkerUsageLimit, "2025-12-31T17:00:00Z"},
		{"API error text without the flag", &model.Event{Role: "assistant", Text: "API Error: 500 {\"type\":\"error\"}"}, MarkerAPIError, ""},
		{"API error flag", &model.Event{Role: "assistant", APIError: "unknown", Text: "Connection closed mid-response."}, MarkerAPIError, ""},
		{"API error mentioned mid-text", &model.Event{Role: "assistant", Text: "I will explain what an API Error: is"}, MarkerNone, ""},
		{"context", &model.Event{Role: "assistant", APIError: "invalid_request", Text: "Prompt is too long"}, MarkerContext, ""},
		{"context window with the flag", &model.Event{Role: "assistant", APIError: "invalid_request", Text: "input exceeds the context window"}, MarkerContext, ""},
		{"context window in prose", &model.Event{Role: "assistant", Text: "the context window is large"}, MarkerNone, ""},
		{"plain ending", &model.Event{Role: "assistant", Text: "All done."}, MarkerNone, ""},
	}
	for _, c := range cases {
		got := EventEnding(c.e)
		if got.Marker != c.marker || got.ResetTime != c.reset {
			t.Errorf("%s: marker %q reset %q, want %q %q", c.name, got.Marker, got.ResetTime, c.marker, c.reset)
		}
		if (got.Marker == MarkerNone) != (got.Phrase() == "") {
			t.Errorf("%s: marker %q has phrase %q", c.name, got.Marker, got.Phrase())
		}
	}
}

// TestAttemptOutcome: killed needs both a newer attempt and the sentinel.
func TestAttemptOutcome(t *testing.T) {
	killedTail := &model.Transcript{File: "a.jsonl", Tail: model.Tail{LastUser: &model.Event{Role: "user", Text: "  [Request interrupted by user]"}}}
	cases := []struct {
		a    model.Attempt
		want string
	}{
		{model.Attempt{ClosedBy: "completed", SupersededBy: 2, Transcript: killedTail}, model.OutcomeCompleted},
		{model.Attempt{ClosedBy: "failed"}, model.OutcomeFailed},
		{model.Attempt{SupersededBy: 2, Transcript: killedTail}, model.OutcomeKilled},
		{model.Attempt{Transcript: killedTail}, model.OutcomeOpen},
		{model.Attempt{SupersededBy: 2}, model.OutcomeOpen},
	}
	for i, c := range cases {
		if got := AttemptOutcome(&c.a); got != c.want {
			t.Errorf("case %d: %s, want %s", i, got, c.want)
		}
	}
}

// TestUsageLimitASCIIIsTheGeneralAnswer: the ASCII path of isUsageLimit
// (no copies) answers what lowering the whole text answers, on the markers
// in every case and around them, and leaves every other text to it.
func TestUsageLimitASCIIIsTheGeneralAnswer(t *testing.T) {
	general := func(text string) bool {
		low := strings.ToLower(strings.ReplaceAll(text, "’", "'"))
		for _, m := range usageLimitMarkers {
			if strings.Contains(low, m) {
				return true
			}
		}
		return false
	}
	texts := []string{"", "hello", "Claude AI usage limit reached|1700000000", "USAGE LIMIT REACHED", "You've hit your limit",
		"you’ve hit your limit", "5-hour limit reached ∙ resets 3pm", "You've Reached Your weekly limit", "you've hit you", "usage limit",
		"x\x00usage limit reached", strings.Repeat("a", 70<<10) + "usage limit reached", "\u212Aelvin", "İ usage limit reached"}
	for _, m := range usageLimitMarkers {
		texts = append(texts, m, strings.ToUpper(m), "[["+m+"]]", m[:len(m)-1])
	}
	for _, text := range texts {
		hit, ok := usageLimitASCII(text)
		if ascii := strings.IndexFunc(text, func(r rune) bool { return r >= 0x80 }) < 0; ok != ascii {
			t.Errorf("%.40q: ASCII path taken %v, ASCII %v", text, ok, ascii)
		}
		if ok && hit != general(text) {
			t.Errorf("%.40q: the ASCII path says %v, lowering the text %v", text, hit, general(text))
		}
		if isUsageLimit(text) != general(text) {
			t.Errorf("%.40q: isUsageLimit says %v", text, isUsageLimit(text))
		}
	}
}
