package rules

// fieldDocs describes, for people writing rules, each field of the facts in
// analyze/model/facts.go. A key is "kind.field" or, for a field that means
// the same in every kind, "field". A test fails when a fact gains a field
// that is not described here, so docs/rules.md never lags behind the model.
var fieldDocs = map[string]string{
	"at":     "the evidence: `at.File`, `at.Line`, `at.Time`",
	"time":   "the fact's simulated time (UTC)",
	"run_id": "the id of the run the fact belongs to",

	"run.kind":      "`session` or `workflow`",
	"run.id":        "the session id, or the Workflow run id",
	"run.path":      "the main transcript (sessions) or the run directory (workflows), relative to the root",
	"run.agents":    "how many agent transcripts the run has",
	"run.attempts":  "how many Workflow attempts the journal started (0 for sessions)",
	"run.verdict":   "the replayed watcher's DONE verdict (workflows; empty for sessions)",
	"run.start":     "the run's first simulated time",
	"run.end":       "the run's last simulated time",
	"run.segments":  "the number of resume segments (decoded segment marks + 1)",
	"run.malformed": "malformed lines over every file of the run",
	"run.shipped":   "the run pushed or merged, or its branch is the branch under check",
	"run.branch":    "the git branch the run worked on, when known",
	"run.title":     "the session's own name: its custom title (`/rename`), else its first prompt (at most 80 characters; empty for workflows)",

	"run.source":             "what the run was read from: `sdk-stream`, or `sdk-stream+session-files` when the runner's session transcripts were joined to it; empty for session files",
	"run.stream_format":      "`json-array` (the GitHub action's execution file) or `jsonl` (`claude -p --output-format stream-json`); empty for session files",
	"run.ending":             "how the run ended, as the stream's result message says: `completed`, `max-turns`, `interrupted`, `api-error`, `failed` or `no-result`; empty for session files",
	"run.ending_detail":      "the result's subtype and terminal_reason behind `ending`",
	"run.permission_denials": "how many tool calls the result lists in permission_denials",
	"run.runtime_counted":    "the result carries the runtime's own subagent_stats",
	"run.counts_disagree":    "each subagent count (spawned, completed, failed, killed, refused, spawned by subagents, max depth, by type) where the runtime's subagent_stats differ from what the messages show, with both numbers",
	"run.reasons":            "the rows behind the stream's fields: the format read, the result, the counts compared",

	"attempt.key":               "the journal key of the agent",
	"attempt.agent":             "the agent's display name, as reports show it",
	"attempt.agent_id":          "the attempt's agent id (`agent-<id>.jsonl`)",
	"attempt.ordinal":           "1 for the key's first attempt, 2 for its first retry, …",
	"attempt.outcome":           "`completed`, `failed`, `killed`, `open`, or `orphan-result` (a journal result or failed line that closed no attempt)",
	"attempt.never_returned":    "the key's last attempt is still open: the agent never returned a result",
	"attempt.silence_seconds":   "the silence before the kill, as watch's KILL line reports it; -1 when unknown",
	"attempt.superseded_by":     "the ordinal of the retry that replaced this attempt; 0 when none",
	"attempt.failure_cause":     "why a failed attempt failed, when known",
	"attempt.false_done":        "reported completed, but the transcript ends in an API error, a usage limit or an interruption",
	"attempt.commits_reported":  "how many commit commands reported success",
	"attempt.reviewed":          "review evidence was found for this attempt's work",
	"attempt.on_shipped_branch": "a shipped branch carries this attempt's commits or paths",

	"subagent.tool_use_id":        "the id of the Agent/Task call in the parent transcript",
	"subagent.description":        "the call's description, as the parent wrote it",
	"subagent.mode":               "`sync` (foreground) or `async` (run in the background)",
	"subagent.agent_id":           "the child agent's id, when it could be linked",
	"subagent.outcome":            "`completed`, `killed`, `failed`, `stopped`, `terminated-early`, `unknown`, `rejected`, `launched-never-returned` or `open-at-end`",
	"subagent.signature":          "`A` (killed synchronous subagent), `B` (killed asynchronous subagent) or empty",
	"subagent.rule":               "which detector rule matched, e.g. `A:prefix-anchored`, `B:queue-balance`, `B:user-row`",
	"subagent.segment":            "the 1-based resume segment the call belongs to",
	"subagent.in_last_segment":    "the call is in the newest resume segment",
	"subagent.killed":             "the subagent was killed (Signature A or B)",
	"subagent.reviewed":           "review evidence was found for this subagent's work",
	"subagent.false_done":         "status completed, but the child transcript ends in an API error, a usage limit or an interruption",
	"subagent.on_shipped_branch":  "a shipped branch carries this subagent's commits or paths",
	"subagent.shipped_after_kill": "a ship action ran after the subagent was killed",

	"review_evidence": "what counted as review: a commit trailer, a review file, a later review subagent",
	"paths":           "the paths the agent wrote (Write, Edit, MultiEdit, NotebookEdit and obvious shell writes)",
	"paths_partial":   "a shell command may have written files that `paths` does not list",
	"commits":         "the ids of the commits the agent made, where `git commit` reported them",
	"commits_unknown": "a commit ran but reported no id, so `commits` may be incomplete",
	"branch_matches":  "which commits (`commit <id>`) or paths (`path <path>`) of the branch under check made `on_shipped_branch` true",
	"end":             "when the agent's end became visible (result, notification, kill or closing journal line; else its last write)",
	"reasons":         "the rows behind the outcome, in order: each `what` the row showed and `at` where it is",

	"ship.kind":               "`push`, `merge`, `deploy`, `release` or `publish`; `ship` for a command not proven harmless that names none of them (always `possible`, and listed only while a killed subagent is outstanding)",
	"ship.command":            "the command line (Bash) or the tool input that shipped",
	"ship.tool":               "`Bash`, or the MCP tool's name",
	"ship.branch":             "the branch shipped, when the command names it (empty for a tag push)",
	"ship.ref_kind":           "what a push updates: `branch` or `tag` (`--tags`, `refs/tags/…`, `tag NAME`, a version-like name such as `v1.2.3`); empty for other kinds",
	"ship.tag":                "the tag a tag push updates (`--tags` for all tags)",
	"ship.possible":           "the action could not be ruled out: a program or git subcommand computed at run time (`$(echo git) push`), a git run by `xargs` with its subcommand on standard input, a command nested deeper than four `bash -c` levels or one that does not parse, naming a ship verb; or (kind `ship`) any command not proven harmless, run while a killed subagent was outstanding",
	"ship.outstanding_killed": "the descriptions of the unreviewed killed subagents outstanding when the action ran (at most 20; `outstanding_count` counts them all)",
	"ship.outstanding_count":  "how many unreviewed killed subagents were outstanding when the action ran",
	"ship.outstanding":        "at least one unreviewed killed subagent was outstanding when the action ran",

	"commit.sha":                 "the commit's full id",
	"commit.short":               "the commit's id, abbreviated to 12 characters",
	"commit.subject":             "the commit's subject line",
	"commit.author":              "the author, `Name <email>`",
	"commit.author_email":        "the author's email",
	"commit.committer":           "the committer, `Name <email>`",
	"commit.committer_email":     "the committer's email",
	"commit.checkpoints":         "the ids its `Entire-Checkpoint:` trailers name",
	"commit.checkpoints_missing": "the checkpoint ids that cannot be read (not pushed, not fetched, a transcript object absent, a malformed id)",
	"commit.checkpoint_problems": "why each missing checkpoint cannot be read: `<id>: <why>`",
	"commit.sessions":            "the values of its `Claude-Session:` trailers",
	"commit.runs":                "the ids of the runs in the input linked to it",
	"commit.links":               "each link to a run: `run`, `run_path`, `by` (`entire-checkpoint`, `claude-session`, `git-operation`, `commit-line`) and `at`",
	"commit.agent_trailer":       "a trailer (`Entire-Checkpoint`, `Claude-Session`) says an agent session made it",
	"commit.by_agent":            "a trailer or a link says an agent made it",
	"commit.in_head":             "the head of the range under check carries it (always true: with a range, shipped means in the pull request's head)",

	"watchdog.source":          "`watch`, `progresswatch`, `harness` or `workflow-runtime`",
	"watchdog.kind":            "the event: e.g. `QUIET`, `KILL`, `stall`, `sigkill`, `inactivity-timeout`, `retry`, `mismatch`",
	"watchdog.agent":           "the agent the event is about",
	"watchdog.silence_seconds": "the silence at the event; -1 when not applicable",
	"watchdog.predicted":       "on `mismatch`: the kill the replayed watchdog predicted (empty: none)",
	"watchdog.observed":        "on `mismatch`: the kill the files show (empty: none)",
	"watchdog.message":         "the line the watcher would have printed",
}

// FieldDoc returns the description of a fact field, or "".
func fieldDoc(kind, name string) string {
	if d, ok := fieldDocs[kind+"."+name]; ok {
		return d
	}
	return fieldDocs[name]
}
