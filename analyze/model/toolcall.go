package model

import (
	"math"
	"strings"
	"time"
)

// ToolCall is one tool_use block with the inputs pmcheck reads. A large
// transcript keeps tens of thousands (every shell command and file write),
// so a call is 48 bytes: its id and the one input its kind reads (a shell
// command, a file path or a task id) back to back in one string, the line
// as a uint32 (the write time is read from the transcript's staircase), the
// id's length, the tool as a small number, two flags and a Bash command's
// classification (its place in its transcript's list, ShellClass) in
// another, and the inputs only spawns carry (description, prompt, subagent
// type, names) behind a pointer that other calls leave nil. Read the id and
// the inputs through the methods of their names.
type ToolCall struct {
	// Result is the tool_result that answered this call, when one was found.
	Result *ToolResult

	idArg string      // the id, then the input of the tool's kind (argOf)
	t     *Transcript // the file holding the call (File, write time), nil when hand-built
	ext   *callExtra
	line  uint32
	// packed is the id's length in idArg in its low idLenBits bits (an id
	// longer than that counts is kept apart, in ext), the tool's number
	// in the next toolBits, the two flags above them, and in the top shellBits
	// 1 + the place of a Bash call's classification in its transcript's
	// Shell.List (0: none).
	packed uint32
}

const (
	idLenBits  = 10 // an id of up to 1,023 bytes (real ids are about 30; a longer one goes to ext)
	toolBits   = 4
	idLenMask  = 1<<idLenBits - 1
	shellShift = idLenBits + toolBits + 2 // above the two flags
	shellBits  = 32 - shellShift
)

// Every tool number fits in toolBits (a compile error otherwise).
const _ = uint(1<<toolBits - toolCount)

// CallInput is a tool call spelled out: what a reader passes to
// Transcript.NewToolCall and a test to NewToolCall. The call copies ID,
// Command, FilePath and TaskID (the id and the input its tool's kind reads
// into one string of its own); it keeps the other strings as given.
type CallInput struct {
	ID   string
	Name string
	At   Evidence

	// Agent / Task / Workflow inputs.
	Description     string
	Prompt          string // capped at PromptLimit bytes
	SubagentType    string
	RunInBackground bool
	AgentName       string
	// Workflow inputs.
	WorkflowName  string
	ResumeFromRun string

	// Bash input.
	Command string // capped at CommandLimit bytes
	// CommandCut says Command is the head of a longer command, cut at
	// CommandLimit.
	CommandCut bool

	// File-writing tools (Write, Edit, MultiEdit, NotebookEdit).
	FilePath string

	// TaskStop / KillShell / TaskOutput target.
	TaskID string

	// Copied is true for a call on a row that a resume copied from an earlier
	// file of the session: that file holds the call; this one repeats it.
	Copied bool

	Result *ToolResult
}

// callExtra is the rarely set part of a ToolCall.
type callExtra struct {
	name                                   string // a tool without a number (MCP tools)
	description, prompt, subagentType      string
	agentName, workflowName, resumeFromRun string
	command, filePath, taskID              string // an input outside the tool's kind
	// rare holds what almost no call has; nil for a call read from a file
	// (its own field keeps callExtra within the allocator's 176-byte class).
	rare *callRare
}

// callRare is what a call keeps only when it is hand-built or goes past
// what its own fields hold.
type callRare struct {
	// at is the evidence of a hand-built call, or of one past the lines a
	// uint32 holds.
	at *Evidence
	// id is an id longer than maxIDInline.
	id string
	// commandCut: the command is the head of a longer one (CommandCut).
	commandCut bool
}

type callFlags uint32

const (
	flagRunInBackground callFlags = 1 << (idLenBits + toolBits + iota)
	flagCopied
)

// toolName numbers the retained tools; 0 is any other name (kept in ext).
type toolName uint8

const (
	toolOther toolName = iota
	toolAgent
	toolTask
	toolWorkflow
	toolBash
	toolWrite
	toolEdit
	toolMultiEdit
	toolNotebookEdit
	toolTaskStop
	toolKillShell
	toolTaskOutput
	toolBashOutput
	toolSendMessage
	toolAgentOutputTool
	toolCount
)

var toolNames = [toolCount]string{"", "Agent", "Task", "Workflow", "Bash", "Write", "Edit", "MultiEdit",
	"NotebookEdit", "TaskStop", "KillShell", "TaskOutput", "BashOutput", "SendMessage", "AgentOutputTool"}

// KnownTool reports whether a tool's calls hold its name as a number (the
// retained tools but MCP tools).
func KnownTool(name string) bool { return toolNumber(name) != toolOther }

func toolNumber(name string) toolName {
	for i := toolAgent; i < toolCount; i++ {
		if toolNames[i] == name {
			return i
		}
	}
	return toolOther
}

// Which input the arg string holds, by tool.
const (
	argNone = iota
	argCommand
	argFilePath
	argTaskID
)

func argOf(n toolName) int {
	switch n {
	case toolBash:
		return argCommand
	case toolWrite, toolEdit, toolMultiEdit, toolNotebookEdit:
		return argFilePath
	case toolTaskStop, toolKillShell, toolTaskOutput, toolBashOutput:
		return argTaskID
	}
	return argNone
}

// NewToolCall returns a call holding everything in in, its evidence in full
// (a hand-built model; a reader uses Transcript.NewToolCall).
func NewToolCall(in CallInput) *ToolCall {
	c := new(ToolCall)
	*c = makeCall(in)
	at := in.At
	c.ensureRare().at = &at
	c.line = clampLine(at.Line)
	return c
}

// NewToolCall returns a call of t. in.At must point into t (File t.File,
// Time the write time of its line, which t's staircase holds from then on):
// the call keeps only the line and reads the time from the staircase.
func (t *Transcript) NewToolCall(in CallInput) *ToolCall {
	c := t.calls.next()
	*c = makeCall(in)
	c.t = t
	if in.At.Line < 0 || int64(in.At.Line) > math.MaxUint32 {
		at := in.At
		c.ensureRare().at = &at
	}
	c.line = clampLine(in.At.Line)
	return c
}

func clampLine(l int) uint32 { return uint32(min(max(int64(l), 0), math.MaxUint32)) }

// maxIDInline is the longest id a call holds beside its input (what its
// idLenBits count); a variable so that a test can reach it.
var maxIDInline int64 = idLenMask

func makeCall(in CallInput) ToolCall {
	c := ToolCall{Result: in.Result}
	tool := toolNumber(in.Name)
	if tool == toolOther && in.Name != "" {
		c.extra().name = in.Name
	}
	c.packed = uint32(tool) << idLenBits
	if in.RunInBackground {
		c.packed |= uint32(flagRunInBackground)
	}
	if in.Copied {
		c.packed |= uint32(flagCopied)
	}
	kind := argOf(tool)
	arg := ""
	for k, v := range [...]string{argCommand: in.Command, argFilePath: in.FilePath, argTaskID: in.TaskID} {
		switch {
		case v == "" || k == argNone:
		case k == kind:
			arg = v
		case k == argCommand:
			c.extra().command = strings.Clone(v)
		case k == argFilePath:
			c.extra().filePath = strings.Clone(v)
		case k == argTaskID:
			c.extra().taskID = strings.Clone(v)
		}
	}
	if in.CommandCut {
		c.ensureRare().commandCut = true
	}
	id := in.ID
	if int64(len(id)) > maxIDInline {
		c.ensureRare().id = strings.Clone(id)
		id = ""
	}
	var b strings.Builder // one allocation for both
	b.Grow(len(id) + len(arg))
	b.WriteString(id)
	b.WriteString(arg)
	c.idArg = b.String()
	c.packed |= uint32(len(id))
	if in.Description != "" || in.Prompt != "" || in.SubagentType != "" || in.AgentName != "" || in.WorkflowName != "" || in.ResumeFromRun != "" {
		x := c.extra()
		x.description, x.prompt, x.subagentType = in.Description, in.Prompt, in.SubagentType
		x.agentName, x.workflowName, x.resumeFromRun = in.AgentName, in.WorkflowName, in.ResumeFromRun
	}
	return c
}

func (c *ToolCall) extra() *callExtra {
	if c.ext == nil {
		c.ext = new(callExtra)
	}
	return c.ext
}

// ensureRare returns what almost no call has, allocating it (and ext) on
// first use.
func (c *ToolCall) ensureRare() *callRare {
	x := c.extra()
	if x.rare == nil {
		x.rare = new(callRare)
	}
	return x.rare
}

// noCallRare stands for the rarest fields of a call that has none; read only.
var noCallRare callRare

func (c *ToolCall) rare() *callRare {
	if c.ext == nil || c.ext.rare == nil {
		return &noCallRare
	}
	return c.ext.rare
}

// noCallExtra stands for the rare inputs of a call that has none; read only.
var noCallExtra callExtra

func (c *ToolCall) x() *callExtra {
	if c.ext == nil {
		return &noCallExtra
	}
	return c.ext
}

// ID is the call's tool_use id.
func (c *ToolCall) ID() string {
	if id := c.rare().id; id != "" {
		return id
	}
	return c.idArg[:c.idLen()]
}

func (c *ToolCall) idLen() uint32 { return c.packed & idLenMask }

// tool is the tool's number.
func (c *ToolCall) tool() toolName { return toolName(c.packed >> idLenBits & (1<<toolBits - 1)) }

// Name is the tool's name.
func (c *ToolCall) Name() string {
	if c.tool() == toolOther {
		return c.x().name
	}
	return toolNames[c.tool()]
}

// At is the row holding the call: its file, line and write time.
func (c *ToolCall) At() Evidence {
	if at := c.rare().at; at != nil {
		return *at
	}
	if c.t == nil {
		return Evidence{Line: int(c.line)}
	}
	return Evidence{File: c.t.File, Line: int(c.line), Time: c.t.WriteTimeAt(int(c.line))}
}

// SetFirstTime gives a call whose evidence is held in full and has no time
// the file's first write time (as the staircase does for the others).
func (c *ToolCall) SetFirstTime(first time.Time) {
	if at := c.rare().at; at != nil && at.Time.IsZero() {
		at.Time = first
	}
}

func (c *ToolCall) input(kind int, other string) string {
	if argOf(c.tool()) == kind {
		return c.idArg[c.idLen():]
	}
	return other
}

// Command is a Bash call's command (capped at CommandLimit bytes).
func (c *ToolCall) Command() string { return c.input(argCommand, c.x().command) }

// CommandCut says Command is the head of a longer command, cut at
// CommandLimit: what followed is unseen (ship.Options.Truncated).
func (c *ToolCall) CommandCut() bool { return c.rare().commandCut }

// FilePath is the path a file-writing tool (Write, Edit, MultiEdit, NotebookEdit) writes.
func (c *ToolCall) FilePath() string { return c.input(argFilePath, c.x().filePath) }

// TaskID is the target of TaskStop, KillShell and the output polls.
func (c *ToolCall) TaskID() string { return c.input(argTaskID, c.x().taskID) }

// Description is an Agent, Task or Workflow call's description (a Workflow
// without one: its script path).
func (c *ToolCall) Description() string { return c.x().description }

// Prompt is an Agent or Task call's prompt (capped at PromptLimit bytes).
func (c *ToolCall) Prompt() string { return c.x().prompt }

// SubagentType is an Agent or Task call's subagent_type.
func (c *ToolCall) SubagentType() string { return c.x().subagentType }

// AgentName is an Agent or Task call's name input.
func (c *ToolCall) AgentName() string { return c.x().agentName }

// WorkflowName is a Workflow call's name input.
func (c *ToolCall) WorkflowName() string { return c.x().workflowName }

// ResumeFromRun is a Workflow call's resumeFromRunId input.
func (c *ToolCall) ResumeFromRun() string { return c.x().resumeFromRun }

// RunInBackground is the run_in_background input of a spawn or Bash call.
func (c *ToolCall) RunInBackground() bool { return c.packed&uint32(flagRunInBackground) != 0 }

// Copied is true for a call on a row that a resume copied from an earlier
// file of the session: that file holds the call; this one repeats it.
func (c *ToolCall) Copied() bool { return c.packed&uint32(flagCopied) != 0 }

// MarkCopied marks the call Copied: its row turned out a resume's copy
// after it was read (transcript.MarkCopied).
func (c *ToolCall) MarkCopied() { c.packed |= uint32(flagCopied) }

// Input spells the call out (its evidence in full).
func (c *ToolCall) Input() CallInput {
	return CallInput{ID: c.ID(), Name: c.Name(), At: c.At(), Description: c.Description(), Prompt: c.Prompt(),
		SubagentType: c.SubagentType(), RunInBackground: c.RunInBackground(), AgentName: c.AgentName(),
		WorkflowName: c.WorkflowName(), ResumeFromRun: c.ResumeFromRun(), Command: c.Command(),
		CommandCut: c.CommandCut(), FilePath: c.FilePath(), TaskID: c.TaskID(), Copied: c.Copied(), Result: c.Result}
}

// Set replaces the call's id, tool, inputs and result with in's, keeping
// where it is (tests edit loaded calls this way).
func (c *ToolCall) Set(in CallInput) {
	n := makeCall(in)
	n.t, n.line = c.t, c.line
	if at := c.rare().at; at != nil {
		n.ensureRare().at = at
	}
	*c = n
}
