package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/pmcheck/pmcheck/analyze/jsonl"
	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/internal/jsonscan"
)

// The Agent SDK's message stream: what `claude -p --output-format
// stream-json --verbose` prints, one message a line, and what the GitHub
// action writes as its execution_file, a JSON array of the same messages.
// Its assistant and user messages are the session files' rows with four
// fields spelled its own way (session_id, parent_tool_use_id,
// tool_use_result, is_api_error_message); a subagent's messages are
// interleaved with the parent's, each naming the Agent/Task call that runs
// it in parent_tool_use_id. The reader decodes each message once and hands it to
// the builder of the transcript it belongs to, so the stream becomes the
// transcripts a session folder would have given: the parent's, and one per
// subagent. The system and result messages say what session files do not:
// the init message, the background tasks' starts and ends, and the
// runtime's own account of the run (model.Runtime).
//
// What session files hold and the stream does not (agent_progress rows,
// sidechain flags, the first prompt of a `claude -p` run) is not made up.

// Stream formats (model.Runtime.Format).
const (
	StreamArray = "json-array"
	StreamLines = "jsonl"
)

// Stream is an Agent SDK message stream read into transcripts.
type Stream struct {
	// Main is the parent's transcript: the messages without a
	// parent_tool_use_id.
	Main *model.Transcript
	// Agents are the subagents' transcripts, in the order of their first
	// message.
	Agents []StreamAgent
	// Runtime is the stream's init, task and result messages.
	Runtime *model.Runtime
	// Broken is set when the file is not one complete JSON array (a job
	// cancelled while it was written): what came before is read, and the
	// run cannot be judged.
	Broken *jsonl.ArrayError
	// FirstInvalid is the line of the first array element that is not a
	// JSON object (0: none); an execution file is written whole by one
	// JSON encoder, so one such element means the file was damaged.
	FirstInvalid int
	// LastLine is the line of the last message (its first line in an
	// execution file): where a stream that ends without a result stops.
	LastLine int
	// Unended is the line of the parent's first user or assistant message
	// after the last result message (0: none). Every turn of `claude -p`
	// ends with a result, so such a message is a turn the stream does not
	// end: the process was killed, or the job cancelled, mid-turn.
	Unended int
	// AsSession counts the stream's rows as a reading of the file as one
	// session transcript would (model.Transcript.SDKRows and
	// ClaudeCodeRows): which of the two a .jsonl file is, the loader
	// decides from these counts whichever reader read it.
	AsSession Spelling
}

// Spelling counts a file's rows by how they name their session, as the
// session reader counts them: SDKRows spell it session_id only, and
// ClaudeCodeRows are the rows Claude Code writes (model.Transcript).
type Spelling struct {
	SDKRows, ClaudeCodeRows int
}

// StreamAgent is one subagent's transcript.
type StreamAgent struct {
	// ToolUseID is the parent_tool_use_id its messages carry: the id of the
	// Agent/Task call that runs it; "" for the messages that name no call
	// before them (read together as one transcript).
	ToolUseID string
	T         *model.Transcript
}

// lineSource yields the messages of a stream: lines or array elements.
type lineSource interface {
	Next() (jsonl.Line, error)
}

// ReadStreamFile opens path and reads it as a stream; array says whether it
// is a JSON array (an execution file) or JSON Lines.
func ReadStreamFile(path, file string, array bool, opts Options) (*Stream, error) {
	f, _, err := jsonl.OpenRead(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadStream(f, file, array, opts)
}

// ReadStream reads a message stream. Only I/O errors are returned; a file
// that is not a whole array is Stream.Broken.
func ReadStream(r io.Reader, file string, array bool, opts Options) (*Stream, error) {
	s := newStreamReader(file, opts)
	var src lineSource
	if array {
		ar := jsonl.NewArrayReader(r, opts.LineCap)
		ar.Decode = s.decodeInPlace
		src = ar
		s.rt.Format = StreamArray
	} else {
		src = jsonl.NewReader(r, opts.LineCap)
		s.rt.Format = StreamLines
	}
	s.array = array
	for {
		l, err := src.Next()
		if err == io.EOF {
			break
		}
		var ae *jsonl.ArrayError
		if errors.As(err, &ae) {
			s.out.Broken = ae
			break
		}
		if err != nil {
			s.free()
			return nil, fmt.Errorf("%s: read error after %d messages: %w", file, s.rt.Messages, err)
		}
		s.line(l)
		if s.main.gaveUp != nil {
			err := s.main.gaveUp
			s.free()
			return nil, err
		}
	}
	return s.finish(), nil
}

type streamReader struct {
	file  string
	opts  Options
	array bool
	main  *builder
	// subs are the subagents' builders by parent_tool_use_id, in order.
	subs  map[string]*builder
	order []string
	// spawner is the builder that holds each Agent/Task/Workflow call (a
	// task's start and end go to the transcript of the call that ran it),
	// and taskOwner the one of each task started.
	spawner   map[string]*builder
	taskOwner map[string]*builder
	// background holds the spawning calls whose agent runs in the
	// background (task_started or task_updated says so, or the call's
	// result is an async launch), and taskCall each task's call. Only a
	// background agent's end is a notification, as in session files; a
	// foreground agent's is its call's result, and the SDK's task_*
	// messages for it are kept with the task (model.RuntimeTask.Status).
	background map[string]bool
	taskCall   map[string]string
	d          decoded
	shells     []shellCall
	rt         *model.Runtime
	out        Stream
	// latest is the latest timestamp of any message so far: the time of
	// the system messages, which carry none (the stream is written as the
	// run goes, so they come no earlier).
	latest time.Time
}

func newStreamReader(file string, opts Options) *streamReader {
	s := &streamReader{file: file, opts: opts, subs: map[string]*builder{},
		spawner: map[string]*builder{}, taskOwner: map[string]*builder{},
		background: map[string]bool{}, taskCall: map[string]string{},
		rt: &model.Runtime{File: file}}
	s.main = s.newBuilder()
	return s
}

func (s *streamReader) newBuilder() *builder {
	b := newBuilder(s.file)
	b.setOptions(s.opts)
	b.sdk = true
	b.asSession = &s.out.AsSession
	return b
}

// orphanParent keys the transcript of the messages whose
// parent_tool_use_id names no Agent/Task call before them.
const orphanParent = ""

// sub is the builder of the subagent run by the call id.
func (s *streamReader) sub(id string) *builder {
	if b, ok := s.subs[id]; ok {
		return b
	}
	id = strings.Clone(id)
	b := s.newBuilder()
	s.subs[id] = b
	s.order = append(s.order, id)
	return b
}

// sdkRow gives a stream message the session row's spelling of its fields.
func sdkRow(r *row) {
	if r.SessionID == "" {
		r.SessionID = r.SDKSessionID
	}
	if !r.ToolUseResult.present {
		r.ToolUseResult = r.SDKToolUseResult
	}
	if r.SDKAPIError {
		r.IsAPIErrorMessage = true
	}
}

// line decodes one message (with the parent's arena and shell reader: the
// decoding does not depend on whose message it is) and applies it to the
// builder of the transcript it belongs to.
func (s *streamReader) line(l jsonl.Line) {
	d := &s.d
	data := bytes.TrimSpace(l.Data)
	s.shells = s.shells[:0]
	arena := s.main.arena
	switch {
	case l.Decoded:
		// Decoded where it lay (decodeInPlace): what decodeLine adds.
		d.mark = mayHoldMark(d.r.Type, data)
		if s.main.shell != nil {
			d.shellFrom = 0
			s.shells = classifyShell(&d.r, s.main.shell, s.shells)
			d.shellTo = int32(len(s.shells))
		}
		s.rt.Messages++
		s.out.LastLine = l.N
	case !l.OverCap && len(data) > 0:
		*d = decoded{}
		decodeLine(data, d, arena, s.main.shell, &s.shells)
		s.rt.Messages++
		s.out.LastLine = l.N
	default:
		*d = decoded{}
		if l.OverCap {
			s.rt.Messages++
			s.out.LastLine = l.N
		}
	}
	if s.array && !l.OverCap && !d.valid && s.out.FirstInvalid == 0 {
		s.out.FirstInvalid = l.N
	}
	b := s.main
	if d.valid && d.r.SDKParent != "" {
		if _, ok := s.spawner[d.r.SDKParent]; ok {
			b = s.sub(d.r.SDKParent)
		} else {
			// A subagent's messages follow the call that runs it; ones
			// that name no call seen go to one transcript, so a made-up
			// stream cannot make a transcript (a builder) per message.
			b = s.sub(orphanParent)
		}
	}
	b.lineShells = s.shells
	b.apply(l, data, d)
	b.lineShells = nil
	if b.curMax.After(s.latest) {
		s.latest = b.curMax
	}
	if d.valid {
		if b == s.main && (d.r.Type == "assistant" || d.r.Type == "user") && s.out.Unended == 0 {
			s.out.Unended = l.N
		}
		switch d.r.Type {
		case "assistant":
			s.spawns(b, &d.r)
		case "user":
			s.asyncLaunches(&d.r)
		case "system", "result":
			s.system(b, l, data)
		}
	}
	arena.reset(1 << 20)
}

// decodeInPlace is the array reader's Decode: the element is decoded
// where it lies in the reader's buffer, once (line takes the result).
func (s *streamReader) decodeInPlace(data []byte) (int, bool) {
	d := &s.d
	*d = decoded{}
	arena := s.main.arena
	arena.reset(1 << 20)
	n, ok, bad := decodeRowPrefix(data, &d.r, arena)
	if !ok {
		*d = decoded{}
		return 0, false
	}
	d.valid, d.badUTF8 = true, bad
	return n, true
}

// decodeRowPrefix is decodeRowArena for an object at the start of data
// with anything after it: it returns the object's length.
func decodeRowPrefix(data []byte, r *row, a *arena) (n int, ok, badUTF8 bool) {
	s := fastScanner{Scanner: jsonscan.Scanner{Data: data}, buf: a.buf, ar: a}
	ok = s.Peek() == '{' && s.rowObject(r)
	a.buf = s.buf
	a.pend = a.pend[:0]
	return s.I, ok, s.Bad
}

// spawns records which builder holds the spawning calls of a message.
func (s *streamReader) spawns(b *builder, r *row) {
	if r.Message == nil {
		return
	}
	for i := range r.Message.Content.blocks {
		blk := &r.Message.Content.blocks[i]
		if blk.Type == "tool_use" && blk.ID != "" && (blk.Name == "Agent" || blk.Name == "Task" || blk.Name == "Workflow") {
			if _, ok := s.spawner[blk.ID]; !ok {
				s.spawner[strings.Clone(blk.ID)] = b
			}
		}
	}
}

// maxResults bounds the result messages kept of one stream (a run has one
// per turn), maxTasks its task_started messages (one per subagent and
// background command).
const (
	maxResults = 1000
	maxTasks   = 100000
)

// asyncLaunches records the spawning calls a user message answers with an
// async launch (the agent runs in the background).
func (s *streamReader) asyncLaunches(r *row) {
	t := r.ToolUseResult
	if r.Message == nil || !t.IsAsync && t.Status != "async_launched" {
		return
	}
	for i := range r.Message.Content.blocks {
		blk := &r.Message.Content.blocks[i]
		if blk.Type == "tool_result" && s.spawner[blk.ToolUseID] != nil && !s.background[blk.ToolUseID] {
			s.background[strings.Clone(blk.ToolUseID)] = true
		}
	}
}

// sdkSystem is what pmcheck reads of the stream's system and result
// messages (a few per run, decoded with encoding/json).
type sdkSystem struct {
	Type           string `json:"type"`
	Subtype        string `json:"subtype"`
	SessionID      string `json:"session_id"`
	Cwd            string `json:"cwd"`
	Version        string `json:"claude_code_version"`
	Model          string `json:"model"`
	PermissionMode string `json:"permissionMode"`

	TaskID      looseString `json:"task_id"`
	ToolUseID   string      `json:"tool_use_id"`
	Description string      `json:"description"`
	TaskType    string      `json:"task_type"`
	Status      string      `json:"status"`
	Summary     string      `json:"summary"`
	OutputFile  string      `json:"output_file"`
	Patch       struct {
		Status         string `json:"status"`
		IsBackgrounded bool   `json:"is_backgrounded"`
	} `json:"patch"`
	IsBackgrounded bool `json:"is_backgrounded"`

	IsError           bool            `json:"is_error"`
	TerminalReason    string          `json:"terminal_reason"`
	NumTurns          int             `json:"num_turns"`
	DurationMS        float64         `json:"duration_ms"`
	APIErrorStatus    json.RawMessage `json:"api_error_status"`
	Errors            []looseString   `json:"errors"`
	PermissionDenials []struct {
		ToolName  string `json:"tool_name"`
		ToolUseID string `json:"tool_use_id"`
	} `json:"permission_denials"`
	SubagentStats *model.SubagentStats `json:"subagent_stats"`
}

// system reads a system or result message.
func (s *streamReader) system(b *builder, l jsonl.Line, data []byte) {
	var m sdkSystem
	if json.Unmarshal(data, &m) != nil {
		return // a type mismatch deep inside: the row is counted, its facts unread
	}
	at := model.Evidence{File: s.file, Line: l.N, Time: s.latest}
	switch {
	case m.Type == "result":
		res := &model.RuntimeResult{At: at, Subtype: capString(m.Subtype, model.DescriptionLimit), IsError: m.IsError,
			TerminalReason: capString(m.TerminalReason, model.DescriptionLimit), NumTurns: m.NumTurns, DurationMS: int64(m.DurationMS),
			SubagentStats: m.SubagentStats}
		if st := bytes.TrimSpace(m.APIErrorStatus); len(st) > 0 && string(st) != "null" {
			res.APIErrorStatus = capString(strings.Trim(string(st), `"`), model.DescriptionLimit)
		}
		for i, e := range m.Errors {
			if i == model.ListLimit {
				break
			}
			res.Errors = append(res.Errors, capString(string(e), model.DescriptionLimit))
		}
		for _, d := range m.PermissionDenials {
			res.PermissionDenials = append(res.PermissionDenials, model.PermissionDenial{
				Tool: capString(d.ToolName, model.DescriptionLimit), ToolUseID: capID(d.ToolUseID)})
		}
		if st := res.SubagentStats; st != nil && len(st.ByType) > model.ListLimit*5 {
			st.ByType = nil // a made-up map: the counts stand, the types do not
		}
		// A stream has a result per turn: a background agent that ends
		// after the parent's turn starts a turn of its own, and a resumed
		// session first sends an empty one. The last says how the run
		// ended; all are kept for the counts (runtime_facts.go).
		s.rt.Result = res
		s.out.Unended = 0
		if len(s.rt.Results) < maxResults {
			s.rt.Results = append(s.rt.Results, res)
		}
	case m.Subtype == "init":
		if s.rt.Init == nil {
			s.rt.Init = &model.RuntimeInit{At: at, SessionID: capID(m.SessionID), Version: capString(m.Version, model.DescriptionLimit),
				Cwd: capString(m.Cwd, model.PromptLimit), Model: capString(m.Model, model.DescriptionLimit),
				PermissionMode: capString(m.PermissionMode, model.DescriptionLimit)}
		}
	case m.Subtype == "task_started":
		task := model.RuntimeTask{At: at, TaskID: capID(string(m.TaskID)), ToolUseID: capID(m.ToolUseID),
			TaskType: capString(m.TaskType, model.DescriptionLimit), Description: capString(m.Description, model.DescriptionLimit)}
		if len(s.rt.Tasks) < maxTasks {
			s.rt.Tasks = append(s.rt.Tasks, task)
		}
		if owner := s.spawner[m.ToolUseID]; owner != nil && task.TaskID != "" {
			s.taskOwner[task.TaskID] = owner
			s.taskCall[task.TaskID] = task.ToolUseID
			if m.IsBackgrounded {
				s.background[task.ToolUseID] = true
			}
		}
	case m.Subtype == "task_notification":
		s.notify(b, l, model.SourceSDKNotification, string(m.TaskID), m.ToolUseID, m.Status, m.Summary, m.OutputFile)
	case m.Subtype == "task_updated":
		if m.Patch.IsBackgrounded {
			if call := s.taskCall[string(m.TaskID)]; call != "" {
				s.background[call] = true
			}
		}
		switch m.Patch.Status {
		case "completed", "failed", "killed", "stopped":
			s.notify(b, l, model.SourceSDKUpdate, string(m.TaskID), m.ToolUseID, m.Patch.Status, "", "")
		}
	}
}

// notify adds a task's end to the transcript that holds the call that ran
// it, as its <task-notification> would have been: by the call's id, else
// the task's.
func (s *streamReader) notify(b *builder, l jsonl.Line, source, taskID, toolUseID, status, summary, output string) {
	call := toolUseID
	if call == "" {
		call = s.taskCall[taskID]
	}
	if _, spawned := s.spawner[call]; spawned && !s.background[call] {
		// A foreground agent: its call's result says how it ended.
		for i := range s.rt.Tasks {
			if s.rt.Tasks[i].ToolUseID == call && status != "" {
				s.rt.Tasks[i].Status = capString(status, model.DescriptionLimit)
			}
		}
		return
	}
	owner := s.spawner[toolUseID]
	if owner == nil {
		owner = s.taskOwner[taskID]
	}
	if owner == nil {
		owner = b
	}
	n := &model.Notification{At: model.Evidence{File: s.file, Line: l.N, Time: s.latest}, Source: source,
		TaskID: capID(taskID), ToolUseID: capID(toolUseID), Status: capString(status, model.DescriptionLimit),
		HasStatus: status != "", Summary: capString(summary, model.DescriptionLimit), OutputFile: capString(output, model.DescriptionLimit)}
	owner.t.Notifications = append(owner.t.Notifications, n)
}

func (s *streamReader) finish() *Stream {
	out := &s.out
	out.Runtime = s.rt
	out.Main = s.finishOne(s.main)
	s.main = nil
	for _, id := range s.order {
		out.Agents = append(out.Agents, StreamAgent{ToolUseID: id, T: s.finishOne(s.subs[id])})
	}
	s.subs = nil
	return out
}

// finishOne finishes a transcript, with what only the init message says of
// every row (the CLI version, the working directory).
func (s *streamReader) finishOne(b *builder) *model.Transcript {
	t := b.finish()
	b.free()
	if in := s.rt.Init; in != nil {
		if t.Version == "" {
			t.Version = in.Version
		}
		if t.Cwd == "" {
			t.Cwd = in.Cwd
		}
		if t.SessionID == "" {
			t.SessionID = in.SessionID
		}
	}
	return t
}

func (s *streamReader) free() {
	if s.main != nil {
		s.main.free()
	}
	for _, b := range s.subs {
		b.free()
	}
}

// SniffStreamArray reports whether the JSON file at path is an Agent SDK
// message stream: a JSON array whose first element is a message with a
// session_id. Only that element is read.
func SniffStreamArray(path string) (bool, error) {
	f, _, err := jsonl.OpenRead(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	l, err := jsonl.NewArrayReader(f, 1<<20).Next()
	if err != nil || l.OverCap {
		return false, nil
	}
	return isStreamMessage(l.Data), nil
}

// isStreamMessage reports whether data is a message of an SDK stream.
func isStreamMessage(data []byte) bool {
	var r row
	data = bytes.TrimSpace(data)
	if len(data) == 0 || data[0] != '{' {
		return false
	}
	ok, _ := decodeRow(data, &r)
	return ok && r.Type != "" && r.SDKSessionID != "" && r.SessionID == ""
}

// SniffStreamLines reports whether the JSON Lines file at path is an
// Agent SDK message stream: its first row that names a session spells it
// session_id. At most the first 16 lines are read.
func SniffStreamLines(path string) (bool, error) {
	f, _, err := jsonl.OpenRead(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	lr := jsonl.NewReader(f, 0)
	for range 16 {
		l, err := lr.Next()
		if err != nil {
			return false, nil
		}
		data := bytes.TrimSpace(l.Data)
		if l.OverCap || len(data) == 0 || data[0] != '{' {
			continue
		}
		var r row
		if ok, _ := decodeRow(data, &r); !ok {
			continue
		}
		if r.SessionID != "" {
			return false, nil
		}
		if r.SDKSessionID != "" {
			return true, nil
		}
	}
	return false, nil
}

// StreamSessionID returns the session id of a stream file: the first
// session_id its first messages carry ("" when none does). array says
// whether it is an execution file.
func StreamSessionID(path string, array bool) string {
	f, _, err := jsonl.OpenRead(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	var src lineSource = jsonl.NewReader(f, 1<<20)
	if array {
		src = jsonl.NewArrayReader(f, 1<<20)
	}
	for range 16 {
		l, err := src.Next()
		if err != nil {
			return ""
		}
		data := bytes.TrimSpace(l.Data)
		if l.OverCap || len(data) == 0 || data[0] != '{' {
			continue
		}
		var r row
		if ok, _ := decodeRow(data, &r); ok && r.SDKSessionID != "" {
			return strings.Clone(r.SDKSessionID)
		}
	}
	return ""
}

// RowID is one user or assistant row of a file, for telling which rows a
// stream and a session file do not share: the hash of its uuid, its line,
// and (in a stream) the parent_tool_use_id it names.
type RowID struct {
	Hash   uint64
	Line   int
	Parent string
}

// RowIDs lists the user and assistant rows with a uuid of a session file
// (stream false) or a stream (array says whether it is an execution file),
// in file order. Rows are read one at a time, as the reader reads them.
func RowIDs(path string, stream, array bool, lineCap int64) ([]RowID, error) {
	f, _, err := jsonl.OpenRead(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var src lineSource = jsonl.NewReader(f, lineCap)
	if array {
		src = jsonl.NewArrayReader(f, lineCap)
	}
	var out []RowID
	var a arena
	for {
		l, err := src.Next()
		if err == io.EOF {
			return out, nil
		}
		var ae *jsonl.ArrayError
		if errors.As(err, &ae) {
			return out, nil // the reading of the run says so
		}
		if err != nil {
			return nil, err
		}
		data := bytes.TrimSpace(l.Data)
		if l.OverCap || len(data) == 0 || data[0] != '{' {
			continue
		}
		var r row
		a.reset(1 << 20)
		if ok, _ := decodeRowArena(data, &r, &a); !ok || r.UUID == "" || r.Type != "user" && r.Type != "assistant" {
			continue
		}
		id := RowID{Hash: hashUUID(r.UUID), Line: l.N}
		if stream {
			id.Parent = strings.Clone(r.SDKParent)
		}
		out = append(out, id)
	}
}
