package shell

import (
	"strings"

	"github.com/pmcheck/pmcheck/analyze/model"
)

// Output is how much of a shell command's output pmcheck may read after the
// command ran, and so how much of it a transcript reader keeps (the reader
// maps each to one of the model's caps). Only the classifier knows which
// commands commit (the ledgers read a result's text for the commit ids
// `git commit` prints, "[main 1a2b3c4] subject", and only when the
// analysis, with the run's git aliases, counts a commit: interpret.LedgerOf),
// so OutputOf reads its analysis and asks it which commands are inert.
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
// analysis the classifier made of command without a run's git aliases (a
// transcript reader's, ToolCall.ShellClass), or nil when none was made;
// inert, when set, is the classifier's answer to whether it finds nothing
// in command whatever a run's deploy labels and git aliases (ship.Inert),
// given by the caller so that reading a command depends on no policy.
//
// A command a counts a commit in, or that runs a git subcommand a run's
// alias could define (GitNotBuiltin: the alias may commit; ship.Reuse),
// keeps the head. So does, analysed or not, a command whose text names git
// or "gh " once its quotes, backslashes, line continuations and NUL bytes
// are removed (g'i't commit, gi""t, g\it, gi\<newline>t: the forms the
// parser reads as git) and its escapes decoded ($'\x67it' commit, what
// printf or echo prints into a shell; namesVCS), so that a read that
// classifies nothing keeps the head of every command the analysis would
// find a commit in (FuzzOutputOf). Any other
// command with a quote or backslash keeps a sliver, the rest nothing.
//
// An inert command (quiet programs and git's own read-only subcommands
// with static arguments) keeps nothing, whatever its text names.
// Otherwise the rule only ever keeps more than the reader's text rules did
// before it moved here (contains "git" or "gh ": the head; a quote or
// backslash: a sliver; TestOutputKeepsWhatTheReaderKept).
func OutputOf(command string, a *model.ShellAnalysis, inert func(command string) bool) Output {
	if inert != nil && inert(command) {
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
// to it; FuzzOutputOf found it), and with the escapes that $'…', printf
// and echo decode read as the bytes they stand for ($'\x67it', printf
// '\147it', echo -e '\0147it'). A printf with a % directive whose text
// names a shell counts too: its arguments join into a script
// (printf '%s%s' gi 't commit' | sh).
func namesVCS(command string) bool {
	if strings.Contains(command, "git") || strings.Contains(command, "gh ") {
		return true
	}
	if !strings.ContainsAny(command, "'\"\\\x00") {
		return false
	}
	if strings.IndexByte(command, 0) >= 0 {
		// The parser skips NUL bytes, inside an escape too ($'\x<NUL>67it'
		// is git to it; FuzzOutputOf).
		command = strings.ReplaceAll(command, "\x00", "")
	}
	// The last bytes kept, the newest in the lowest byte.
	var last uint64
	// printf and a shell are looked for only when a % may fill a format.
	directive := strings.IndexByte(command, '%') >= 0
	printf, shell := false, false
	for i := 0; i < len(command); i++ {
		c := command[i]
		switch {
		case c == '\'' || c == '"' || c == 0:
			continue
		case c == '\\':
			if i+1 < len(command) && command[i+1] == '\n' {
				i++
				continue
			}
			d, end, ok := escapedByte(command, i)
			if !ok {
				continue
			}
			i = end - 1
			if d == '\'' || d == '"' || d == 0 {
				continue
			}
			c = d
		case c == '$' && i+1 < len(command) && (command[i+1] == '\'' || command[i+1] == '"'):
			continue
		}
		last = last<<8 | uint64(c)
		if three := last & 0xffffff; three == 'g'<<16|'i'<<8|'t' || three == 'g'<<16|'h'<<8|' ' {
			return true
		}
		if directive {
			printf = printf || last&0xffffffffffff == 'p'<<40|'r'<<32|'i'<<24|'n'<<16|'t'<<8|'f'
			shell = shell || last&0xffff == 's'<<8|'h'
		}
	}
	return printf && shell
}

// escapedByte reads the escape a run of backslashes starts at command[i]
// as $'…', printf or echo would decode it, when it stands for one ASCII
// byte: \xHH, \uHHHH, \UHHHHHHHH, \nnn and \0nnn. It returns the byte and
// where the escape ends. A backslash an escape decodes to may start
// another with the bytes after it (printf '\x5cx67it': a second decoding
// reads git). An octal escape reads as echo's \0nnn when that gives a
// byte of what namesVCS looks for (named), else as \nnn: where \0nnn gives
// none, the \nnn reading is the only one that may (\0400 is a space to
// $'…'), and where it gives one, the other gives a byte below 64 and a
// digit, which end any name.
func escapedByte(command string, i int) (byte, int, bool) {
	const named = "gith prnfs\\" // git, gh , printf, sh, and a backslash
	for {
		for i < len(command) && command[i] == '\\' {
			i++
		}
		if i >= len(command) {
			return 0, i, false
		}
		var v uint64
		n := 0
		switch c := command[i]; {
		case c == 'x':
			v, n = digits(command[i+1:], 16, 2)
			i++
		case c == 'u':
			v, n = digits(command[i+1:], 16, 4)
			i++
		case c == 'U':
			v, n = digits(command[i+1:], 16, 8)
			i++
		case c >= '0' && c <= '7':
			// Three octal digits can pass \377: the shell keeps the low
			// byte ($'\551' is i; FuzzOutputOf found it), as echo -e does
			// with the three after its \0.
			v, n = digits(command[i:], 8, 3)
			v &= 0xff
			if c == '0' {
				if e, m := digits(command[i+1:], 8, 3); m > 0 && e&0xff < 0x80 && strings.IndexByte(named, byte(e)) >= 0 {
					v, n = e&0xff, m
					i++
				}
			}
		}
		if n == 0 {
			return 0, i, false
		}
		i += n
		if v >= 0x80 {
			// A byte or a letter outside ASCII: no letter of git.
			return 0x80, i, true
		}
		if v != '\\' {
			return byte(v), i, true
		}
		// An escaped backslash: it escapes what follows.
	}
}
