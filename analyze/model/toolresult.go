package model

import (
	"math"
	"time"
)

// ToolResult is one tool_result block with what pmcheck reads of it and of the
// row's toolUseResult. A transcript keeps tens of thousands, so a result is
// 40 bytes: its text head, the call it answers (which holds its tool-use id
// and its transcript: the file and the staircase its write time is read
// from), its line, its text length and six flags in one word, and the ids and
// strings only agent, Workflow and failed results carry behind Extra. Read the
// rest through the methods of their names.
type ToolResult struct {
	// Text is the start of the joined text (capped by tool kind).
	Text string
	// Extra holds the ids and strings that only agent, Workflow and failed
	// results carry; nil when all are empty, as for most results. Read them
	// through the methods of the same names, which are nil-safe.
	Extra *ResultExtra

	// call is the call of the same transcript that the result answers; nil
	// when the file holds none (or the result is hand-built), and then the
	// tool-use id and the transcript are kept in Extra.
	call *ToolCall
	line uint32
	// lenFlags is the text length in its low textLenBits bits and the flags
	// above them; a longer text's length is kept in Extra.
	lenFlags uint32
}

const (
	textLenBits = 26 // a text of up to 64 MiB - 1: longer than the default line cap allows
	maxTextLen  = 1<<textLenBits - 1
)

type resultFlags uint32

const (
	flagIsError resultFlags = 1 << (textLenBits + iota)
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
		x.rare = nil   // built again from in
		in.Extra = &x
	}
	r := newResult(in)
	at := in.At
	x := r.ensureRare()
	x.at, x.toolUseID = &at, in.ToolUseID
	r.line = clampLine(at.Line)
	return r
}

// NewToolResult returns a result of t. in.At must point into t (File t.File,
// Time the write time of its line, which t's staircase holds from then on):
// the result keeps only the line and reads the time from the staircase, and
// it keeps in.Extra as given. call is the call of t that the result answers
// (in.ToolUseID is its id), or nil when t holds none so far; SetCall links
// one found later.
func (t *Transcript) NewToolResult(in ResultInput, call *ToolCall) *ToolResult {
	r := t.results.next()
	*r = makeResult(in)
	if call != nil {
		r.call = call
	} else {
		x := r.ensureRare()
		x.toolUseID, x.t = in.ToolUseID, t
	}
	if in.At.Line < 0 || int64(in.At.Line) > math.MaxUint32 {
		at := in.At
		r.ensureRare().at = &at
	}
	r.line = clampLine(in.At.Line)
	return r
}

// SetCall records that r answers c, a call of r's transcript with r's
// tool-use id that was read after r: r then reads its id and transcript
// through c instead of keeping them.
func (r *ToolResult) SetCall(c *ToolCall) {
	r.call = c
	if x := r.Extra; x != nil && x.rare != nil {
		x.rare.toolUseID, x.rare.t = "", nil
		if *x.rare == (resultRare{}) {
			x.rare = nil
		}
		if *x == (ResultExtra{}) {
			r.Extra = nil
		}
	}
}

func newResult(in ResultInput) *ToolResult {
	r := makeResult(in)
	return &r
}

func makeResult(in ResultInput) ToolResult {
	r := ToolResult{Text: in.Text, Extra: in.Extra}
	for _, f := range []struct {
		on bool
		f  resultFlags
	}{{in.IsError, flagIsError}, {in.HasPartialNotice, flagPartialNotice}, {in.StartsWithAPIErrorPrefix, flagAPIErrorPrefix},
		{in.IsAsync, flagIsAsync}, {in.Interrupted, flagInterrupted}, {in.Copied, flagResultCopied}} {
		if f.on {
			r.lenFlags |= uint32(f.f)
		}
	}
	if in.TextLen >= 0 && in.TextLen <= maxTextLen {
		r.lenFlags |= uint32(in.TextLen)
	} else {
		r.ensureRare().textLen = in.TextLen
	}
	return r
}

// ensureRare returns what almost no result has, allocating it (and Extra)
// on first use.
func (r *ToolResult) ensureRare() *resultRare {
	if r.Extra == nil {
		r.Extra = new(ResultExtra)
	}
	if r.Extra.rare == nil {
		r.Extra.rare = new(resultRare)
	}
	return r.Extra.rare
}

// noRare stands for the rarest fields of a result that has none; read only.
var noRare resultRare

func (r *ToolResult) rare() *resultRare {
	if r == nil || r.Extra == nil || r.Extra.rare == nil {
		return &noRare
	}
	return r.Extra.rare
}

// ToolUseID is the id of the call the result answers.
func (r *ToolResult) ToolUseID() string {
	if r != nil && r.call != nil {
		return r.call.ID()
	}
	return r.rare().toolUseID
}

// transcript is the file holding the result: its call's, else the one kept
// in Extra; nil when hand-built.
func (r *ToolResult) transcript() *Transcript {
	if r.call != nil {
		return r.call.t
	}
	return r.rare().t
}

// At is the row holding the result: its file, line and write time.
func (r *ToolResult) At() Evidence {
	if at := r.rare().at; at != nil {
		return *at
	}
	t := r.transcript()
	if t == nil {
		return Evidence{Line: int(r.line)}
	}
	return Evidence{File: t.File, Line: int(r.line), Time: t.WriteTimeAt(int(r.line))}
}

// Line is At().Line, without reading the write time.
func (r *ToolResult) Line() int {
	if at := r.rare().at; at != nil {
		return at.Line
	}
	return int(r.line)
}

// SetFirstTime gives a result whose evidence is held in full and has no
// time the file's first write time (as the staircase does for the others).
func (r *ToolResult) SetFirstTime(first time.Time) {
	if at := r.rare().at; at != nil && at.Time.IsZero() {
		at.Time = first
	}
}

func (r *ToolResult) has(f resultFlags) bool { return r.lenFlags&uint32(f) != 0 }

// IsError is the block's is_error.
func (r *ToolResult) IsError() bool { return r.has(flagIsError) }

// HasPartialNotice is true when the whole text contains the harness's
// partial-output notice (see package harness).
func (r *ToolResult) HasPartialNotice() bool { return r.has(flagPartialNotice) }

// StartsWithAPIErrorPrefix is true when the text, left-trimmed, begins with
// the harness's API-error prefix.
func (r *ToolResult) StartsWithAPIErrorPrefix() bool { return r.has(flagAPIErrorPrefix) }

// IsAsync is toolUseResult.isAsync (trunk results only).
func (r *ToolResult) IsAsync() bool { return r.has(flagIsAsync) }

// Interrupted is toolUseResult.interrupted (trunk results only).
func (r *ToolResult) Interrupted() bool { return r.has(flagInterrupted) }

// Copied: the row is a resume's copy of an earlier file's (ToolCall.Copied).
func (r *ToolResult) Copied() bool { return r.has(flagResultCopied) }

// MarkCopied marks the result Copied (ToolCall.MarkCopied).
func (r *ToolResult) MarkCopied() { r.lenFlags |= uint32(flagResultCopied) }

// TextLen is the length in bytes of the whole joined text.
func (r *ToolResult) TextLen() int {
	if n := r.rare().textLen; n != 0 {
		return n
	}
	return int(r.lenFlags & maxTextLen)
}

// Input spells the result out (its evidence in full).
func (r *ToolResult) Input() ResultInput {
	in := ResultInput{ToolUseID: r.ToolUseID(), At: r.At(), IsError: r.IsError(), HasPartialNotice: r.HasPartialNotice(),
		StartsWithAPIErrorPrefix: r.StartsWithAPIErrorPrefix(), IsAsync: r.IsAsync(), Interrupted: r.Interrupted(),
		Copied: r.Copied(), Text: r.Text, TextLen: r.TextLen()}
	if r.Extra != nil {
		x := *r.Extra
		x.rare = nil
		if x != (ResultExtra{}) {
			in.Extra = &x
		}
	}
	return in
}

// Set replaces the result's contents with in's, keeping where it is
// (tests edit loaded results this way): its call when in names the call's
// id, else its transcript with in's id.
func (r *ToolResult) Set(in ResultInput) {
	n := newResult(in)
	n.line = r.line
	if at := r.rare().at; at != nil {
		n.ensureRare().at = at
	}
	if r.call != nil && r.call.ID() == in.ToolUseID {
		n.call = r.call
	} else if t := r.transcript(); t != nil || in.ToolUseID != "" {
		x := n.ensureRare()
		x.toolUseID, x.t = in.ToolUseID, t
	}
	*r = *n
}
