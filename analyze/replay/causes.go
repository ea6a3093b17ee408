package replay

import (
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/pmcheck/pmcheck/analyze/harness"
	"github.com/pmcheck/pmcheck/analyze/model"
)

// The FAILED cause phrases. watch takes them from agent-postmortem's
// detectors/attempt_failed.py, which is not public; pmcheck's choice of "the
// four runtime-produced markers" and their wording is documented in
// docs/replay.md and pinned by TestCausePhrases.
const (
	CauseNotRecorded = "cause not recorded"
	CauseInterrupted = "interrupted before finishing" // marker 1: the kill sentinel (watch's own wording)
	CauseUsageLimit  = "hit a usage limit"            // marker 2: a usage-limit message
	CauseAPIError    = "ended on an API error"        // marker 3: an API-error row
	CauseContext     = "ran out of context"           // marker 4: the prompt grew past the context window
)

// Cause is what FAILED prints for an attempt.
type Cause struct {
	Phrase string
	// Marker names the marker that matched: kill-sentinel, usage-limit,
	// api-error, context, or "" for none.
	Marker string
	// ResetTime is the usage-limit reset as the message states it ("3pm
	// (Europe/Amsterdam)", or RFC 3339 for the epoch form); "" when none.
	ResetTime string
}

var (
	resetsRE = regexp.MustCompile(`(?i)\bresets\s+(?:at\s+)?([^·∙\n]+?)\s*(?:[·∙].*)?$`)
	epochRE  = regexp.MustCompile(`usage limit reached\|(\d{9,11})`)
)

// CauseOf reads the cause from a transcript's last user or assistant row, by
// the rule watch uses (`_cause_phrase_for_failed`): a user row that is the kill
// sentinel was interrupted; an assistant row carrying one of the runtime's
// markers gives that marker's phrase; anything else is "cause not recorded".
func CauseOf(e *model.Event) Cause {
	if e == nil {
		return Cause{Phrase: CauseNotRecorded}
	}
	text := strings.TrimSpace(e.Text)
	if e.Role == "user" {
		if strings.HasPrefix(e.Text, harness.KillSentinelPrefix) {
			return Cause{Phrase: CauseInterrupted, Marker: "kill-sentinel"}
		}
		return Cause{Phrase: CauseNotRecorded}
	}
	if e.Role != "assistant" {
		return Cause{Phrase: CauseNotRecorded}
	}
	if isUsageLimit(text) {
		return Cause{Phrase: CauseUsageLimit, Marker: "usage-limit", ResetTime: resetOf(text)}
	}
	if strings.HasPrefix(text, "Prompt is too long") || strings.Contains(text, "context window") && e.APIError != "" {
		return Cause{Phrase: CauseContext, Marker: "context"}
	}
	if e.APIError != "" || strings.HasPrefix(text, "API Error") {
		return Cause{Phrase: CauseAPIError, Marker: "api-error"}
	}
	return Cause{Phrase: CauseNotRecorded}
}

func isUsageLimit(text string) bool {
	t := strings.ReplaceAll(text, "’", "'")
	for _, p := range []string{"usage limit reached", "limit reached ∙ resets", "You've hit your", "You've reached your"} {
		if strings.Contains(t, p) {
			return true
		}
	}
	return false
}

func resetOf(text string) string {
	if m := epochRE.FindStringSubmatch(text); m != nil {
		if sec, err := strconv.ParseInt(m[1], 10, 64); err == nil {
			return time.Unix(sec, 0).UTC().Format(time.RFC3339)
		}
	}
	if m := resetsRE.FindStringSubmatch(text); m != nil {
		return strings.TrimSpace(m[1])
	}
	return ""
}
