package interpret

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pmcheck/pmcheck/analyze/model"
)

// transcriptWithMarks builds a transcript whose rows (lines 1..n) hold the
// given raw texts, the marks found in them recorded as the readers do.
func transcriptWithMarks(rows ...string) *model.Transcript {
	t := &model.Transcript{File: "s.jsonl"}
	for i, r := range rows {
		for _, m := range FindMarks(r) {
			t.Marks = append(t.Marks, model.Mark{At: model.Evidence{File: t.File, Line: i + 1}, Outstanding: m[0], Payload: m[1]})
		}
	}
	return t
}

func TestMarkRoundTrip(t *testing.T) {
	for _, items := range [][]string{
		{},
		{"Fix three disclosure defects"},
		{"a", "b c", "multi\nline description"},
		{"ünïcödé ✓", "x"},
	} {
		m := EncodeMark(items)
		if strings.Contains(m, "\n") {
			t.Fatalf("mark spans lines: %q", m)
		}
		found := FindMarks(`{"content":"prose before ` + m + `\n and after"}`)
		if len(found) != 1 {
			t.Fatalf("FindMarks found %d marks in %q", len(found), m)
		}
		got, ok := DecodeMark(found[0][0], found[0][1])
		if !ok || !reflect.DeepEqual(got, items) {
			t.Fatalf("round trip of %q = %q, %v", items, got, ok)
		}
	}
}

func TestMarkSeparatorInsideAnItemCannotCorruptTheMark(t *testing.T) {
	m := EncodeMark([]string{"one\x1ftwo", "three"})
	f := FindMarks(m)
	got, ok := DecodeMark(f[0][0], f[0][1])
	if !ok || !reflect.DeepEqual(got, []string{"one two", "three"}) {
		t.Fatalf("got %q %v", got, ok)
	}
}

func TestUndecodableMarks(t *testing.T) {
	good := EncodeMark([]string{"alpha", "beta"})
	f := FindMarks(good)
	cases := map[string][2]string{
		"truncated payload":        {f[0][0], f[0][1][:len(f[0][1])-3]},
		"count disagrees":          {"3", f[0][1]},
		"count with no items":      {"1", ""},
		"invalid utf-8":            {"1", "/w=="},
		"count overflows":          {"99999999999999999999999", f[0][1]},
		"padding in the middle":    {"1", "YQ==YQ=="},
		"non-alphabet after equal": {"2", "="},
	}
	for name, c := range cases {
		if items, ok := DecodeMark(c[0], c[1]); ok {
			t.Errorf("%s: decoded to %q", name, items)
		}
	}
	// Noise right after "payload=" makes the group empty: a corrupt mark unless
	// it declares zero items.
	noisy := strings.Replace(EncodeMark([]string{"x"}), "payload=", "payload=!", 1)
	nf := FindMarks(noisy)
	if _, ok := DecodeMark(nf[0][0], nf[0][1]); ok {
		t.Error("a mark with noise after payload= decoded")
	}
}

func TestThreeStatesAndWindow(t *testing.T) {
	if s := ReadSegments(transcriptWithMarks("row", "row")); s.State != MarkAbsent || s.WindowAfter != 0 || s.Count != 1 {
		t.Fatalf("no mark: %+v", s)
	}
	armed := EncodeMark([]string{"item"})
	empty := EncodeMark(nil)
	s := ReadSegments(transcriptWithMarks("row", armed, "row"))
	if s.State != MarkItems || !reflect.DeepEqual(s.Items, []string{"item"}) || s.WindowAfter != 2 || s.Count != 2 {
		t.Fatalf("armed: %+v", s)
	}
	s = ReadSegments(transcriptWithMarks("row", armed, "row", empty, "row"))
	if s.State != MarkEmpty || len(s.Items) != 0 || s.WindowAfter != 4 || s.Count != 3 {
		t.Fatalf("disarmed: %+v", s)
	}
	if s.SegmentOf(1) != 1 || s.SegmentOf(3) != 2 || s.SegmentOf(5) != 3 || s.InWindow(4) || !s.InWindow(5) {
		t.Fatalf("segments: %+v", s)
	}
}

// TestCorruptNewestMarkNeverOpensAHole: the newest mark does not decode, so
// its items are unknown (never the older mark's), and the window falls back to
// the last mark that decodes instead of shrinking to the rows after the
// corrupt one.
func TestCorruptNewestMarkNeverOpensAHole(t *testing.T) {
	older := EncodeMark([]string{"old item"})
	newer := EncodeMark([]string{"new item", "another"})
	corrupt := newer[:len(newer)-5]
	s := ReadSegments(transcriptWithMarks("row", older, "kill row", corrupt, "row"))
	if s.State != MarkUndecodable || s.Items != nil {
		t.Fatalf("state %q items %q: an undecodable newest mark must not fall back to older items", s.State, s.Items)
	}
	if s.WindowAfter != 2 || !s.InWindow(3) {
		t.Fatalf("window after line %d: the kill row at line 3 must stay in the window", s.WindowAfter)
	}
	// With only corrupt marks the window is the whole file.
	s = ReadSegments(transcriptWithMarks("kill row", corrupt))
	if s.WindowAfter != 0 || !s.InWindow(1) {
		t.Fatalf("only corrupt marks: %+v", s)
	}
}

// TestNoSourceFileContainsADecodableMark: a committed mark is state that any
// resume gate reading the file acts on (an empty one would disarm it). No file
// in the repository may hold a mark that decodes; fixtures store theirs with
// the bracket JSON-escaped, which the readers decode and a raw-line gate does
// not see. (The repository test in the module root is stricter still: no mark
// at all, decodable or not.)
func TestNoSourceFileContainsADecodableMark(t *testing.T) {
	root := moduleRoot(t)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" || d.Name() == "node_modules" {
				return filepath.SkipDir
			}
			return nil
		}
		info, err := d.Info()
		if err != nil || info.Size() > 32<<20 {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		for _, m := range FindMarks(string(data)) {
			if _, ok := DecodeMark(m[0], m[1]); ok {
				t.Errorf("%s holds a decodable segment mark: build marks at run time with EncodeMark (fixtures: escape them)", filepath.ToSlash(rel))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found")
		}
		dir = parent
	}
}
