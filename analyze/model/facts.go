package model

import "time"

// Facts are what the rules see: one typed struct per fact kind.
// Field names are part of the rule language (expr conditions and message
// templates compile against these structs), so renaming one is a breaking change
// for users' rule files: add fields, do not rename them.
//
// Every fact carries its Evidence and, where it has one, its simulated time.

// Fact kinds, as rules name them in `select:`.
const (
	FactRun      = "run"
	FactAttempt  = "attempt"
	FactSubagent = "subagent"
	FactShip     = "ship"
	FactWatchdog = "watchdog"
)

// Facts is everything the detectors and the replay derived for one run.
type Facts struct {
	Run       RunFact        `json:"run"`
	Attempts  []AttemptFact  `json:"attempts"`
	Subagents []SubagentFact `json:"subagents"`
	Ships     []ShipFact     `json:"ships"`
	Watchdogs []WatchdogFact `json:"watchdogs"`
	// Commits are the commit facts of a range (only in the facts of kind
	// KindRange, which hold nothing else).
	Commits []CommitFact `json:"commits,omitempty"`
}

// RunFact describes a whole run.
type RunFact struct {
	Kind     string `json:"kind" expr:"kind"`
	ID       string `json:"id" expr:"id"`
	Path     string `json:"path" expr:"path"`
	Agents   int    `json:"agents" expr:"agents"`
	Attempts int    `json:"attempts" expr:"attempts"`
	// Verdict is the DONE verdict of the replay for workflows ("" for sessions).
	Verdict string    `json:"verdict" expr:"verdict"`
	Start   time.Time `json:"start,omitzero" expr:"start"`
	End     time.Time `json:"end,omitzero" expr:"end"`
	// Segments is the number of resume segments (segment marks + 1).
	Segments int `json:"segments" expr:"segments"`
	// Malformed counts malformed lines over every file of the run.
	Malformed int `json:"malformed" expr:"malformed"`
	// Shipped is true when the run pushed or merged, or the branch is under check.
	Shipped bool     `json:"shipped" expr:"shipped"`
	Branch  string   `json:"branch" expr:"branch"`
	At      Evidence `json:"at" expr:"at"`

	// The fields below are set for a run read from an Agent SDK message
	// stream (runtime_facts.go in package analyze); empty for session files.

	// Source is what the run was read from: "sdk-stream", or
	// "sdk-stream+session-files" when the runner's session transcripts of
	// the same session were read with it; StreamFormat is "json-array"
	// (the action's execution file) or "jsonl" (stream-json output).
	Source       string `json:"source,omitempty" expr:"source"`
	StreamFormat string `json:"stream_format,omitempty" expr:"stream_format"`
	// Ending is how the run itself ended, as its result message says
	// (package interpret decides): completed | max-turns | interrupted |
	// api-error | failed | no-result. EndingDetail quotes the result's
	// subtype and terminal_reason.
	Ending       string `json:"ending,omitempty" expr:"ending"`
	EndingDetail string `json:"ending_detail,omitempty" expr:"ending_detail"`
	// PermissionDenials counts the result's permission_denials.
	PermissionDenials int `json:"permission_denials,omitempty" expr:"permission_denials"`
	// RuntimeCounted is set when the result carries the runtime's own
	// subagent_stats; CountsDisagree then lists each count where it
	// differs from what pmcheck derived from the messages, with both
	// numbers ("completed: the runtime counted 3, the messages show 2").
	RuntimeCounted bool     `json:"runtime_counted,omitempty" expr:"runtime_counted"`
	CountsDisagree []string `json:"counts_disagree,omitempty" expr:"counts_disagree"`
	// RuntimeStats and DerivedStats are the two sets of counts compared
	// (DerivedStats fills what the messages can tell).
	// (not in reports: CountsDisagree and Reasons carry the numbers).
	RuntimeStats *SubagentStats `json:"-"`
	DerivedStats *SubagentStats `json:"-"`
	// Reasons are the rows behind the fields above.
	Reasons []Reason `json:"reasons,omitempty" expr:"reasons"`
	// Title is the session's own name (Transcript.Title): its custom
	// title, else its first prompt; "" for workflows.
	Title string `json:"title,omitempty" expr:"title"`
}

// AttemptFact is one Workflow agent attempt.
type AttemptFact struct {
	RunID   string `json:"run_id" expr:"run_id"`
	Key     string `json:"key" expr:"key"`
	Agent   string `json:"agent" expr:"agent"` // display name used in reports
	AgentID string `json:"agent_id" expr:"agent_id"`
	Ordinal int    `json:"ordinal" expr:"ordinal"`
	// Outcome: completed | failed | killed | open.
	Outcome string `json:"outcome" expr:"outcome"`
	// NeverReturned is true when this is the key's last attempt and it is open.
	NeverReturned bool `json:"never_returned" expr:"never_returned"`
	// SilenceSeconds before the kill (KILL), -1 when unknown.
	SilenceSeconds float64 `json:"silence_seconds" expr:"silence_seconds"`
	SupersededBy   int     `json:"superseded_by" expr:"superseded_by"`
	FailureCause   string  `json:"failure_cause" expr:"failure_cause"`
	// FalseDone: reported completed, but the transcript ends in an API error,
	// usage limit or interruption.
	FalseDone    bool     `json:"false_done" expr:"false_done"`
	Paths        []string `json:"paths" expr:"paths"`
	PathsPartial bool     `json:"paths_partial" expr:"paths_partial"`
	Commits      []string `json:"commits" expr:"commits"`
	// CommitsReported counts commit commands that reported success; CommitsUnknown
	// is true when a commit ran but reported no id.
	CommitsReported int      `json:"commits_reported" expr:"commits_reported"`
	CommitsUnknown  bool     `json:"commits_unknown" expr:"commits_unknown"`
	Reviewed        bool     `json:"reviewed" expr:"reviewed"`
	ReviewEvidence  []string `json:"review_evidence" expr:"review_evidence"`
	// OnShippedBranch: a shipped branch carries this attempt's commits or paths.
	OnShippedBranch bool `json:"on_shipped_branch" expr:"on_shipped_branch"`
	// BranchMatches says which commit or path of the branch under check made
	// OnShippedBranch true ("commit <id>", "path <ledger path>").
	BranchMatches []string  `json:"branch_matches" expr:"branch_matches"`
	Time          time.Time `json:"time,omitzero" expr:"time"`
	// End is when the attempt's end became visible: its closing journal line,
	// else its transcript's last row (zero when unknown).
	End time.Time `json:"end,omitzero" expr:"end"`
	// Reasons are the rows behind the outcome, in the order they were read.
	Reasons []Reason `json:"reasons" expr:"reasons"`
	At      Evidence `json:"at" expr:"at"`
}

// Killed reports whether the attempt was killed: its outcome, decided by
// interpret.AttemptOutcome, is killed (the report, the timeline and
// explain read it here rather than comparing outcome words).
func (a *AttemptFact) Killed() bool { return a.Outcome == OutcomeKilled }

// SubagentFact is one Agent/Task call of a session.
type SubagentFact struct {
	RunID       string `json:"run_id" expr:"run_id"`
	ToolUseID   string `json:"tool_use_id" expr:"tool_use_id"`
	Description string `json:"description" expr:"description"`
	Mode        string `json:"mode" expr:"mode"` // sync | async
	AgentID     string `json:"agent_id" expr:"agent_id"`
	// Outcome: completed | killed | failed | stopped | terminated-early | unknown | rejected | launched-never-returned | open-at-end (package interpret decides).
	Outcome string `json:"outcome" expr:"outcome"`
	// Signature: "A", "B" or "" (none).
	Signature string `json:"signature" expr:"signature"`
	// Rule names the detector rule that matched (e.g. "A:prefix-anchored",
	// "B:queue-balance", "B:user-row").
	Rule string `json:"rule" expr:"rule"`
	// Segment is the 1-based resume segment the call belongs to.
	Segment         int      `json:"segment" expr:"segment"`
	InLastSegment   bool     `json:"in_last_segment" expr:"in_last_segment"`
	Killed          bool     `json:"killed" expr:"killed"`
	Reviewed        bool     `json:"reviewed" expr:"reviewed"`
	ReviewEvidence  []string `json:"review_evidence" expr:"review_evidence"`
	FalseDone       bool     `json:"false_done" expr:"false_done"`
	Paths           []string `json:"paths" expr:"paths"`
	PathsPartial    bool     `json:"paths_partial" expr:"paths_partial"`
	Commits         []string `json:"commits" expr:"commits"`
	CommitsUnknown  bool     `json:"commits_unknown" expr:"commits_unknown"`
	OnShippedBranch bool     `json:"on_shipped_branch" expr:"on_shipped_branch"`
	// ShippedAfterKill: a ship action ran after this subagent was killed.
	ShippedAfterKill bool `json:"shipped_after_kill" expr:"shipped_after_kill"`
	// BranchMatches says which commit or path of the branch under check made
	// OnShippedBranch true ("commit <id>", "path <ledger path>").
	BranchMatches []string  `json:"branch_matches" expr:"branch_matches"`
	Time          time.Time `json:"time,omitzero" expr:"time"`
	// End is when the subagent's end became visible: its result, its last
	// notification or the kill, else its transcript's last row (zero when
	// unknown).
	End time.Time `json:"end,omitzero" expr:"end"`
	// Reasons are the rows behind the outcome, in the order they were read.
	Reasons []Reason `json:"reasons" expr:"reasons"`
	At      Evidence `json:"at" expr:"at"`
}

// ShipFact is one ship action (push, merge, deploy, release, publish).
type ShipFact struct {
	RunID   string `json:"run_id" expr:"run_id"`
	Kind    string `json:"kind" expr:"kind"` // push | merge | deploy | release | publish
	Command string `json:"command" expr:"command"`
	Tool    string `json:"tool" expr:"tool"` // Bash or the MCP tool name
	Branch  string `json:"branch" expr:"branch"`
	// RefKind is what a push updates: "branch" or "tag" ("" for other
	// kinds); Tag names the tag ("--tags" for all of them).
	RefKind string `json:"ref_kind" expr:"ref_kind"`
	Tag     string `json:"tag" expr:"tag"`
	// Possible is true for an action that could not be ruled out (a program
	// or git subcommand computed at run time, a git alias run by xargs, a
	// command too deeply nested or unparseable that names a ship verb).
	Possible bool `json:"possible" expr:"possible"`
	// OutstandingKilled lists the descriptions of unreviewed killed subagents
	// outstanding when the action ran.
	// It lists at most ListLimit names; OutstandingCount counts them all.
	OutstandingKilled []string  `json:"outstanding_killed" expr:"outstanding_killed"`
	OutstandingCount  int       `json:"outstanding_count" expr:"outstanding_count"`
	Outstanding       bool      `json:"outstanding" expr:"outstanding"`
	Time              time.Time `json:"time,omitzero" expr:"time"`
	At                Evidence  `json:"at" expr:"at"`
}

// WatchdogFact is one event of a replayed watcher or watchdog.
type WatchdogFact struct {
	RunID  string `json:"run_id" expr:"run_id"`
	Source string `json:"source" expr:"source"` // watch | progresswatch | harness | workflow-runtime
	Kind   string `json:"kind" expr:"kind"`     // e.g. QUIET, KILL, stall, sigkill, inactivity-timeout, retry, mismatch
	Agent  string `json:"agent" expr:"agent"`
	// SilenceSeconds at the event, -1 when not applicable.
	SilenceSeconds float64 `json:"silence_seconds" expr:"silence_seconds"`
	// Predicted / Observed are set on mismatch facts (predicted vs observed kill).
	Predicted string    `json:"predicted" expr:"predicted"`
	Observed  string    `json:"observed" expr:"observed"`
	Message   string    `json:"message" expr:"message"`
	Time      time.Time `json:"time,omitzero" expr:"time"`
	At        Evidence  `json:"at" expr:"at"`
}

// Reason is one row behind a decision about a fact: what the row showed
// ("spawned", "result", "notification: killed", "Signature A", "review
// subagent", "journal started", …) and where it is.
type Reason struct {
	What string   `json:"what" expr:"what"`
	At   Evidence `json:"at" expr:"at"`
}
