// Package model holds the plain types that every other part of pmcheck shares:
// what was read from disk (transcripts, journals, sidecars) and how it links up
// (runs, subagent calls, workflow attempts). It imports nothing of ours, so the
// arrows of the data flow can only point away from it.
//
// Everything here is a compact summary built while streaming a file: pmcheck
// never keeps a transcript's rows in memory, only the facts it needs, each with
// the Evidence (file, line, simulated time) that proves it.
package model

import (
	"strings"
	"time"
)

// Evidence points at the row that proves a fact.
type Evidence struct {
	// File is slash-separated and relative to the root given on the command line;
	// reports never show host paths.
	File string `json:"file"`
	// Line is 1-based.
	Line int `json:"line"`
	// Time is the row's simulated write time in UTC (the running maximum of the
	// timestamps of its file up to that row); zero when the file has none.
	Time time.Time `json:"time,omitzero"`
}

// IsZero reports whether e points nowhere.
func (e Evidence) IsZero() bool { return e.File == "" && e.Line == 0 }

// MalformedExamples is how many malformed lines a transcript lists; the rest
// are only counted.
const MalformedExamples = 10

// Malformed records a line that could not be used as a row, or was used with a
// caveat (Skipped false: invalid UTF-8 decoded with replacement characters).
type Malformed struct {
	Line    int    `json:"line"`
	Reason  string `json:"reason"`
	Skipped bool   `json:"skipped"`
	// Length is the line's length in bytes, for over-cap lines.
	Length int64 `json:"length,omitempty"`
}

// Step is one point of a file's write-time staircase: from line Line() on, the
// running maximum of the file's timestamps is At(). Steps only go up.
//
// A transcript keeps one step per row whose timestamp rises, so a step is
// packed into 16 bytes instead of the 32 of an int and a time.Time: seconds
// since January 1, year 1 UTC (so the zero Step is the zero time), and the
// line above the nanoseconds in one word. Lines up to MaxStepLine fit; the
// instant is kept exactly (in UTC, the only location readers store).
type Step struct {
	sec       int64  // seconds since time.Time{}
	lineNanos uint64 // line<<stepNanoBits | nanoseconds
}

const (
	stepNanoBits = 30 // 10^9 < 2^30
	// MaxStepLine is the largest line a Step holds (2^34-1, a file of at
	// least 16 GiB); larger lines are stored as MaxStepLine.
	MaxStepLine = 1<<(64-stepNanoBits) - 1
	// zeroUnix is time.Time{}.Unix(): Step counts seconds from there.
	zeroUnix = -62135596800
)

// NewStep returns the step "from line on, the write time is at". Lines below
// 0 are stored as 0 and lines above MaxStepLine as MaxStepLine.
func NewStep(line int, at time.Time) Step {
	l := uint64(0)
	if line > 0 {
		l = uint64(line)
	}
	if l > MaxStepLine {
		l = MaxStepLine
	}
	return Step{sec: at.Unix() - zeroUnix, lineNanos: l<<stepNanoBits | uint64(at.Nanosecond())}
}

// Line is the 1-based line from which the step's write time holds.
func (s Step) Line() int { return int(s.lineNanos >> stepNanoBits) }

// At is the step's write time, in UTC (the zero time for a zero Step).
func (s Step) At() time.Time {
	return time.Unix(s.sec+zeroUnix, int64(s.lineNanos&(1<<stepNanoBits-1))).UTC()
}

// Event is one user or assistant row, reduced to what the detectors and the
// replay read: who wrote it, when, and the first bytes of its text.
type Event struct {
	Line int    `json:"line"`
	Role string `json:"role"` // "user" | "assistant"
	// Timestamp is the row's own timestamp (zero when absent); WriteTime is the
	// file's running maximum at this row (the simulated clock).
	Timestamp time.Time `json:"timestamp,omitzero"`
	WriteTime time.Time `json:"write_time,omitzero"`
	// Meaningful is true when the row carries text or a tool block (watch's
	// "meaningful event": thinking-only or empty rows do not count).
	Meaningful bool `json:"meaningful"`
	// Text is the start of the row's joined text blocks (at most TextHeadLimit bytes).
	Text string `json:"text,omitempty"`
	// APIError is set on assistant rows marked isApiErrorMessage (value of "error",
	// or "unknown").
	APIError string `json:"api_error,omitempty"`
	// Synthetic is true for assistant rows whose model is "<synthetic>".
	Synthetic bool `json:"synthetic,omitempty"`
	// StopReason of an assistant row.
	StopReason string `json:"stop_reason,omitempty"`
	// ToolResultOnly is true for user rows that carry only tool_result blocks.
	ToolResultOnly bool `json:"tool_result_only,omitempty"`
}

// TextHeadLimit caps the text kept per Event and per ordinary tool result.
const TextHeadLimit = 512

// Tail summarises how a transcript ends, which is what kill, failure and
// "false done" decisions read.
type Tail struct {
	// LastEvent is the last user or assistant row in file order.
	LastEvent *Event `json:"last_event,omitempty"`
	// LastUser is the last user row in file order.
	LastUser *Event `json:"last_user,omitempty"`
	// LastAssistant is the last assistant row in file order.
	LastAssistant *Event `json:"last_assistant,omitempty"`
	// MeaningfulBeforeLastUser is the last meaningful user or assistant row
	// above LastUser (the start of a KILL's silence).
	MeaningfulBeforeLastUser *Event `json:"meaningful_before_last_user,omitempty"`
	// LastMeaningful is the last meaningful user or assistant row.
	LastMeaningful *Event `json:"last_meaningful,omitempty"`
}

// Limits on what is kept of long inputs.
const (
	// DescriptionLimit caps a tool call's description, subagent type and
	// names: they are quoted in messages, joined into lists and matched
	// against review prompts, so an uncapped one multiplies (a 2.6 MB
	// transcript once produced a 2 GB report).
	DescriptionLimit = 1 << 10
	// ListLimit caps the names a fact lists (ShipFact.OutstandingKilled);
	// a count says how many there were.
	ListLimit    = 20
	PromptLimit  = 64 << 10
	CommandLimit = 64 << 10
	// AgentResultLimit caps the text kept of an Agent/Task tool result.
	AgentResultLimit = 4 << 10
	// BashResultLimit caps the text kept of a Bash tool result: enough for
	// the first lines of git's output (commit ids, push targets).
	BashResultLimit = 1 << 10
	// OtherResultLimit caps the text kept of any other tool's result; most
	// bytes of a transcript are such output, and nothing downstream reads it.
	// Of a shell command's result the reader keeps BashResultLimit, this,
	// or no text at all, as shell.OutputOf decides from the classifier's analysis.
	OtherResultLimit = 160
)

// IsSpawn reports whether the call starts a subagent (Task, Agent) or a
// Workflow run. TaskCreate, TaskOutput, SendMessage and friends are not spawns.
func (c *ToolCall) IsSpawn() bool {
	t := c.tool()
	return t == toolAgent || t == toolTask || t == toolWorkflow
}

// Retained reports whether calls of a tool are kept in Transcript.ToolCalls.
func Retained(tool string) bool {
	switch tool {
	case "Agent", "Task", "Workflow", "Bash", "Write", "Edit", "MultiEdit", "NotebookEdit",
		"TaskStop", "KillShell", "TaskOutput", "BashOutput", "SendMessage", "AgentOutputTool":
		return true
	}
	return strings.HasPrefix(tool, "mcp__")
}

// CopiedCall reports whether a call and everything that answered it (its
// result, its notifications) are a resume's copies of an earlier file's
// rows: only then is the earlier file's reading of the call the whole story.
func CopiedCall(sc *SubagentCall) bool {
	if sc.Call == nil || !sc.Call.Copied() || sc.Result != nil && !sc.Result.Copied() {
		return false
	}
	for _, n := range sc.Notifications {
		if !n.Copied {
			return false
		}
	}
	return true
}

// IsSubagentSpawn reports whether the call is an Agent or Task call.
func (c *ToolCall) IsSubagentSpawn() bool { t := c.tool(); return t == toolAgent || t == toolTask }

// ResultExtra is the rarely set part of a ToolResult.
type ResultExtra struct {
	// TailAgentID is the agent id named by the "agentId: …" line of the text.
	TailAgentID string `json:"tail_agent_id,omitempty"`
	// From toolUseResult (trunk results only).
	Status           string `json:"status,omitempty"` // completed, async_launched, …
	AgentID          string `json:"agent_id,omitempty"`
	RunID            string `json:"run_id,omitempty"`
	TaskID           string `json:"task_id,omitempty"`
	BackgroundTaskID string `json:"background_task_id,omitempty"`
	// ResultString is set when toolUseResult is a plain string (errors, rejections).
	ResultString string `json:"result_string,omitempty"`
	// PollTaskID and PollStatus are what an output poll (TaskOutput and its
	// older names) says of the task it read: its id and its status
	// (running, completed, failed, killed, …).
	PollTaskID string `json:"poll_task_id,omitempty"`
	PollStatus string `json:"poll_status,omitempty"`

	// rare holds what almost no result has; nil for a result read with its
	// call (its own field keeps ResultExtra within the allocator's 160-byte
	// class).
	rare *resultRare
}

// resultRare is what a result keeps only when it is hand-built, has its
// call outside its transcript, or goes past what its own fields hold.
type resultRare struct {
	// at is the evidence of a hand-built result, or of one past the lines a
	// uint32 holds.
	at *Evidence
	// textLen is a text length past maxTextLen.
	textLen int
	// toolUseID and t are the id and the transcript of a result that no
	// call of its transcript answers (t nil when hand-built).
	toolUseID string
	t         *Transcript
}

// noExtra stands for the rare fields of a result that has none; read only.
var noExtra ResultExtra

// extra returns the rare fields, or an empty set when there are none.
func (r *ToolResult) extra() *ResultExtra {
	if r == nil || r.Extra == nil {
		return &noExtra
	}
	return r.Extra
}

// TailAgentID is the agent id named by the "agentId: …" line of the text.
func (r *ToolResult) TailAgentID() string { return r.extra().TailAgentID }

// Status is toolUseResult.status (completed, async_launched, …).
func (r *ToolResult) Status() string { return r.extra().Status }

// AgentID is toolUseResult.agentId.
func (r *ToolResult) AgentID() string { return r.extra().AgentID }

// RunID is toolUseResult.runId (Workflow launches).
func (r *ToolResult) RunID() string { return r.extra().RunID }

// TaskID is toolUseResult.taskId.
func (r *ToolResult) TaskID() string { return r.extra().TaskID }

// BackgroundTaskID is toolUseResult.backgroundTaskId.
func (r *ToolResult) BackgroundTaskID() string { return r.extra().BackgroundTaskID }

// ResultString is toolUseResult when it is a plain string (errors, rejections).
func (r *ToolResult) ResultString() string { return r.extra().ResultString }

// PollTaskID is the task id an output poll's result names.
func (r *ToolResult) PollTaskID() string { return r.extra().PollTaskID }

// PollStatus is the task status an output poll's result reports.
func (r *ToolResult) PollStatus() string { return r.extra().PollStatus }

// Notification is one <task-notification>, delivered either as a queue-operation
// enqueue (older CLIs, the resume-gate reference rule) or as a user row.
type Notification struct {
	At        Evidence `json:"at"`
	Source    string   `json:"source"` // "user-row" or "queue-<operation>" (enqueue, remove, …)
	TaskID    string   `json:"task_id,omitempty"`
	ToolUseID string   `json:"tool_use_id,omitempty"`
	// Status is the raw <status> text; StatusOK is false when it is missing.
	Status     string `json:"status,omitempty"`
	HasStatus  bool   `json:"has_status"`
	Summary    string `json:"summary,omitempty"`
	Result     string `json:"result,omitempty"` // capped at AgentResultLimit
	OutputFile string `json:"output_file,omitempty"`
	// Copied: the row is a resume's copy of an earlier file's (ToolCall.Copied).
	Copied   bool     `json:"copied,omitempty"`
	Failures []string `json:"failures,omitempty"`
}

// QueueOp is one queue-operation row.
type QueueOp struct {
	At        Evidence `json:"at"`
	Operation string   `json:"operation"` // enqueue, dequeue, remove, popAll, …
	// Notification is set when the enqueued content is a <task-notification>.
	Notification *Notification `json:"notification,omitempty"`
}

// Mark is a resume-gate segment mark found in a row (the raw regex match; the
// detectors decide whether it decodes).
type Mark struct {
	At          Evidence `json:"at"`
	Outstanding string   `json:"outstanding"` // the digits as written
	Payload     string   `json:"payload"`
}

// AgentProgress links a spawn to its agent through an agent_progress row
// (CLI 2.1.1x–2.1.76).
type AgentProgress struct {
	At        Evidence `json:"at"`
	ToolUseID string   `json:"tool_use_id"`
	AgentID   string   `json:"agent_id"`
}

// Meta is a subagent sidecar (agent-<id>.meta.json). Every field is optional.
type Meta struct {
	File          string `json:"file"`
	AgentType     string `json:"agentType,omitempty"`
	Description   string `json:"description,omitempty"`
	ToolUseID     string `json:"toolUseId,omitempty"`
	WorktreePath  string `json:"worktreePath,omitempty"`
	SpawnDepth    int    `json:"spawnDepth,omitempty"`
	ParentAgentID string `json:"parentAgentId,omitempty"`
	RequestShape  string `json:"requestShape,omitempty"`
	StoppedByUser bool   `json:"stoppedByUser,omitempty"`
	// Problem is set when the sidecar could not be read or parsed.
	Problem string `json:"problem,omitempty"`
}

// Transcript is everything pmcheck keeps of one JSONL transcript file.
// TitleLimit caps a transcript's Title, in characters.
const TitleLimit = 80

type Transcript struct {
	File string `json:"file"`
	// AgentID is the id from the file name agent-<id>.jsonl ("" for a main transcript).
	AgentID   string `json:"agent_id,omitempty"`
	SessionID string `json:"session_id,omitempty"`
	Version   string `json:"version,omitempty"`
	Cwd       string `json:"cwd,omitempty"`
	GitBranch string `json:"git_branch,omitempty"`
	// Title is the session's own name: its last custom-title row (/rename),
	// else its first prompt, on one line and cut to TitleLimit characters.
	Title string `json:"title,omitempty"`
	// Helper is set for compaction, side-question and prompt-suggestion
	// transcripts, which no tool call spawned.
	Helper bool  `json:"helper,omitempty"`
	Meta   *Meta `json:"meta,omitempty"`

	Lines int `json:"lines"` // non-blank lines read
	Rows  int `json:"rows"`  // lines that decoded to a JSON object
	// Values counts the lines that are JSON but not an object (an array,
	// a string, a number): a file of such lines is JSON Lines of another
	// kind, where a file whose lines are not JSON at all did not decode.
	Values int `json:"-"`
	// ClaudeCodeRows counts the rows Claude Code wrote (a known row type with
	// a sessionId, uuid, leafUuid or messageId); a file with none is not a
	// transcript.
	ClaudeCodeRows int `json:"claude_code_rows"`
	// SDKRows counts rows spelled as the Agent SDK's message stream spells
	// them (session_id, not sessionId): a file of them is a stream, not a
	// session file (analyze/sdkrun.go).
	SDKRows int            `json:"-"`
	Types   map[string]int `json:"types"`
	// Malformed lists the first MalformedExamples malformed lines, in order;
	// MalformedCount counts them all and MalformedSkipped those skipped (a
	// row read with replacement characters is malformed but not skipped).
	// A file of twenty million junk lines keeps ten examples, not twenty
	// million records.
	Malformed        []Malformed `json:"malformed,omitempty"`
	MalformedCount   int         `json:"malformed_count,omitempty"`
	MalformedSkipped int         `json:"malformed_skipped,omitempty"`
	// OverCap counts lines longer than the line cap (also listed in Malformed).
	OverCap int `json:"over_cap,omitempty"`
	// FirstOverCap is the first of them, and its length in bytes (0, 0:
	// none).
	FirstOverCap, FirstOverCapLen int64 `json:"-"`
	// Duplicates counts rows whose uuid an earlier row of the file already
	// had (a resume or a recorder replaying rows): they are counted in Rows
	// and otherwise ignored, so a replayed Agent call is not a second call.
	Duplicates int `json:"duplicates,omitempty"`
	// Copied counts rows an older CLI's resume copied from an earlier file of
	// the session (their uuids are that file's): read, but their Agent/Task
	// calls are the earlier file's (ToolCall.Copied).
	Copied int `json:"copied,omitempty"`
	// CopiedFrom counts, for each map of the reader's Options.Copied, the
	// rows of this file whose uuid and content that map holds: a map whose
	// every row is here is a file this one contains (markResumeCopies).
	CopiedFrom []int `json:"-"`
	// UUIDRows counts the rows with a uuid, each uuid once.
	UUIDRows int `json:"-"`
	// CopyOf names the files this one was found to be a resume's copy of
	// (their rows all here, with more): the loader says so in the run.
	CopyOf []string `json:"-"`
	// UUIDs are the hashes of the rows' uuids, sorted (transcript.HashUUID):
	// how the loader finds rows a resume copied into another file. The
	// loader drops them once it has compared the files.
	UUIDs []uint64 `json:"-"`
	// FirstUUID is the hash of the first row's uuid (0 when none).
	FirstUUID uint64 `json:"-"`
	// RowHashes maps each row's uuid hash to its content hash, when the
	// reader was asked for them (a file a resume may have copied from).
	RowHashes map[uint64]uint64 `json:"-"`
	// CopyRows is what a reading kept to mark its resume-copied rows
	// afterwards (transcript.Options.MarkLater, transcript.MarkCopied):
	// nil otherwise, and once they are marked.
	CopyRows *CopyRows `json:"-"`

	FirstTime time.Time `json:"first_time,omitzero"` // first timestamp in file order
	LastTime  time.Time `json:"last_time,omitzero"`  // largest timestamp (the last write time)
	// FirstRowLine / LastRowLine are the lines of the first and last rows.
	FirstRowLine int `json:"first_row_line,omitempty"`
	LastRowLine  int `json:"last_row_line,omitempty"`
	// Steps is the file's write-time staircase: a step at each row whose
	// timestamp raises the running maximum.
	Steps Staircase `json:"-"`

	Tail Tail `json:"tail"`
	// ToolCounts counts every tool_use by tool name. ToolCalls keeps only the
	// calls something downstream reads (spawns, Bash, file writes, task
	// control, MCP tools), so memory follows the facts, not the file size;
	// ToolResults keeps the results of those calls and results whose call is
	// not in the file.
	ToolCounts    map[string]int  `json:"tool_counts,omitempty"`
	ToolCalls     []*ToolCall     `json:"tool_calls,omitempty"`
	ToolResults   []*ToolResult   `json:"tool_results,omitempty"`
	Notifications []*Notification `json:"notifications,omitempty"`
	QueueOps      []QueueOp       `json:"queue_ops,omitempty"`
	Marks         []Mark          `json:"marks,omitempty"`
	Progress      []AgentProgress `json:"agent_progress,omitempty"`
	// Completions are the rows that carry at least one tool_result (any
	// tool), with their write times: the harness's tool-progress signal.
	Completions Staircase `json:"-"`
	APIErrors   []*Event  `json:"api_errors,omitempty"`
	Interrupts  []*Event  `json:"interrupts,omitempty"`

	// calls and results hold the calls and results NewToolCall and
	// NewToolResult make (see block).
	calls   block[ToolCall]
	results block[ToolResult]
	// Shell holds the classifications of the Bash commands the reader made
	// while reading (ToolCall.ShellClass), nil when it made none.
	Shell *ShellClasses `json:"-"`
}

// WriteTimeAt returns the simulated write time of the given line: the running
// maximum of timestamps up to it, or the file's first timestamp for lines above
// it. Zero when the file has no timestamps.
func (t *Transcript) WriteTimeAt(line int) time.Time {
	if t.Steps.Len() == 0 {
		return time.Time{}
	}
	// Steps are sorted by Line; find the last step with Line <= line.
	i := t.Steps.SearchLine(line)
	if i == 0 {
		return t.Steps.First().At()
	}
	return t.Steps.At(i - 1).At()
}

// CallByID returns the tool call with the given id, or nil.
func (t *Transcript) CallByID(id string) *ToolCall {
	for _, c := range t.ToolCalls {
		if c.ID() == id {
			return c
		}
	}
	return nil
}

// Run kinds.
const (
	KindSession  = "session"
	KindWorkflow = "workflow"
)

// Run is one unit pmcheck analyses: a session (a main transcript with its
// subagents) or a Workflow run (a run directory with its journal).
type Run struct {
	Kind string `json:"kind"`
	ID   string `json:"id"`
	// Path is the main transcript (sessions) or the run directory (workflows),
	// relative to the root.
	Path string `json:"path"`
	// Main is the session's main transcript; for a workflow, its parent
	// transcript. Nil when it is missing.
	Main *Transcript `json:"main,omitempty"`
	// Agents are the subagent transcripts that belong to the run, sorted by file.
	Agents []*Transcript `json:"agents,omitempty"`

	// Subagents are the Agent/Task calls of a session, in file order.
	Subagents []*SubagentCall `json:"subagents,omitempty"`
	// Launches are the Workflow calls of a session, in file order.
	Launches []*WorkflowLaunch `json:"workflow_launches,omitempty"`

	// Journal and Attempts are set for workflow runs.
	Journal  *Journal   `json:"journal,omitempty"`
	Attempts []*Attempt `json:"attempts,omitempty"`
	// Orphans are journal result/failed lines that closed no open attempt.
	Orphans []Orphan `json:"orphans,omitempty"`
	// Launch is the parent's Workflow call that started this run, if found.
	Launch *WorkflowLaunch `json:"launch,omitempty"`

	// Problems are things pmcheck could not read or link, each a one-line
	// message with where it happened.
	Problems []Problem `json:"problems,omitempty"`

	// Runtime is set for a run read from an Agent SDK message stream: the
	// runtime's own account of the run (runtime.go).
	Runtime *Runtime `json:"runtime,omitempty"`
}

// Problem is a non-fatal input problem attached to a run.
type Problem struct {
	At      Evidence `json:"at"`
	Message string   `json:"message"`
}

// Subagent modes.
const (
	ModeSync  = "sync"
	ModeAsync = "async"
)

// SubagentCall is one Agent/Task call in a session, linked to its child transcript.
type SubagentCall struct {
	Call *ToolCall `json:"-"`
	// Owner is the transcript that holds the call (the main transcript, or a
	// subagent transcript for nested spawns).
	Owner string `json:"owner"`
	// OwnerTranscript is the transcript that holds the call, when Owner
	// does not tell it apart: the transcripts of an SDK message stream
	// all live in the stream's one file.
	OwnerTranscript *Transcript `json:"-"`
	ToolUseID       string      `json:"tool_use_id"`
	Tool            string      `json:"tool"`
	Description     string      `json:"description"`
	SubagentType    string      `json:"subagent_type,omitempty"`
	Mode            string      `json:"mode"`
	At              Evidence    `json:"at"`

	AgentID string `json:"agent_id,omitempty"`
	// LinkedBy lists every independent source that named AgentID, sorted:
	// "toolUseResult", "result-tail", "notification", "sidecar", "agent-progress".
	LinkedBy []string    `json:"linked_by,omitempty"`
	Child    *Transcript `json:"-"`
	// ChildFile is Child.File, for reports.
	ChildFile string `json:"child_file,omitempty"`

	Result        *ToolResult     `json:"-"`
	ResultAt      *Evidence       `json:"result_at,omitempty"`
	Notifications []*Notification `json:"-"`
	// LastNotification is the last notification for this call (last one wins).
	LastNotification *Notification `json:"last_notification,omitempty"`
	// Status is the most authoritative status seen: the last notification's,
	// else the tool result's toolUseResult status.
	Status string `json:"status,omitempty"`
	// Denied is where the runtime listed the call in its result's
	// permission_denials (SDK message streams only): it never ran.
	Denied *Evidence `json:"denied,omitempty"`
}

// WorkflowLaunch is one Workflow call in a session.
type WorkflowLaunch struct {
	Call      *ToolCall `json:"-"`
	ToolUseID string    `json:"tool_use_id"`
	At        Evidence  `json:"at"`
	RunID     string    `json:"run_id,omitempty"`
	TaskID    string    `json:"task_id,omitempty"`
	Status    string    `json:"status,omitempty"` // toolUseResult status (async_launched, completed, …)
	ResultAt  *Evidence `json:"result_at,omitempty"`
	// LastNotification is the last task-notification for the launch's task id.
	LastNotification *Notification `json:"last_notification,omitempty"`
	// Stops are TaskStop calls that target the launch's task id.
	Stops []Evidence `json:"stops,omitempty"`
	// RunPath is the run directory (relative to the root) when it was found.
	RunPath string `json:"run_path,omitempty"`
}

// Journal is a Workflow run's journal.jsonl.
type Journal struct {
	File  string        `json:"file"`
	Lines []JournalLine `json:"lines"`
	// Malformed lists the first MalformedExamples malformed lines, plus the
	// first over-long one and a torn final one; MalformedCount counts all.
	Malformed      []Malformed `json:"malformed,omitempty"`
	MalformedCount int         `json:"malformed_count,omitempty"`
	OverCap        int         `json:"over_cap,omitempty"`
	// FirstOverCap is the first over-long line, and its length in bytes
	// (0, 0: none).
	FirstOverCap, FirstOverCapLen int64 `json:"-"`
}

// JournalLine is one parsed journal line.
type JournalLine struct {
	// Line is the 1-based physical line; Index counts non-blank lines from 1
	// (watch numbers MALFORMED lines that way).
	Line    int    `json:"line"`
	Index   int    `json:"index"`
	Type    string `json:"type"` // started | result | failed | other
	Key     string `json:"key,omitempty"`
	HasKey  bool   `json:"has_key"`
	AgentID string `json:"agent_id,omitempty"`
	// Torn is true for a final line with no newline after it: it parsed, but a
	// live watch would hold it back until its newline arrives.
	Torn bool `json:"torn,omitempty"`
}

// Attempt outcomes.
const (
	OutcomeCompleted = "completed"
	OutcomeFailed    = "failed"
	OutcomeKilled    = "killed"
	OutcomeOpen      = "open"
)

// Attempt is one occurrence of a journal key: the ordinal-th time it was started.
type Attempt struct {
	Key     string   `json:"key"`
	Ordinal int      `json:"ordinal"` // 1-based within the key
	AgentID string   `json:"agent_id,omitempty"`
	Started Evidence `json:"started"`
	// ClosedBy is "completed" (a result line), "failed" (a failed line) or ""
	// while open.
	ClosedBy string    `json:"closed_by,omitempty"`
	Closed   *Evidence `json:"closed,omitempty"`
	// SupersededBy is the ordinal of the next attempt of the same key, 0 if none.
	SupersededBy   int         `json:"superseded_by,omitempty"`
	Transcript     *Transcript `json:"-"`
	TranscriptFile string      `json:"transcript_file,omitempty"`
}

// Last reports whether a is the last attempt of its key: no later attempt
// superseded it. (Looking keys up in a map of every attempt cost a journal
// of 200,000 started lines a cache miss per attempt.)
func (a *Attempt) Last() bool { return a.SupersededBy == 0 }

// AgentsOf counts the keys of a run's attempts (the agents of a Workflow
// run): every key has exactly one first attempt, its ordinal 1.
func AgentsOf(attempts []*Attempt) int {
	n := 0
	for _, a := range attempts {
		if a.Ordinal == 1 {
			n++
		}
	}
	return n
}

// Orphan is a journal result/failed line that closed no open attempt.
type Orphan struct {
	At      Evidence `json:"at"`
	Type    string   `json:"type"`
	Key     string   `json:"key"`
	AgentID string   `json:"agent_id"`
}

// IsPollTool reports whether a tool reads a background task's output and
// status (TaskOutput, AgentOutputTool, BashOutput): the reader reads their
// results' header and interpret reads a final status from it, from this one
// list.
func IsPollTool(tool string) bool {
	return tool == "TaskOutput" || tool == "AgentOutputTool" || tool == "BashOutput"
}

// CopyRows is what marking a transcript's resume-copied rows needs of its
// reading besides its row hashes (Transcript.RowHashes): where each row
// with a uuid is, and which rows may name the session. A row's calls,
// results and notifications carry its line, so the marks a reading with
// the copies known would have set are set from these, on the same items,
// without reading the file again (transcript.MarkCopied).
type CopyRows struct {
	// Lines and UUIDs are the line and uuid hash of each row with a new
	// uuid (not a duplicate), in line order.
	Lines []int
	UUIDs []uint64
	// Prompts are the first prompts that may name the session
	// (Transcript.Title), in order, up to and including the first on a
	// row without a uuid (never a copy): the title is the first of them
	// not copied. Named says a custom title named the session instead.
	Prompts []TitlePrompt
	Named   bool
}

// TitlePrompt is a prompt that may name its session: its row's line and
// the title it gives.
type TitlePrompt struct {
	Line  int
	Title string
}
