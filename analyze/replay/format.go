package replay

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/pmcheck/pmcheck/analyze/clock"
	"github.com/pmcheck/pmcheck/analyze/model"
)

// Event kinds: exactly the words watch prints.
const (
	KindStart     = "START"
	KindKill      = "KILL"
	KindFailed    = "FAILED"
	KindOK        = "OK"
	KindQuiet     = "QUIET"
	KindDone      = "DONE"
	KindLimit     = "LIMIT"
	KindMalformed = "MALFORMED"
	KindReset     = "RESET"
)

// labelWidth pads every event word so the messages line up (watch's
// _LABEL_WIDTH): "KILL".ljust(7) == "KILL   ".
const labelWidth = 7

// Event is one event the watch printed, with its simulated time. Its printed
// lines (Text) and its --json line (JSON) are rendered when asked for, from
// the fields below: check keeps only each event's fact, and a journal of
// 200,000 attempts built 470 MB of lines and objects it never read.
type Event struct {
	At   time.Time `json:"at"`
	Kind string    `json:"kind"`
	// Key and Attempt identify the journal occurrence (empty for run events).
	Key     string `json:"key,omitempty"`
	Attempt int    `json:"attempt,omitempty"`
	Agent   string `json:"agent,omitempty"`
	AgentID string `json:"agent_id,omitempty"`
	// Silence in seconds (KILL, QUIET), -1 when not applicable or unknown.
	Silence float64 `json:"silence"`
	// Detail: the FAILED cause, the DONE verdict, the LIMIT reason.
	Detail string         `json:"detail,omitempty"`
	Where  model.Evidence `json:"where,omitzero"`

	// What the lines say beyond the fields above, fixed when the event is
	// made (a live watch's run id and agents change between polls).
	runID       string
	nextCommand string  // Options.NextCommand (KILL, DONE)
	counts      [2]int  // START, DONE: agents, attempts; KILL: restarted as; MALFORMED: the line
	hours       float64 // LIMIT: --max-hours
	// ledger is a KILL's attempt's work; nil for watch's fallback KILL
	// (details unavailable).
	ledger       *Ledger
	silenceKnown bool   // KILL: the silence before the kill is known
	resetTime    string // FAILED: when a usage limit resets
}

// Text is the lines watch prints for the event (two for a KILL with
// details).
func (e *Event) Text() []string {
	word, rest := e.firstLine()
	first := rest
	if word != "" {
		first = label(word, rest)
	}
	if e.Kind == KindKill && e.ledger != nil {
		l := e.ledger
		return []string{first, label("", fmt.Sprintf("attempt %d wrote %s, %s.  -> %s", e.Attempt, pathsWords(l.Paths, l.PathsPartial),
			commitWords(l.Commits, l.CommitsWithoutID), e.next("agent-postmortem rescue plan "+e.runID)))}
	}
	return []string{first}
}

// firstLine is the event's first printed line as its label word and the
// rest (the fact's message); word is empty for MALFORMED, which watch prints
// without a label.
func (e *Event) firstLine() (word, rest string) {
	switch e.Kind {
	case KindStart:
		return "START", fmt.Sprintf("%s: %d agents started so far, %d attempts.", e.runID, e.counts[0], e.counts[1])
	case KindKill:
		if e.ledger == nil {
			return "KILL", fmt.Sprintf("%s attempt %d (details unavailable); restarted as attempt %d.", e.Agent, e.Attempt, e.counts[0])
		}
		silence := "unknown"
		if e.silenceKnown {
			silence = strconv.Itoa(pyRound(e.Silence))
		}
		return "KILL", fmt.Sprintf("%s attempt %d after %ss of silence; restarted as attempt %d.", e.Agent, e.Attempt, silence, e.counts[0])
	case KindFailed:
		return "FAILED", fmt.Sprintf("%s attempt %d: %s.", e.Agent, e.Attempt, e.Detail)
	case KindOK:
		return "OK", fmt.Sprintf("%s attempt %d returned a result.", e.Agent, e.Attempt)
	case KindQuiet:
		return "QUIET", fmt.Sprintf("%s attempt %d has produced nothing for %ds.", e.Agent, e.Attempt, pyRound(e.Silence))
	case KindDone:
		return "DONE", fmt.Sprintf("%d agents, %d attempts, %s.  -> %s", e.counts[0], e.counts[1], e.Detail, e.next("agent-postmortem run "+e.runID))
	case KindLimit:
		if e.Detail == limitMalformed {
			return "LIMIT", "journal has malformed lines; run state unknown."
		}
		return "LIMIT", formatHours(e.hours) + "h reached; run not finished."
	case KindMalformed:
		if e.Detail == malformedTooLong {
			return "", "MALFORMED journal line longer than 1 MB"
		}
		return "", fmt.Sprintf("MALFORMED journal line %d is not JSON", e.counts[0])
	case KindReset:
		return "RESET", "journal was truncated or replaced; state cleared."
	}
	panic("replay: no line for event kind " + e.Kind)
}

// JSON is watch's --json object for the event.
func (e *Event) JSON() string {
	switch e.Kind {
	case KindStart:
		return pyObj(kv{"event", "START"}, kv{"run", e.runID}, kv{"agents", e.counts[0]}, kv{"attempts", e.counts[1]})
	case KindKill:
		if e.ledger == nil {
			return pyObj(kv{"event", "KILL"}, kv{"agent", e.Agent}, kv{"attempt", e.Attempt}, kv{"silence_seconds", nil},
				kv{"restarted_as", e.counts[0]}, kv{"paths_written", nil}, kv{"commits", nil}, kv{"run_id", e.runID},
				kv{"details_unavailable", true})
		}
		var silence any
		if e.silenceKnown {
			silence = pyRound(e.Silence)
		}
		return pyObj(kv{"event", "KILL"}, kv{"agent", e.Agent}, kv{"attempt", e.Attempt}, kv{"silence_seconds", silence},
			kv{"restarted_as", e.counts[0]}, kv{"paths_written", e.ledger.Paths}, kv{"commits", e.ledger.Commits}, kv{"run_id", e.runID})
	case KindFailed:
		var reset any
		if e.resetTime != "" {
			reset = e.resetTime
		}
		return pyObj(kv{"event", "FAILED"}, kv{"agent", e.Agent}, kv{"attempt", e.Attempt}, kv{"cause", e.Detail}, kv{"reset_time", reset})
	case KindOK:
		return pyObj(kv{"event", "OK"}, kv{"agent", e.Agent}, kv{"attempt", e.Attempt})
	case KindQuiet:
		return pyObj(kv{"event", "QUIET"}, kv{"agent", e.Agent}, kv{"attempt", e.Attempt}, kv{"silence_seconds", pyRound(e.Silence)})
	case KindDone:
		return pyObj(kv{"event", "DONE"}, kv{"agents", e.counts[0]}, kv{"attempts", e.counts[1]}, kv{"verdict", e.Detail},
			kv{"run_id", e.runID}, kv{"next_command", e.next("agent-postmortem run " + e.runID)})
	case KindLimit:
		if e.Detail == limitMalformed {
			return pyObj(kv{"event", "LIMIT"}, kv{"reason", "malformed"})
		}
		return pyObj(kv{"event", "LIMIT"}, kv{"hours", e.hours})
	case KindMalformed:
		if e.Detail == malformedTooLong {
			return pyObj(kv{"event", "MALFORMED"}, kv{"reason", malformedTooLong})
		}
		return pyObj(kv{"event", "MALFORMED"}, kv{"line", e.counts[0]}, kv{"reason", "not JSON"})
	case KindReset:
		return pyObj(kv{"event", "RESET"})
	}
	panic("replay: no JSON for event kind " + e.Kind)
}

// next is the follow-up command a line names: watch's own, or the one the
// options set.
func (e *Event) next(watchs string) string {
	if e.nextCommand != "" {
		return e.nextCommand
	}
	return watchs
}

// message is the event's line as its fact states it: the first line without
// its label.
func (e *Event) message() string {
	word, rest := e.firstLine()
	if word == "" {
		return rest
	}
	return strings.TrimSpace(rest)
}

// Details of events that decide their lines.
const (
	limitMalformed   = "malformed"
	malformedTooLong = "line longer than 1 MB"
)

// Lines renders the events as watch prints them; with timestamps each line is
// prefixed by its simulated time (RFC 3339, UTC), and in JSON mode the time is
// added as a last "time" field instead.
func Lines(events []Event, jsonMode, timestamps bool) []string {
	var out []string
	for i := range events {
		e := &events[i]
		if jsonMode {
			j := e.JSON()
			if timestamps {
				j = strings.TrimSuffix(j, "}") + `, "time": ` + pyString(clock.Format(e.At)) + "}"
			}
			out = append(out, j)
			continue
		}
		for _, t := range e.Text() {
			if timestamps {
				t = clock.Format(e.At) + " " + t
			}
			out = append(out, t)
		}
	}
	return out
}

func label(word, rest string) string {
	return fmt.Sprintf("%-*s%s", labelWidth, word, rest)
}

// pyObj writes a JSON object the way Python's json.dumps does by default:
// ", " and ": " separators, keys in the given order, non-ASCII escaped.
type kv struct {
	k string
	v any // string, int, float64, bool, nil
}

func pyObj(fields ...kv) string {
	// One builder for the whole object (a string per key and value was most
	// of a replay of 200,000 KILL lines).
	var b strings.Builder
	b.Grow(32 * len(fields))
	b.WriteByte('{')
	for i, f := range fields {
		if i > 0 {
			b.WriteString(", ")
		}
		writePyString(&b, f.k)
		b.WriteString(": ")
		switch v := f.v.(type) {
		case nil:
			b.WriteString("null")
		case string:
			writePyString(&b, v)
		case int:
			b.WriteString(strconv.Itoa(v))
		case float64:
			b.WriteString(pyFloat(v))
		case bool:
			if v {
				b.WriteString("true")
			} else {
				b.WriteString("false")
			}
		default:
			panic(fmt.Sprintf("pyObj: unsupported %T", v))
		}
	}
	b.WriteByte('}')
	return b.String()
}

// pyString is json.dumps of a str with ensure_ascii.
func pyString(s string) string {
	var b strings.Builder
	writePyString(&b, s)
	return b.String()
}

// writePyString writes pyString(s) to b.
func writePyString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r < 0x20 || (r >= 0x7f && r <= 0xffff) || r == utf8.RuneError:
			if r < 0x7f {
				fmt.Fprintf(b, `\u%04x`, r)
			} else if r == 0x7f {
				b.WriteRune(r)
			} else {
				fmt.Fprintf(b, `\u%04x`, r)
			}
		case r > 0xffff:
			r -= 0x10000
			fmt.Fprintf(b, `\u%04x\u%04x`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
}

// pyFloat is repr(float) for the values watch prints (hours).
func pyFloat(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e16 {
		return strconv.FormatFloat(f, 'f', 1, 64)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// pyRound is Python's round() on a float: to the nearest integer, ties to even.
func pyRound(f float64) int { return int(math.RoundToEven(f)) }

// formatHours is watch's _format_hours: "6" for 6.0, "0.5" otherwise.
func formatHours(h float64) string {
	if h == math.Trunc(h) {
		return strconv.FormatInt(int64(h), 10)
	}
	return strconv.FormatFloat(h, 'g', -1, 64)
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// pathsWords: "1 path", "3 paths", or "3+ paths" when the ledger is partial.
func pathsWords(paths int, partial bool) string {
	if partial {
		return fmt.Sprintf("%d+ paths", paths)
	}
	return fmt.Sprintf("%d %s", paths, plural(paths, "path"))
}

// commitWords is watch's _commit_words over report._commits_words (G4b):
// "reported 1 commit", "reported 2+ commits", or "commit count unknown".
func commitWords(commits, withoutID int) string {
	switch {
	case withoutID > 0 && commits == 0:
		return "commit count unknown"
	case withoutID > 0:
		return fmt.Sprintf("reported %d+ commits", commits)
	default:
		return fmt.Sprintf("reported %d %s", commits, plural(commits, "commit"))
	}
}
