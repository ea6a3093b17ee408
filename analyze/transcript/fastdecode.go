package transcript

import (
	"unsafe"

	"github.com/pmcheck/pmcheck/internal/jsonscan"
)

// The fast row decoder. Most bytes of a transcript are tool output, progress
// payloads and file snapshots that pmcheck never reads, yet encoding/json
// validates every byte twice (checkValid, then the decode pass) through a
// per-byte state machine, which held reading to about 50 MB/s. This decoder
// walks each line once: it validates the JSON grammar exactly as
// encoding/json's scanner does (so malformed-line accounting is unchanged),
// decodes only the fields of row, and skips every other value without
// allocating, scanning string bodies eight bytes at a time. The grammar
// (whitespace, literals, numbers, strings, skipping, the nesting limit) is
// internal/jsonscan's, shared with the Workflow journal's decoder; this
// file maps keys to the fields of row.
//
// It reproduces encoding/json's results field for field, including its
// quirks: keys match case-insensitively (Unicode simple folding) when no key
// matches exactly; a value of the wrong type leaves the field as it was;
// duplicate keys merge into what an earlier key decoded; invalid UTF-8 inside
// strings decodes to U+FFFD; a lone surrogate escape decodes to U+FFFD; more
// than 10000 nested arrays or objects make the line invalid. decode.go's
// UnmarshalJSON methods stay the reference; fastdecode_test.go checks the two
// agree on the corpus, on crafted edge cases and under go test -fuzz.

// decodeRow decodes one line (already trimmed, starting with '{') into r.
// ok is false exactly when encoding/json rejects the line as invalid JSON;
// r is then unspecified. badUTF8 reports, for a valid line, whether it holds
// invalid UTF-8 (as !utf8.Valid(data) would: outside its strings, valid JSON
// is ASCII). The strings in r share data's memory (see decodeRowArena).
func decodeRow(data []byte, r *row) (ok, badUTF8 bool) {
	var a arena
	return decodeRowArena(data, r, &a)
}

// arena is what the strings and block lists of decoded rows point into.
// decodeRowArena appends to it; its owner resets it (reset) once nothing
// points into it any more: the serial builder after each line, the
// parallel reader after each chunk.
type arena struct {
	buf    []byte  // unescaped string bodies
	blocks []block // content block lists, one after another
	pend   []block // the blocks of the lists being read (a stack)
}

// reset empties the arena for reuse, dropping buffers one huge line grew.
func (a *arena) reset(max int) {
	a.buf, a.blocks, a.pend = a.buf[:0], a.blocks[:0], a.pend[:0]
	if cap(a.buf) > max {
		a.buf = nil
	}
	if cap(a.blocks)*int(unsafe.Sizeof(block{})) > max {
		a.blocks = nil
	}
	if cap(a.pend)*int(unsafe.Sizeof(block{})) > max {
		a.pend = nil
	}
}

// decodeRowArena is decodeRow with the caller's arena: the strings it
// stores in r are views, never copies. A string without escapes is the
// bytes of data between its quotes; one with escapes is decoded into
// a.buf, and content block lists are stored in a.blocks. Most decoded
// bytes are tool output and text of which the model keeps a capped head,
// so copying each string to the heap only for the builder to cut it (the
// first design) made 44 % of all allocations. The views are valid until
// data is reused or the arena reset: the builder clones what it keeps
// (strings.Clone, capString) before that.
func decodeRowArena(data []byte, r *row, a *arena) (ok, badUTF8 bool) {
	s := fastScanner{Scanner: jsonscan.Scanner{Data: data}, buf: a.buf, ar: a}
	if s.Peek() != '{' {
		// Not an object: valid or not, the row decodes to nothing.
		ok = s.SkipValue() && s.End()
	} else {
		ok = s.rowObject(r) && s.End()
	}
	a.buf = s.buf
	a.pend = a.pend[:0]
	return ok, s.Bad
}

// noBlocks is the empty block list (never appended to: its capacity is 0).
var noBlocks = []block{}

// view is the string whose bytes are b, without copying them.
func view(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// fastScanner is the shared JSON scanner (jsonscan: the grammar, as
// encoding/json's) with what decoding rows adds: where decoded strings go.
type fastScanner struct {
	jsonscan.Scanner
	// buf receives the decoded bodies of strings with escapes, one after
	// another: stringValue returns views into it (it is ar.buf).
	buf []byte
	ar  *arena
}

// stringValue reads a string and returns its decoded value: a view into
// s.Data or s.buf (decodeRowArena).
func (s *fastScanner) stringValue() (string, bool) {
	body, esc, ok := s.ScanString()
	switch {
	case !ok:
		return "", false
	case s.StrBad:
		return string(jsonscan.Unquote(body)), true
	case esc:
		bstart := len(s.buf)
		s.buf = jsonscan.Unescape(s.buf, body)
		return view(s.buf[bstart:]), true
	}
	return view(body), true
}

// Typed field decoders. Each consumes one value; a value of another type is
// validated and skipped, leaving the field as it was (encoding/json records a
// type error and carries on, which the reader accepts).

func (s *fastScanner) str(dst *string) bool {
	if s.Peek() != '"' {
		return s.SkipValue()
	}
	v, ok := s.stringValue()
	if ok {
		*dst = v
	}
	return ok
}

func (s *fastScanner) boolean(dst *bool) bool {
	switch s.Peek() {
	case 't':
		if !s.Literal("true") {
			return false
		}
		*dst = true
		return true
	case 'f':
		if !s.Literal("false") {
			return false
		}
		*dst = false
		return true
	}
	return s.SkipValue()
}

// loose mirrors looseString.UnmarshalJSON: strings decode, numbers and
// booleans keep their JSON text, objects, arrays and null are ignored.
func (s *fastScanner) loose(dst *looseString) bool {
	switch s.Peek() {
	case '"':
		v, ok := s.stringValue()
		if ok {
			*dst = looseString(v)
		}
		return ok
	case '{', '[', 'n':
		return s.SkipValue()
	}
	raw, ok := s.RawValue()
	if ok {
		*dst = looseString(view(raw))
	}
	return ok
}

// object walks the members of an object, calling field for each key; field
// consumes the value. A value that is not an object is skipped.
func (s *fastScanner) object(field func(k jsonscan.Key) bool) bool {
	if s.Peek() != '{' {
		return s.SkipValue()
	}
	if !s.Enter() {
		return false
	}
	for first := true; ; first = false {
		k, done, ok := s.NextKey(first)
		if !ok {
			return false
		}
		if done {
			return true
		}
		if !field(k) {
			return false
		}
	}
}

var rowNames = jsonscan.NewNames("type", "timestamp", "sessionId", "agentId", "version", "cwd", "gitBranch", "isMeta",
	"isApiErrorMessage", "error", "subtype", "operation", "content", "message", "toolUseResult", "origin", "data", "parentToolUseID", "uuid",
	"leafUuid", "messageId", "session_id", "parent_tool_use_id", "tool_use_result", "is_api_error_message", "customTitle")

func (s *fastScanner) rowObject(r *row) bool {
	return s.object(func(k jsonscan.Key) bool {
		switch k.Match(rowNames) {
		case 0:
			return s.str(&r.Type)
		case 1:
			return s.str(&r.Timestamp)
		case 2:
			return s.str(&r.SessionID)
		case 3:
			return s.str(&r.AgentID)
		case 4:
			return s.str(&r.Version)
		case 5:
			return s.str(&r.Cwd)
		case 6:
			return s.str(&r.GitBranch)
		case 7:
			return s.boolean(&r.IsMeta)
		case 8:
			return s.boolean(&r.IsAPIErrorMessage)
		case 9:
			return s.loose(&r.Error)
		case 10:
			return s.str(&r.Subtype)
		case 11:
			return s.str(&r.Operation)
		case 12:
			return s.content(&r.Content)
		case 13:
			return s.messagePtr(&r.Message, &r.msgStore)
		case 14:
			return s.toolUseResult(&r.ToolUseResult)
		case 15:
			return s.object(func(k jsonscan.Key) bool {
				if k.Match(originNames) == 0 {
					return s.str(&r.Origin.Kind)
				}
				return s.SkipValue()
			})
		case 16:
			return s.object(func(k jsonscan.Key) bool {
				switch k.Match(dataNames) {
				case 0:
					return s.str(&r.Data.Type)
				case 1:
					return s.str(&r.Data.AgentID)
				}
				return s.SkipValue()
			})
		case 17:
			return s.str(&r.ParentToolUseID)
		case 18:
			return s.str(&r.UUID)
		case 19:
			return s.str(&r.LeafUUID)
		case 20:
			return s.str(&r.MessageID)
		case 21:
			return s.str(&r.SDKSessionID)
		case 22:
			return s.str(&r.SDKParent)
		case 23:
			return s.toolUseResult(&r.SDKToolUseResult)
		case 24:
			return s.boolean(&r.SDKAPIError)
		case 25:
			return s.str(&r.CustomTitle)
		}
		return s.SkipValue()
	})
}

var (
	originNames  = jsonscan.NewNames("kind")
	dataNames    = jsonscan.NewNames("type", "agentId")
	messageNames = jsonscan.NewNames("role", "model", "stop_reason", "content")
	blockNames   = jsonscan.NewNames("type", "text", "id", "name", "input", "tool_use_id", "content", "is_error")
	inputNames   = jsonscan.NewNames("description", "prompt", "subagent_type", "run_in_background", "name", "command",
		"file_path", "notebook_path", "task_id", "shell_id", "resumeFromRunId", "script", "scriptPath")
	resultNames = jsonscan.NewNames("status", "agentId", "isAsync", "runId", "taskId", "backgroundTaskId", "interrupted")
)

// messagePtr mirrors encoding/json on a *message: null sets nil; any other
// value allocates the message (an object then decodes into it).
//
// The message is stored in the row itself (store), not allocated: one
// allocation less per user and assistant row.
func (s *fastScanner) messagePtr(dst **message, store *message) bool {
	if s.Peek() == 'n' {
		if !s.Literal("null") {
			return false
		}
		*dst = nil
		return true
	}
	if *dst == nil {
		*store = message{}
		*dst = store
	}
	m := *dst
	return s.object(func(k jsonscan.Key) bool {
		switch k.Match(messageNames) {
		case 0:
			return s.str(&m.Role)
		case 1:
			return s.str(&m.Model)
		case 2:
			return s.str(&m.StopReason)
		case 3:
			return s.content(&m.Content)
		}
		return s.SkipValue()
	})
}

// content mirrors content.UnmarshalJSON.
func (s *fastScanner) content(c *content) bool {
	v, ok := s.contentVal(*c)
	*c = v
	return ok
}

// contentVal is content on a value: content and blockAt call each other,
// and a pointer to a local passed around that cycle would move the local
// to the heap (one allocation per block).
func (s *fastScanner) contentVal(c content) (content, bool) {
	switch s.Peek() {
	case 'n':
		return c, s.SkipValue()
	case '"':
		c.present, c.isString = true, true
		ok := s.str(&c.str)
		c.probes = contentProbes(&c)
		return c, ok
	case '[':
		c.present = true
		if !s.Enter() {
			return c, false
		}
		// The blocks are read onto the arena's stack (a block's own
		// content pushes and pops above them), then stored together in
		// the arena's block list: no allocation per row.
		ar := s.ar
		base := len(ar.pend)
		for first := true; ; first = false {
			done, ok := s.NextElem(first)
			if !ok {
				return c, false
			}
			if done {
				break
			}
			ar.pend = append(ar.pend, block{})
			idx := len(ar.pend) - 1
			switch s.Peek() {
			case '{':
				ok = s.blockAt(idx)
			case '"':
				ar.pend[idx].Type = "text"
				ok = s.str(&ar.pend[idx].Text)
			default:
				ok = s.SkipValue()
			}
			if !ok {
				return c, false
			}
		}
		if len(ar.pend) == base {
			c.blocks = noBlocks // empty, not nil, as encoding/json decodes []
		} else {
			start := len(ar.blocks)
			ar.blocks = append(ar.blocks, ar.pend[base:]...)
			ar.pend = ar.pend[:base]
			c.blocks = ar.blocks[start:len(ar.blocks):len(ar.blocks)]
		}
		c.probes = contentProbes(&c)
		return c, true
	}
	c.present = true
	return c, s.SkipValue()
}

// blockAt decodes a block into s.ar.pend[idx]. The stack may be
// reallocated while the block's own content is read, so every write goes
// through the index.
func (s *fastScanner) blockAt(idx int) bool {
	// A loop instead of object's callback: a closure would move every
	// block to the heap (one allocation per content block).
	if s.Peek() != '{' {
		return s.SkipValue()
	}
	if !s.Enter() {
		return false
	}
	ar := s.ar
	for first := true; ; first = false {
		k, done, ok := s.NextKey(first)
		if !ok {
			return false
		}
		if done {
			return true
		}
		switch k.Match(blockNames) {
		case 0:
			ok = s.str(&ar.pend[idx].Type)
		case 1:
			ok = s.str(&ar.pend[idx].Text)
		case 2:
			ok = s.str(&ar.pend[idx].ID)
		case 3:
			ok = s.str(&ar.pend[idx].Name)
		case 4:
			ok = s.input(&ar.pend[idx].Input)
		case 5:
			ok = s.str(&ar.pend[idx].ToolUseID)
		case 6:
			var v content
			v, ok = s.contentVal(ar.pend[idx].Content)
			ar.pend[idx].Content = v
		case 7:
			ok = s.boolean(&ar.pend[idx].IsError)
		default:
			ok = s.SkipValue()
		}
		if !ok {
			return false
		}
	}
}

// input mirrors input.UnmarshalJSON: an object replaces the input whole.
func (s *fastScanner) input(in *input) bool {
	if s.Peek() != '{' {
		return s.SkipValue()
	}
	var p input
	ok := s.object(func(k jsonscan.Key) bool {
		switch k.Match(inputNames) {
		case 0:
			return s.str(&p.Description)
		case 1:
			return s.str(&p.Prompt)
		case 2:
			return s.str(&p.SubagentType)
		case 3:
			return s.boolean(&p.RunInBackground)
		case 4:
			return s.str(&p.Name)
		case 5:
			return s.str(&p.Command)
		case 6:
			return s.str(&p.FilePath)
		case 7:
			return s.str(&p.NotebookPath)
		case 8:
			return s.str(&p.TaskID)
		case 9:
			return s.str(&p.ShellID)
		case 10:
			return s.str(&p.ResumeFromRunID)
		case 11:
			return s.str(&p.Script)
		case 12:
			return s.str(&p.ScriptPath)
		}
		return s.SkipValue()
	})
	*in = p
	return ok
}

// toolUseResult mirrors toolUseResult.UnmarshalJSON.
func (s *fastScanner) toolUseResult(t *toolUseResult) bool {
	switch s.Peek() {
	case '"':
		t.present = true
		return s.str(&t.str)
	case '{':
	default:
		return s.SkipValue()
	}
	var status, agentID, runID, taskID, bgID looseString
	var isAsync, interrupted bool
	ok := s.object(func(k jsonscan.Key) bool {
		switch k.Match(resultNames) {
		case 0:
			return s.loose(&status)
		case 1:
			return s.loose(&agentID)
		case 2:
			return s.boolean(&isAsync)
		case 3:
			return s.loose(&runID)
		case 4:
			return s.loose(&taskID)
		case 5:
			return s.loose(&bgID)
		case 6:
			return s.boolean(&interrupted)
		}
		return s.SkipValue()
	})
	t.present = true
	t.Status, t.AgentID, t.IsAsync = string(status), string(agentID), isAsync
	t.RunID, t.TaskID, t.BackgroundTaskID = string(runID), string(taskID), string(bgID)
	t.Interrupted = interrupted
	return ok
}
