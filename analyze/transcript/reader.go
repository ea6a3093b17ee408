// Package transcript streams a Claude Code JSONL transcript into a compact
// model.Transcript: the tool calls, results, notifications, queue operations,
// segment marks, the write-time staircase and how the file ends. No row is kept
// once it has been summarised, so memory depends on the number of facts, not
// on the size of the file.
package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/pmcheck/pmcheck/analyze/harness"
	"github.com/pmcheck/pmcheck/analyze/jsonl"
	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/analyze/shell"
	"github.com/pmcheck/pmcheck/internal/jsonscan"
	"github.com/pmcheck/pmcheck/internal/lazyre"
)

// Options tune the reader.
type Options struct {
	// LineCap is the longest line read (jsonl.DefaultLineCap when 0).
	LineCap int64
	// Copied are the row hashes (Transcript.RowHashes) of earlier files of
	// the same session: each maps the uuid hashes (HashUUID) of a file's
	// rows to those rows' content hashes, a later map's entry winning over
	// an earlier's. A row with such a uuid and the same content (all but its
	// sessionId) was copied into this file by a resume; it is counted
	// (Transcript.Copied) and its calls are marked Copied. A row with the
	// uuid but other content is not a copy. The maps are looked up, not
	// merged, so a copy costs its own rows times the files it names, however
	// large those files are.
	Copied []map[uint64]uint64
	// RowHashes asks for Transcript.RowHashes.
	RowHashes bool
	// MarkLater reads the file as if none of its rows were copied and
	// keeps what marking its copied rows afterwards needs: its row hashes
	// (RowHashes) and Transcript.CopyRows. MarkCopied, given the maps
	// Copied would have been, then makes the transcript the one a reading
	// with them gives, without reading the file again (the loader's
	// resume check, which learns the copies only once every session file
	// is read). Not used with Copied or HeadsOnly; a followed file is
	// read whole (its items are marked afterwards, and a follower's are
	// shared with its next reading).
	MarkLater bool
	// HeadsOnly reads what tells files apart and nothing of the work: the
	// counts of lines, rows and malformed lines, the row uuids (UUIDs,
	// FirstUUID, Duplicates), the first timestamp and the session id,
	// version, cwd and branch. The transcript holds no calls, results,
	// notifications, marks or steps; it is never analysed.
	HeadsOnly bool
	// GiveUp stops reading at the line where the file is clearly mostly
	// not JSON (jsonl.GiveUp); the read then returns a *jsonl.GaveUpError
	// instead of a transcript. A check fails closed on such a file anyway.
	GiveUp bool
	// NoUUIDList leaves Transcript.UUIDs nil (the sorted list of the rows'
	// uuids), for a caller that drops it (the loader keeps it only for
	// session files): a follower would otherwise merge the new uuids into
	// it at every snapshot. Duplicates are still counted.
	NoUUIDList bool
	// Shell, when its Classify is set, classifies every Bash call's
	// command while its line is decoded and keeps the analysis on the call
	// (model.ToolCall.ShellClass; shell.go). A heads-only read classifies
	// nothing. Its Inert, set or not, says whose output is never kept.
	Shell ShellOptions
	// Follow, when set, keeps a follower of each file read (ReadFile,
	// ReadFileSize) between reads, so a file that grew is decoded from
	// where the last read stopped (followers.go). The transcript is the
	// one a full read gives. Not used with Copied.
	Follow *Followers
	// Rows, when set, is given each line in file order as it is applied:
	// its number and its bytes without surrounding space (nil when over
	// the cap), valid only during the call. explain keeps its excerpts of
	// the rows this way, so it never reads a file the check read.
	Rows func(line int, data []byte)
}

// ReadFile opens path and reads it; file is the name evidence carries.
func ReadFile(path, file string, opts Options) (*model.Transcript, error) {
	t, _, err := ReadFileSize(path, file, opts)
	return t, err
}

// ReadFileSize is ReadFile that also returns the file's size when it was
// opened.
func ReadFileSize(path, file string, opts Options) (*model.Transcript, int64, error) {
	if opts.Follow != nil && opts.Copied == nil && !opts.MarkLater {
		return readFollowing(path, file, opts)
	}
	f, size, err := jsonl.OpenRead(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	if size >= parallelMin {
		if w := parallelWorkers(); w > 1 {
			t, err := readParallel(f, file, opts, w, chunkBytes) // parallel.go
			return t, size, err
		}
	}
	t, err := readPooled(f, file, opts) // Read with a reused buffer (readpool.go)
	return t, size, err
}

// ReadBytes reads a transcript held in memory as ReadFile reads a file
// of those bytes smaller than parallelMin; nothing it returns points into
// data.
func ReadBytes(data []byte, file string, opts Options) (*model.Transcript, error) {
	return readPooled(bytes.NewReader(data), file, opts)
}

// Read summarises a transcript stream. Only I/O errors are returned: malformed
// lines are counted in the result, never fatal.
func Read(r io.Reader, file string, opts Options) (*model.Transcript, error) {
	b := newBuilder(file)
	b.setOptions(opts)
	lr := jsonl.NewReader(r, opts.LineCap)
	for {
		l, err := lr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			b.free()
			return nil, fmt.Errorf("%s:%d: read error: %w", file, lr.LineCount()+1, err)
		}
		b.line(l)
		if b.gaveUp != nil {
			err := b.gaveUp
			b.free()
			return nil, err
		}
	}
	t := b.finish()
	b.free()
	return t, nil
}

// markRE matches a resume-gate segment mark in a text.
var markRE = harness.SegmentMarkPattern

// markProbe is a part of every mark that survives JSON-escaping its bracket;
// only rows holding it are searched for marks. It starts at the "v" of "v1":
// bytes.Index runs from candidates for its first byte, and "v" is rare in
// JSON rows (never in uuids or hex ids), where "r" of "resume-gate" is not,
// which made this probe cost 8% of reading.
const markProbe = "v1 outstanding="

// markRow is what marksInRow reads of a row that holds the probe.
type markRow struct {
	Type    string `json:"type"`
	IsMeta  bool   `json:"isMeta"`
	Version string `json:"version"`
	Message *struct {
		Content json.RawMessage `json:"content"`
	} `json:"message"`
	Attachment *struct {
		Type      string          `json:"type"`
		HookEvent string          `json:"hookEvent"`
		HookName  string          `json:"hookName"`
		Content   json.RawMessage `json:"content"`
	} `json:"attachment"`
}

// marksInRow finds the segment marks in a row, in document order, only
// where the resume gate writes them. The gate is a SessionStart hook whose
// additionalContext ends in the mark, and Claude Code records that context
// as a hook_additional_context attachment (from about 2.1.90) or, before,
// as a user row of its own (isMeta) whose whole string content is one
// <system-reminder> starting "SessionStart[:matcher] hook additional
// context:" (hookReminder). A mark anywhere else (an assistant's text, a
// tool result, a task-notification, a reminder inside a longer text part
// such as a skill or command body, the raw stdout copy in a hook_success
// attachment) is text an agent could have written or a second copy, and is
// not read: a forged mark could otherwise disarm the gate's window and hide
// a killed subagent.
//
// Values are matched decoded, so marks stored JSON-escaped (committed
// fixtures escape the bracket, as they do the partial-output notice, so
// that no file on disk holds a mark a resume gate would act on) are found.
func marksInRow(data []byte) [][2]string {
	var r markRow
	if err := json.Unmarshal(data, &r); err != nil {
		return nil
	}
	var out [][2]string
	find := func(s string) {
		for _, m := range markRE().FindAllStringSubmatch(s, -1) {
			out = append(out, [2]string{m[1], m[2]})
		}
	}
	switch {
	case r.Type == "attachment" && r.Attachment != nil:
		a := r.Attachment
		if a.Type != "hook_additional_context" || !isSessionStart(a.HookEvent, a.HookName) {
			return nil
		}
		for _, s := range stringsOf(a.Content) {
			find(s)
		}
	case r.Type == "user" && r.Message != nil && r.IsMeta && reminderEra(r.Version):
		var content string
		if json.Unmarshal(r.Message.Content, &content) != nil {
			return nil // a text block is a prompt, a skill or a command body
		}
		if body, ok := hookReminder(content); ok {
			find(body)
		}
	}
	return out
}

// lastReminderEra is the first CLI version that records hook context as
// attachments: from it on, a hook's context never arrives as a user row
// (corpus: reminder rows at 2.1.39, hook progress rows up to 2.1.76,
// hook_additional_context attachments from 2.1.96; the boundary is taken
// at about 2.1.90, where the attachments are documented to begin).
var lastReminderEra = [3]int{2, 1, 90}

// reminderEra reports whether a row's CLI version predates hook attachments.
// A row without a readable version is not of that era: Claude Code writes
// the version on every conversation row, so a row without one was not
// written by the CLI that would have carried the hook's context this way.
func reminderEra(version string) bool {
	v, ok := parseVersion(version)
	if !ok {
		return false
	}
	for i := range v {
		if v[i] != lastReminderEra[i] {
			return v[i] < lastReminderEra[i]
		}
	}
	return false
}

// parseVersion reads "MAJOR.MINOR.PATCH" (anything after the patch number,
// such as "-beta.1", is ignored).
func parseVersion(s string) ([3]int, bool) {
	var v [3]int
	for i := range v {
		n, digits := 0, 0
		for digits < len(s) && s[digits] >= '0' && s[digits] <= '9' && digits < 6 {
			n = n*10 + int(s[digits]-'0')
			digits++
		}
		if digits == 0 {
			return v, false
		}
		v[i], s = n, s[digits:]
		if i < 2 {
			if s == "" || s[0] != '.' {
				return v, false
			}
			s = s[1:]
		}
	}
	return v, true
}

// isSessionStart: the hook event is SessionStart (by its event, or its name
// "SessionStart" / "SessionStart:<matcher>").
func isSessionStart(event, name string) bool {
	if event != "" {
		return event == "SessionStart"
	}
	return name == "SessionStart" || strings.HasPrefix(name, "SessionStart:")
}

// stringsOf reads a JSON string or an array of strings.
func stringsOf(raw json.RawMessage) []string {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}
	}
	var many []string
	if json.Unmarshal(raw, &many) == nil {
		return many
	}
	return nil
}

const (
	reminderOpen  = "<system-reminder>"
	reminderClose = "</system-reminder>"
)

// hookReminder returns the body of a user row's content when the content is,
// whole and alone, the <system-reminder> Claude Code wraps a SessionStart
// hook's additional context in: "<system-reminder>\n" + "SessionStart[:matcher]
// hook additional context: " + the context + "\n</system-reminder>", with
// no other reminder inside. Anything around it, or a second reminder, makes
// it text (a skill or a command body can hold the tags).
func hookReminder(content string) (string, bool) {
	body, ok := strings.CutPrefix(content, reminderOpen+"\n")
	if !ok {
		return "", false
	}
	if body, ok = strings.CutSuffix(body, "\n"+reminderClose); !ok {
		return "", false
	}
	if strings.Contains(body, reminderOpen) || strings.Contains(body, reminderClose) ||
		strings.Contains(body, notificationOpen) || strings.Contains(body, agentNotificationOpen) {
		return "", false
	}
	first, _, _ := strings.Cut(body, "\n")
	event, _, ok := strings.Cut(first, " hook additional context:")
	if !ok || !isSessionStart("", event) {
		return "", false
	}
	return body, true
}

// runIDLine starts the line of a Workflow launch's result text that names
// its run (corpus: Irrlicht 3-5_workflow-fanout, "Run ID: wf_6ce8adcf-32f").
const runIDLine = "Run ID: "

var runIDLineRE = lazyre.New(`(?m)^Run ID: (\S+)[ \t\r]*$`)

var agentIDLineRE = lazyre.New(`(?m)^\s*agentId:\s*([A-Za-z0-9_.\-]+)`)

type builder struct {
	t      *model.Transcript
	curMax time.Time
	named  bool // a custom-title row named the session
	// callByID maps a retained call's id to the first call with it;
	// renamed holds the tool of the last call with that id when it differs
	// from the first's (rare), so toolOf names the last call's tool.
	callByID callIndex
	renamed  map[string]string
	pending  map[string][]*model.ToolResult // results seen before their call
	// other holds ids of calls that are counted but not retained, until
	// their result arrives (so the map stays as small as the calls in flight).
	other map[string]struct{}
	// uuids holds a hash of every row uuid seen, to skip replayed rows;
	// with trackUUIDs (a follower) each new one is also listed in added.
	uuids      uuidSet
	trackUUIDs bool
	noUUIDList bool // Options.NoUUIDList
	fixed      fixedUpTo
	added      []uint64
	// copied holds the rows an earlier file of the session holds
	// (Options.Copied); copiedRow is set while such a row is applied.
	copied    []map[uint64]uint64
	copiedRow bool
	// rowHashes collects each row's content hash (Options.RowHashes).
	rowHashes map[uint64]uint64
	// copyRows collects Transcript.CopyRows (Options.MarkLater);
	// promptsDone is set once a prompt that cannot be a copy is listed.
	copyRows       *model.CopyRows
	promptsDone    bool
	lastMeaningful *model.Event
	// spare holds events no longer held, to be reused; pinned the events
	// the model keeps outside the tail (newEvent, pin, release).
	spare  []*model.Event
	pinned map[*model.Event]bool
	// arena receives the decoded strings of the line being read; the row's
	// strings are views into it and into the line, so everything the
	// builder keeps is cloned (keep, count, capString) before the next line.
	arena *arena // from arenas, returned by finish
	// types and tools count row types and tool names (counter).
	types, tools counter
	// giveUp is Options.GiveUp; gaveUp is set at the line where the
	// builder gave up.
	giveUp    bool
	headsOnly bool // Options.HeadsOnly
	gaveUp    *jsonl.GaveUpError
	// d is the line being read by line (the serial reader).
	d decoded
	// shell is &shellR, the read's classifier, when Options.Shell
	// classifies (nil otherwise, and for a heads-only read); shells holds
	// the serial reader's line's classifications, lineShells those of the
	// line being applied; plainShells and shellByCommand find the
	// analyses the transcript holds (internShell).
	shell          *shellReader
	shellR         shellReader
	shellFull      bool // the transcript's list of analyses is full (shellsFull)
	shells         []shellCall
	lineShells     []shellCall
	plainShells    smallIndex[plainShell]
	shellByCommand smallIndex[string]
	// inert is Options.Shell.Inert: whose output is never kept.
	inert func(command string) bool
	// keys counts the entries added to other and pending (free).
	keys int
	// sdk is set while an Agent SDK message stream is read (sdkstream.go).
	sdk bool
	// asSession, in a stream's builders, counts the rows as the session
	// reader would (Stream.AsSession).
	asSession *Spelling
	// rows is Options.Rows.
	rows func(line int, data []byte)
}

// arenas keeps decoding arenas between files: a fleet scan reads thousands
// of small transcripts, and each arena would otherwise grow from nothing.
var arenas = sync.Pool{New: func() any { return new(arena) }}

// builders keeps builders between files: a fleet check reads tens of
// thousands of small transcripts, and a builder with its scratch maps and
// decoded row was about 2 KB of garbage per file, a fifth of what reading
// such a folder allocated. Only the Transcript and what it holds are new
// per file; a builder that grew large is dropped instead (free).
var builders = sync.Pool{New: func() any {
	return &builder{
		other:   map[string]struct{}{},
		pending: map[string][]*model.ToolResult{},
		types:   counter{m: map[string]*countEntry{}},
		tools:   counter{m: map[string]*countEntry{}},
	}
}}

// pooledKeys bounds the entries a pooled builder's scratch maps may have
// held: maps never shrink, and clearing one costs its capacity.
const pooledKeys = 64

func newBuilder(file string) *builder {
	b := builders.Get().(*builder)
	b.arena = arenas.Get().(*arena)
	b.t = &model.Transcript{File: file}
	return b
}

// free empties b and returns it to builders; b is not used afterwards.
// The counters of types and tools keep their keys, set to zero (counts
// leaves those out), so the next file does not copy the same names again.
func (b *builder) free() {
	if b.arena != nil {
		b.arena.reset(1 << 20)
		arenas.Put(b.arena)
	}
	if b.keys > pooledKeys || len(b.types.m)+len(b.tools.m) > pooledKeys || len(b.callByID.slots) > 4*pooledKeys || b.shellR.m != nil {
		return // a large file's: left to the collector
	}
	b.types.zero()
	b.tools.zero()
	clear(b.other)
	clear(b.pending)
	clear(b.spare) // events of the file just read: they may be its model's
	clear(b.shells)
	*b = builder{
		callByID:       b.callByID.emptied(),
		pending:        b.pending,
		other:          b.other,
		spare:          b.spare[:0],
		shells:         b.shells[:0],
		plainShells:    b.plainShells.emptied(),
		shellByCommand: b.shellByCommand.emptied(),
		types:          b.types,
		tools:          b.tools,
	}
	builders.Put(b)
}

func (b *builder) malformed(n int, reason string, skipped bool, length int64) {
	t := b.t
	t.MalformedCount++
	if skipped {
		t.MalformedSkipped++
	}
	if len(t.Malformed) < model.MalformedExamples {
		t.Malformed = append(t.Malformed, model.Malformed{Line: n, Reason: reason, Skipped: skipped, Length: length})
	}
	// The balance only turns towards junk on a skipped line, so the rule
	// is checked here only.
	if skipped && b.giveUp && b.gaveUp == nil && jsonl.GiveUp(t.MalformedSkipped, t.Rows) {
		b.gaveUp = &jsonl.GaveUpError{File: t.File, Bad: t.MalformedSkipped, Good: t.Rows, First: t.Malformed[0].Line, Line: n}
	}
}

// keepsReason reports whether the next malformed line's reason is kept:
// only the first MalformedExamples are, so the rest are counted without
// working out why they are malformed (validating each of fifty million
// junk lines again to say why was half the cost of reading them).
func (b *builder) keepsReason() bool { return len(b.t.Malformed) < model.MalformedExamples }

// decoded is what the pure part of reading a line produces: the part that
// may run on another goroutine than the builder's (parallel.go).
type decoded struct {
	r       row
	nul     bool // the line holds a NUL byte
	valid   bool // the line is a valid JSON object
	badUTF8 bool
	mark    bool // the row may hold a segment mark (mayHoldMark)
	// shellFrom and shellTo delimit the row's Bash calls' classifications
	// in the list decodeLine appended them to (shell.go).
	shellFrom, shellTo int32
}

// decodeLine decodes a trimmed, non-empty line into d. The row's strings
// are views into data and the arena (decodeRowArena). With sh set, the
// row's Bash calls are classified and appended to *shells.
func decodeLine(data []byte, d *decoded, arena *arena, sh *shellReader, shells *[]shellCall) {
	if bytes.IndexByte(data, 0) >= 0 {
		d.nul = true
		return
	}
	// decodeRow accepts and fills exactly what json.Unmarshal into row does
	// (fastdecode.go); a type mismatch is not an error, invalid JSON is.
	if data[0] == '{' {
		d.valid, d.badUTF8 = decodeRowArena(data, &d.r, arena)
		d.mark = d.valid && mayHoldMark(d.r.Type, data)
		if sh != nil && d.valid {
			d.shellFrom = int32(len(*shells))
			*shells = classifyShell(&d.r, sh, *shells)
			d.shellTo = int32(len(*shells))
		}
	}
}

func (b *builder) line(l jsonl.Line) {
	// One decoded per builder, emptied for each line: a row points into
	// itself (msgStore), so a local one escaped to the heap, an allocation
	// of the whole row per line (most of the cost of a junk line).
	d := &b.d
	*d = decoded{}
	data := bytes.TrimSpace(l.Data)
	b.shells = b.shells[:0]
	if !l.OverCap && len(data) > 0 {
		decodeLine(data, d, b.arena, b.shell, &b.shells)
	}
	b.lineShells = b.shells
	b.apply(l, data, d)
	if poisonViews {
		poison(data)
		poison(b.arena.buf[:cap(b.arena.buf)])
	}
	b.arena.reset(1 << 20)
}

// apply adds a decoded line to the model. data is the trimmed line; the
// builder runs it for every line in order, so what depends on earlier
// lines (the running maximum write time, duplicates, calls and results)
// is exact whoever decoded the line.
func (b *builder) apply(l jsonl.Line, data []byte, d *decoded) {
	if b.rows != nil {
		b.rows(l.N, data)
	}
	if !b.readable(l, data, d) {
		return
	}
	r := &d.r
	b.countRow(l, r)
	b.copiedRow = false
	if r.UUID != "" && !b.uuidRow(r, data, l.N) {
		return // a duplicate: counted, not read again
	}
	ts := parseTime(r.Timestamp)
	b.advanceTime(l, ts)
	b.envelope(r)
	if b.headsOnly {
		return
	}
	b.rowContent(l, r, data, d, ts)
}

// readable counts a line and reports whether it holds a JSON row to read;
// a line over the cap, a NUL, or anything not JSON is counted as
// malformed, and an empty line is nothing.
func (b *builder) readable(l jsonl.Line, data []byte, d *decoded) bool {
	t := b.t
	if l.OverCap {
		t.Lines++
		t.OverCap++
		if t.FirstOverCap == 0 {
			t.FirstOverCap, t.FirstOverCapLen = int64(l.N), l.Len
		}
		reason := ""
		if b.keepsReason() {
			reason = fmt.Sprintf("line of %d bytes is over the line cap; skipped", l.Len)
		}
		b.malformed(l.N, reason, true, l.Len)
		return false
	}
	if len(data) == 0 {
		return false
	}
	t.Lines++
	if d.nul {
		b.malformed(l.N, "contains a NUL byte", true, 0)
		return false
	}
	if !d.valid {
		if data[0] != '{' && jsonscan.Valid(data) {
			t.Values++
		}
		reason := "not JSON"
		if b.keepsReason() {
			reason = jsonl.NotJSONReason(data, l.Torn)
		}
		b.malformed(l.N, reason, true, 0)
		return false
	}
	if d.badUTF8 { // as !utf8.Valid(data): decodeRow checks each string
		b.malformed(l.N, "invalid UTF-8 (read with replacement characters)", false, 0)
	}
	return true
}

// countRow counts a row by its type and kind, and where rows start and end.
func (b *builder) countRow(l jsonl.Line, r *row) {
	t := b.t
	if b.sdk {
		if c := b.asSession; c != nil {
			// Counted before sdkRow respells it, as the session reader
			// counts it.
			if r.SDKSessionID != "" && r.SessionID == "" {
				c.SDKRows++
			}
			if isClaudeCodeRow(r) {
				c.ClaudeCodeRows++
			}
		}
		sdkRow(r) // sdkstream.go
	} else if r.SDKSessionID != "" && r.SessionID == "" {
		t.SDKRows++
	}
	t.Rows++
	typ := r.Type
	if typ == "" {
		typ = "(none)"
	}
	b.types.add(typ)
	if isClaudeCodeRow(r) {
		t.ClaudeCodeRows++
	}
	if t.FirstRowLine == 0 {
		t.FirstRowLine = l.N
	}
	t.LastRowLine = l.N
}

// uuidRow records a row's uuid (and its content hash where a resume check
// asks for it), marks a row copied from an original, and reports false for
// a uuid seen before (a duplicate row).
func (b *builder) uuidRow(r *row, data []byte, line int) bool {
	t := b.t
	h := hashUUID(r.UUID)
	if !b.uuids.add(h) {
		t.Duplicates++
		return false
	}
	t.UUIDRows++
	if b.trackUUIDs {
		b.added = append(b.added, h)
	}
	if t.FirstUUID == 0 {
		t.FirstUUID = h
	}
	if b.rowHashes != nil {
		b.rowHashes[h] = contentHash(data, r.SessionID)
	}
	if cr := b.copyRows; cr != nil {
		cr.Lines = append(cr.Lines, line)
		cr.UUIDs = append(cr.UUIDs, h)
	}
	if want, ok := b.copiedHash(h); ok {
		c := contentHash(data, r.SessionID)
		if c == want {
			b.copiedRow = true
			t.Copied++
		}
		for i, m := range b.copied {
			if w, ok := m[h]; ok && w == c {
				t.CopiedFrom[i]++
			}
		}
	}
	return true
}

// advanceTime moves the file's write clock to a row's time when it is
// later than every earlier row's (a step), and keeps the first time.
func (b *builder) advanceTime(l jsonl.Line, ts time.Time) {
	if ts.IsZero() {
		return
	}
	t := b.t
	if t.FirstTime.IsZero() {
		t.FirstTime = ts
	}
	if ts.After(b.curMax) {
		b.curMax = ts
		t.Steps.Append(l.N, ts)
	}
}

// rowContent reads what a row says: its marks, its conversation, a queue
// operation, an agent's progress link.
func (b *builder) rowContent(l jsonl.Line, r *row, data []byte, d *decoded, ts time.Time) {
	t := b.t
	at := model.Evidence{File: t.File, Line: l.N, Time: b.curMax}
	if d.mark {
		for _, m := range marksInRow(data) {
			t.Marks = append(t.Marks, model.Mark{At: at, Outstanding: m[0], Payload: m[1]})
		}
	}
	switch r.Type {
	case "user", "assistant":
		b.conversation(r, at, ts)
	case "queue-operation":
		op := model.QueueOp{At: at, Operation: keep(r.Operation)}
		// remove rows carry the notification too (from 2.1.205, and in the
		// reference fixtures); Signature B's balance needs their tool-use id.
		if text := r.Content.text(); IsNotification(text) {
			op.Notification = ParseNotification(keep(text), at, "queue-"+r.Operation)
			op.Notification.Copied = b.copiedRow
		}
		t.QueueOps = append(t.QueueOps, op)
	case "progress":
		if r.Data.Type == "agent_progress" && r.Data.AgentID != "" && r.ParentToolUseID != "" {
			t.Progress = append(t.Progress, model.AgentProgress{At: at, ToolUseID: keep(r.ParentToolUseID), AgentID: keep(r.Data.AgentID)})
		}
	}
}

func (b *builder) conversation(r *row, at model.Evidence, ts time.Time) {
	t := b.t
	role := "assistant" // a constant, not the row's view
	if r.Type == "user" {
		role = "user"
	}
	// The events this row may displace from the tail, given back after it.
	displaced := [...]*model.Event{t.Tail.LastEvent, t.Tail.LastUser, t.Tail.LastAssistant, t.Tail.MeaningfulBeforeLastUser, t.Tail.LastMeaningful}
	ev := b.newEvent()
	*ev = model.Event{Line: at.Line, Role: role, Timestamp: ts, WriteTime: at.Time}
	var c *content
	if r.Message != nil {
		c = &r.Message.Content
		ev.StopReason = keep(r.Message.StopReason)
		ev.Synthetic = r.Message.Model == "<synthetic>"
	}
	text := ""
	hasTool, onlyResults := false, c != nil && !c.isString && len(c.blocks) > 0
	completed := false
	if c != nil {
		text = c.text()
		for i := range c.blocks {
			blk := &c.blocks[i]
			switch blk.Type {
			case "tool_use", "server_tool_use":
				hasTool = true
				b.toolUse(blk, at, ts)
			case "tool_result":
				hasTool = true
				completed = true
				b.toolResult(blk, r, at, ts)
			}
			if blk.Type != "tool_result" {
				onlyResults = false
			}
		}
	}
	if completed {
		t.Completions.Append(at.Line, at.Time)
	}
	ev.Meaningful = strings.TrimSpace(text) != "" || hasTool
	ev.Text = capString(text, model.TextHeadLimit)
	ev.ToolResultOnly = role == "user" && onlyResults
	if role == "assistant" && r.IsAPIErrorMessage {
		ev.APIError = keep(string(r.Error))
		if ev.APIError == "" {
			ev.APIError = "unknown"
		}
		t.APIErrors = append(t.APIErrors, ev)
		b.pin(ev)
	}
	if role == "user" && !onlyResults {
		b.firstPrompt(r, text, at.Line)
	}
	if role == "user" {
		if IsNotification(text) || r.Origin.Kind == "task-notification" {
			if IsNotification(text) {
				n := ParseNotification(keep(text), at, "user-row")
				n.Copied = b.copiedRow
				t.Notifications = append(t.Notifications, n)
			}
		}
		if strings.HasPrefix(strings.TrimLeft(text, " \t\r\n"), harness.KillSentinelPrefix) {
			t.Interrupts = append(t.Interrupts, ev)
			b.pin(ev)
		}
		t.Tail.LastUser = ev
		t.Tail.MeaningfulBeforeLastUser = b.lastMeaningful
	} else {
		t.Tail.LastAssistant = ev
	}
	t.Tail.LastEvent = ev
	if ev.Meaningful {
		b.lastMeaningful = ev
		t.Tail.LastMeaningful = ev
	}
	for _, e := range displaced {
		b.release(e)
	}
}

// Events. Every user and assistant row makes one, and all but a few are
// garbage a row or two later: the model keeps only the tail's (the last
// event, user, assistant and meaningful rows) and those of API errors and
// interrupts. On a large file they were a quarter of what reading
// allocated, and under a memory limit what it allocates sets how often the
// collector runs; so an event no longer held is reused for a later row.

// newEvent is an event to fill: a released one, or a new one.
func (b *builder) newEvent() *model.Event {
	if n := len(b.spare); n > 0 {
		e := b.spare[n-1]
		b.spare = b.spare[:n-1]
		return e
	}
	return new(model.Event)
}

// pin marks an event the model keeps outside the tail (API errors,
// interrupts): it is never released.
func (b *builder) pin(e *model.Event) {
	if b.pinned == nil {
		b.pinned = map[*model.Event]bool{}
	}
	b.pinned[e] = true
}

// release gives back an event that nothing holds any more: not the tail's,
// not pinned. The builder is the only holder of events while it reads.
func (b *builder) release(e *model.Event) {
	t := b.t
	if e == nil || e == t.Tail.LastEvent || e == t.Tail.LastUser || e == t.Tail.LastAssistant ||
		e == t.Tail.MeaningfulBeforeLastUser || e == t.Tail.LastMeaningful || e == b.lastMeaningful ||
		b.pinned[e] || len(b.spare) >= 8 || slices.Contains(b.spare, e) {
		return
	}
	b.spare = append(b.spare, e)
}

func (b *builder) toolUse(blk *block, at model.Evidence, ts time.Time) {
	b.tools.add(blk.Name)
	if !model.Retained(blk.Name) {
		if blk.ID != "" {
			if _, ok := b.other[blk.ID]; !ok {
				b.other[keep(blk.ID)] = struct{}{}
				b.keys++
			}
			delete(b.pending, blk.ID) // its result came first; nothing reads it
		}
		return
	}
	in := &blk.Input
	// The call copies its id and its command, path or task id into one
	// string of its own; the other inputs are kept here.
	call := model.CallInput{ID: blk.ID, Name: blk.Name, At: at, Copied: b.copiedRow}
	switch blk.Name {
	case "Agent", "Task":
		call.Description = capString(in.Description, model.DescriptionLimit)
		call.Prompt = capString(in.Prompt, model.PromptLimit)
		call.SubagentType = capString(in.SubagentType, model.DescriptionLimit)
		call.RunInBackground = in.RunInBackground
		call.AgentName = capString(in.Name, model.DescriptionLimit)
	case "Workflow":
		call.Description = capString(in.Description, model.DescriptionLimit)
		call.WorkflowName = capString(in.Name, model.DescriptionLimit)
		call.ResumeFromRun = keep(in.ResumeFromRunID)
		if call.Description == "" {
			call.Description = capString(in.ScriptPath, model.DescriptionLimit)
		}
	case "Bash":
		// A shell call's description is not kept: nothing reads it, and
		// shell calls are most of the calls a transcript keeps.
		call.Command = cutString(in.Command, model.CommandLimit)
		call.CommandCut = len(call.Command) < len(in.Command)
		call.RunInBackground = in.RunInBackground
	case "Write", "Edit", "MultiEdit":
		call.FilePath = in.FilePath
	case "NotebookEdit":
		call.FilePath = in.NotebookPath
		if call.FilePath == "" {
			call.FilePath = in.FilePath
		}
	case "TaskStop", "KillShell", "TaskOutput", "BashOutput", "AgentOutputTool":
		call.TaskID = in.TaskID
		if call.TaskID == "" {
			call.TaskID = in.ShellID
		}
	}
	if !model.KnownTool(blk.Name) {
		call.Name = keep(blk.Name) // kept as a string only when not a known tool
	}
	var sh *shellCall // the classification made while the line was decoded
	if blk.Name == "Bash" && !b.shellFull {
		sh = b.shellOf(blk)
	}
	if sh != nil && sh.inert {
		// Nothing can be found in the command (ShellOptions.Inert): the
		// call keeps only its classification.
		call.Command = ""
	}
	c := b.t.NewToolCall(call)
	if sh != nil {
		c.SetShellClass(b.internShell(sh, c.Command()))
	}
	b.t.ToolCalls = append(b.t.ToolCalls, c)
	if c.ID() != "" {
		if first := b.callByID.get(c.ID()); first == nil {
			b.callByID.add(c)
		} else if first.Name() != c.Name() {
			if b.renamed == nil {
				b.renamed = map[string]string{}
			}
			b.renamed[c.ID()] = c.Name()
		} else {
			delete(b.renamed, c.ID())
		}
		for _, res := range b.pending[c.ID()] {
			res.SetCall(c)
			b.t.ToolResults = append(b.t.ToolResults, res)
			if c.Result == nil {
				c.Result = res
			}
		}
		delete(b.pending, c.ID())
	}
}

func (b *builder) toolResult(blk *block, r *row, at model.Evidence, ts time.Time) {
	if _, ok := b.other[blk.ToolUseID]; ok {
		delete(b.other, blk.ToolUseID)
		return
	}
	text := blk.Content.text()
	call := b.callByID.get(blk.ToolUseID)
	in := model.ResultInput{At: at, IsError: blk.IsError, TextLen: len(text), Copied: b.copiedRow}
	if call == nil {
		in.ToolUseID = keep(blk.ToolUseID) // a known call holds the id
	}
	// Keep what the detectors read: agent results in full up to a cap (the
	// notice, the tail), of a shell command's output what the shell
	// classifier says may be read (the head of what may name a commit, a
	// sliver, or nothing: shell.OutputOf), a sliver of the rest. A result
	// above its call (rows are not sorted) keeps the Bash cap.
	output := shell.OutputNone
	if call != nil {
		output = shellOutput(call, b.inert)
	}
	limit := model.BashResultLimit
	switch b.toolOf(blk.ToolUseID) {
	case "Agent", "Task", "Workflow":
		limit = model.AgentResultLimit
	case "":
	case "Bash":
		if call != nil && output != shell.OutputHead {
			limit = model.OtherResultLimit
		}
	default:
		limit = model.OtherResultLimit
	}
	// The output of a command nothing reads (most of a transcript's bytes)
	// keeps only its flags and length.
	if call != nil && call.Name() == "Bash" && output == shell.OutputNone {
		limit = 0
	}
	in.Text = capString(text, limit)
	in.HasPartialNotice = blk.Content.probes&probeNotice != 0 // probes.go
	in.StartsWithAPIErrorPrefix = strings.HasPrefix(strings.TrimLeft(text, " \t\r\n"), harness.APIErrorPrefix)
	// The literal guard skips the regexp (a backtracking scan of every byte of
	// every result) on the results that cannot match; the outcome is unchanged.
	var extra model.ResultExtra
	if blk.Content.probes&probeAgentID != 0 {
		if ms := agentIDLineRE().FindAllStringSubmatch(text, -1); len(ms) > 0 {
			extra.TailAgentID = keep(capID(ms[len(ms)-1][1]))
		}
	}
	if model.IsPollTool(b.toolOf(blk.ToolUseID)) {
		id, status := pollHead(text)
		extra.PollTaskID, extra.PollStatus = keep(id), keep(status)
	}
	if u := &r.ToolUseResult; u.present {
		if u.str != "" {
			extra.ResultString = capString(u.str, model.TextHeadLimit)
		}
		extra.Status, extra.AgentID, in.IsAsync = keep(capID(u.Status)), keep(capID(u.AgentID)), u.IsAsync
		extra.RunID, extra.TaskID, extra.BackgroundTaskID = keep(capID(u.RunID)), keep(capID(u.TaskID)), keep(capID(u.BackgroundTaskID))
		in.Interrupted = u.Interrupted
	}
	if extra.RunID == "" && b.toolOf(blk.ToolUseID) == "Workflow" && strings.Contains(text, runIDLine) {
		// A launch's text names its run ("Run ID: wf_…") as toolUseResult
		// does; without the structured field (an older CLI, a row cut
		// down), the text still says a run was launched, and a check
		// must find its run directory or fail.
		if ms := runIDLineRE().FindAllStringSubmatch(text, -1); len(ms) > 0 {
			extra.RunID = keep(capID(ms[len(ms)-1][1]))
		}
	}
	if extra != (model.ResultExtra{}) {
		in.Extra = &extra
	}
	res := b.t.NewToolResult(in, call)
	if call != nil {
		b.t.ToolResults = append(b.t.ToolResults, res)
		if call.Result == nil {
			call.Result = res
		}
	} else {
		// Its call is further down, or not a retained tool, or not in the
		// file at all: decided when the call shows up or the file ends.
		if _, ok := b.pending[in.ToolUseID]; !ok {
			b.keys++
		}
		b.pending[in.ToolUseID] = append(b.pending[in.ToolUseID], res)
	}
}

// toolOf is the tool of the last retained call with the given id ("" when
// none has it).
func (b *builder) toolOf(id string) string {
	if n, ok := b.renamed[id]; ok {
		return n
	}
	if c := b.callByID.get(id); c != nil {
		return c.Name()
	}
	return ""
}

// maxIDLen caps the ids and statuses a result names. A real id is a few
// dozen bytes and a valid one at most discover.MaxIDLen; a longer one is
// kept one byte over that, so it is still refused as invalid, but a 2 MiB
// "agentId:" line cannot reach every message and report that quotes the id.
const maxIDLen = 201

func capID(s string) string {
	if len(s) <= maxIDLen {
		return s
	}
	return s[:maxIDLen]
}

// pollHead reads the task id and status an output poll reports: header
// elements that open a line, above <output>. The polled task's output (text
// the agent wrote) may hold the same tags; it is never read as a header.
func pollHead(text string) (taskID, status string) {
	kids := lineElements(text, "output")
	return strings.TrimSpace(kids["task_id"]), strings.TrimSpace(kids["status"])
}

// finish gives rows above the file's first timestamp that timestamp as their
// write time (a file cannot have been written before its first stamped row
// as far as the clock can tell), and returns the transcript.
// setOptions applies the options that change what the builder keeps.
func (b *builder) setOptions(opts Options) {
	b.giveUp = opts.GiveUp
	b.headsOnly = opts.HeadsOnly
	b.noUUIDList = opts.NoUUIDList
	b.inert = opts.Shell.Inert
	b.rows = opts.Rows
	if opts.Shell.Classify != nil && !opts.HeadsOnly {
		b.shellR.opts = opts.Shell
		b.shell = &b.shellR
	}
	b.copied = opts.Copied
	if len(opts.Copied) > 0 {
		b.t.CopiedFrom = make([]int, len(opts.Copied))
	}
	if opts.RowHashes || opts.MarkLater {
		b.rowHashes = map[uint64]uint64{}
	}
	if opts.MarkLater {
		b.copyRows = &model.CopyRows{}
	}
}

// copiedHash is the content hash Options.Copied gives a row uuid hash: the
// last map's that holds it.
func (b *builder) copiedHash(h uint64) (uint64, bool) {
	for i := len(b.copied) - 1; i >= 0; i-- {
		if c, ok := b.copied[i][h]; ok {
			return c, true
		}
	}
	return 0, false
}

func (b *builder) finish() *model.Transcript {
	if !b.noUUIDList {
		b.t.UUIDs = b.uuids.sorted()
	}
	b.finishInto(b.t)
	return b.t
}

// finishInto completes t, the builder's transcript or a copy of it
// (Follower.Snapshot), from what the builder holds. On a copy it changes
// only what is the copy's own (its fields, the results list it is given)
// and, of what the copy shares with the builder, only the write times of
// rows above the first timestamp, which it sets to the value every later
// finish sets them to.
func (b *builder) finishInto(t *model.Transcript) {
	t.RowHashes = b.rowHashes
	if b.copyRows != nil {
		b.copyRows.Named = b.named
		t.CopyRows = b.copyRows
	}
	t.LastTime = b.curMax
	t.Types, t.ToolCounts = b.types.counts(), b.tools.counts()
	// Results whose call never appeared stay visible (Signature A must see,
	// and reject, a result that resolves to no Agent call).
	ids := make([]string, 0, len(b.pending))
	for id := range b.pending {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		t.ToolResults = append(t.ToolResults, b.pending[id]...)
	}
	// A follower applies rows in order, so its results are in line order
	// but for the pending ones; a snapshot sorts only when there are some
	// (sorting every result at every poll made a watch quadratic).
	if snapshot := t != b.t; !snapshot || len(ids) > 0 {
		sort.SliceStable(t.ToolResults, func(i, j int) bool { return t.ToolResults[i].Line() < t.ToolResults[j].Line() })
	}
	if !t.FirstTime.IsZero() && t.Steps.Len() > 0 {
		first := t.Steps.First().At()
		fix := func(e *model.Evidence) {
			if e.Time.IsZero() {
				e.Time = first
			}
		}
		fixEv := func(ev *model.Event) {
			if ev != nil && ev.WriteTime.IsZero() {
				ev.WriteTime = first
			}
		}
		// What an earlier snapshot fixed is shared with the builder and
		// stays fixed (the lists only grow): only the items added since
		// are visited (b.fixed; all of them in a full read).
		fx := &b.fixed
		for _, c := range t.ToolCalls[fx.calls:] {
			c.SetFirstTime(first)
		}
		for _, r := range b.t.ToolResults[min(fx.results, len(b.t.ToolResults)):] {
			r.SetFirstTime(first)
		}
		for _, id := range ids {
			for _, r := range b.pending[id] {
				r.SetFirstTime(first)
			}
		}
		for _, n := range t.Notifications[fx.notes:] {
			fix(&n.At)
		}
		for i := fx.queue; i < len(t.QueueOps); i++ {
			fix(&t.QueueOps[i].At)
			if n := t.QueueOps[i].Notification; n != nil {
				fix(&n.At)
			}
		}
		for i := fx.marks; i < len(t.Marks); i++ {
			fix(&t.Marks[i].At)
		}
		for i := fx.progress; i < len(t.Progress); i++ {
			fix(&t.Progress[i].At)
		}
		if t.Completions.Len() > 0 && t.Completions.First().At().IsZero() {
			// Completions above the first timestamp: rewritten once (their
			// zero instants are only ever a leading run).
			var fixed model.Staircase
			for _, c := range t.Completions.All() {
				if c.At().IsZero() {
					c = model.NewStep(c.Line(), first)
				}
				fixed.Add(c)
			}
			t.Completions = fixed
		}
		for _, ev := range []*model.Event{t.Tail.LastEvent, t.Tail.LastUser, t.Tail.LastAssistant, t.Tail.MeaningfulBeforeLastUser, t.Tail.LastMeaningful} {
			fixEv(ev)
		}
		for _, ev := range t.APIErrors[fx.apiErrors:] {
			fixEv(ev)
		}
		for _, ev := range t.Interrupts[fx.interrupts:] {
			fixEv(ev)
		}
		*fx = fixedUpTo{calls: len(t.ToolCalls), results: len(b.t.ToolResults), notes: len(t.Notifications), queue: len(t.QueueOps),
			marks: len(t.Marks), progress: len(t.Progress), apiErrors: len(t.APIErrors), interrupts: len(t.Interrupts)}
	}
}

// fixedUpTo counts the items of each of the builder's lists whose write
// times finishInto has set (those above the first timestamp get it).
type fixedUpTo struct {
	calls, results, notes, queue, marks, progress, apiErrors, interrupts int
}

// poison overwrites p (poisonViews).
func poison(p []byte) {
	for i := range p {
		p[i] = '#'
	}
}

// keep copies a string of the row being read (a view into the line or the
// decoder's arena) so that the model may hold it.
func keep(s string) string { return strings.Clone(s) }

// counter counts names (row types, tool names). The counters are held by
// pointer because assigning to an existing string key stores the new key
// (a view into the row) in the map; counts gives them in the model's form.
type counter struct {
	m map[string]*countEntry
	// order is m's entries in the order they were added: counts ranges
	// over it rather than over m (a map's iteration took most of the
	// time of a snapshot's counts).
	order []*countEntry
	// live, in a follower's builder, is the counts kept in the model's
	// form as they are added (follow): every snapshot gives it, and a
	// later Write changes it in place, as it may what a snapshot shares
	// (Follower). A poll's snapshots made the maps anew (a tenth of what
	// a watch spends outside decoding).
	live map[string]int
}

type countEntry struct {
	k string // kept (a copy of the row's name)
	n int
}

// add adds one to the counter of k, copying k only when it is new.
func (c *counter) add(k string) {
	e := c.m[k]
	if e != nil {
		e.n++ // a pooled builder's counter may start at zero (zero)
	} else {
		e = &countEntry{keep(k), 1}
		c.m[e.k] = e
		c.order = append(c.order, e)
	}
	if c.live != nil {
		c.live[e.k] = e.n
	}
}

// follow makes the counter keep its counts in the model's form as they
// are added (live).
func (c *counter) follow() {
	c.live = c.counts()
}

// zero sets every counter to zero, keeping the names (a pooled builder's:
// the next file does not copy the same names again).
func (c *counter) zero() {
	for _, e := range c.order {
		e.n = 0
	}
	c.live = nil
}

// counts is the model's form of the counts: live in a follower's builder,
// else a new map. Counters at zero are a pooled builder's names of earlier
// files (free).
func (c *counter) counts() map[string]int {
	if c.live != nil {
		return c.live
	}
	out := make(map[string]int, len(c.order))
	for _, e := range c.order {
		if e.n > 0 {
			out[e.k] = e.n
		}
	}
	return out
}

// parseTime reads an ISO-8601 timestamp and returns it in UTC. A timestamp
// without an offset is taken as UTC (Claude Code always writes Z; documented
// in docs/input-formats.md). Unparseable values give the zero time.
func parseTime(s string) time.Time {
	if s == "" {
		return time.Time{}
	}
	if t, ok := parseUTC(s); ok {
		return t
	}
	return parseTimeLayouts(s)
}

// parseTimeLayouts is parseTime through time.Parse and every layout
// accepted, the path of every shape but Claude Code's own.
func parseTimeLayouts(s string) time.Time {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UTC()
	}
	for _, layout := range []string{"2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999Z07:00", "2006-01-02 15:04:05.999999999"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}

// parseUTC reads the one shape Claude Code writes every row's timestamp in,
// 2026-05-06T09:00:00.123Z (any number of fraction digits, or none), without
// time.Parse's general layout walk: it was 2 % of reading a transcript. It
// accepts only what time.Parse(time.RFC3339Nano) accepts and returns the
// same instant (TestParseUTCIsParse, FuzzParseUTC); anything else is left to
// parseTime's layouts.
func parseUTC(s string) (time.Time, bool) {
	if !utcLayout(s) {
		return time.Time{}, false
	}
	year, month, day, ok := civilDate(s)
	if !ok {
		return time.Time{}, false
	}
	hour, minute, sec := digits(s[11:13]), digits(s[14:16]), digits(s[17:19])
	if hour < 0 || hour > 23 || minute < 0 || minute > 59 || sec < 0 || sec > 59 {
		return time.Time{}, false
	}
	nsec, ok := fraction(s[19 : len(s)-1])
	if !ok {
		return time.Time{}, false
	}
	return time.Unix(daysSinceEpoch(year, month, day)*86400+int64(hour*3600+minute*60+sec), int64(nsec)).UTC(), true
}

// utcLayout reports whether s has the separators of
// 2006-01-02T15:04:05[.fraction]Z where they belong.
func utcLayout(s string) bool {
	return len(s) >= 20 && s[len(s)-1] == 'Z' && s[4] == '-' && s[7] == '-' && s[10] == 'T' && s[13] == ':' && s[16] == ':'
}

// civilDate reads the year, month and day of s, and reports whether the
// day exists (February 29th only in a leap year).
func civilDate(s string) (year, month, day int, ok bool) {
	year, month, day = digits(s[0:4]), digits(s[5:7]), digits(s[8:10])
	if year < 0 || month < 1 || month > 12 || day < 1 {
		return 0, 0, 0, false
	}
	leap := year%4 == 0 && (year%100 != 0 || year%400 == 0)
	if day > monthDays[month] && !(leap && month == 2 && day == 29) {
		return 0, 0, 0, false // past the month's last day
	}
	return year, month, day, true
}

// fraction is the nanoseconds of a fraction of a second (".5" is
// 500,000,000; "" is 0); false for anything but a dot and 1 to 9 digits.
func fraction(frac string) (int, bool) {
	if frac == "" {
		return 0, true
	}
	if frac[0] != '.' || len(frac) < 2 || len(frac) > 10 {
		return 0, false
	}
	nsec := digits(frac[1:])
	if nsec < 0 {
		return 0, false
	}
	for range 10 - len(frac) {
		nsec *= 10
	}
	return nsec, true
}

// daysSinceEpoch counts the days from 1970-01-01 to a date in the
// proleptic Gregorian calendar (the civil-from-days inverse: years start in
// March so the leap day is the last of a year).
func daysSinceEpoch(year, month, day int) int64 {
	y, m := year, month
	if m <= 2 {
		y--
	}
	era := y
	if era < 0 {
		era -= 399
	}
	era /= 400
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + day - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era)*146097 + int64(doe) - 719468
}

// monthDays are the days of each month (index 1-12) in a common year.
var monthDays = [13]int{0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}

// digits is the value of a run of 1 to 9 ASCII digits, or -1.
func digits(s string) int {
	v := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return -1
		}
		v = v*10 + int(c-'0')
	}
	return v
}

// ParseTime is parseTime for other readers (journal, sidecars, collect's
// session matching through the façade): one reading of a timestamp.
func ParseTime(s string) time.Time { return parseTime(s) }

// shellOutputOf is shell.OutputOf (a variable so that a test can read with
// the rule it replaced).
var shellOutputOf = shell.OutputOf

// shellOutput is how much of a call's output may be read, from the
// analysis the read made of its command when it made one and the caller's
// inert commands (ShellOptions.Inert).
func shellOutput(call *model.ToolCall, inert func(string) bool) shell.Output {
	if a, _, ok := call.ShellClass(); ok {
		return shellOutputOf(call.Command(), &a, inert)
	}
	return shellOutputOf(call.Command(), nil, inert)
}

// contentHash hashes a row's line without the bytes of its sessionId value
// (a resume copies a row under a new sessionId and changes nothing else), so
// a copy and its original hash alike and a forged row with a borrowed uuid
// does not.
func contentHash(data []byte, sessionID string) uint64 {
	h := uint64(14695981039346656037)
	for len(data) > 0 {
		n := len(data)
		if sessionID != "" {
			if i := strings.Index(view(data), sessionID); i >= 0 {
				n = i
			}
		}
		for _, c := range data[:n] {
			h ^= uint64(c)
			h *= 1099511628211
		}
		if n == len(data) {
			break
		}
		data = data[n+len(sessionID):]
	}
	return h
}

// HashUUID is the hash Transcript.UUIDs holds.
func HashUUID(s string) uint64 { return hashUUID(s) }

// hashUUID is FNV-1a 64: a set of hashes costs a fraction of a set of uuid
// strings, and a collision between two uuids of one file is negligible.
func hashUUID(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// claudeCodeTypes are the row types Claude Code writes into a session or
// subagent transcript (CLI 1.x to 2.1.2xx).
var claudeCodeTypes = map[string]bool{
	"user": true, "assistant": true, "system": true, "summary": true,
	"progress": true, "attachment": true, "queue-operation": true,
	"file-history-snapshot": true, "permission-mode": true, "ai-title": true,
	"custom-title": true, "agent-name": true, "last-prompt": true, "mode": true,
	"worktree-state": true,
}

// isClaudeCodeRow is the one definition of "a row Claude Code wrote": a known
// row type together with one of the envelope fields that every Claude Code
// row carries (sessionId or uuid; summary rows carry leafUuid and file
// snapshots messageId), or, without them, the shape the reference resume
// gate reads (user and assistant rows with message content, queue-operation
// rows with an operation), which hand-written test transcripts use. Other
// JSON Lines files (application logs, exports of other tools) have neither,
// so a .jsonl without such a row is not a transcript and never a run.
func isClaudeCodeRow(r *row) bool {
	if !claudeCodeTypes[r.Type] {
		return false
	}
	if r.SessionID != "" || r.UUID != "" || r.LeafUUID != "" || r.MessageID != "" {
		return true
	}
	switch r.Type {
	case "user", "assistant":
		return r.Message != nil && (r.Message.Content.isString || len(r.Message.Content.blocks) > 0)
	case "queue-operation":
		return r.Operation != ""
	}
	return false
}

// titleOf is a session title: s on one line, cut to model.TitleLimit
// characters.
//
// It is strings.Join(strings.Fields(s), " ") cut so, written as it goes:
// only the head of a long prompt is looked at (a reading that marks its
// copies later titles every prompt that may name the session).
func titleOf(s string) string {
	keep, over := titleWalk(s, 0, nil)
	var b strings.Builder
	if over {
		b.Grow(keep + len("…"))
	} else {
		b.Grow(keep)
	}
	titleWalk(s, keep, &b)
	if over {
		b.WriteString("…")
	}
	return b.String()
}

// titleWalk walks strings.Join(strings.Fields(s), " ") rune by rune, up to
// TitleLimit+1 runes, and returns keep, the bytes of the title but its
// ellipsis: all of it, or its first TitleLimit-1 runes when it has more
// than TitleLimit (over). With b set it writes the first upto bytes there.
func titleWalk(s string, upto int, b *strings.Builder) (keep int, over bool) {
	runes, n, cut := 0, 0, 0
	// emit takes t, rune by rune; false once the title is over the limit.
	emit := func(t string) bool {
		for i := 0; i < len(t); {
			_, w := utf8.DecodeRuneInString(t[i:])
			if b != nil && n+w <= upto {
				b.WriteString(t[i : i+w])
			}
			n += w
			i += w
			if runes++; runes == model.TitleLimit-1 {
				cut = n
			}
			if runes > model.TitleLimit {
				return false
			}
		}
		return true
	}
	for f := range strings.FieldsSeq(s) {
		if runes > 0 && !emit(" ") || !emit(f) {
			return cut, true
		}
	}
	return n, false
}

// envelope keeps what the transcript says of itself: the first session id,
// version and working directory, the latest branch, and its custom title.
func (b *builder) envelope(r *row) {
	t := b.t
	if t.SessionID == "" && r.SessionID != "" {
		t.SessionID = keep(r.SessionID)
	}
	if t.Version == "" && r.Version != "" {
		t.Version = keep(r.Version)
	}
	if t.Cwd == "" && r.Cwd != "" {
		t.Cwd = keep(r.Cwd)
	}
	if r.GitBranch != "" && r.GitBranch != t.GitBranch {
		t.GitBranch = keep(r.GitBranch) // the latest branch the session was on
	}
	if r.Type == "custom-title" && strings.TrimSpace(r.CustomTitle) != "" {
		t.Title = titleOf(r.CustomTitle) // the latest name wins over the first prompt
		b.named = true
	}
}

// firstPrompt names the session by its first prompt until a custom title
// does; meta rows, copied rows, command wrappers and harness text
// (<command-name>, caveats, notifications) are not prompts. A reading that
// marks its copies later (Options.MarkLater) takes the first prompt and
// lists the prompts that may name the session once the copied ones are
// known (model.CopyRows.Prompts).
func (b *builder) firstPrompt(r *row, text string, line int) {
	listing := b.copyRows != nil && !b.promptsDone
	if (b.t.Title != "" && !listing) || b.named || r.IsMeta || r.Origin.Kind != "" || b.copiedRow {
		return
	}
	if s := strings.TrimSpace(text); s != "" && !strings.HasPrefix(s, "<") && !strings.HasPrefix(s, "Caveat:") && !IsNotification(text) {
		title := titleOf(s)
		if b.t.Title == "" {
			b.t.Title = title
		}
		if listing {
			b.copyRows.Prompts = append(b.copyRows.Prompts, model.TitlePrompt{Line: line, Title: title})
			b.promptsDone = r.UUID == "" // a row without a uuid is never a copy
		}
	}
}
