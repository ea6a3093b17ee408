package ship

import "strings"

// Output is how much of a shell command's output pmcheck may read after the
// command ran, and so how much of it a transcript reader keeps (the reader
// maps each to one of the model's caps). It is this package's decision
// because only the classifier knows which commands commit: the ledgers read
// a result's text for the commit ids `git commit` prints ("[main 1a2b3c4]
// subject"), and only when the analysis, with the run's git aliases, counts
// a commit (detect.LedgerOf).
type Output uint8

const (
	// OutputNone: nothing reads the output; its length and flags suffice.
	OutputNone Output = iota
	// OutputSliver: a command with quotes or backslashes that does not
	// name git even with them removed. Nothing known reads its output; a
	// sliver is kept as it was before this decision moved here, for
	// quoting the textual rule does not see through.
	OutputSliver
	// OutputHead: a command that may print a commit id or other git or gh
	// output: the head of its output is kept.
	OutputHead
)

// OutputOf decides how much of a Bash command's output to keep. a is the
// analysis Classify made of command without a run's git aliases (a
// transcript reader's, ToolCall.ShellClass), or nil when none was made.
//
// A command a counts a commit in, or that runs a git subcommand a run's
// alias could define (GitNotBuiltin: the alias may commit; Reuse), keeps
// the head. So does, analysed or not, a command whose text names git or
// "gh " once its quotes, backslashes, line continuations and NUL bytes
// are removed (g'i't commit, gi""t, g\it, gi\<newline>t: the forms the
// parser reads as git), so that a read that classifies nothing keeps the head of every
// command the analysis would find a commit in (FuzzOutputOf). Any other
// command with a quote or backslash keeps a sliver, the rest nothing.
//
// An inert command (Inert: quiet programs and git's own read-only
// subcommands with static arguments) keeps nothing, whatever its text
// names. Otherwise the rule only ever keeps more than the reader's text
// rules did before it moved here (contains "git" or "gh ": the head; a
// quote or backslash: a sliver; TestOutputKeepsWhatTheReaderKept).
func OutputOf(command string, a *Analysis) Output {
	if Inert(command) {
		// git status, git log, ls | grep gitignore: no commit whatever
		// the run's aliases, so nothing reads the output (and a call of
		// such a command may keep no text: transcript.ShellOptions.Inert).
		return OutputNone
	}
	if a != nil && (a.Commits > 0 || a.GitNotBuiltin) {
		return OutputHead
	}
	if namesVCS(command) {
		return OutputHead
	}
	if strings.ContainsAny(command, `'"\`) {
		return OutputSliver
	}
	return OutputNone
}

// namesVCS reports whether command names git or "gh " once its quotes,
// backslashes and line continuations are removed, with a $ that opens a
// quote ($'…', $"…") and the NUL bytes the parser skips (g\x00it is git
// to it; FuzzOutputOf found it).
func namesVCS(command string) bool {
	if strings.Contains(command, "git") || strings.Contains(command, "gh ") {
		return true
	}
	if !strings.ContainsAny(command, "'\"\\\x00") {
		return false
	}
	// The last three bytes kept, the newest lowest.
	var last [3]byte
	for i := 0; i < len(command); i++ {
		c := command[i]
		switch {
		case c == '\'' || c == '"' || c == 0:
			continue
		case c == '\\':
			if i+1 < len(command) && command[i+1] == '\n' {
				i++
			}
			continue
		case c == '$' && i+1 < len(command) && (command[i+1] == '\'' || command[i+1] == '"'):
			continue
		}
		last[2], last[1], last[0] = last[1], last[0], c
		if last[2] == 'g' && (last[1] == 'i' && last[0] == 't' || last[1] == 'h' && last[0] == ' ') {
			return true
		}
	}
	return false
}
