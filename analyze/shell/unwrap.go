package shell

import (
	"path"
	"slices"
	"strings"
)

// wrappers run the rest of their arguments as a command; the inner map lists
// the options that take a separate value.
var wrappers = map[string]map[string]bool{
	"sudo":       {"-u": true, "-g": true, "-C": true, "-h": true, "-p": true, "-U": true, "-r": true, "-t": true},
	"doas":       {"-u": true, "-C": true},
	"env":        {"-u": true, "-C": true, "--unset": true, "--chdir": true},
	"nohup":      {},
	"time":       {"-o": true, "-f": true},
	"command":    {},
	"exec":       {"-a": true},
	"timeout":    {"-s": true, "-k": true, "--signal": true, "--kill-after": true},
	"nice":       {"-n": true},
	"ionice":     {"-c": true, "-n": true, "-p": true},
	"stdbuf":     {"-i": true, "-o": true, "-e": true},
	"caffeinate": {"-t": true, "-w": true},
	"xargs":      {"-I": true, "-n": true, "-P": true, "-L": true, "-d": true, "-E": true, "-s": true, "-a": true},
	"chronic":    {},
	"unbuffer":   {},
	"setsid":     {},
	"busybox":    {},
	"strace": {"-o": true, "-e": true, "-p": true, "-s": true, "-u": true, "-E": true, "-a": true, "-b": true,
		"-I": true, "-O": true, "-S": true, "-P": true, "-X": true},
	"ltrace": {"-o": true, "-e": true, "-p": true, "-s": true, "-u": true, "-a": true, "-n": true, "-l": true},
	"flock":  {"-w": true, "--wait": true, "--timeout": true, "-E": true, "--conflict-exit-code": true},
	"watch":  {"-n": true, "--interval": true, "-d": false, "-q": true, "--equexit": true},
}

// runners run a command named after a subcommand of theirs (uv run pytest,
// bundle exec rspec): the command is what they run. One with options
// before the command is not unwrapped, and may ship.
var runners = map[string]string{"uv": "run", "poetry": "run", "pipenv": "run", "pdm": "run", "hatch": "run",
	"rye": "run", "bundle": "exec"}

// Unwrap strips leading wrappers (sudo, env A=B, timeout 60, …) so the real
// program is words[0].
func Unwrap(words []string) []string {
	w, _ := UnwrapDyn(words, nil)
	return w
}

// UnwrapDyn is Unwrap with dyn[i] (nil: none) saying whether words[i] is
// computed at run time, returned for the words it returns. A wrapper that
// runs a command string (flock -c, su -c, script -c, watch, env -S, sh -c
// through busybox) becomes `sh -c STRING`; python -m MOD becomes MOD; a
// command that runs nothing (command -v, bare env) becomes no words.
func UnwrapDyn(words []string, dyn []bool) ([]string, []bool) {
	if dyn == nil {
		dyn = make([]bool, len(words))
	}
	for len(words) > 0 && !dyn[0] {
		var more bool
		if words, dyn, more = unwrapOnce(words, dyn); !more {
			break
		}
	}
	return words, dyn
}

// unwrapOnce strips the wrapper words[0] names, a static word: more is
// false when words[0] is no wrapper (words are returned as they are) or
// the wrapper runs no program with arguments (a command string, returned
// as sh -c, or nothing).
func unwrapOnce(words []string, dyn []bool) (_ []string, _ []bool, more bool) {
	name := path.Base(words[0])
	if sub, ok := runners[name]; ok {
		if len(words) > 2 && words[1] == sub && !dyn[1] && !strings.HasPrefix(words[2], "-") {
			return words[2:], dyn[2:], true
		}
		return words, dyn, false
	}
	if strings.HasPrefix(name, "python") && strings.Trim(name[len("python"):], "0123456789.") == "" {
		return pythonModule(words, dyn)
	}
	switch name {
	case "su", "runuser", "script":
		// su -c CMD, script -c CMD: the string is a shell's script;
		// without it they run an interactive shell (unknown).
		for i := 1; i+1 < len(words); i++ {
			if words[i] == "-c" || words[i] == "--command" {
				w, d := shellString(words[i+1:i+2], dyn[i+1:i+2])
				return w, d, false
			}
		}
		return words, dyn, false
	}
	valued, ok := wrappers[name]
	if !ok {
		return words, dyn, false
	}
	return wrapperArgs(name, valued, words[1:], dyn[1:])
}

// pythonModule reads python -m MOD ARGS as MOD ARGS (python -m twine
// upload, -m pytest); any other python command is what it is.
func pythonModule(words []string, dyn []bool) ([]string, []bool, bool) {
	i := 1
	for i < len(words) && !dyn[i] && len(words[i]) > 1 && words[i][0] == '-' && words[i] != "-m" &&
		strings.Trim(words[i][1:], "uBOsSEIqv") == "" {
		i++
	}
	if i+1 < len(words) && words[i] == "-m" && !dyn[i+1] {
		return words[i+1:], dyn[i+1:], true
	}
	return words, dyn, false
}

// wrapperArgs reads the arguments of the wrapper name (words, after its
// name) up to the program it runs: its options (valued: those that take a
// separate value), env's assignments, timeout's duration, flock's lock
// file. A computed word is the program. more is false when the wrapper
// runs a command string or nothing (wrapperCommand).
func wrapperArgs(name string, valued map[string]bool, words []string, dyn []bool) (_ []string, _ []bool, more bool) {
	sawDuration, sawLock := false, false
	for len(words) > 0 && !dyn[0] {
		if w, d, ok := wrapperCommand(name, words, dyn, sawLock); ok {
			return w, d, false
		}
		w := words[0]
		switch {
		case name == "env" && !strings.HasPrefix(w, "-") && strings.Contains(w, "="):
		case name == "timeout" && !sawDuration && !strings.HasPrefix(w, "-"):
			sawDuration = true
		case name == "flock" && !sawLock && !strings.HasPrefix(w, "-"):
			sawLock = true // the lock file; the command follows
		case strings.HasPrefix(w, "-") && len(w) > 1:
			if valued[w] && len(words) > 1 {
				words, dyn = words[1:], dyn[1:] // the option's value
			}
		default:
			return words, dyn, true
		}
		words, dyn = words[1:], dyn[1:]
	}
	return words, dyn, true
}

// wrapperCommand reads a wrapper's argument words[0] that says the wrapper
// runs a command string or nothing: env -S 'git push' (the string is
// split into words), flock LOCK -c CMD, watch CMD… (it joins its
// arguments and runs them with sh -c), each returned as sh -c STRING;
// command -v and -V, which look the name up and run nothing (no words).
// ok is false for any other argument.
func wrapperCommand(name string, words []string, dyn []bool, sawLock bool) (_ []string, _ []bool, ok bool) {
	w := words[0]
	switch {
	case name == "env" && (w == "-S" || w == "--split-string") && len(words) > 1:
		w, d := shellString(words[1:], dyn[1:])
		return w, d, true
	case name == "env" && (strings.HasPrefix(w, "-S") || strings.HasPrefix(w, "--split-string=")):
		first := strings.TrimPrefix(strings.TrimPrefix(w, "--split-string="), "-S")
		parts := append([]string{first}, words[1:]...)
		w, d := shellString(parts, append([]bool{false}, dyn[1:]...))
		return w, d, true
	case name == "command" && (w == "-v" || w == "-V"):
		return nil, nil, true
	case name == "flock" && sawLock && (w == "-c" || w == "--command") && len(words) > 1:
		w, d := shellString(words[1:2], dyn[1:2])
		return w, d, true
	case name == "watch" && !strings.HasPrefix(w, "-"):
		w, d := shellString(words, dyn)
		return w, d, true
	}
	return nil, nil, false
}

// shellString is `sh -c STRING` for the words parts joined, computed when
// any of them is.
func shellString(parts []string, computed []bool) ([]string, []bool) {
	return []string{"sh", "-c", strings.Join(parts, " ")}, []bool{false, false, slices.Contains(computed, true)}
}
