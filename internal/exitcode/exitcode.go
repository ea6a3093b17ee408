// Package exitcode is the one place pmcheck's exit codes are defined: each
// command's contract, as docs/exit-codes.md states it. Scripts and CI read
// these numbers, so they change only with the document.
package exitcode

// check, scan, explain, rules, collect, fixtures and render.
const (
	OK       = 0 // everything read and evaluated; nothing at the fail level
	Findings = 1 // findings at or above the fail level
	Usage    = 2 // usage, configuration or input error
	Internal = 3 // a bug
)

// replay and watch keep agent-postmortem watch's codes.
const (
	WatchDone      = 0 // DONE with a clean verdict
	WatchNoJournal = 2 // no journal appeared within 60 s
	WatchFailed    = 3 // DONE with a verdict that begins FAILED
	WatchLimit     = 4 // LIMIT, MALFORMED (too long), or DONE with an unknown lifecycle terminal
)

// The hooks follow Claude Code's hook contract.
const (
	HookProceed = 0 // the JSON on stdout (or none) decides
	HookBlock   = 2 // one line on stderr; PreToolUse blocks the call
)
