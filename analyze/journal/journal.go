// Package journal reads a Workflow run's journal.jsonl and turns it into
// attempts: each `started` line opens an occurrence of its key, each `result`
// (or `failed`) line closes the open occurrence of its agent.
package journal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/pmcheck/pmcheck/analyze/jsonl"
	"github.com/pmcheck/pmcheck/analyze/model"
)

// LineCap is watch's cap on one journal line (1 MiB): a longer line ends a live
// watch with MALFORMED, so the reader reports it the same way.
const LineCap = 1 << 20

// Options tune the reader.
type Options struct {
	// GiveUp stops reading at the line where the journal is clearly mostly
	// not JSON (jsonl.GiveUp); the read then returns a *jsonl.GaveUpError.
	// A check fails closed on such a journal anyway; a replay reads it all
	// and prints what watch would have.
	GiveUp bool
	// Follow, when set, keeps a follower of each journal read (ReadFile)
	// between reads, so a journal that grew is decoded from where the last
	// read stopped (follow.go). The journal is the one a full read gives.
	Follow *Followers
	// Rows, when set, is given each line in file order: its number and
	// its bytes (nil when over the cap), valid only during the call
	// (transcript.Options.Rows).
	Rows func(line int, data []byte)
}

// ReadFile reads the journal at path; file is the name evidence carries.
func ReadFile(path, file string, opts Options) (*model.Journal, error) {
	if opts.Follow != nil {
		return readFollowing(path, file, opts)
	}
	f, err := jsonl.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadOptions(f, file, opts)
}

// errNotJSON stands for encoding/json's syntax error on a line decodeFast
// found is not JSON.
var errNotJSON = errors.New("not JSON")

type line struct {
	Type    *string `json:"type"`
	Key     *string `json:"key"`
	AgentID *string `json:"agentId"`
	// vals hold the strings decodeFast points the fields at: the line is
	// reused for every journal line, and its values are copied out before
	// the next (a string and a pointer allocated per field made six
	// allocations of a started line).
	vals [3]string
}

// Read parses a journal stream. Malformed lines are recorded, never fatal.
func Read(r io.Reader, file string) (*model.Journal, error) {
	return ReadOptions(r, file, Options{})
}

// ReadOptions is Read with options.
func ReadOptions(r io.Reader, file string, opts Options) (*model.Journal, error) {
	jr := reader{j: &model.Journal{File: file}, opts: opts}
	lr := jsonl.NewReader(r, LineCap)
	for {
		l, err := lr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s:%d: read error: %w", file, lr.LineCount()+1, err)
		}
		if err := jr.line(l); err != nil {
			return nil, err
		}
	}
	return jr.j, nil
}

// reader is the state of reading one journal, a line at a time (Read, and
// Follower between the pieces it is given).
type reader struct {
	j       *model.Journal
	opts    Options
	skipped int // malformed lines that are not a torn final line
	index   int
	v       line
}

// malformed counts a malformed line. Every one is counted; the first
// MalformedExamples are kept, and so are the two whose kind changes what
// watch prints: the first over-long line (watch stops there) and a torn
// final line (held back). Twenty million junk lines keep a dozen records,
// not twenty million.
func (jr *reader) malformed(m model.Malformed, keep bool) {
	j := jr.j
	j.MalformedCount++
	if keep || len(j.Malformed) < model.MalformedExamples {
		j.Malformed = append(j.Malformed, m)
	}
}

// line reads one line; the error is the reader giving up (Options.GiveUp).
func (jr *reader) line(l jsonl.Line) error {
	j, opts := jr.j, jr.opts
	if opts.Rows != nil {
		opts.Rows(l.N, l.Data)
	}
	if l.OverCap {
		jr.index++
		j.OverCap++
		if j.OverCap == 1 {
			j.FirstOverCap, j.FirstOverCapLen = int64(l.N), l.Len
		}
		jr.malformed(model.Malformed{Line: l.N, Reason: "line longer than 1 MB", Skipped: true, Length: l.Len}, j.OverCap == 1)
		jr.skipped++
		if opts.GiveUp && jsonl.GiveUp(jr.skipped, len(j.Lines)) {
			return &jsonl.GaveUpError{File: j.File, Bad: jr.skipped, Good: len(j.Lines), First: j.Malformed[0].Line, Line: l.N}
		}
		return nil
	}
	data := bytes.TrimSpace(l.Data)
	if len(data) == 0 {
		return nil // watch drops blank lines
	}
	jr.index++
	v := &jr.v
	*v = line{}
	// A line that does not open an object is malformed whatever follows;
	// it is not decoded (twenty million junk lines cost seconds, not a
	// decode each).
	var err error
	if data[0] == '{' {
		// decodeFast, or encoding/json for the lines it leaves to it.
		switch valid, done := decodeFast(data, v); {
		case !valid:
			err = errNotJSON
		case !done:
			*v = line{}
			err = json.Unmarshal(data, v)
		}
	}
	if data[0] != '{' || (err != nil && !isTypeError(err)) {
		// Only kept lines need their reason: the rest are counted
		// without validating them again to say why (half the cost
		// of a junk line).
		reason := "not JSON"
		if l.Torn || len(j.Malformed) < model.MalformedExamples {
			reason = jsonl.NotJSONReason(data, l.Torn)
		}
		jr.malformed(model.Malformed{Line: l.N, Reason: reason, Skipped: true}, l.Torn)
		if l.Torn {
			return nil
		}
		jr.skipped++
		if opts.GiveUp && jsonl.GiveUp(jr.skipped, len(j.Lines)) {
			return &jsonl.GaveUpError{File: j.File, Bad: jr.skipped, Good: len(j.Lines), First: j.Malformed[0].Line, Line: l.N}
		}
		return nil
	}
	jl := model.JournalLine{Line: l.N, Index: jr.index, Type: "other", Torn: l.Torn}
	if v.Type != nil {
		jl.Type = *v.Type
	}
	if v.Key != nil {
		jl.Key, jl.HasKey = *v.Key, *v.Key != ""
	}
	if v.AgentID != nil {
		jl.AgentID = *v.AgentID
	}
	if len(j.Lines) == cap(j.Lines) {
		// Doubled, not grown by a quarter as append grows a long
		// slice: 200,000 lines of 80 bytes were copied five times over.
		j.Lines = slices.Grow(j.Lines, max(len(j.Lines), 64))
	}
	j.Lines = append(j.Lines, jl)
	return nil
}

// isTypeError reports whether err is encoding/json's error for a value of
// the wrong type (the line is JSON: the field is left out, as watch does).
func isTypeError(err error) bool {
	var typeErr *json.UnmarshalTypeError
	return errors.As(err, &typeErr)
}

// Attempts runs the journal state machine (Machine): a `started` line opens occurrence
// n+1 of its key (superseding occurrence n); a `result` or `failed` line closes
// the open occurrence of its agentId, or is an orphan when none is open.
// Lines without a key (runs written before the v2 key scheme) use the agent id
// as their key, so each such agent is its own key. Other line types are ignored.
func Attempts(j *model.Journal) ([]*model.Attempt, []model.Orphan) {
	var (
		attempts []*model.Attempt
		orphans  []model.Orphan
	)
	// The attempts are allocated together and the maps sized for them: a
	// journal of 200,000 started lines made as many allocations and grew
	// its maps one rehash at a time.
	started := 0
	for i := range j.Lines {
		if j.Lines[i].Type == "started" {
			started++
		}
	}
	slab := make([]model.Attempt, started)
	if started > 0 {
		attempts = make([]*model.Attempt, 0, started)
	}
	m := NewMachine(started)
	looked := 0 // attempts looked at to close results (countLooked)
	for _, l := range j.Lines {
		at := model.Evidence{File: j.File, Line: l.Line}
		switch l.Type {
		case "started":
			key := KeyOf(l)
			i, ordinal, prev := m.Start(key, l.AgentID)
			a := &slab[i]
			*a = model.Attempt{Key: key, Ordinal: ordinal, AgentID: l.AgentID, Started: at}
			if prev >= 0 {
				slab[prev].SupersededBy = ordinal
			}
			attempts = append(attempts, a)
		case "result", "failed":
			i, ok := m.Close(l.AgentID)
			if !ok {
				orphans = append(orphans, model.Orphan{At: at, Type: l.Type, Key: l.Key, AgentID: l.AgentID})
				continue
			}
			looked++
			a := &slab[i]
			a.ClosedBy = model.OutcomeCompleted
			if l.Type == "failed" {
				a.ClosedBy = model.OutcomeFailed
			}
			c := at
			a.Closed = &c
		}
	}
	if countLooked != nil {
		countLooked(looked)
	}
	return attempts, orphans
}

// countLooked, when set (by tests), receives how many attempts Attempts
// looked at to close result and failed lines: one per line that closes
// one (TestOrphanResultsCostOneLookupEach bounds it).
var countLooked func(int)

// KeyOf is the key a journal line groups under.
func KeyOf(l model.JournalLine) string {
	if l.HasKey && l.Key != "" {
		return l.Key
	}
	return "agent:" + l.AgentID
}
