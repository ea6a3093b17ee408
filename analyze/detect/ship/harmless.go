package ship

import "strings"

// Shipping is detected the other way round from a list of ship verbs: a list
// of known pushes is always one name short (a git alias written into
// .git/config, GIT_CONFIG_COUNT, git send-pack, gh api on a ref, a wrapper
// or an interpreter the list does not know). Besides the ship actions it
// can name (push, merge, deploy, release, publish with their targets), the
// classifier marks every simple command it cannot prove harmless
// (Analysis.MayShip): harmless is a read-only program or subcommand, a
// local file operation, a local build or test, each with the options that
// would make it run another program, write where it should not or reach a
// remote excluded. Programs that can reach the network or run other
// programs (git, gh, package managers, container tools, ssh, scp, rsync,
// curl, interpreters, shells) are never proven harmless by their name
// alone: only by a subcommand and options known to stay local. While a
// killed subagent is outstanding, a command marked so is a possible ship
// action (ShipActions). The same inversion holds for writes: a command is
// unknown work (MayWrite) unless proven read-only (writes).

// KindShip is the kind of the possible ship action of a command that is
// not proven harmless and names no ship action the classifier knows.
const KindShip = "ship"

// ShipActions are the ship actions of a command whose analysis is a: its
// Actions, or, when it names none but is not proven harmless (MayShip),
// one possible ship action of kind KindShip showing the command. Both the
// check and the resume-gate hook ask it, so they cannot disagree.
func ShipActions(a Analysis, command string) []Action {
	if len(a.Actions) > 0 || !a.MayShip {
		return a.Actions
	}
	return []Action{possibleAction(KindShip, command)}
}

// computed says which words are computed at run time: word i is when
// i < len and c[i].
type computed []bool

func (c computed) at(i int) bool { return i < len(c) && c[i] }

// argCheck decides whether a program with these arguments is proven
// harmless; dyn.at(i) reports whether args[i] is computed at run time.
type argCheck func(args []string, dyn computed) bool

// anyArgs: the program cannot ship, run another program or reach a remote
// whatever its arguments (a computed one included).
func anyArgs([]string, computed) bool { return true }

// without proves a program harmless when its arguments are static and none
// starts with one of the options that make it run a command or reach
// further (rg --pre, fd -x).
func without(options ...string) argCheck {
	return func(args []string, dyn computed) bool {
		for i, a := range args {
			if dyn.at(i) {
				return false
			}
			for _, o := range options {
				if strings.HasPrefix(a, o) {
					return false
				}
			}
		}
		return true
	}
}

// both proves a program harmless when each check does.
func both(a, b argCheck) argCheck {
	return func(args []string, dyn computed) bool { return a(args, dyn) && b(args, dyn) }
}

// staticAnd proves a program harmless when its arguments are static and
// ok accepts them.
func staticAnd(ok func(args []string) bool) argCheck {
	return func(args []string, dyn computed) bool {
		for i := range args {
			if dyn.at(i) {
				return false
			}
		}
		return ok(args)
	}
}

// subcommands proves a program harmless when its first operand (after
// options without values) is one of subs and its arguments are static.
func subcommands(subs ...string) argCheck {
	set := map[string]bool{}
	for _, s := range subs {
		set[s] = true
	}
	return func(args []string, dyn computed) bool {
		for i := range args {
			if dyn.at(i) {
				return false
			}
		}
		if len(args) > 0 && strings.HasPrefix(args[0], "-") && set[args[0]] {
			return true // node --version, cargo -V
		}
		return set[firstOperand(args)]
	}
}

// firstOperand is the first argument that is not an option ("" if none).
func firstOperand(args []string) string {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			return a
		}
	}
	return ""
}

// harmless are the programs proven harmless, each with what its arguments
// must satisfy. Anything else (an unknown program, a script, an
// interpreter, a network client, a package manager's other subcommands)
// may ship. The programs reading files, the local file operations and the
// local builds and tests agents run were taken from real transcripts
// (the corpus, public Claude Code sessions; docs/reliability.md).
var harmless = map[string]argCheck{
	// Reading, searching, printing: no option runs another program.
	"ls": anyArgs, "cat": anyArgs, "head": anyArgs, "tail": anyArgs, "wc": anyArgs, "grep": anyArgs,
	"egrep": anyArgs, "fgrep": anyArgs, "zgrep": anyArgs, "echo": anyArgs, "printf": anyArgs, "pwd": anyArgs,
	"cd": anyArgs, "pushd": anyArgs, "popd": anyArgs, "which": anyArgs, "type": anyArgs, "test": anyArgs,
	"[": anyArgs, "[[": anyArgs, "true": anyArgs, "false": anyArgs, ":": anyArgs, "sleep": anyArgs,
	"date": anyArgs, "stat": anyArgs, "file": anyArgs, "du": anyArgs, "df": anyArgs, "tree": anyArgs,
	"jq": anyArgs, "yq": anyArgs, "sort": without("--compress-program"), "uniq": anyArgs, "cut": anyArgs, "tr": anyArgs,
	"diff": anyArgs, "cmp": anyArgs, "comm": anyArgs, "basename": anyArgs, "dirname": anyArgs,
	"realpath": anyArgs, "readlink": anyArgs, "ps": anyArgs, "pgrep": anyArgs, "whoami": anyArgs,
	"uname": anyArgs, "id": anyArgs, "hostname": anyArgs, "less": anyArgs, "more": anyArgs, "nl": anyArgs,
	"column": anyArgs, "md5sum": anyArgs, "sha1sum": anyArgs, "sha256sum": anyArgs, "sha512sum": anyArgs,
	"shasum": anyArgs, "cksum": anyArgs, "md5": anyArgs, "printenv": anyArgs, "env": anyArgs, "seq": anyArgs,
	"yes": anyArgs, "xxd": anyArgs, "od": anyArgs, "hexdump": anyArgs, "strings": anyArgs, "locate": anyArgs,
	"tac": anyArgs, "rev": anyArgs, "paste": anyArgs, "join": anyArgs, "fold": anyArgs, "fmt": anyArgs,
	"expand": anyArgs, "unexpand": anyArgs, "base64": anyArgs, "lsof": anyArgs, "nproc": anyArgs,
	"free": anyArgs, "uptime": anyArgs, "tput": anyArgs, "clear": anyArgs, "jobs": anyArgs, "bat": anyArgs,
	"rg":  without("--pre"), // --pre runs a command on each file
	"ag":  anyArgs,
	"fd":  without("-x", "-X", "--exec"),
	"tee": anyArgs,
	// sed and awk programs given inline, without a command they run or a
	// file they write (w, e; system, |, >).
	"sed": staticAnd(sedReadOnly), "awk": staticAnd(awkReadOnly), "gawk": staticAnd(awkReadOnly),
	"mawk": staticAnd(awkReadOnly), "nawk": staticAnd(awkReadOnly),
	// Shell builtins that change only the shell itself.
	"export": anyArgs, "set": anyArgs, "unset": anyArgs, "exit": anyArgs, "return": anyArgs, "read": anyArgs,
	"wait": anyArgs, "kill": anyArgs, "pkill": anyArgs, "killall": anyArgs, "local": anyArgs,
	"declare": anyArgs, "typeset": anyArgs, "readonly": anyArgs, "shift": anyArgs, "history": anyArgs,
	"alias": anyArgs, "unalias": anyArgs, "hash": anyArgs, "shopt": anyArgs, "ulimit": anyArgs,
	"umask": anyArgs, "let": anyArgs, "disown": anyArgs, "break": anyArgs, "continue": anyArgs,
	// Local file operations.
	"mkdir": anyArgs, "rmdir": anyArgs, "touch": anyArgs, "rm": anyArgs, "cp": anyArgs, "mv": anyArgs,
	"ln": anyArgs, "chmod": anyArgs, "truncate": anyArgs, "unlink": anyArgs, "shred": anyArgs,
	"install": anyArgs, "split": anyArgs, "mktemp": anyArgs,
	"gzip": anyArgs, "gunzip": anyArgs, "zcat": anyArgs, "bzip2": anyArgs, "xz": anyArgs, "unzip": anyArgs,
	"tar": without("--to-command", "--use-compress-program", "-I", "--checkpoint-action", "--info-script",
		"-F", "--new-volume-script", "--rsh-command", "--rmt-command"),
	// Local builds, tests, formatters and linters.
	"go": both(subcommands("build", "test", "vet", "fmt", "list", "env", "version", "doc", "mod", "work", "clean", "help"),
		without("-exec", "-toolexec", "--toolexec", "-vettool", "--vettool")), // each runs a program it names
	"gofmt":         anyArgs,
	"goimports":     anyArgs,
	"staticcheck":   anyArgs,
	"golangci-lint": subcommands("run", "version", "linters", "help"),
	"cargo":         both(without("--config", "-Z"), subcommands("build", "b", "test", "t", "check", "c", "clippy", "fmt", "doc", "tree", "metadata", "bench", "clean", "nextest", "llvm-cov", "init", "new", "install", "--version", "-V")),
	"rustc":         anyArgs,
	"rustfmt":       anyArgs,
	"mix":           subcommands("test", "compile", "format", "credo", "dialyzer", "deps.get", "deps.compile", "deps.tree", "ecto.migrate", "ecto.create", "ecto.reset", "help"),
	"swift":         subcommands("build", "test", "--version"),
	"pytest":        anyArgs,
	"mypy":          anyArgs,
	"ruff":          subcommands("check", "format", "--version"),
	"black":         anyArgs,
	"isort":         anyArgs,
	"flake8":        anyArgs,
	"pylint":        anyArgs,
	"tsc":           anyArgs,
	"eslint":        anyArgs,
	"prettier":      anyArgs,
	"jest":          anyArgs,
	"vitest":        anyArgs,
	"mocha":         anyArgs,
	"shellcheck":    anyArgs,
	"gcc":           anyArgs,
	"g++":           anyArgs,
	"cc":            anyArgs,
	"clang":         anyArgs,
	"javac":         anyArgs,
	"cmake":         without("-P", "-E"), // -P runs a script, -E a command
	"ctest":         anyArgs,
	"node":          subcommands("--version", "-v", "--check", "-c", "--test"),
	"dotnet":        subcommands("build", "test", "restore", "format", "clean", "--version", "--info"),
	"mvn":           jvmGoals,
	"mvnw":          jvmGoals,
	"gradle":        jvmGoals,
	"gradlew":       jvmGoals,
	"claude":        subcommands("--version", "-v", "--help", "-h"),
	"make":          buildTargets,
	"just":          buildTargets,
	"npm":           npmHarmless,
	"pnpm":          npmHarmless,
	"yarn":          npmHarmless,
	"bun":           npmHarmless,
	"npx":           npxHarmless,
	"pip":           subcommands("install", "list", "show", "freeze", "check", "download", "--version", "-V"),
	"pip3":          subcommands("install", "list", "show", "freeze", "check", "download", "--version", "-V"),
	"uv":            uvHarmless,
	"poetry":        subcommands("install", "lock", "show", "check", "build", "add", "remove", "update", "--version"),
	"python":        pythonHarmless,
	"python3":       pythonHarmless,
	"docker":        dockerHarmless,
	"podman":        dockerHarmless,
	// python -m MOD is MOD (shell.UnwrapDyn): the modules agents run that way.
	"venv": anyArgs, "json.tool": anyArgs, "py_compile": anyArgs, "compileall": anyArgs, "unittest": anyArgs,
}

// uvHarmless proves uv harmless for its environment and lock subcommands,
// pip installs and installing a tool (uv tool install .); uv run is
// unwrapped, and uv tool run (uvx) runs any package.
func uvHarmless(args []string, dyn computed) bool {
	if subcommands("sync", "lock", "venv", "add", "remove", "tree", "pip", "--version")(args, dyn) {
		return true
	}
	if firstOperand(args) != "tool" {
		return false
	}
	for i, a := range args {
		if dyn.at(i) {
			return false
		}
		if a != "tool" && !strings.HasPrefix(a, "-") {
			return a == "install" || a == "uninstall" || a == "list" || a == "upgrade" || a == "dir"
		}
	}
	return false
}

// buildTargets proves make (or just) harmless for the targets of a local
// build or test, or the default target; a target that names a ship verb, or
// any other, may ship. Variable assignments and options with values are
// skipped.
func buildTargets(args []string, dyn computed) bool {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case dyn.at(i):
			return false
		case a == "-C" || a == "-f" || a == "-j" || a == "--directory" || a == "--file" || a == "--justfile" || a == "-d" || a == "--working-directory":
			i++
		case strings.HasPrefix(a, "-"):
		case strings.Contains(a, "="):
			// make SHELL=… test, CC=./x.sh: a variable may name the
			// program the recipes run; only flags and inert ones are.
			n, _, _ := strings.Cut(a, "=")
			if !inertEnv[n] && !makeFlagVars[n] {
				return false
			}
		case !buildTarget(a):
			return false
		}
	}
	return true
}

// makeFlagVars are make variables that pass flags or paths, not programs.
var makeFlagVars = setOf(`CFLAGS CXXFLAGS CPPFLAGS LDFLAGS LDLIBS V VERBOSE DESTDIR PREFIX BUILD_TYPE TEST
	TESTS RUN ARGS PKG`)

// buildTarget reports whether a make target or package script name is a
// local build, test, lint or format step ("test", "build:web", "lint-go").
func buildTarget(t string) bool {
	if _, ok := shipVerb(t); ok {
		return false
	}
	head := t
	if i := strings.IndexAny(t, ":-_."); i > 0 {
		head = t[:i]
	}
	switch head {
	case "test", "tests", "build", "lint", "check", "fmt", "format", "vet", "typecheck", "types", "compile",
		"all", "clean", "coverage", "cover", "bench", "tsc", "ci", "verify", "quality", "precommit", "style":
		return true
	}
	return false
}

// jvmGoals proves Maven or Gradle harmless for the goals and tasks of a
// local build or test (mvn -q clean verify, ./gradlew :app:test build);
// deploy, publish and any other goal may ship.
func jvmGoals(args []string, dyn computed) bool {
	goals := 0
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case dyn.at(i):
			return false
		case a == "-f" || a == "-pl" || a == "-P" || a == "-p" || a == "--project-dir" || a == "-s" || a == "--settings":
			i++
		case strings.HasPrefix(a, "-"):
		default:
			goals++
			task := a[strings.LastIndexByte(a, ':')+1:]
			switch task {
			case "validate", "compile", "test-compile", "package", "install", "assemble", "compileJava",
				"compileKotlin", "compileTestJava", "dependencies", "tree":
			default:
				if !buildTarget(task) {
					return false
				}
			}
		}
	}
	return goals > 0
}

// npmHarmless proves npm, pnpm, yarn or bun harmless for installs, listings
// and the package scripts of a local build or test (npm test, npm run
// build, pnpm lint, bare yarn). Lifecycle and package scripts run code the
// repository holds, as make does; a script named otherwise (deploy, dev,
// release) may ship.
func npmHarmless(args []string, dyn computed) bool {
	for i := range args {
		if dyn.at(i) {
			return false
		}
	}
	pos := []string{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--prefix" || a == "-C" || a == "--cwd" || a == "--filter" || a == "-F" || a == "--dir":
			i++
		case strings.HasPrefix(a, "--script-shell") || strings.HasPrefix(a, "--node-options") || strings.HasPrefix(a, "--shell"):
			return false // the program the scripts run with
		case a == "--version" || a == "-v":
			if len(pos) == 0 {
				return true
			}
		case a == "--":
			i = len(args) // the script's own arguments
		case strings.HasPrefix(a, "-"):
		default:
			pos = append(pos, a)
		}
	}
	if len(pos) == 0 {
		return true // bare yarn (install), npm with options only
	}
	switch pos[0] {
	case "install", "i", "ci", "add", "remove", "rm", "uninstall", "ls", "list", "outdated", "why", "explain",
		"view", "info", "show", "audit", "prune", "dedupe", "rebuild", "pack", "help", "config", "doctor":
		if pos[0] == "config" {
			return len(pos) > 1 && (pos[1] == "get" || pos[1] == "list")
		}
		return true
	case "test", "t", "tst":
		return true
	case "run", "run-script", "rum", "urn":
		return len(pos) > 1 && buildTarget(pos[1])
	}
	return buildTarget(pos[0]) // pnpm lint, yarn build, bun test: a script
}

// npxHarmless proves npx harmless for the local compilers, test runners
// and linters agents run through it.
func npxHarmless(args []string, dyn computed) bool {
	for i, a := range args {
		if dyn.at(i) {
			return false
		}
		if strings.HasPrefix(a, "-") {
			continue
		}
		switch a {
		case "tsc", "jest", "vitest", "eslint", "prettier", "mocha", "biome", "vue-tsc":
			return true
		}
		return false
	}
	return false
}

// pythonHarmless proves python harmless only for --version; `python -m
// MOD` is classified as MOD (shell.Unwrap), and a script or -c code may do
// anything.
func pythonHarmless(args []string, dyn computed) bool {
	return len(args) == 1 && !dyn.at(0) && (args[0] == "--version" || args[0] == "-V")
}

// dockerHarmless proves docker (podman) harmless for the subcommands that
// only read or build locally; run, exec, compose, push and the rest may
// reach anything.
func dockerHarmless(args []string, dyn computed) bool {
	for i, a := range args {
		if dyn.at(i) || a == "--push" || strings.HasPrefix(a, "--output") || a == "-o" {
			return false
		}
	}
	switch firstOperand(args) {
	case "ps", "images", "logs", "inspect", "version", "info", "build", "--version":
		return true
	}
	return false
}

// provenHarmless reports whether a program (not git or gh, which the
// classifier proves by subcommand) with these arguments is proven
// harmless.
func provenHarmless(name string, args []string, dyn computed) bool {
	check, ok := harmless[name]
	if !ok {
		return false
	}
	return check(args, dyn)
}

// inertEnv are the environment variables that make no program run
// another: an assignment of any other (PATH=./bin:$PATH, LD_PRELOAD,
// LESSOPEN, PAGER, EDITOR, BASH_ENV, GOFLAGS=-toolexec=…, NODE_OPTIONS=
// --require, MAKEFLAGS, a make variable such as SHELL) proves no later
// command of the line harmless. (GIT_ variables are gitEnv's.)
var inertEnv = setOf(`CI NODE_ENV RUST_BACKTRACE RUST_LOG CGO_ENABLED GOOS GOARCH GO111MODULE GOPROXY
	GOPRIVATE GOCACHE GOMAXPROCS FORCE_COLOR NO_COLOR CLICOLOR TERM LANG LC_ALL LC_CTYPE TZ DEBUG VERBOSE
	PYTHONUNBUFFERED PYTHONDONTWRITEBYTECODE PYTHONWARNINGS COLUMNS LINES NODE_NO_WARNINGS TMPDIR PORT HOST
	RAILS_ENV MIX_ENV LOG_LEVEL RUST_MIN_STACK CARGO_TERM_COLOR PMCHECK_CORPUS`)

// exportedEnv are variables a shell has exported already that make a
// program run another: assigning one, even without export, reaches later
// commands.
var exportedEnv = setOf(`PATH BASH_ENV ENV PAGER LESSOPEN LESSCLOSE EDITOR VISUAL SHELL PROMPT_COMMAND
	NODE_OPTIONS PYTHONPATH PYTHONSTARTUP PERL5OPT PERL5LIB RUBYOPT RUBYLIB GOFLAGS MAKEFLAGS HOME
	XDG_CONFIG_HOME JAVA_TOOL_OPTIONS _JAVA_OPTIONS`)

// assigned records that the line assigns the variable name: exported to
// a command or the rest of the line, or (bare) only as a shell variable.
func (c *classifier) assigned(name string, bare bool) {
	switch {
	case strings.HasPrefix(name, "GIT_"):
		// gitEnv's.
	case bare:
		if exportedEnv[name] || strings.HasPrefix(name, "LD_") || strings.HasPrefix(name, "DYLD_") {
			c.envRisk = true
		}
	case !inertEnv[name]:
		c.envRisk = true
	}
}

// gitReadOnly are git's subcommands that change no tracked file, reach no
// remote but to read from it, and run no other program given static
// arguments without the options gitRunsOther names.
var gitReadOnly = setOf(`status log diff show rev-parse rev-list ls-files ls-tree blame describe shortlog
	grep cat-file for-each-ref show-ref merge-base name-rev count-objects help version reflog
	whatchanged range-diff check-ignore check-attr var diff-tree diff-files diff-index show-branch
	cherry verify-commit verify-tag fsck ls-remote fetch remote config branch tag notes worktree add`)

// gitLocal are git's subcommands that change the work tree or the
// repository but reach no remote to write to it.
var gitLocal = setOf(`commit checkout switch restore reset merge rebase cherry-pick revert am apply rm mv
	clean stash init clone pull gc prune repack sparse-checkout bisect submodule archive format-patch
	bundle update-index update-ref symbolic-ref read-tree checkout-index write-tree commit-tree
	hash-object mktag mktree pack-refs maintenance stripspace interpret-trailers`)

func setOf(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// gitRunsOther reports whether git's arguments (global options and the
// subcommand's) make it run a program the line does not show or read a
// configuration it does not: -c and --config-env set any configuration
// (core.fsmonitor, core.sshCommand, include.path, an alias), --exec-path
// with a value runs git-* programs from there, --upload-pack,
// --receive-pack and --exec run a command, rebase -x and bisect run,
// submodule foreach, grep -O and an external diff run one, --template
// installs hooks.
func gitRunsOther(sub string, args, rest []string) bool {
	for _, a := range args[:len(args)-len(rest)] {
		if a == "-c" || a == "--config-env" || strings.HasPrefix(a, "--config-env=") || strings.HasPrefix(a, "--exec-path=") {
			return true
		}
	}
	for i, a := range rest {
		if hasAnyPrefix(a, gitRunsOtherOptions) || gitSubRunsOther(sub, i, a) {
			return true
		}
	}
	return false
}

// gitRunsOtherOptions begin the options of any git subcommand that run a
// program or read a configuration the line does not show.
var gitRunsOtherOptions = []string{"--upload-pack", "--receive-pack", "--exec", "--template", "--config", "--ext-diff",
	"--open-files-in-pager", "--extcmd", "--tool"}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// gitSubRunsOther reports whether a, the subcommand sub's argument i, makes
// it run a program: fetch -u, rebase -x, grep -O, bisect run, submodule
// foreach, archive --remote.
func gitSubRunsOther(sub string, i int, a string) bool {
	switch sub {
	case "fetch", "clone", "pull", "ls-remote":
		return a == "-u" || a == "-c"
	case "archive":
		return a == "-u" || a == "-c" || strings.HasPrefix(a, "--remote")
	case "rebase":
		return strings.HasPrefix(a, "-x")
	case "grep":
		return strings.HasPrefix(a, "-O")
	case "bisect":
		return i == 0 && a == "run"
	case "submodule":
		return a == "foreach"
	}
	return false
}

// gitControlPath reports whether a written path holds git configuration
// or hooks: .git/config, .git/hooks/…, .git/info/attributes, a
// .gitattributes or .gitconfig, ~/.config/git/….
func gitControlPath(p string) bool {
	p = strings.ReplaceAll(p, `\`, "/")
	return strings.Contains(p, ".git/config") || strings.Contains(p, ".git/hooks") ||
		strings.Contains(p, ".git/info/attributes") || strings.HasSuffix(p, ".gitattributes") ||
		strings.HasSuffix(p, ".gitconfig") || strings.Contains(p, ".config/git/") || strings.Contains(p, ".githooks")
}

// gitInertConfig are configuration keys (lower case; a * stands for one
// name part) whose values run no program. Setting any other (core.hooksPath,
// core.fsmonitor, core.sshCommand, diff.X.textconv, filter.X.clean,
// include.path, protocol.ext.allow, …) makes later git commands unproven.
var gitInertConfig = setOf(`user.name user.email user.signingkey init.defaultbranch pull.rebase pull.ff
	push.default push.autosetupremote fetch.prune rebase.autostash rebase.autosquash merge.conflictstyle
	diff.algorithm diff.renames color.ui core.autocrlf core.filemode core.ignorecase core.quotepath
	core.whitespace commit.gpgsign tag.gpgsign advice.detachedhead safe.directory branch.*.remote
	branch.*.merge branch.*.rebase remote.*.url remote.*.pushurl remote.*.fetch http.postbuffer
	credential.usehttppath gc.auto help.autocorrect`)

// gitConfigSetsProgram reports whether `git config` with these arguments
// (after the subcommand) sets a key that is not inert: two operands, --add,
// --replace-all or the set subcommand, and a key outside gitInertConfig.
// Reading (one operand, --get, --list, get) and unsetting set nothing.
func gitConfigSetsProgram(rest []string) bool {
	var pos []string
	for i := 0; i < len(rest); i++ {
		switch a := rest[i]; {
		case a == "--file" || a == "-f" || a == "--blob" || a == "--type" || a == "--comment" || a == "--value" || a == "--default":
			i++
		case a == "--get" || a == "--get-all" || a == "--get-regexp" || a == "--list" || a == "-l" ||
			a == "--unset" || a == "--unset-all" || a == "--get-urlmatch" || a == "--remove-section":
			return false
		case strings.HasPrefix(a, "-"):
		default:
			pos = append(pos, a)
		}
	}
	if len(pos) > 0 && (pos[0] == "get" || pos[0] == "list" || pos[0] == "unset") {
		return false
	}
	if len(pos) > 0 && pos[0] == "set" {
		pos = pos[1:]
	}
	if len(pos) < 2 {
		return false
	}
	key := strings.ToLower(pos[0])
	if gitInertConfig[key] || strings.HasPrefix(key, "alias.") {
		return false // (an alias is the run's Aliases', and git NAME is unproven anyway)
	}
	if parts := strings.Split(key, "."); len(parts) == 3 && gitInertConfig[parts[0]+".*."+parts[2]] {
		return false
	}
	return true
}

// ghReadOnly are gh's subcommands that only read (or, pr checkout and repo
// clone, change the local work tree).
var ghReadOnly = setOf(`pr-view pr-list pr-diff pr-checks pr-status pr-checkout issue-view issue-list
	issue-status run-view run-list run-watch run-download repo-view repo-list repo-clone release-view
	release-list release-download workflow-view workflow-list search-prs search-issues search-repos
	search-code search-commits auth-status label-list gist-view gist-list cache-list secret-list
	variable-list variable-get ruleset-list ruleset-view ruleset-check status-`)

// ghHarmless reports whether a gh subcommand (ghSubcommand's) with its
// arguments is proven harmless: a read-only subcommand, or gh api reading
// (GET without fields, or a GraphQL query that is no mutation).
func ghHarmless(sub string, rest []string) bool {
	if sub == "--version" || sub == "version" || sub == "help" || sub == "" {
		return true
	}
	if sub == "api" {
		return ghAPIReads(rest)
	}
	name := strings.Replace(sub, " ", "-", 1)
	if !strings.Contains(name, "-") {
		name += "-"
	}
	return ghReadOnly[name]
}

// ghAPIReads reports whether `gh api` with these arguments only reads: its
// method is GET, explicitly or by default (no fields, no --input), or it
// posts a GraphQL query, given inline, that is no mutation.
func ghAPIReads(rest []string) bool {
	method, endpoint, fields, graphqlReads := "", "", false, true
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		value := func() string {
			if i+1 < len(rest) {
				i++
				return rest[i]
			}
			return ""
		}
		switch {
		case a == "-X" || a == "--method":
			method = value()
		case strings.HasPrefix(a, "--method="):
			method = strings.TrimPrefix(a, "--method=")
		case strings.HasPrefix(a, "-X") && len(a) > 2:
			method = a[2:]
		case ghAPIFieldOptions[a]:
			fields = true
			v := value()
			if strings.Contains(strings.ToLower(v), "mutation") || strings.Contains(v, "=@") {
				graphqlReads = false
			}
		case a == "--input":
			value()
			fields, graphqlReads = true, false
		case ghAPIValuedOptions[a]:
			value()
		case strings.HasPrefix(a, "-"):
		case endpoint == "":
			endpoint = a
		}
	}
	m := strings.ToUpper(method)
	if strings.Trim(endpoint, "/") == "graphql" {
		return (m == "" || m == "POST") && graphqlReads
	}
	return m == "GET" || m == "" && !fields
}

// ghAPIFieldOptions are gh api's options that add a field to the request
// (and so make its default method POST); each takes a value.
var ghAPIFieldOptions = setOf(`-f -F --field --raw-field`)

// ghAPIValuedOptions are gh api's other options that take a value, beside
// --method and --input.
var ghAPIValuedOptions = setOf(`-H --header -q --jq -t --template --hostname --cache -p --preview`)
