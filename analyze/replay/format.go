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

// Event is one event the watch printed, with its simulated time. Text holds
// the printed lines (two for a KILL with details), JSON the --json line.
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
	Text   []string       `json:"-"`
	JSON   string         `json:"-"`
}

// Lines renders the events as watch prints them; with timestamps each line is
// prefixed by its simulated time (RFC 3339, UTC), and in JSON mode the time is
// added as a last "time" field instead.
func Lines(events []Event, jsonMode, timestamps bool) []string {
	var out []string
	for _, e := range events {
		if jsonMode {
			j := e.JSON
			if timestamps {
				j = strings.TrimSuffix(j, "}") + `, "time": ` + pyString(clock.Format(e.At)) + "}"
			}
			out = append(out, j)
			continue
		}
		for _, t := range e.Text {
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
