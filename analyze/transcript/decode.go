package transcript

import (
	"bytes"
	"encoding/json"
	"strings"
)

// row is the subset of a transcript row pmcheck reads. Every field is optional.
// Nested structs name only the fields used, so encoding/json skips the bulk of
// a row (tool output, progress payloads, file snapshots) without allocating.
type row struct {
	Type              string        `json:"type"`
	Timestamp         string        `json:"timestamp"`
	SessionID         string        `json:"sessionId"`
	AgentID           string        `json:"agentId"`
	Version           string        `json:"version"`
	Cwd               string        `json:"cwd"`
	GitBranch         string        `json:"gitBranch"`
	IsMeta            bool          `json:"isMeta"`
	IsAPIErrorMessage bool          `json:"isApiErrorMessage"`
	Error             looseString   `json:"error"`
	Subtype           string        `json:"subtype"`
	Operation         string        `json:"operation"`
	Content           content       `json:"content"`
	Message           *message      `json:"message"`
	ToolUseResult     toolUseResult `json:"toolUseResult"`
	Origin            struct {
		Kind string `json:"kind"`
	} `json:"origin"`
	Data struct {
		Type    string `json:"type"`
		AgentID string `json:"agentId"`
	} `json:"data"`
	ParentToolUseID string `json:"parentToolUseID"`
	UUID            string `json:"uuid"`
	// LeafUUID and MessageID are read only to recognise Claude Code rows
	// that carry neither sessionId nor uuid (summary, file-history-snapshot).
	LeafUUID  string `json:"leafUuid"`
	MessageID string `json:"messageId"`
	// The Agent SDK's message stream spells four fields its own way
	// (sdkstream.go); a session row has none of them.
	SDKSessionID     string        `json:"session_id"`
	SDKParent        string        `json:"parent_tool_use_id"`
	SDKToolUseResult toolUseResult `json:"tool_use_result"`
	SDKAPIError      bool          `json:"is_api_error_message"`
	// CustomTitle is a custom-title row's name for the session (/rename).
	CustomTitle string `json:"customTitle"`
	// msgStore is where the fast decoder keeps *Message (encoding/json
	// allocates it); a row is therefore never copied by value.
	msgStore message
}

type message struct {
	Role       string  `json:"role"`
	Model      string  `json:"model"`
	StopReason string  `json:"stop_reason"`
	Content    content `json:"content"`
}

// block is one content block of any kind.
type block struct {
	Type      string  `json:"type"`
	Text      string  `json:"text"`
	ID        string  `json:"id"`
	Name      string  `json:"name"`
	Input     input   `json:"input"`
	ToolUseID string  `json:"tool_use_id"`
	Content   content `json:"content"`
	IsError   bool    `json:"is_error"`
}

// input is the union of the tool_use inputs pmcheck reads.
type input struct {
	Description     string `json:"description"`
	Prompt          string `json:"prompt"`
	SubagentType    string `json:"subagent_type"`
	RunInBackground bool   `json:"run_in_background"`
	Name            string `json:"name"`
	Command         string `json:"command"`
	FilePath        string `json:"file_path"`
	NotebookPath    string `json:"notebook_path"`
	TaskID          string `json:"task_id"`
	ShellID         string `json:"shell_id"`
	ResumeFromRunID string `json:"resumeFromRunId"`
	Script          string `json:"script"`
	ScriptPath      string `json:"scriptPath"`
}

// UnmarshalJSON tolerates an input that is not an object.
func (in *input) UnmarshalJSON(data []byte) error {
	if len(data) == 0 || data[0] != '{' {
		return nil
	}
	type plain input
	var p plain
	_ = json.Unmarshal(data, &p) // type mismatches leave the field empty
	*in = input(p)
	return nil
}

// content is a string or a list of blocks (message.content, tool_result content,
// queue-operation content).
type content struct {
	present  bool
	isString bool
	// probes answers textProbes for text(), as it stands after the value
	// (and any earlier duplicate key) is decoded (probes.go).
	probes uint8
	str    string
	blocks []block
}

// UnmarshalJSON accepts a string, an array of blocks, or anything else (ignored).
func (c *content) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || bytes.Equal(data, []byte("null")) {
		return nil
	}
	c.present = true
	defer func() { c.probes = textProbes(c.text()) }()
	switch data[0] {
	case '"':
		c.isString = true
		_ = json.Unmarshal(data, &c.str)
	case '[':
		var raw []json.RawMessage
		if json.Unmarshal(data, &raw) != nil {
			return nil
		}
		c.blocks = make([]block, 0, len(raw))
		for _, r := range raw {
			var b block
			if len(r) > 0 && r[0] == '{' {
				_ = json.Unmarshal(r, &b)
			} else if len(r) > 0 && r[0] == '"' {
				// A bare string in a block list: treat it as text.
				b.Type = "text"
				_ = json.Unmarshal(r, &b.Text)
			}
			c.blocks = append(c.blocks, b)
		}
	}
	return nil
}

// text joins the content's text: the string itself, or the text blocks.
func (c *content) text() string {
	if c.isString {
		return c.str
	}
	var parts []string
	for _, b := range c.blocks {
		if b.Type == "text" && b.Text != "" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// toolUseResult is the structured result on a tool_result row: an object, or a
// plain string for errors and rejections.
type toolUseResult struct {
	present          bool
	str              string
	Status           string `json:"status"`
	AgentID          string `json:"agentId"`
	IsAsync          bool   `json:"isAsync"`
	RunID            string `json:"runId"`
	TaskID           string `json:"taskId"`
	BackgroundTaskID string `json:"backgroundTaskId"`
	Interrupted      bool   `json:"interrupted"`
}

// UnmarshalJSON accepts an object or a string.
func (t *toolUseResult) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || bytes.Equal(data, []byte("null")) {
		return nil
	}
	switch data[0] {
	case '"':
		t.present = true
		_ = json.Unmarshal(data, &t.str)
	case '{':
		type plain struct {
			Status           looseString `json:"status"`
			AgentID          looseString `json:"agentId"`
			IsAsync          bool        `json:"isAsync"`
			RunID            looseString `json:"runId"`
			TaskID           looseString `json:"taskId"`
			BackgroundTaskID looseString `json:"backgroundTaskId"`
			Interrupted      bool        `json:"interrupted"`
		}
		var p plain
		_ = json.Unmarshal(data, &p)
		t.present = true
		t.Status, t.AgentID, t.IsAsync = string(p.Status), string(p.AgentID), p.IsAsync
		t.RunID, t.TaskID, t.BackgroundTaskID = string(p.RunID), string(p.TaskID), string(p.BackgroundTaskID)
		t.Interrupted = p.Interrupted
	}
	return nil
}

// looseString is a string field that tolerates other JSON types (numbers where
// strings belong are written as their JSON text; objects are ignored).
type looseString string

// UnmarshalJSON never fails.
func (s *looseString) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil
	}
	switch data[0] {
	case '"':
		var v string
		if json.Unmarshal(data, &v) == nil {
			*s = looseString(v)
		}
	case '{', '[', 'n':
	default:
		*s = looseString(data)
	}
	return nil
}
