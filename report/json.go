package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pmcheck/pmcheck/internal/swar"
	"github.com/pmcheck/pmcheck/rules"
)

// JSON renders the canonical Document: two-space indented, keys in struct
// order, a final newline. Decode(JSON(doc)) renders to the same bytes.
func JSON(doc *Document) ([]byte, error) {
	var buf bytes.Buffer
	if err := writeJSON(&buf, doc); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// writeJSON writes the bytes an encoding/json Encoder with two-space indent
// and no HTML escaping writes for doc, streaming the lists that grow with
// the input (a finding per attempt, a summary and the facts per run, an
// input problem per unlinked agent): the rest of the Document is encoded
// with those lists empty, and each list's elements are spliced in where its
// "[]" stands, so a report of hundreds of thousands of findings is never
// held whole in memory (encoding/json would build it compact, then again
// indented). At two spaces of indent, "\n  \"findings\": []" can only be
// that top-level key and "\n    \"problems\": []" the one of inputs (a
// string cannot hold a raw newline, and the other lists are empty in the
// skeleton). The elements of the lists (findings, run summaries, run facts,
// problems) are written by appendFinding, appendRunSummary, appendRunFacts
// and appendProblem, which write what encoding/json writes without its
// reflection and second indenting pass (TestStreamedJSONIsEncodingJSON,
// TestAppendFindingIsEncodingJSON, TestAppendRunFactsIsEncodingJSON).
func writeJSON(w io.Writer, doc *Document) error {
	skel := *doc
	type splice struct {
		mark   string
		prefix string // of each element's lines
		n      int
		elem   func(b []byte, i int, enc func(v any) ([]byte, error)) ([]byte, error)
	}
	var splices []splice
	esc := &displayEscaper{w: w}
	bw := bufio.NewWriterSize(esc, 64<<10)
	if doc.Findings != nil {
		skel.Findings = []rules.Finding{}
		splices = append(splices, splice{"\n  \"findings\": []", "    ", len(doc.Findings), func(b []byte, i int, enc func(v any) ([]byte, error)) ([]byte, error) {
			if out, ok := appendFinding(b, &doc.Findings[i], "    "); ok {
				return out, nil
			}
			e, err := enc(&doc.Findings[i])
			return append(b, e...), err
		}})
	}
	if doc.Runs != nil {
		skel.Runs = []RunSummary{}
		splices = append(splices, splice{"\n  \"runs\": []", "    ", len(doc.Runs), func(b []byte, i int, enc func(v any) ([]byte, error)) ([]byte, error) {
			return appendRunSummary(b, &doc.Runs[i], "    "), nil
		}})
	}
	if doc.Facts != nil {
		skel.Facts = []RunFacts{}
		splices = append(splices, splice{"\n  \"facts\": []", "    ", len(doc.Facts), func(b []byte, i int, enc func(v any) ([]byte, error)) ([]byte, error) {
			if out, ok := writeRunFacts(bw, b, &doc.Facts[i], "    "); ok {
				return out, nil
			}
			e, err := enc(&doc.Facts[i])
			return append(b, e...), err
		}})
	}
	if doc.Inputs.Problems != nil {
		skel.Inputs.Problems = []Problem{}
		splices = append(splices, splice{"\n    \"problems\": []", "      ", len(doc.Inputs.Problems), func(b []byte, i int, enc func(v any) ([]byte, error)) ([]byte, error) {
			return appendProblem(b, &doc.Inputs.Problems[i], "      "), nil
		}})
	}
	var head bytes.Buffer
	if err := newIndentEncoder(&head, "").Encode(&skel); err != nil {
		return fmt.Errorf("encoding report as JSON: %w", err)
	}
	rest := head.Bytes()
	var elem bytes.Buffer
	var elemPrefix string
	var enc *json.Encoder
	encode := func(v any) ([]byte, error) {
		elem.Reset()
		if err := enc.Encode(v); err != nil {
			return nil, err
		}
		return bytes.TrimSuffix(elem.Bytes(), []byte("\n")), nil
	}
	var buf []byte
	for _, sp := range splices {
		at := bytes.Index(rest, []byte(sp.mark))
		if at < 0 {
			return fmt.Errorf("encoding report as JSON: no %q list in the document", strings.TrimSpace(sp.mark))
		}
		bw.Write(rest[:at+len(sp.mark)-1]) // up to and including "["
		rest = rest[at+len(sp.mark)-1:]    // from "]"
		if elemPrefix != sp.prefix || enc == nil {
			elemPrefix = sp.prefix
			enc = newIndentEncoder(&elem, sp.prefix)
		}
		for i := range sp.n {
			buf = buf[:0]
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = append(buf, '\n')
			buf = append(buf, sp.prefix...)
			var err error
			if buf, err = sp.elem(buf, i, encode); err != nil {
				return fmt.Errorf("encoding report as JSON: %w", err)
			}
			bw.Write(buf)
		}
		if sp.n > 0 {
			bw.WriteString("\n" + sp.prefix[2:])
		}
	}
	bw.Write(rest)
	if err := bw.Flush(); err != nil {
		return err
	}
	return esc.Flush()
}

// appendFinding appends f as encoding/json writes it into an indented
// report (two spaces, no HTML escaping), its lines after the first
// prefixed by prefix. It reports false, and appends nothing, for a finding
// whose time encoding/json would refuse (a year outside 0–9999): the caller
// then lets encoding/json report the error.
func appendFinding(b []byte, f *rules.Finding, prefix string) ([]byte, bool) {
	var ts []byte
	if !f.Time.IsZero() {
		var err error
		if ts, err = f.Time.MarshalJSON(); err != nil {
			return b, false
		}
	}
	var evTimes [][]byte
	for _, e := range f.Evidence {
		var t []byte
		if !e.Time.IsZero() {
			var err error
			if t, err = e.Time.MarshalJSON(); err != nil {
				return b, false
			}
		}
		evTimes = append(evTimes, t)
	}
	in1 := prefix + "  "
	key := func(b []byte, in, k string) []byte {
		b = append(b, ",\n"...)
		b = append(b, in...)
		b = append(b, '"')
		b = append(b, k...)
		return append(b, "\": "...)
	}
	b = append(b, "{\n"...)
	b = append(b, in1...)
	b = append(b, "\"rule_id\": "...)
	b = appendJSONString(b, f.RuleID)
	b = appendJSONString(key(b, in1, "severity"), f.Severity)
	b = appendJSONString(key(b, in1, "message"), f.Message)
	b = appendJSONString(key(b, in1, "run_id"), f.RunID)
	b = appendJSONString(key(b, in1, "run_kind"), f.RunKind)
	if f.RunPath != "" {
		b = appendJSONString(key(b, in1, "run_path"), f.RunPath)
	}
	b = key(b, in1, "evidence")
	switch {
	case f.Evidence == nil:
		b = append(b, "null"...)
	case len(f.Evidence) == 0:
		b = append(b, "[]"...)
	default:
		in2, in3 := in1+"  ", in1+"    "
		b = append(b, '[')
		for i, e := range f.Evidence {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, '\n')
			b = append(b, in2...)
			b = append(b, "{\n"...)
			b = append(b, in3...)
			b = append(b, "\"file\": "...)
			b = appendJSONString(b, e.File)
			b = strconv.AppendInt(key(b, in3, "line"), int64(e.Line), 10)
			if evTimes[i] != nil {
				b = append(key(b, in3, "time"), evTimes[i]...)
			}
			b = append(b, '\n')
			b = append(b, in2...)
			b = append(b, '}')
		}
		b = append(b, '\n')
		b = append(b, in1...)
		b = append(b, ']')
	}
	if f.EvidenceMore != 0 {
		b = strconv.AppendInt(key(b, in1, "evidence_more"), int64(f.EvidenceMore), 10)
	}
	if ts != nil {
		b = append(key(b, in1, "time"), ts...)
	}
	b = appendJSONString(key(b, in1, "fingerprint"), f.Fingerprint)
	if f.Suppressed {
		b = append(key(b, in1, "suppressed"), "true"...)
	}
	if r := f.Fact; r != nil {
		in2 := in1 + "  "
		b = append(key(b, in1, "fact"), "{\n"...)
		b = append(b, in2...)
		b = append(b, "\"run\": "...)
		b = appendJSONString(b, r.Run)
		b = appendJSONString(key(b, in2, "run_id"), r.RunID)
		b = appendJSONString(key(b, in2, "kind"), r.Kind)
		b = strconv.AppendInt(key(b, in2, "index"), int64(r.Index), 10)
		b = append(b, '\n')
		b = append(b, in1...)
		b = append(b, '}')
	}
	b = append(b, '\n')
	b = append(b, prefix...)
	return append(b, '}'), true
}

// appendProblem appends p as encoding/json writes it into an indented
// report, its lines after the first prefixed by prefix.
func appendProblem(b []byte, p *Problem, prefix string) []byte {
	in1 := prefix + "  "
	b = append(b, "{\n"...)
	b = append(b, in1...)
	b = append(b, "\"file\": "...)
	b = appendJSONString(b, p.File)
	if p.Line != 0 {
		b = append(b, ",\n"...)
		b = append(b, in1...)
		b = strconv.AppendInt(append(b, "\"line\": "...), int64(p.Line), 10)
	}
	b = append(b, ",\n"...)
	b = append(b, in1...)
	b = appendJSONString(append(b, "\"message\": "...), p.Message)
	b = append(b, '\n')
	b = append(b, prefix...)
	return append(b, '}')
}

// appendJSONString appends s quoted as encoding/json quotes a string
// without HTML escaping: '"' and '\\' escaped, control characters as \b,
// \f, \n, \r, \t or \u00XX, invalid UTF-8 as \ufffd, and U+2028 and
// U+2029 as \u2028 and \u2029.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		// Eight bytes at a time while none needs an escape or the rune
		// decoder (a report of 200,000 findings is 200 MB of such text).
		for i+8 <= len(s) && !jsonStops(load64(s, i)) {
			i += 8
		}
		if i >= len(s) {
			break
		}
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// jsonStops reports whether a byte of w stops appendJSONString's plain run:
// a quote, a backslash, a control character (< 0x20) or a byte >= 0x80.
func jsonStops(w uint64) bool { return swar.Stops(w)|w&swar.Hi8 != 0 }

// load64 is the little-endian word at s[i:i+8] (the compiler makes it one
// load).
func load64(s string, i int) uint64 {
	_ = s[i+7]
	return uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
}

// newIndentEncoder encodes as the canonical report does (two-space indent,
// no HTML escaping), each line after the first prefixed by prefix.
func newIndentEncoder(w io.Writer, prefix string) *json.Encoder {
	enc := json.NewEncoder(w)
	// Keep <, > and & as they are: the file is read by people and tools, not
	// embedded in HTML.
	enc.SetEscapeHTML(false)
	enc.SetIndent(prefix, "  ")
	return enc
}

// maxSavedReport bounds what Decode reads, so a wrong file (a transcript, a
// disk image) fails fast instead of filling memory.
const maxSavedReport = 1 << 30

// Decode reads a saved canonical JSON report. name is used in error messages
// (the file name as the user typed it).
func Decode(r io.Reader, name string) (*Document, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxSavedReport+1))
	if err != nil {
		return nil, fmt.Errorf("%s: reading report: %w", name, err)
	}
	if len(data) > maxSavedReport {
		return nil, fmt.Errorf("%s: larger than %d bytes: this is not a pmcheck JSON report", name, maxSavedReport)
	}
	// Check kind and version before the strict decode, so an old or foreign
	// file gets a message about what it is, not about an unknown field.
	var head struct {
		Kind          string `json:"kind"`
		SchemaVersion int    `json:"schema_version"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("%s: %s: give a report written by 'pmcheck check --format json=FILE'", name, describeJSONError(data, err))
	}
	if head.Kind != Kind {
		return nil, fmt.Errorf("%s: not a pmcheck report (\"kind\" is %q, want %q): give a report written by 'pmcheck check --format json=FILE'", name, head.Kind, Kind)
	}
	if head.SchemaVersion < oldestReadableVersion || head.SchemaVersion > SchemaVersion {
		return nil, fmt.Errorf("%s: report schema_version %d is not supported (this pmcheck reads %d to %d): render it with the pmcheck version that wrote it", name, head.SchemaVersion, oldestReadableVersion, SchemaVersion)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var doc Document
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("%s: %s: the file was edited or is damaged; re-run pmcheck check to write it again", name, describeJSONError(data, err))
	}
	if dec.More() {
		return nil, fmt.Errorf("%s: more than one JSON value: a report is one JSON object", name)
	}
	// A version 1 report is a version 2 report without facts: every field it
	// has kept its meaning.
	doc.SchemaVersion = SchemaVersion
	doc.normalize()
	if err := doc.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &doc, nil
}

// describeJSONError turns a decoding error into "line N: …".
func describeJSONError(data []byte, err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	offset := int64(-1)
	switch {
	case errors.As(err, &syn):
		offset = syn.Offset
	case errors.As(err, &typ):
		offset = typ.Offset
	}
	if offset < 0 || offset > int64(len(data)) {
		return "invalid JSON: " + err.Error()
	}
	line := 1 + bytes.Count(data[:offset], []byte("\n"))
	return fmt.Sprintf("line %d: invalid JSON: %v", line, err)
}

// Merge combines reports of sharded scans into one Document. The shards must
// come from the same tool, schema, root and fail level, and agree on every
// rule they share. Findings and runs are united (exact duplicates dropped);
// a baseline entry is stale only when every shard found it stale, since the
// finding it suppresses may live in another shard.
func Merge(docs ...*Document) (*Document, error) {
	if len(docs) == 0 {
		return nil, errors.New("no reports to merge")
	}
	first := docs[0]
	for i, d := range docs {
		if d.Coverage != nil && len(docs) > 1 {
			return nil, fmt.Errorf("report %d checks the commit range %s: a range is checked in one job (check --commits refuses --shard), so its report is not merged with others", i+1, d.Coverage.Range)
		}
	}
	in := Input{
		Tool:      first.Tool,
		Root:      first.Root,
		FailLevel: first.Outcome.FailLevel,
	}
	rulesByID := map[string]Rule{}
	seenFinding := map[string]bool{}
	seenRun := map[RunSummary]bool{}
	seenFacts := map[string]bool{}
	seenProblem := map[Problem]bool{}
	staleCount := map[BaselineEntry]int{}
	for i, d := range docs {
		shard := fmt.Sprintf("report %d", i+1)
		switch {
		case d.Tool.Name != first.Tool.Name:
			return nil, fmt.Errorf("%s was written by %q, report 1 by %q: merge reports of one tool", shard, d.Tool.Name, first.Tool.Name)
		case d.Tool.Version != first.Tool.Version:
			return nil, fmt.Errorf("%s was written by %s %s, report 1 by %s: merge reports of one pmcheck version", shard, d.Tool.Name, d.Tool.Version, first.Tool.Version)
		case d.Root != first.Root:
			return nil, fmt.Errorf("%s has root %q, report 1 %q: shards must be scanned from the same root", shard, d.Root, first.Root)
		case d.Outcome.FailLevel != first.Outcome.FailLevel:
			return nil, fmt.Errorf("%s has fail level %q, report 1 %q: run every shard with the same --fail-level", shard, d.Outcome.FailLevel, first.Outcome.FailLevel)
		}
		for _, r := range d.Rules {
			prev, ok := rulesByID[r.ID]
			if !ok {
				rulesByID[r.ID] = r
				in.Rules = append(in.Rules, r)
				continue
			}
			if !sameRule(prev, r) {
				return nil, fmt.Errorf("%s defines rule %s differently from an earlier report: run every shard with the same rules", shard, r.ID)
			}
		}
		for _, f := range d.Findings {
			key, err := json.Marshal(f)
			if err != nil {
				return nil, fmt.Errorf("%s: encoding finding: %w", shard, err)
			}
			if seenFinding[string(key)] {
				continue
			}
			seenFinding[string(key)] = true
			in.Findings = append(in.Findings, f)
		}
		for _, r := range d.Runs {
			if !seenRun[r] {
				seenRun[r] = true
				in.Runs = append(in.Runs, r)
			}
		}
		for _, rf := range d.Facts {
			if key := runIdentity(rf.Run.Path, rf.Run.ID); !seenFacts[key] {
				seenFacts[key] = true
				in.Facts = append(in.Facts, rf)
			}
		}
		if i == 0 {
			in.Git, in.Review = d.Git, d.Review
		} else if !reflect.DeepEqual(d.Git, first.Git) || !reflect.DeepEqual(d.Review, first.Review) {
			return nil, fmt.Errorf("%s was checked with another --git branch or review settings than report 1: run every shard with the same options", shard)
		}
		in.Inputs.Files += d.Inputs.Files
		in.Inputs.Malformed += d.Inputs.Malformed
		for _, p := range d.Inputs.Problems {
			if !seenProblem[p] {
				seenProblem[p] = true
				in.Inputs.Problems = append(in.Inputs.Problems, p)
			}
		}
		in.Inputs.Unreadable = append(in.Inputs.Unreadable, d.Inputs.Unreadable...)
		in.Excerpts = append(in.Excerpts, d.Excerpts...)
		for _, b := range d.StaleBaseline {
			staleCount[b]++
		}
	}
	for b, n := range staleCount {
		if n == len(docs) {
			in.StaleBaseline = append(in.StaleBaseline, b)
		}
	}
	return New(in)
}

func sameRule(a, b Rule) bool {
	return a.ID == b.ID && a.Title == b.Title && a.Severity == b.Severity && a.Description == b.Description &&
		a.Help == b.Help && slices.Equal(a.Tags, b.Tags) && slices.Equal(a.Select, b.Select) && a.Where == b.Where
}

// displayEscaper rewrites, in JSON text, the characters the human formats
// make visible or drop and encoding/json writes raw: C1 controls
// (U+0080–U+009F: U+009B is a terminal's CSI), bidi embeddings, overrides
// and isolates (U+202A–U+202E, U+2066–U+2069) and the non-characters
// U+FFFE and U+FFFF. Each becomes its \uXXXX escape, which every JSON
// reader decodes back to the same string, so a saved report still decodes
// to the document it was written from; a person who cats the file or a log
// that shows it never gets the raw character. JSON's structure is ASCII, so
// these UTF-8 sequences can only stand inside strings. A sequence cut
// between two writes is held until the next one.
type displayEscaper struct {
	w       io.Writer
	pending []byte // a partial UTF-8 sequence the last write ended with
	out     []byte
}

// displayEscape returns the escape for the rune whose UTF-8 encoding starts
// p ("" when it is kept), and how many bytes that rune takes; need > 0 says
// p ends before the rune could be decided.
func displayEscape(p []byte) (esc string, size, need int) {
	const hex = "0123456789abcdef"
	switch p[0] {
	case 0xc2:
		if len(p) < 2 {
			return "", 0, 1
		}
		if p[1] >= 0x80 && p[1] <= 0x9f {
			r := p[1]
			return string([]byte{'\\', 'u', '0', '0', hex[r>>4], hex[r&0xf]}), 2, 0
		}
	case 0xe2, 0xef:
		if len(p) < 3 {
			if len(p) == 2 && !(p[0] == 0xe2 && (p[1] == 0x80 || p[1] == 0x81) || p[0] == 0xef && p[1] == 0xbf) {
				return "", 1, 0
			}
			return "", 0, 3 - len(p)
		}
		r, n := utf8.DecodeRune(p)
		if n == 3 && ((r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0xfffe || r == 0xffff) {
			return `\u` + string([]byte{hex[r>>12], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf]}), 3, 0
		}
	}
	return "", 1, 0
}

func (d *displayEscaper) Write(p []byte) (int, error) {
	n := len(p)
	if len(d.pending) > 0 {
		p = append(d.pending, p...)
		d.pending = nil
	}
	out := d.out[:0]
	start := 0
	for i := 0; i < len(p); {
		if c := p[i]; c != 0xc2 && c != 0xe2 && c != 0xef {
			i++
			continue
		}
		esc, size, need := displayEscape(p[i:])
		if need > 0 {
			out = append(out, p[start:i]...)
			d.pending = append(d.pending[:0:0], p[i:]...)
			start = len(p)
			break
		}
		if esc != "" {
			out = append(out, p[start:i]...)
			out = append(out, esc...)
			start = i + size
		}
		i += size
	}
	out = append(out, p[start:]...)
	d.out = out
	if _, err := d.w.Write(out); err != nil {
		return 0, err
	}
	return n, nil
}

// EscapeDisplayControls returns JSON text b with the characters
// displayEscaper escapes written as \u escapes: for the other JSON outputs
// that carry transcript text (scan --json, explain --json).
func EscapeDisplayControls(b []byte) []byte {
	var out bytes.Buffer
	out.Grow(len(b))
	d := &displayEscaper{w: &out}
	d.Write(b) // a bytes.Buffer never fails
	d.Flush()
	return out.Bytes()
}

// Flush writes a partial sequence held at the end (it was not one to escape).
func (d *displayEscaper) Flush() error {
	if len(d.pending) == 0 {
		return nil
	}
	_, err := d.w.Write(d.pending)
	d.pending = nil
	return err
}
