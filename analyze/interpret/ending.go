package interpret

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/pmcheck/pmcheck/analyze/harness"
	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/internal/lazyre"
)

// Ending markers: which of the runtime's failure markers a transcript's last
// user or assistant row carries. MarkerNone means the row carries none (the
// transcript ended normally, or its cause was not recorded).
const (
	MarkerNone         = ""
	MarkerKillSentinel = "kill-sentinel"
	MarkerUsageLimit   = "usage-limit"
	MarkerContext      = "context"
	MarkerAPIError     = "api-error"
)

// Cause phrases, as facts and reports state them. The replay prints watch's
// own wording for some markers (package replay maps markers to it); the
// phrases both share are defined here only.
const (
	PhraseInterrupted  = "interrupted before finishing"
	PhraseUsageLimit   = "usage limit reached"
	PhraseAPIError     = "API error"
	PhraseContext      = "ran out of context"
	PhraseNotRecorded  = "cause not recorded"
	PhraseNoTranscript = "no transcript"
)

// Ending is how a transcript ends, read from its last user or assistant row.
type Ending struct {
	// Marker is one of the Marker constants.
	Marker string
	// Detail is the first line of the row's text (at most 200 bytes) when a
	// marker matched.
	Detail string
	// ResetTime is a usage limit's reset as the message states it ("3pm
	// (Europe/Amsterdam)", or RFC 3339 for the epoch form); "" when none.
	ResetTime string
	// At is the row that carries the marker (zero for MarkerNone).
	At model.Evidence
}

// Failed reports whether the ending carries a failure marker.
func (e Ending) Failed() bool { return e.Marker != MarkerNone }

// Phrase is the cause as facts state it: "" for MarkerNone.
func (e Ending) Phrase() string {
	switch e.Marker {
	case MarkerKillSentinel:
		return PhraseInterrupted
	case MarkerUsageLimit:
		return PhraseUsageLimit
	case MarkerContext:
		return PhraseContext
	case MarkerAPIError:
		return PhraseAPIError
	}
	return ""
}

// EndingOf reads how t ends from its last user or assistant row. A nil
// transcript, or one without such rows, has MarkerNone.
func EndingOf(t *model.Transcript) Ending {
	if t == nil {
		return Ending{}
	}
	e := EventEnding(t.Tail.LastEvent)
	if e.Marker != MarkerNone {
		e.At = model.Evidence{File: t.File, Line: t.Tail.LastEvent.Line, Time: t.Tail.LastEvent.WriteTime}
	}
	return e
}

// EventEnding reads the marker of one row: a user row whose text, left-trimmed,
// begins with the kill sentinel was interrupted; an assistant row may carry a
// usage-limit message, a context-window error, or an API error (the row is
// flagged isApiErrorMessage, or its text begins with "API Error"). Anything
// else carries no marker. At is left zero (the row's file is the caller's).
func EventEnding(ev *model.Event) Ending {
	if ev == nil {
		return Ending{}
	}
	text := strings.TrimSpace(ev.Text)
	switch ev.Role {
	case "user":
		if IsKillSentinel(text) {
			return Ending{Marker: MarkerKillSentinel, Detail: firstLine(text)}
		}
	case "assistant":
		switch {
		case isUsageLimit(text):
			return Ending{Marker: MarkerUsageLimit, Detail: firstLine(text), ResetTime: resetOf(text)}
		case strings.HasPrefix(text, "Prompt is too long") || strings.Contains(text, "context window") && ev.APIError != "":
			return Ending{Marker: MarkerContext, Detail: firstLine(text)}
		case ev.APIError != "" || strings.HasPrefix(text, "API Error"):
			return Ending{Marker: MarkerAPIError, Detail: firstLine(text)}
		}
	}
	return Ending{}
}

// IsKillSentinel reports whether a user row's text is the runtime's kill
// sentinel ("[Request interrupted by user]" and its "… for tool use]" form),
// ignoring leading white space.
func IsKillSentinel(text string) bool {
	return strings.HasPrefix(strings.TrimLeft(text, " \t\r\n"), harness.KillSentinelPrefix)
}

// EndsInKillSentinel reports whether t's last user row is the kill sentinel:
// with a newer attempt of the same key, that is a killed attempt.
func EndsInKillSentinel(t *model.Transcript) bool {
	return t != nil && t.Tail.LastUser != nil && IsKillSentinel(t.Tail.LastUser.Text)
}

// usageLimitMarkers are the usage-limit texts the runtime writes, matched
// case-insensitively after typographic apostrophes become plain ones: the
// epoch form ("Claude AI usage limit reached|<seconds>"), the bullet forms
// ("5-hour limit reached ∙ resets 3pm", U+2219 or U+00B7) and the "You've
// hit / reached your … limit" forms. The runtime's "usage limit reached" is
// also the phrase facts use.
var usageLimitMarkers = []string{
	PhraseUsageLimit,
	"limit reached ∙ resets",
	"limit reached · resets",
	"you've hit your",
	"you've reached your",
}

func isUsageLimit(text string) bool {
	if hit, ok := usageLimitASCII(text); ok {
		return hit
	}
	low := strings.ToLower(strings.ReplaceAll(text, "’", "'"))
	for _, m := range usageLimitMarkers {
		if strings.Contains(low, m) {
			return true
		}
	}
	return false
}

// usageLimitASCII is isUsageLimit's answer for an ASCII text (ok false for
// any other), without its two copies (a watch asks it of every agent's last
// row at every poll): an ASCII text has no typographic apostrophe, lowers
// byte by byte (on the stack when short, else into a pooled buffer), and
// can hold only the markers that are ASCII.
func usageLimitASCII(text string) (hit, ok bool) {
	if len(text) <= 512 {
		var stack [512]byte
		return asciiMarked(stack[:0], text)
	}
	bp := lowerBufs.Get().(*[]byte)
	hit, ok = asciiMarked((*bp)[:0], text)
	if len(text) <= 64<<10 && cap(*bp) < len(text) {
		*bp = make([]byte, 0, len(text))
	}
	lowerBufs.Put(bp)
	return hit, ok
}

// asciiMarked is usageLimitASCII lowering text into buf.
func asciiMarked(buf []byte, text string) (hit, ok bool) {
	low := buf
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c >= utf8.RuneSelf {
			return false, false
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		low = append(low, c)
	}
	for _, m := range asciiMarkers {
		if bytes.Contains(low, m) {
			return true, true
		}
	}
	return false, true
}

// asciiMarkers are the usage-limit markers that are ASCII.
var asciiMarkers = func() (out [][]byte) {
	for _, m := range usageLimitMarkers {
		if strings.IndexFunc(m, func(r rune) bool { return r >= utf8.RuneSelf }) < 0 {
			out = append(out, []byte(m))
		}
	}
	return out
}()

var lowerBufs = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

var (
	resetsRE = lazyre.New(`(?i)\bresets\s+(?:at\s+)?([^·∙\n]+?)\s*(?:[·∙].*)?$`)
	epochRE  = lazyre.New(regexp.QuoteMeta(PhraseUsageLimit) + `\|(\d{9,11})`)
)

func resetOf(text string) string {
	if m := epochRE().FindStringSubmatch(text); m != nil {
		if sec, err := strconv.ParseInt(m[1], 10, 64); err == nil {
			return time.Unix(sec, 0).UTC().Format(time.RFC3339)
		}
	}
	if m := resetsRE().FindStringSubmatch(text); m != nil {
		return strings.TrimSpace(m[1])
	}
	return ""
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		s = s[:200]
	}
	return s
}

// AttemptOutcome is what the files say happened to a Workflow attempt:
// completed or failed when a journal line closed it, killed when a newer
// attempt of the same key started and this attempt's transcript ends in the
// kill sentinel, else open.
func AttemptOutcome(a *model.Attempt) string {
	switch {
	case a.ClosedBy == model.OutcomeCompleted || a.ClosedBy == model.OutcomeFailed:
		return a.ClosedBy
	case AttemptKilled(a.SupersededBy > 0, a.ClosedBy, EndsInKillSentinel(a.Transcript)):
		return model.OutcomeKilled
	}
	return model.OutcomeOpen
}

// AttemptKilled is the one decision of an attempt's kill, which check's
// attempt facts (AttemptOutcome) and replay's KILL line both make: a newer
// attempt of its key started (superseded), no journal line closed it
// (closedBy ""), and its transcript ends in the kill sentinel. An attempt a
// result or failed line closed returned, whatever its transcript ends in;
// watch, which never looked at what closed it, printed KILL and OK for it.
func AttemptKilled(superseded bool, closedBy string, endsInKillSentinel bool) bool {
	return superseded && closedBy == "" && endsInKillSentinel
}

// Lifecycle terminals of a Workflow run, from its parent's evidence.
const (
	TerminalCompleted = "completed"
	TerminalFailed    = "failed"
	TerminalStopped   = "stopped"
	// TerminalUnknown: evidence whose status is not a terminal one (missing,
	// or a word the runtime is not known to write).
	TerminalUnknown = "unknown"
)

// WorkflowTerminal reads a Workflow task-notification's status as the run's
// lifecycle terminal. Real notifications of a stopped run say "killed" with
// a summary "… was stopped", so killed is the terminal stopped.
func WorkflowTerminal(status string) string {
	switch s := strings.TrimSpace(status); s {
	case TerminalCompleted, TerminalFailed, TerminalStopped:
		return s
	case "killed":
		return TerminalStopped
	}
	return TerminalUnknown
}

// KillSilence is how long an attempt was silent before it was killed: from
// its transcript's last meaningful row before the last user row (the kill
// sentinel) to that row, by the rows' timestamps. known is false when a
// timestamp is missing or the difference is negative. Check's attempt fact
// (rounded half to even, as Python rounds) and replay's KILL line read it
// here.
func KillSilence(t *model.Transcript) (seconds float64, known bool) {
	if t == nil {
		return 0, false
	}
	from, to := t.Tail.MeaningfulBeforeLastUser, t.Tail.LastUser
	if from == nil || to == nil || from.Timestamp.IsZero() || to.Timestamp.IsZero() {
		return 0, false
	}
	d := to.Timestamp.Sub(from.Timestamp)
	if d < 0 {
		return 0, false
	}
	return d.Seconds(), true
}
