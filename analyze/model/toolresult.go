package model

import (
	"math"
	"time"
)

// ToolResult is one tool_result block with what pmcheck reads of it and of the
// row's toolUseResult. A transcript keeps tens of thousands, so a result is
// 64 bytes: its flags in one byte, its line and text length as uint32s, its
// write time read from the transcript's staircase, and the ids and strings
// only agent, Workflow and failed results carry behind Extra. Read the rest
// through the methods of their names.
type ToolResult struct {
	ToolUseID string
	// Text is the start of the joined text (capped by tool kind).
	Text string
	// Extra holds the ids and strings that only agent, Workflow and failed
	// results carry; nil when all are empty, as for most results. Read them
	// through the methods of the same names, which are nil-safe.
	Extra *ResultExtra

	t       *Transcript // the file holding the result (File, write time), nil when hand-built
	line    uint32
	textLen uint32
	flag    resultFlags
}

type resultFlags uint8

const (
	flagIsError resultFlags = 1 << iota
	flagPartialNotice
	flagAPIErrorPrefix
	flagIsAsync
	flagInterrupted
	flagResultCopied
)

// ResultInput is a tool result spelled out: what a reader passes to
// Transcript.NewToolResult and a test to NewToolResult.
type ResultInput struct {
	ToolUseID string
	At        Evidence
	IsError   bool
	// HasPartialNotice is true when the whole text contains the harness's
	// partial-output notice (see package harness); StartsWithAPIErrorPrefix when
	// the text, left-trimmed, begins with the harness's API-error prefix.
	HasPartialNotice         bool
	StartsWithAPIErrorPrefix bool
	// From toolUseResult (trunk results only).
	IsAsync     bool
	Interrupted bool
	// Copied: the row is a resume's copy of an earlier file's (ToolCall.Copied).
	Copied bool
	Text   string
	// TextLen is the length in bytes of the whole joined text.
	TextLen int
	Extra   *ResultExtra
}

// NewToolResult returns a result holding everything in in, its evidence in
// full (a hand-built model; a reader uses Transcript.NewToolResult).
func NewToolResult(in ResultInput) *ToolResult {
	if in.Extra != nil {
		x := *in.Extra // the caller's may be shared; this one gets the evidence
		in.Extra = &x
	}
	r := newResult(in)
	at := in.At
	r.ensureExtra().at = &at
	r.line = clampLine(at.Line)
	return r
}

// NewToolResult returns a result of t. in.At must point into t (File t.File,
// Time the write time of its line, which t's staircase holds from then on):
// the result keeps only the line and reads the time from the staircase, and
// it keeps in.Extra as given.
func (t *Transcript) NewToolResult(in ResultInput) *ToolResult {
	r := newResult(in)
	r.t = t
	if in.At.Line < 0 || int64(in.At.Line) > math.MaxUint32 {
		at := in.At
		r.ensureExtra().at = &at
	}
	r.line = clampLine(in.At.Line)
	return r
}

func newResult(in ResultInput) *ToolResult {
	r := &ToolResult{ToolUseID: in.ToolUseID, Text: in.Text, Extra: in.Extra}
	for _, f := range []struct {
		on bool
		f  resultFlags
	}{{in.IsError, flagIsError}, {in.HasPartialNotice, flagPartialNotice}, {in.StartsWithAPIErrorPrefix, flagAPIErrorPrefix},
		{in.IsAsync, flagIsAsync}, {in.Interrupted, flagInterrupted}, {in.Copied, flagResultCopied}} {
		if f.on {
			r.flag |= f.f
		}
	}
	if in.TextLen >= 0 && int64(in.TextLen) <= math.MaxUint32 {
		r.textLen = uint32(in.TextLen)
	} else {
		r.ensureExtra().textLen = in.TextLen
	}
	return r
}

// ensureExtra returns the rare fields, allocating them on first use.
func (r *ToolResult) ensureExtra() *ResultExtra {
	if r.Extra == nil {
		r.Extra = new(ResultExtra)
	}
	return r.Extra
}

// At is the row holding the result: its file, line and write time.
func (r *ToolResult) At() Evidence {
	if r.Extra != nil && r.Extra.at != nil {
		return *r.Extra.at
	}
	if r.t == nil {
		return Evidence{Line: int(r.line)}
	}
	return Evidence{File: r.t.File, Line: int(r.line), Time: r.t.WriteTimeAt(int(r.line))}
}

// Line is At().Line, without reading the write time.
func (r *ToolResult) Line() int {
	if r.Extra != nil && r.Extra.at != nil {
		return r.Extra.at.Line
	}
	return int(r.line)
}

// SetFirstTime gives a result whose evidence is held in full and has no
// time the file's first write time (as the staircase does for the others).
func (r *ToolResult) SetFirstTime(first time.Time) {
	if r.Extra != nil && r.Extra.at != nil && r.Extra.at.Time.IsZero() {
		r.Extra.at.Time = first
	}
}

// IsError is the block's is_error.
func (r *ToolResult) IsError() bool { return r.flag&flagIsError != 0 }

// HasPartialNotice is true when the whole text contains the harness's
// partial-output notice (see package harness).
func (r *ToolResult) HasPartialNotice() bool { return r.flag&flagPartialNotice != 0 }

// StartsWithAPIErrorPrefix is true when the text, left-trimmed, begins with
// the harness's API-error prefix.
func (r *ToolResult) StartsWithAPIErrorPrefix() bool { return r.flag&flagAPIErrorPrefix != 0 }

// IsAsync is toolUseResult.isAsync (trunk results only).
func (r *ToolResult) IsAsync() bool { return r.flag&flagIsAsync != 0 }

// Interrupted is toolUseResult.interrupted (trunk results only).
func (r *ToolResult) Interrupted() bool { return r.flag&flagInterrupted != 0 }

// Copied: the row is a resume's copy of an earlier file's (ToolCall.Copied).
func (r *ToolResult) Copied() bool { return r.flag&flagResultCopied != 0 }

// TextLen is the length in bytes of the whole joined text.
func (r *ToolResult) TextLen() int {
	if r.Extra != nil && r.Extra.textLen != 0 {
		return r.Extra.textLen
	}
	return int(r.textLen)
}

// Input spells the result out (its evidence in full).
func (r *ToolResult) Input() ResultInput {
	in := ResultInput{ToolUseID: r.ToolUseID, At: r.At(), IsError: r.IsError(), HasPartialNotice: r.HasPartialNotice(),
		StartsWithAPIErrorPrefix: r.StartsWithAPIErrorPrefix(), IsAsync: r.IsAsync(), Interrupted: r.Interrupted(),
		Copied: r.Copied(), Text: r.Text, TextLen: r.TextLen()}
	if r.Extra != nil {
		x := *r.Extra
		x.at, x.textLen = nil, 0
		if x != (ResultExtra{}) {
			in.Extra = &x
		}
	}
	return in
}

// Set replaces the result's contents with in's, keeping where it is
// (tests edit loaded results this way).
func (r *ToolResult) Set(in ResultInput) {
	n := newResult(in)
	n.t, n.line = r.t, r.line
	if r.Extra != nil && r.Extra.at != nil {
		n.ensureExtra().at = r.Extra.at
	}
	*r = *n
}
