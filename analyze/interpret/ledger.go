package interpret

import (
	"path"
	"sort"
	"strings"

	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/internal/lazyre"
)

// Ledger is the work one transcript (an attempt or a subagent) left behind.
type Ledger struct {
	// Paths written, relative to the transcript's cwd when under it, sorted.
	Paths []string `json:"paths"`
	// Partial is true when a shell command may have written files that Paths
	// does not list.
	Partial bool `json:"partial"`
	// Commits are the commit ids `git commit` reported, in order.
	Commits []string `json:"commits"`
	// CommitCommands counts `git commit` invocations that did not fail.
	CommitCommands int `json:"commit_commands"`
	// CommitsUnknown is true when a commit ran but reported no id.
	CommitsUnknown bool `json:"commits_unknown"`
}

// CommitsWithoutID counts the commit commands that succeeded but reported
// no id, beyond the ids reported (replay's KILL line then says "reported
// N+ commits", or "commit count unknown").
func (l Ledger) CommitsWithoutID() int { return max(l.CommitCommands-len(l.Commits), 0) }

// fileWriters are the tools whose file_path (notebook_path) is written.
var fileWriters = map[string]bool{"Write": true, "Edit": true, "MultiEdit": true, "NotebookEdit": true}

// WritesFile reports whether a tool writes the file its file_path (or
// notebook_path) names: the calls the ledger counts besides shell commands.
func WritesFile(tool string) bool { return fileWriters[tool] }

// commitLine matches git's summary line "[branch (root-commit) abc1234] subject".
var commitLine = lazyre.New(`(?m)^\[[^\]\n]* ([0-9a-f]{7,40})\] `)

// LedgerOf builds the ledger of t: the paths its file-writing calls and
// shell commands wrote, and the commits its shell commands made. A
// file-writing call whose result is an error wrote nothing; one with no
// result (cut off mid-call) counts as written. classify reads a Bash call's
// command (what it writes and commits): the detectors pass their
// classification of the run's commands (detect.ShellReader), so that the
// facts, the gate and replay's KILL line count the same work.
func LedgerOf(t *model.Transcript, classify func(*model.ToolCall) model.ShellAnalysis) Ledger {
	l := Ledger{Paths: []string{}, Commits: []string{}}
	if t == nil {
		return l
	}
	paths := map[string]bool{}
	add := func(p string) {
		if p = relTo(t.Cwd, p); p != "" {
			paths[p] = true
		}
	}
	for _, c := range t.ToolCalls {
		switch {
		case WritesFile(c.Name()):
			if c.Result != nil && c.Result.IsError() {
				continue
			}
			if c.FilePath() == "" {
				l.Partial = true
				continue
			}
			add(c.FilePath())
		case c.Name() == "Bash":
			a := classify(c)
			for _, w := range a.Writes {
				add(w)
			}
			if a.MayWrite || c.CommandCut() {
				l.Partial = true
			}
			if a.Commits > 0 {
				var ids []string
				text := ""
				if c.Result != nil {
					text = c.Result.Text
				}
				ids = appendCommitIDs(ids, text)
				l.Commits = append(l.Commits, ids...)
				failed := c.Result != nil && c.Result.IsError()
				if len(ids) > 0 {
					l.CommitCommands += a.Commits
				} else if !failed {
					// No result (cut off), or output that names no commit:
					// something may have been committed.
					l.CommitCommands += a.Commits
					l.CommitsUnknown = true
				}
			}
		}
	}
	for p := range paths {
		l.Paths = append(l.Paths, p)
	}
	sort.Strings(l.Paths)
	return l
}

// relTo makes p relative to cwd when it lies under it; other paths are kept
// as written, cleaned.
func relTo(cwd, p string) string {
	p = strings.TrimSpace(p)
	if p == "" {
		return ""
	}
	p = path.Clean(strings.ReplaceAll(p, `\`, "/"))
	if cwd != "" {
		cwd = path.Clean(strings.ReplaceAll(cwd, `\`, "/"))
		if strings.HasPrefix(p, cwd+"/") {
			return p[len(cwd)+1:]
		}
	}
	return p
}

// CommitIDsIn lists the commit ids of the summary lines `git commit` printed
// in a tool result ("[branch abc1234] subject"): the ledger's reading, for
// the commit ↔ run links of a range check.
func CommitIDsIn(text string) []string { return appendCommitIDs(nil, text) }

func appendCommitIDs(ids []string, text string) []string {
	for _, m := range commitLine().FindAllStringSubmatch(text, -1) {
		ids = append(ids, m[1])
	}
	return ids
}

// NoOwnTranscript is the reason SubagentLedger gives for a subagent whose
// work is unknown because its transcript is not in the input.
const NoOwnTranscript = "no transcript of its own in the input: its work is known only from the parent's rows"

// SubagentLedger is the ledger of a subagent's work: its transcript's
// (LedgerOf). Where a subagent without a transcript of its own in the input
// cannot be taken to have done nothing (unreadIsUnknown: a check of a
// commit range, whose commits its work may be), its ledger is partial with
// its commits unknown, and the reason (NoOwnTranscript) is returned; a
// rejected call ran nothing either way.
func SubagentLedger(sc *model.SubagentCall, outcome string, classify func(*model.ToolCall) model.ShellAnalysis, unreadIsUnknown bool) (Ledger, string) {
	l := LedgerOf(sc.Child, classify)
	if sc.Child == nil && unreadIsUnknown && outcome != OutcomeRejected {
		l.Partial, l.CommitsUnknown = true, true
		return l, NoOwnTranscript
	}
	return l, ""
}
