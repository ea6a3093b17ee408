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
	shellString := func(parts []string, computed []bool) ([]string, []bool) {
		return []string{"sh", "-c", strings.Join(parts, " ")}, []bool{false, false, slices.Contains(computed, true)}
	}
	for len(words) > 0 {
		name := path.Base(words[0])
		if dyn[0] {
			return words, dyn
		}
		if sub, ok := runners[name]; ok {
			if len(words) > 2 && words[1] == sub && !dyn[1] && !strings.HasPrefix(words[2], "-") {
				words, dyn = words[2:], dyn[2:]
				continue
			}
			return words, dyn
		}
		if strings.HasPrefix(name, "python") && strings.Trim(name[len("python"):], "0123456789.") == "" {
			// python -m MOD ARGS runs MOD (python -m twine upload, -m pytest).
			i := 1
			for i < len(words) && !dyn[i] && len(words[i]) > 1 && words[i][0] == '-' && words[i] != "-m" &&
				strings.Trim(words[i][1:], "uBOsSEIqv") == "" {
				i++
			}
			if i+1 < len(words) && words[i] == "-m" && !dyn[i+1] {
				words, dyn = words[i+1:], dyn[i+1:]
				continue
			}
			return words, dyn
		}
		switch name {
		case "su", "runuser", "script":
			// su -c CMD, script -c CMD: the string is a shell's script;
			// without it they run an interactive shell (unknown).
			for i := 1; i+1 < len(words); i++ {
				if words[i] == "-c" || words[i] == "--command" {
					return shellString(words[i+1:i+2], dyn[i+1:i+2])
				}
			}
			return words, dyn
		}
		valued, ok := wrappers[name]
		if !ok {
			return words, dyn
		}
		words, dyn = words[1:], dyn[1:]
		sawDuration, sawLock := false, false
		for len(words) > 0 {
			w := words[0]
			switch {
			case dyn[0]:
				goto program
			case name == "env" && (w == "-S" || w == "--split-string") && len(words) > 1:
				// env -S 'git push': the string is split into words.
				return shellString(words[1:], dyn[1:])
			case name == "env" && (strings.HasPrefix(w, "-S") || strings.HasPrefix(w, "--split-string=")):
				first := strings.TrimPrefix(strings.TrimPrefix(w, "--split-string="), "-S")
				parts := append([]string{first}, words[1:]...)
				return shellString(parts, append([]bool{false}, dyn[1:]...))
			case name == "command" && (w == "-v" || w == "-V"):
				return nil, nil // looks the name up, runs nothing
			case name == "flock" && sawLock && (w == "-c" || w == "--command") && len(words) > 1:
				return shellString(words[1:2], dyn[1:2])
			case name == "watch" && !strings.HasPrefix(w, "-"):
				// watch joins its arguments and runs them with sh -c.
				return shellString(words, dyn)
			case name == "env" && !strings.HasPrefix(w, "-") && strings.Contains(w, "="):
				words, dyn = words[1:], dyn[1:]
			case name == "timeout" && !sawDuration && !strings.HasPrefix(w, "-"):
				sawDuration = true
				words, dyn = words[1:], dyn[1:]
			case name == "flock" && !sawLock && !strings.HasPrefix(w, "-"):
				sawLock = true // the lock file; the command follows
				words, dyn = words[1:], dyn[1:]
			case strings.HasPrefix(w, "-") && len(w) > 1:
				words, dyn = words[1:], dyn[1:]
				if valued[w] && len(words) > 0 {
					words, dyn = words[1:], dyn[1:]
				}
			default:
				goto program
			}
		}
	program:
	}
	return words, dyn
}
