package interpret

import (
	"encoding/base64"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pmcheck/pmcheck/analyze/harness"
	"github.com/pmcheck/pmcheck/analyze/model"
)

// MarkPattern is the resume-gate segment mark (harness.SegmentMarkPattern):
// the hook writes it at the end of its additional context; the items are the
// base64 of the outstanding descriptions joined by U+001F.
var MarkPattern = harness.SegmentMarkPattern

// markItemSeparator joins the items inside the payload.
const markItemSeparator = "\x1f"

// MarkItem is item as a mark carries it: a separator character inside it
// becomes a space, so a description cannot corrupt the mark it is written
// into. The gate matches a mark's items against the run's by this form.
func MarkItem(item string) string { return strings.ReplaceAll(item, markItemSeparator, " ") }

// Mark states: what the newest mark of a transcript says.
const (
	// MarkAbsent: no mark at all (a session that was never resumed).
	MarkAbsent = "absent"
	// MarkUndecodable: the newest mark does not decode. Its items are unknown,
	// and an older mark's items are never used in their place.
	MarkUndecodable = "undecodable"
	// MarkEmpty: the newest mark lists nothing (the gate was disarmed).
	MarkEmpty = "empty"
	// MarkItems: the newest mark lists outstanding items (the gate is armed).
	MarkItems = "items"
)

// EncodeMark builds a segment mark listing items, each as MarkItem makes it.
func EncodeMark(items []string) string {
	safe := make([]string, len(items))
	for i, it := range items {
		safe[i] = MarkItem(it)
	}
	payload := base64.StdEncoding.EncodeToString([]byte(strings.Join(safe, markItemSeparator)))
	return harness.SegmentMarkPrefix + "outstanding=" + strconv.Itoa(len(safe)) + " payload=" + payload
}

// DecodeMark decodes a mark's two captured groups. It fails (ok false) on
// invalid base64 (padding included), invalid UTF-8, or an item count that
// differs from the declared one; empty items are dropped before counting, as
// the reference does. A truncated mark and noise right after "payload=" both
// land here.
func DecodeMark(outstanding, payload string) (items []string, ok bool) {
	n, err := strconv.Atoi(outstanding)
	if err != nil || n < 0 {
		return nil, false
	}
	raw, err := base64.StdEncoding.DecodeString(payload)
	if err != nil || !utf8.Valid(raw) {
		return nil, false
	}
	items = []string{}
	for _, part := range strings.Split(string(raw), markItemSeparator) {
		if part != "" {
			items = append(items, part)
		}
	}
	if len(items) != n {
		return nil, false
	}
	return items, true
}

// FindMarks returns every mark in text, in order (the readers use the same
// pattern on raw rows; this is for tests and tools).
func FindMarks(text string) [][2]string {
	var out [][2]string
	for _, m := range MarkPattern().FindAllStringSubmatch(text, -1) {
		out = append(out, [2]string{m[1], m[2]})
	}
	return out
}

// DecodedMark is one mark of a transcript with its decoding.
type DecodedMark struct {
	At    model.Evidence `json:"at"`
	OK    bool           `json:"ok"`
	Items []string       `json:"items,omitempty"`
}

// Segments is what a transcript's marks say.
type Segments struct {
	Marks []DecodedMark `json:"marks,omitempty"`
	// State of the newest mark (MarkAbsent, MarkUndecodable, MarkEmpty,
	// MarkItems) and its items when it decodes.
	State string   `json:"state"`
	Items []string `json:"items,omitempty"`
	// WindowAfter is the line of the newest mark that DECODES (0 when none):
	// the current segment is the rows below it. A corrupt newer mark is not a
	// boundary, so it can never shrink the window to nothing (the reference's
	// fail-open fix).
	WindowAfter int `json:"window_after"`
	// Count is the number of resume segments: decodable marks + 1.
	Count int `json:"count"`
	// okLines are the lines of the decodable marks, in file order, for
	// SegmentOf's binary search.
	okLines []int
}

// ReadSegments decodes every mark of t (in file order; several marks on one
// row keep their order).
func ReadSegments(t *model.Transcript) Segments {
	s := Segments{State: MarkAbsent, Count: 1}
	if t == nil {
		return s
	}
	for _, m := range t.Marks {
		items, ok := DecodeMark(m.Outstanding, m.Payload)
		s.Marks = append(s.Marks, DecodedMark{At: m.At, OK: ok, Items: items})
		if ok {
			s.WindowAfter = m.At.Line
			s.Count++
			s.okLines = append(s.okLines, m.At.Line)
		}
	}
	if n := len(s.Marks); n > 0 {
		last := s.Marks[n-1]
		switch {
		case !last.OK:
			s.State = MarkUndecodable
		case len(last.Items) == 0:
			s.State = MarkEmpty
		default:
			s.State, s.Items = MarkItems, last.Items
		}
	}
	return s
}

// SegmentOf returns the 1-based segment a row belongs to: one more than the
// number of decodable marks on rows above it.
// Marks are in file order, so this is a binary search over the decodable
// marks' lines (a transcript with many marks and many calls stays n·log n).
func (s Segments) SegmentOf(line int) int {
	seg, _ := s.segmentOf(line)
	return seg
}

// segmentOf is SegmentOf, also returning how many marks it looked at (a
// binary search's probes), which TestPerCallLookupsGrowLinearly bounds.
func (s Segments) segmentOf(line int) (seg, visits int) {
	if s.okLines == nil && s.Count > 1 {
		// Built by hand rather than by ReadSegments.
		seg := 1
		for _, m := range s.Marks {
			if m.OK && m.At.Line < line {
				seg++
			}
		}
		return seg, len(s.Marks)
	}
	i := sort.Search(len(s.okLines), func(i int) bool {
		visits++
		return s.okLines[i] >= line
	})
	return 1 + i, visits
}

// InWindow reports whether a row is in the current segment.
func (s Segments) InWindow(line int) bool { return line > s.WindowAfter }
