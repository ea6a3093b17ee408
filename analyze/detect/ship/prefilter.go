package ship

import (
	"strings"
)

// Most shell commands an agent runs read: ls, cat, grep, git status, a
// pipeline of those. Parsing each with the shell parser was nearly all of
// the detectors' time, so Classify first asks quiet, a scan of the bytes
// that recognises only command lines whose analysis is certainly empty,
// and parses the rest. quiet must never say yes to a line the parser would
// find anything in (TestQuietImpliesNothingFound, FuzzQuiet): it says no to
// anything it does not fully understand.

// quietPrograms write no file, run no other command and ship nothing
// whatever their (static) arguments: a subset of readOnly without the
// wrappers and builtins that run or define commands (env, source, alias,
// exec, eval, xargs, …).
var quietPrograms = map[string]bool{
	"ls": true, "cat": true, "head": true, "tail": true, "wc": true, "grep": true, "egrep": true, "fgrep": true,
	"rg": true, "find": true, "echo": true, "pwd": true, "cd": true, "which": true, "true": true, "false": true, "sleep": true,
	"date": true, "stat": true, "file": true, "du": true, "df": true, "tree": true, "jq": true, "sort": true,
	"uniq": true, "cut": true, "diff": true, "cmp": true, "basename": true, "dirname": true, "realpath": true,
	"readlink": true, "ps": true, "whoami": true, "uname": true, "nl": true, "column": true, "comm": true,
	"md5sum": true, "sha256sum": true, "seq": true,
}

// quietGit are the git subcommands that change no file and push nothing
// (and that no git alias can redefine: git runs a built-in before an
// alias of the same name).
var quietGit = map[string]bool{
	"status": true, "log": true, "diff": true, "show": true, "rev-parse": true, "ls-files": true, "blame": true,
}

// quietByte marks the bytes a quiet line may hold: letters, digits,
// spaces and a few punctuation marks that are literal in every shell
// context. Anything else — quotes, backslashes, $, backticks, redirections,
// parentheses, braces, brackets, globs' bracket, comments, ! and ~ — sends
// the line to the parser. | ; & and newline separate commands and are
// checked by quiet itself.
var quietByte = func() (t [256]bool) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] = true
	}
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = true
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for _, c := range " \t_./:,=+%@-*?" {
		t[c] = true
	}
	return t
}()

// quiet reports whether command is certainly a list of quiet programs with
// static arguments: simple commands joined by |, ||, &&, ; or newlines,
// none empty, each starting with a quiet program (or git with a quiet
// subcommand right after it). Such a line parses, and Classify finds no
// action, write, possible write or commit in it.
func quiet(command string) bool {
	s := blankDeviceRedirs(strings.Trim(command, " \t\n"))
	if s == "" || len(s) > 4096 {
		return false
	}
	q := quietLine{start: -1}
	for i := 0; i <= len(s); i++ {
		c := byte('\n')
		if i < len(s) {
			c = s[i]
		}
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '|' || c == '&':
			if q.start >= 0 && !q.endWord(s[q.start:i]) {
				return false
			}
			if c == ' ' || c == '\t' {
				continue
			}
			var ok bool
			if i, ok = q.endCommand(s, i, c); !ok {
				return false
			}
		case quietByte[c]:
			if q.start < 0 {
				q.start = i
			}
		default:
			return false
		}
	}
	return true
}

// quietLine is what quiet has read of the current simple command.
type quietLine struct {
	words  int    // words in the current simple command
	first  string // its first word
	second string // its second word
	start  int    // start of the word being read, or -1
}

// endWord takes the word w that ends here, and reports whether it may be
// part of a quiet line.
func (q *quietLine) endWord(w string) bool {
	q.start = -1
	if quietRefuses(q.first, q.words, w) {
		return false
	}
	q.words++
	switch q.words {
	case 1:
		q.first = w
	case 2:
		q.second = w
	}
	return true
}

// quietRefuses reports whether the word w, after words words of a command
// whose first is first, sends the line to the parser: a program that runs
// or defines commands, a command string, find running a command or
// writing, an option that writes, a GIT_ variable.
func quietRefuses(first string, words int, w string) bool {
	switch {
	case w == "alias" || w == "eval" || w == "xargs" || w == "exec":
		return true
	case len(w) > 1 && w[0] == '-' && w[1] != '-' && strings.IndexByte(w, 'c') >= 0:
		return true // -c and combined flags such as -lc: a command string
	}
	if first == "find" && (strings.HasPrefix(w, "-exec") || strings.HasPrefix(w, "-ok") ||
		strings.HasPrefix(w, "-delete") || strings.HasPrefix(w, "-fprint") || strings.HasPrefix(w, "-fls")) {
		return true // find that runs a command, deletes or writes a file
	}
	if words > 0 && writesByOption(first, w) {
		return true
	}
	return strings.Contains(w, "GIT_") // git's configuration may not be what the line shows
}

// endCommand ends the simple command at s[i], the separator c (a newline
// past the end): it must be quiet. It returns the index of the
// separator's last byte (&& and || are two).
func (q *quietLine) endCommand(s string, i int, c byte) (int, bool) {
	if !q.quietCommand() {
		return i, false
	}
	q.words, q.first, q.second = 0, "", ""
	switch c {
	case '&': // only &&
		if i+1 >= len(s) || s[i+1] != '&' {
			return i, false
		}
		i++
	case '|': // | or ||
		if i+1 < len(s) && s[i+1] == '|' {
			i++
		}
	}
	return i, true
}

// quietCommand reports whether the command read is quiet: not empty ("a
// ||", "; a", ";;"), and a quiet program or git with a quiet subcommand.
func (q *quietLine) quietCommand() bool {
	switch {
	case q.words == 0:
		return false
	case q.first == "git":
		return q.words >= 2 && quietGit[q.second]
	default:
		return quietPrograms[q.first]
	}
}

// writesByOption reports whether word w, an argument of the quiet program
// first, may make it write a file or run a command: sort -o and
// --compress-program, a uniq
// operand (uniq IN OUT), tree -o and -R, rg --pre, file -C, git log, diff
// and show --output and --ext-diff. The parser's classifier decides those.
func writesByOption(first, w string) bool {
	short := len(w) > 1 && w[0] == '-' && w[1] != '-'
	switch first {
	case "sort":
		return short && strings.IndexByte(w, 'o') > 0 || strings.HasPrefix(w, "--output") || strings.HasPrefix(w, "--compress-program")
	case "uniq":
		return !strings.HasPrefix(w, "-")
	case "tree":
		return short && strings.ContainsAny(w, "oR")
	case "rg":
		return strings.HasPrefix(w, "--pre")
	case "file":
		return short && strings.IndexByte(w, 'C') > 0 || strings.HasPrefix(w, "--compile")
	case "git":
		return strings.HasPrefix(w, "--output") || strings.HasPrefix(w, "--ext-diff")
	}
	return false
}

// quietRedirs are redirections that write no file: descriptors joined,
// or output thrown away.
var quietRedirs = []string{"2>&1", "1>&2", ">&2", "2>/dev/null", "1>/dev/null", ">/dev/null", "&>/dev/null"}

// blankDeviceRedirs replaces each quietRedirs word (standing alone: after a
// space or at the start, before a space, a separator or the end) with
// spaces, so that `git status 2>&1` is read as `git status`.
func blankDeviceRedirs(s string) string {
	if strings.IndexByte(s, '>') < 0 {
		return s
	}
	var b []byte
	for _, r := range quietRedirs {
		for i := 0; i < len(s); {
			j := strings.Index(s[i:], r)
			if j < 0 {
				break
			}
			j += i
			end := j + len(r)
			if (j == 0 || s[j-1] == ' ' || s[j-1] == '\t') && (end == len(s) || strings.IndexByte(" \t\n;|&", s[end]) >= 0) {
				if b == nil {
					b = []byte(s)
				}
				for k := j; k < end; k++ {
					b[k] = ' '
				}
			}
			i = j + 1
		}
	}
	if b == nil {
		return s
	}
	return string(b)
}
