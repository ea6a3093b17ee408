package jsonl

import (
	"fmt"

	"github.com/pmcheck/pmcheck/internal/jsonscan"
)

// JunkMin is how many skipped malformed lines a file must have before a
// reader may give up on it: below it, a file is always read to its end.
const JunkMin = 10000

// MostlyNotJSON is the one rule for a JSON Lines file (a transcript or a
// Workflow journal) that is mostly not JSON: it has skipped malformed lines,
// and they outnumber the lines that were read as JSON. What such a file's
// junk hid cannot be known, so a check fails closed on it.
func MostlyNotJSON(bad, good int) bool { return bad > 0 && bad > good }

// GiveUp reports whether a reader that has read bad skipped malformed lines
// and good JSON lines so far may stop: the file is mostly not JSON at this
// line already, and has at least JunkMin malformed lines. Whatever follows,
// the file is an input problem, and reading the rest of a file of fifty
// million junk lines would only cost time.
func GiveUp(bad, good int) bool { return bad >= JunkMin && MostlyNotJSON(bad, good) }

// ReasonNotAnObject is NotJSONReason's reason for a line that is a JSON
// value but not an object.
const ReasonNotAnObject = "not a JSON object"

// NotJSONReason is the reason a malformed line is listed with, for a
// trimmed, non-empty line that a reader could not read as a JSON object:
// valid JSON that is not an object (an array, a string, a number), a torn
// final line (the file ended without a newline, mid-write), or not JSON.
// Readers ask it only for the lines they keep as examples: it validates
// the line again.
func NotJSONReason(data []byte, torn bool) string {
	switch {
	case data[0] != '{' && jsonscan.Valid(data):
		return ReasonNotAnObject
	case torn:
		return "torn final line (not JSON, no newline at end of file)"
	}
	return "not JSON"
}

// GaveUpError is returned by a reader asked to give up (GiveUp) on a file
// that is mostly not JSON, at the line where it stopped.
type GaveUpError struct {
	File string
	// Bad and Good count the malformed and JSON lines read up to Line;
	// First is the first malformed line.
	Bad, Good, First, Line int
}

func (e *GaveUpError) Error() string {
	return fmt.Sprintf("%s: %d of the first %d lines are not JSON (first at line %d); reading stopped at line %d", e.File, e.Bad, e.Bad+e.Good, e.First, e.Line)
}
