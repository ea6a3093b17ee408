package transcript

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pmcheck/pmcheck/analyze/model"
)

// TestMarkCopiedIsReadingWithCopies (issue 30): a reading that marks its
// resume-copied rows afterwards (Options.MarkLater, then MarkCopied) gives
// the transcript a reading with the copies known gives (Options.Copied),
// serial and parallel, for every fixture and corpus transcript and copies
// of every shape: none, all rows, a random part of them, rows with the uuid
// but other content, several originals overlapping (the last deciding).
func TestMarkCopiedIsReadingWithCopies(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 1))
	files, marked := 0, 0
	eachTranscript(t, realRoots(t), func(p string, data []byte) error {
		base, err := Read(bytes.NewReader(data), p, Options{RowHashes: true})
		if err != nil {
			return err
		}
		for shape := range 5 {
			copied := copiesOf(rng, base.RowHashes, shape)
			want, err := Read(bytes.NewReader(data), p, Options{Copied: copied})
			if err != nil {
				return err
			}
			serial, parallel, err := readBoth(p, data, Options{MarkLater: true})
			if err != nil {
				return err
			}
			for _, got := range []*model.Transcript{serial, parallel} {
				if got.CopyRows == nil {
					t.Fatalf("%s: a MarkLater reading kept no CopyRows", p)
				}
				MarkCopied(got, copied)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%s, shape %d: marked afterwards\n%+v\nwant\n%+v", p, shape, got, want)
				}
			}
			if want.Copied > 0 {
				marked++
			}
		}
		files++
		return nil
	})
	if files == 0 || marked == 0 {
		t.Fatalf("%d files, %d readings with copied rows: the test compares nothing", files, marked)
	}
}

// copiesOf builds the maps of Options.Copied from a file's own row hashes:
// shape 0 none, 1 all of them, 2 a random part, 3 a random part with some
// contents changed, 4 three overlapping maps (a later one changing some
// contents an earlier one has right, and the reverse).
func copiesOf(rng *rand.Rand, own map[uint64]uint64, shape int) []map[uint64]uint64 {
	part := func(keep, change float64) map[uint64]uint64 {
		m := map[uint64]uint64{}
		for h, c := range own {
			if rng.Float64() < keep {
				if rng.Float64() < change {
					c++
				}
				m[h] = c
			}
		}
		return m
	}
	switch shape {
	case 0:
		return nil
	case 1:
		return []map[uint64]uint64{part(1, 0)}
	case 2:
		return []map[uint64]uint64{part(0.5, 0)}
	case 3:
		return []map[uint64]uint64{part(0.7, 0.3)}
	}
	return []map[uint64]uint64{part(0.6, 0.2), part(0.5, 0.5), part(0.4, 0.1)}
}

// oldTitleOf is titleOf as it was before it was written as it goes.
func oldTitleOf(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > model.TitleLimit {
		n := 0
		for i := range s {
			if n == model.TitleLimit-1 {
				return s[:i] + "…"
			}
			n++
		}
	}
	return strings.Clone(s)
}

// TestTitleOfIsJoinedFields: titleOf, written as it goes, is the session
// title it was (the fields of s joined by one space, cut to TitleLimit
// runes with an ellipsis), on random strings of spaces of every kind,
// multi-byte runes and invalid UTF-8 around the limit, and every fixture and
// corpus line.
func TestTitleOfIsJoinedFields(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 2))
	parts := []string{" ", "  ", "\t", "\n", "\u00a0", "\u2003", "\u3000", "a", "bc", "é", "日本", "\xff", "\xe2\x82", "🙂", "word"}
	check := func(s string) {
		if got, want := titleOf(s), oldTitleOf(s); got != want {
			t.Fatalf("titleOf(%q) = %q, want %q", s, got, want)
		}
	}
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(120) {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		check(b.String())
	}
	eachTranscript(t, realRoots(t), func(_ string, data []byte) error {
		for _, line := range strings.Split(string(data), "\n") {
			check(line)
		}
		return nil
	})
}
