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

// streamedFields are the Document's lists that grow with the input (a
// finding per attempt, a summary and the facts per run): writeJSON encodes
// them one element at a time, so a report of hundreds of thousands of
// findings is never held whole in memory (encoding/json would build it
// compact, then again indented).
var streamedFields = []string{"findings", "runs", "facts"}

// writeJSON writes the bytes an encoding/json Encoder with two-space indent
// and no HTML escaping writes for doc, streaming the long lists: the rest
// of the Document is encoded with those lists empty, and each list's
// elements are spliced in where its "[]" stands. At two spaces of indent,
// "\n  \"findings\": []" can only be that top-level key (a string cannot
// hold a raw newline).
func writeJSON(w io.Writer, doc *Document) error {
	skel := *doc
	lists := [][]any{nil, nil, nil}
	if doc.Findings != nil {
		lists[0] = anySlice(doc.Findings)
		skel.Findings = []rules.Finding{}
	}
	if doc.Runs != nil {
		lists[1] = anySlice(doc.Runs)
		skel.Runs = []RunSummary{}
	}
	if doc.Facts != nil {
		lists[2] = anySlice(doc.Facts)
		skel.Facts = []RunFacts{}
	}
	var head bytes.Buffer
	if err := newIndentEncoder(&head, "").Encode(&skel); err != nil {
		return fmt.Errorf("encoding report as JSON: %w", err)
	}
	rest := head.Bytes()
	bw := bufio.NewWriterSize(w, 64<<10)
	var elem bytes.Buffer
	enc := newIndentEncoder(&elem, "    ")
	for i, name := range streamedFields {
		if lists[i] == nil {
			continue
		}
		mark := []byte("\n  \"" + name + "\": []")
		at := bytes.Index(rest, mark)
		if at < 0 {
			return fmt.Errorf("encoding report as JSON: no %q list in the document", name)
		}
		bw.Write(rest[:at+len(mark)-1]) // up to and including "["
		rest = rest[at+len(mark)-1:]    // from "]"
		for j, v := range lists[i] {
			if j > 0 {
				bw.WriteString(",")
			}
			bw.WriteString("\n    ")
			elem.Reset()
			if err := enc.Encode(v); err != nil {
				return fmt.Errorf("encoding report as JSON: %w", err)
			}
			bw.Write(bytes.TrimSuffix(elem.Bytes(), []byte("\n")))
		}
		if len(lists[i]) > 0 {
			bw.WriteString("\n  ")
		}
	}
	bw.Write(rest)
	return bw.Flush()
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

// anySlice lists pointers to s's elements.
func anySlice[T any](s []T) []any {
	out := make([]any, len(s))
	for i := range s {
		out[i] = &s[i]
	}
	return out
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
