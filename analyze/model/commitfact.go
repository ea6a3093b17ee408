package model

// FactCommit is the fact kind of a commit of the range under check
// (`pmcheck check --commits BASE..HEAD`).
const FactCommit = "commit"

// KindRange is the run kind the commit facts are evaluated under: they
// belong to the range, not to a run.
const KindRange = "range"

// CommitFact is one commit of the range under check: who made it, which
// runs made it (and what evidence says so), and the Entire checkpoints it
// names.
type CommitFact struct {
	SHA     string `json:"sha" expr:"sha"`
	Short   string `json:"short" expr:"short"`
	Subject string `json:"subject" expr:"subject"`
	// Author and Committer are "Name <email>".
	Author         string `json:"author" expr:"author"`
	AuthorEmail    string `json:"author_email" expr:"author_email"`
	Committer      string `json:"committer" expr:"committer"`
	CommitterEmail string `json:"committer_email" expr:"committer_email"`
	// Checkpoints are the ids of its Entire-Checkpoint trailers;
	// CheckpointsMissing those that cannot be read, with why in
	// CheckpointProblems ("<id>: <why>").
	Checkpoints        []string `json:"checkpoints" expr:"checkpoints"`
	CheckpointsMissing []string `json:"checkpoints_missing" expr:"checkpoints_missing"`
	CheckpointProblems []string `json:"checkpoint_problems" expr:"checkpoint_problems"`
	// Sessions are the values of its Claude-Session trailers.
	Sessions []string `json:"sessions" expr:"sessions"`
	// Runs are the ids of the runs in the input linked to it; Links say by
	// what evidence.
	Runs  []string     `json:"runs" expr:"runs"`
	Links []CommitLink `json:"links" expr:"links"`
	// AgentTrailer: a trailer says an agent session made it
	// (Entire-Checkpoint, Claude-Session).
	AgentTrailer bool `json:"agent_trailer" expr:"agent_trailer"`
	// ByAgent: a trailer or a link says an agent made it.
	ByAgent bool `json:"by_agent" expr:"by_agent"`
	// InHead: the head of the range carries it (true for every commit of
	// the range: with a range, "shipped" means "in the pull request's head").
	InHead bool     `json:"in_head" expr:"in_head"`
	At     Evidence `json:"at" expr:"at"`
}

// CommitLink is one piece of evidence that a run made a commit.
type CommitLink struct {
	Run     string `json:"run" expr:"run"`
	RunPath string `json:"run_path" expr:"run_path"`
	// By is the evidence: entire-checkpoint, claude-session, git-operation,
	// commit-line.
	By string   `json:"by" expr:"by"`
	At Evidence `json:"at" expr:"at"`
}

// Commit link evidence.
const (
	LinkCheckpoint   = "entire-checkpoint"
	LinkSession      = "claude-session"
	LinkGitOperation = "git-operation"
	LinkCommitLine   = "commit-line"
)
