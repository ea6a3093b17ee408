package replay

import (
	"github.com/pmcheck/pmcheck/analyze/interpret"
	"github.com/pmcheck/pmcheck/analyze/model"
)

// The FAILED cause phrases: watch's wording for each of the runtime's four
// failure markers. Which marker a row carries is package interpret's
// decision (the detectors read the same one); this table is only the
// wording, pinned by TestCausePhrases and documented in docs/replay.md.
const (
	CauseNotRecorded = interpret.PhraseNotRecorded
	CauseInterrupted = interpret.PhraseInterrupted // marker 1: the kill sentinel (watch's own wording)
	CauseUsageLimit  = "hit a usage limit"         // marker 2: a usage-limit message
	CauseAPIError    = "ended on an API error"     // marker 3: an API-error row
	CauseContext     = interpret.PhraseContext     // marker 4: the prompt grew past the context window
)

// Cause is what FAILED prints for an attempt.
type Cause struct {
	Phrase string
	// Marker names the marker that matched (interpret.Marker*): kill-sentinel,
	// usage-limit, api-error, context, or "" for none.
	Marker string
	// ResetTime is the usage-limit reset as the message states it ("3pm
	// (Europe/Amsterdam)", or RFC 3339 for the epoch form); "" when none.
	ResetTime string
}

// watchPhrases maps each marker to watch's wording.
var watchPhrases = map[string]string{
	interpret.MarkerNone:         CauseNotRecorded,
	interpret.MarkerKillSentinel: CauseInterrupted,
	interpret.MarkerUsageLimit:   CauseUsageLimit,
	interpret.MarkerAPIError:     CauseAPIError,
	interpret.MarkerContext:      CauseContext,
}

// causeOf words an ending the way watch prints it.
func causeOf(e interpret.Ending) Cause {
	return Cause{Phrase: watchPhrases[e.Marker], Marker: e.Marker, ResetTime: e.ResetTime}
}

// causeOfEvent reads the cause FAILED prints from a transcript's last user or
// assistant row (interpret.EventEnding decides the marker).
func causeOfEvent(e *model.Event) Cause { return causeOf(interpret.EventEnding(e)) }
