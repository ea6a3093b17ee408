package interpret

import (
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/internal/fuzzseed"
)

// FuzzDecodeMark feeds the segment-mark decoder arbitrary groups, as the
// pattern captures them from a row (docs/reliability.md; a longer run:
// go test ./analyze/interpret -run '^$' -fuzz '^FuzzDecodeMark$' -fuzztime 10m).
// Seeds are built at run time with EncodeMark (no decodable mark may sit in a
// source file) from the items of the table tests, plus the table's corrupt
// groups. Whatever the input: no panic; a mark that decodes has exactly the
// declared number of items, none empty, none holding the separator, all valid
// UTF-8, and re-encoding them gives a mark that is found in a row and decodes
// to the same items; ReadSegments on a transcript holding the mark keeps its
// window invariants.
func FuzzDecodeMark(f *testing.F) {
	literals := fuzzseed.Literals(".", func(s string) bool { return len(s) < 200 })
	for _, items := range [][]string{{}, {"Fix three disclosure defects"}, {"a", "b c", "multi\nline"}, {"ünïcödé ✓", "x"}} {
		m := FindMarks(EncodeMark(items))[0]
		f.Add(m[0], m[1])
	}
	for _, s := range literals {
		f.Add("1", s)
		f.Add(s, "")
	}
	f.Fuzz(func(t *testing.T, outstanding, payload string) {
		items, ok := DecodeMark(outstanding, payload)
		if !ok {
			if items != nil {
				t.Fatalf("a mark that does not decode returned items %q", items)
			}
		} else {
			n, err := strconv.Atoi(outstanding)
			if err != nil || n != len(items) {
				t.Fatalf("decoded %d items from a mark declaring %q", len(items), outstanding)
			}
			for _, it := range items {
				if it == "" || strings.Contains(it, markItemSeparator) || !utf8.ValidString(it) {
					t.Fatalf("decoded a bad item %q", it)
				}
			}
			found := FindMarks(`{"content":"before ` + EncodeMark(items) + `\n after"}`)
			if len(found) != 1 {
				t.Fatalf("re-encoded mark found %d times", len(found))
			}
			again, ok := DecodeMark(found[0][0], found[0][1])
			if !ok || !reflect.DeepEqual(again, items) {
				t.Fatalf("round trip of %q gave %q, %v", items, again, ok)
			}
		}
		tr := &model.Transcript{File: "s.jsonl", Marks: []model.Mark{
			{At: model.Evidence{File: "s.jsonl", Line: 2}, Outstanding: outstanding, Payload: payload},
		}}
		s := ReadSegments(tr)
		wantState := MarkUndecodable
		switch {
		case ok && len(items) == 0:
			wantState = MarkEmpty
		case ok:
			wantState = MarkItems
		}
		if s.State != wantState || (ok && (s.WindowAfter != 2 || s.Count != 2)) || (!ok && (s.WindowAfter != 0 || s.Count != 1)) {
			t.Fatalf("segments of one mark (decodes: %v) = %+v", ok, s)
		}
	})
}

// FuzzMarkRoundTrip encodes arbitrary non-empty items (one per line of the
// input) and requires the mark to decode to them, separators turned into
// spaces. Invalid UTF-8 items are left out: the decoder refuses them by design.
func FuzzMarkRoundTrip(f *testing.F) {
	f.Add("Fix three disclosure defects\nSecond item")
	f.Add("one\x1ftwo\nthree")
	f.Add("ünïcödé ✓")
	f.Fuzz(func(t *testing.T, text string) {
		if !utf8.ValidString(text) {
			return
		}
		var items []string
		for _, it := range strings.Split(text, "\n") {
			if it != "" && strings.ReplaceAll(it, markItemSeparator, "") != "" {
				items = append(items, it)
			}
		}
		found := FindMarks(EncodeMark(items))
		if len(found) != 1 {
			t.Fatalf("mark of %q found %d times", items, len(found))
		}
		got, ok := DecodeMark(found[0][0], found[0][1])
		want := make([]string, len(items))
		for i, it := range items {
			want[i] = strings.ReplaceAll(it, markItemSeparator, " ")
		}
		if !ok || !reflect.DeepEqual(got, want) {
			t.Fatalf("round trip of %q gave %q, %v", items, got, ok)
		}
	})
}
