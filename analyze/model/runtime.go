package model

// Runtime is what an Agent SDK message stream (the GitHub action's
// execution_file, `claude -p --output-format stream-json`) says of its run
// beyond the messages: the init message and the final result, the
// runtime's own account of the run. Session files carry none of it.
type Runtime struct {
	// File is the stream (evidence path); Format is "json-array" or "jsonl".
	File   string `json:"file"`
	Format string `json:"format"`
	// Messages counts the stream's messages (array elements or lines).
	Messages int `json:"messages"`
	// Init is the system/init message (nil when the stream has none).
	Init *RuntimeInit `json:"init,omitempty"`
	// Result is the final result message (nil when the stream ends without
	// one: the job was cancelled, the process died). Results are all of
	// them, one per turn, in order (the first 1,000).
	Result  *RuntimeResult   `json:"result,omitempty"`
	Results []*RuntimeResult `json:"-"`
	// Tasks are the task_started rows, in stream order.
	Tasks []RuntimeTask `json:"tasks,omitempty"`
	// SessionFiles lists the session transcripts of the same session_id
	// that were read with the stream (joined into one run), and
	// Disagreements what the two sides disagree about.
	SessionFiles  []string  `json:"session_files,omitempty"`
	Disagreements []Problem `json:"disagreements,omitempty"`
}

// RuntimeInit is the system/init message.
type RuntimeInit struct {
	At             Evidence `json:"at"`
	SessionID      string   `json:"session_id,omitempty"`
	Version        string   `json:"claude_code_version,omitempty"`
	Cwd            string   `json:"cwd,omitempty"`
	Model          string   `json:"model,omitempty"`
	PermissionMode string   `json:"permission_mode,omitempty"`
}

// RuntimeResult is the final result message.
type RuntimeResult struct {
	At             Evidence `json:"at"`
	Subtype        string   `json:"subtype,omitempty"`
	IsError        bool     `json:"is_error"`
	TerminalReason string   `json:"terminal_reason,omitempty"`
	NumTurns       int      `json:"num_turns"`
	DurationMS     int64    `json:"duration_ms"`
	APIErrorStatus string   `json:"api_error_status,omitempty"`
	// Errors are the result's errors list (error subtypes), capped.
	Errors            []string           `json:"errors,omitempty"`
	PermissionDenials []PermissionDenial `json:"permission_denials,omitempty"`
	// SubagentStats is nil when the result carries none (CLIs before it
	// was added).
	SubagentStats *SubagentStats `json:"subagent_stats,omitempty"`
}

// PermissionDenial is one entry of result.permission_denials.
type PermissionDenial struct {
	Tool      string `json:"tool_name"`
	ToolUseID string `json:"tool_use_id"`
}

// SubagentStats is result.subagent_stats: the runtime's own count of the
// subagents it ran.
type SubagentStats struct {
	Spawned   int `json:"spawned"`
	Requested struct {
		Background int `json:"background"`
		Foreground int `json:"foreground"`
		Unset      int `json:"unset"`
	} `json:"requested"`
	StartedInBackground int `json:"started_in_background"`
	MaxDepth            int `json:"max_depth"`
	SpawnedBySubagents  int `json:"spawned_by_subagents"`
	Completed           int `json:"completed"`
	Failed              int `json:"failed"`
	Killed              struct {
		Parent int `json:"parent"`
		User   int `json:"user"`
		System int `json:"system"`
	} `json:"killed"`
	Refused struct {
		DepthLimit       int `json:"depth_limit"`
		ConcurrencyLimit int `json:"concurrency_limit"`
		Budget           int `json:"budget"`
	} `json:"refused"`
	ByType map[string]int `json:"by_type"`
}

// Add adds o's counts to s (by_type too).
func (s *SubagentStats) Add(o *SubagentStats) {
	s.Spawned += o.Spawned
	s.Requested.Background += o.Requested.Background
	s.Requested.Foreground += o.Requested.Foreground
	s.Requested.Unset += o.Requested.Unset
	s.StartedInBackground += o.StartedInBackground
	s.MaxDepth = max(s.MaxDepth, o.MaxDepth)
	s.SpawnedBySubagents += o.SpawnedBySubagents
	s.Completed += o.Completed
	s.Failed += o.Failed
	s.Killed.Parent += o.Killed.Parent
	s.Killed.User += o.Killed.User
	s.Killed.System += o.Killed.System
	s.Refused.DepthLimit += o.Refused.DepthLimit
	s.Refused.ConcurrencyLimit += o.Refused.ConcurrencyLimit
	s.Refused.Budget += o.Refused.Budget
	if o.ByType != nil {
		if s.ByType == nil {
			s.ByType = map[string]int{}
		}
		for k, v := range o.ByType {
			s.ByType[k] += v
		}
	}
}

// KilledTotal is killed.parent + killed.user + killed.system.
func (s *SubagentStats) KilledTotal() int { return s.Killed.Parent + s.Killed.User + s.Killed.System }

// RefusedTotal is the sum of refused's reasons.
func (s *SubagentStats) RefusedTotal() int {
	return s.Refused.DepthLimit + s.Refused.ConcurrencyLimit + s.Refused.Budget
}

// RuntimeTask is one task_started row.
type RuntimeTask struct {
	At          Evidence `json:"at"`
	TaskID      string   `json:"task_id"`
	ToolUseID   string   `json:"tool_use_id,omitempty"`
	TaskType    string   `json:"task_type,omitempty"`
	Description string   `json:"description,omitempty"`
	// Status is the last status a task_updated or task_notification gave
	// a foreground agent's task (a background agent's end is a
	// Notification of the transcript that holds its call).
	Status string `json:"status,omitempty"`
}

// Notification sources of an SDK stream: a system task_notification
// message, and a task_updated message with a final status (the session
// files' are "user-row" and "queue-<operation>").
const (
	SourceSDKNotification = "sdk-task_notification"
	SourceSDKUpdate       = "sdk-task_updated"
)
