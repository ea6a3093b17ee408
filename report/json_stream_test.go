package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/rules"
)

// wholeJSON is what the JSON report was before it was streamed: the whole
// Document through one encoding/json Encoder.
func wholeJSON(t *testing.T, doc *Document) []byte {
	t.Helper()
	var buf bytes.Buffer
	esc := &displayEscaper{w: &buf} // the one step encoding/json does not take
	enc := json.NewEncoder(esc)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		t.Fatal(err)
	}
	if err := esc.Flush(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// The streamed writer splices the long lists into the rest of the Document;
// every saved report golden must come out byte for byte as encoding/json
// writes the whole Document, including empty lists and the Document with no
// finding, run or fact.
func TestStreamedJSONIsEncodingJSON(t *testing.T) {
	for _, f := range savedReportGoldens(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := Decode(bytes.NewReader(data), f)
		if err != nil {
			t.Fatal(err)
		}
		got, err := JSON(doc)
		if err != nil {
			t.Fatal(err)
		}
		if want := wholeJSON(t, doc); !bytes.Equal(got, want) {
			t.Errorf("%s: streamed JSON differs from encoding/json's", f)
		}
	}
	empty := &Document{Kind: Kind, SchemaVersion: SchemaVersion}
	got, err := JSON(empty)
	if err != nil {
		t.Fatal(err)
	}
	if want := wholeJSON(t, empty); !bytes.Equal(got, want) {
		t.Errorf("empty document: streamed JSON\n%s\ndiffers from encoding/json's\n%s", got, want)
	}
}

// manyFindings is a Document with n findings of one run, the shape of a
// journal of n attempts that never returned.
func manyFindings(n int) *Document {
	doc := &Document{Kind: Kind, SchemaVersion: SchemaVersion, Root: ".", StaleBaseline: []BaselineEntry{}}
	doc.Rules = []Rule{{ID: "agent-never-returned", Title: "Workflow agent never returned", Severity: "error", Help: "Re-run it.", Tags: []string{}}}
	doc.Runs = []RunSummary{{Kind: "workflow", ID: "wf_big", Path: "s/wf_big"}}
	doc.Facts = []RunFacts{{Facts: model.Facts{Attempts: []model.AttemptFact{}}}}
	doc.Findings = make([]rules.Finding, n)
	for i := range doc.Findings {
		doc.Findings[i] = rules.Finding{RuleID: "agent-never-returned", Severity: "error", RunID: "wf_big", RunKind: "workflow",
			Message:     fmt.Sprintf("agent a%016d (attempt 1) was started and never returned a result", i),
			Fingerprint: fmt.Sprintf("%032x", i)}
	}
	return doc
}

// The JSON and text writers' own memory does not grow with the report: they
// hold one finding at a time, so what they allocate per finding is less
// than the finding's output (a quarter of it for JSON) and does not grow
// with the number of findings, and they write in pieces. Built whole, the
// JSON report allocated about 9x its output (compact, then indented, each
// buffer doubling as it grew) and the text report 2.5x, each written in one
// piece.
func TestStreamedReportsMemoryPerFinding(t *testing.T) {
	writers := []struct {
		name     string
		maxShare float64 // allocated bytes per output byte
		write    func(w io.Writer, doc *Document) error
	}{
		{"json", 0.25, writeJSON},
		{"text", 1, func(w io.Writer, doc *Document) error {
			iw := &inertWriter{w: w}
			if err := writeText(iw, doc, false, false); err != nil {
				return err
			}
			return iw.Close()
		}},
	}
	for _, wr := range writers {
		perFinding := func(n int) (alloc, out float64, biggest uint64) {
			doc := manyFindings(n)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			cw := &countingWriter{}
			if err := wr.write(cw, doc); err != nil {
				t.Fatal(err)
			}
			runtime.ReadMemStats(&after)
			return float64(after.TotalAlloc-before.TotalAlloc) / float64(n), float64(cw.n) / float64(n), cw.biggest
		}
		small, _, _ := perFinding(5000)
		large, out, biggest := perFinding(20000)
		if large > 1.5*small+32 {
			t.Errorf("%s: bytes allocated per finding grew from %.0f (5k findings) to %.0f (20k): the writer holds more than one finding at a time", wr.name, small, large)
		}
		if large > wr.maxShare*out {
			t.Errorf("%s: %.0f bytes allocated per finding of %.0f bytes of output: the report is being built whole", wr.name, large, out)
		}
		if biggest > 1<<20 {
			t.Errorf("%s: largest single write %d bytes: the report is written in pieces, not as one buffer", wr.name, biggest)
		}
	}
}

type countingWriter struct{ n, biggest uint64 }

func (c *countingWriter) Write(p []byte) (int, error) {
	c.n += uint64(len(p))
	c.biggest = max(c.biggest, uint64(len(p)))
	return len(p), nil
}

// BenchmarkJSONManyFindings shows the JSON writer's growth in findings:
// bytes per op grow linearly (report it with -benchmem).
func BenchmarkJSONManyFindings(b *testing.B) {
	for _, n := range []int{10000, 40000} {
		doc := manyFindings(n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := writeJSON(&countingWriter{}, doc); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// The text report passes through inertWriter in pieces of any size; the
// bytes must be what inertLines makes of the whole, whatever the cuts
// (inside a line, between CR and LF, inside a bidi control or "##[").
func TestInertWriterIsInertLinesInPieces(t *testing.T) {
	in := []byte("ok\n  ::stop-commands::x\r\n::error::y\rrun ##[group] z\n\u202Eevil\u2066 ::not at start\n##[add-mask]s\n  \t::warning::tail")
	want := inertLines(in, false)
	for size := 1; size <= len(in); size++ {
		var out bytes.Buffer
		iw := &inertWriter{w: &out}
		for p := in; len(p) > 0; {
			n := min(size, len(p))
			if _, err := iw.Write(p[:n]); err != nil {
				t.Fatal(err)
			}
			p = p[n:]
		}
		if err := iw.Close(); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.Bytes(), want) {
			t.Fatalf("pieces of %d bytes: got %q, want %q", size, out.Bytes(), want)
		}
	}
}

// appendFinding and appendProblem write what encoding/json writes, on
// findings and problems of every shape: strings with quotes, backslashes,
// every control character, HTML characters, U+2028/U+2029 and invalid
// UTF-8; nil, empty and several evidence; zero and non-zero times (in and
// out of UTC); suppressed or not; with and without a fact reference.
func TestAppendFindingIsEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"", "a", "plain text", `"q"`, `back\slash`, "<b>&amp;</b>", "\u2028\u2029", "é日本", "\xff", "\xe2\x80", "bad\xc3(", "tab\there", "\x00\x01\x1f\x7f", "\b\f\n\r", "::error::x", "##[group]", "\u202e"}
	for c := range 32 {
		pieces = append(pieces, string(rune(c)))
	}
	str := func() string {
		var b strings.Builder
		for range rng.IntN(4) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		return b.String()
	}
	tm := func() time.Time {
		switch rng.IntN(4) {
		case 0:
			return time.Time{}
		case 1:
			return time.Date(2026, 5, 6, 9, rng.IntN(60), rng.IntN(60), rng.IntN(3)*500_000_000, time.UTC)
		case 2:
			return time.Date(2026, 5, 6, 9, 0, 0, 123456789, time.FixedZone("x", 5400))
		}
		return time.Unix(rng.Int64N(1<<31), 0).UTC()
	}
	for i := range 3000 {
		f := rules.Finding{RuleID: str(), Severity: str(), Message: str(), RunID: str(), RunKind: str(), RunPath: str(), Time: tm(), Fingerprint: str(), Suppressed: rng.IntN(2) == 0,
			EvidenceMore: rng.IntN(2) * rng.IntN(100000)}
		switch n := rng.IntN(4); n {
		case 0:
		case 1:
			f.Evidence = []model.Evidence{}
		default:
			for range n {
				f.Evidence = append(f.Evidence, model.Evidence{File: str(), Line: rng.IntN(3) * rng.IntN(100000), Time: tm()})
			}
		}
		if rng.IntN(2) == 0 {
			f.Fact = &rules.FactRef{Run: str(), RunID: str(), Kind: str(), Index: rng.IntN(3) - 1}
		}
		p := Problem{File: str(), Line: rng.IntN(2) * rng.IntN(1000), Message: str()}
		for _, prefix := range []string{"", "    ", "      "} {
			got, ok := appendFinding(nil, &f, prefix)
			if want := encodeIndented(t, &f, prefix); !ok || string(got) != want {
				t.Fatalf("finding %d, prefix %q: appendFinding wrote\n%s\nencoding/json\n%s", i, prefix, got, want)
			}
			if got, want := string(appendProblem(nil, &p, prefix)), encodeIndented(t, &p, prefix); got != want {
				t.Fatalf("problem %d, prefix %q: appendProblem wrote\n%s\nencoding/json\n%s", i, prefix, got, want)
			}
		}
	}
	// A time encoding/json refuses is left to encoding/json.
	bad := rules.Finding{Time: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}
	if out, ok := appendFinding([]byte("x"), &bad, ""); ok || string(out) != "x" {
		t.Errorf("a year-10000 time: appendFinding reported %v and wrote %q", ok, out)
	}
	if _, err := JSON(&Document{Findings: []rules.Finding{bad}}); err == nil {
		t.Errorf("a report with a year-10000 time encoded without error")
	}
}

func encodeIndented(t *testing.T, v any, prefix string) string {
	t.Helper()
	var buf bytes.Buffer
	if err := newIndentEncoder(&buf, prefix).Encode(v); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// TestAppendJSONStringIsEncodingJSON: strings long enough for the
// eight-bytes-at-a-time run, with anything that stops it (a quote, a
// backslash, a control character, non-ASCII, invalid UTF-8, U+2028) at any
// position, are written as encoding/json writes them (HTML characters kept).
func TestAppendJSONStringIsEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	alphabet := []string{"a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "z", " ", "~", "\x7f", `"`, `\`, "\x00", "\n", "\x1f", "é", "\xff", "\u2028", "<", "&", "日"}
	for range 30000 {
		var b strings.Builder
		for range rng.IntN(64) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		s := b.String()
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		if got := string(appendJSONString(nil, s)) + "\n"; got != want.String() {
			t.Fatalf("%q: appendJSONString wrote %s, encoding/json %s", s, got, want.String())
		}
	}
	for w := range 256 { // every byte value at every position of a word
		for pos := range 8 {
			b := []byte("abcdefgh")
			b[pos] = byte(w)
			if got, want := jsonStops(load64(string(b), 0)), w < 0x20 || w == '"' || w == '\\' || w >= 0x80; got != want {
				t.Fatalf("jsonStops(%q) = %v", b, got)
			}
		}
	}
}

// TestPrintable8: the word test agrees with the byte test for every byte
// value at every position.
func TestPrintable8(t *testing.T) {
	for w := range 256 {
		for pos := range 8 {
			b := []byte("abcdefgh")
			b[pos] = byte(w)
			if got, want := printable8(load64(string(b), 0)), w >= 0x20 && w < 0x7f; got != want {
				t.Fatalf("printable8(%q) = %v", b, got)
			}
			for i := range b {
				if i != pos {
					b[i] = byte(255 - w)
				}
			}
			want := true
			for _, c := range b {
				want = want && c >= 0x20 && c < 0x7f
			}
			if got := printable8(load64(string(b), 0)); got != want {
				t.Fatalf("printable8(%q) = %v", b, got)
			}
		}
	}
}
