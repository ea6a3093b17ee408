package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"

	"github.com/alecthomas/kong"

	"github.com/pmcheck/pmcheck/internal/exitcode"
	"github.com/pmcheck/pmcheck/report"
	"github.com/pmcheck/pmcheck/rules"
)

// Exit codes of check and scan (docs/exit-codes.md), from package exitcode,
// where every command's are defined. replay has watch's own codes.
const (
	ExitOK       = exitcode.OK
	ExitFindings = exitcode.Findings
	ExitUsage    = exitcode.Usage
	ExitInternal = exitcode.Internal
)

// CLI is the whole command line. Each command lives in its own file.
type CLI struct {
	VersionFlag versionFlag `name:"version" help:"Print the version and exit."`

	Check    CheckCmd    `cmd:"" help:"Analyze runs, evaluate rules and write reports (the CI command)."`
	Replay   ReplayCmd   `cmd:"" help:"Print what agent-postmortem watch would have printed for a Workflow run, and when."`
	Scan     ScanCmd     `cmd:"" help:"List every run under a root."`
	Collect  CollectCmd  `cmd:"" help:"Copy this repository's runs from ~/.claude/projects into .agent-runs/, secrets redacted."`
	Render   RenderCmd   `cmd:"" help:"Render saved JSON reports in another format (merges several)."`
	Explain  ExplainCmd  `cmd:"" help:"Show the evidence chain of a finding, a fact or a whole run."`
	Rules    RulesCmd    `cmd:"" help:"List, explain and validate rules."`
	Fixtures FixturesCmd `cmd:"" help:"List the built-in scenario runs and write them into a folder (deterministic)."`
	Version  VersionCmd  `cmd:"" help:"Print the version."`
	Watch    WatchCmd    `cmd:"" help:"Follow a Workflow run while it is written and print watch's lines as they happen (replay on a real clock)."`
	Hook     HookCmd     `cmd:"" help:"The resume gate as Claude Code hooks: session-start, pre-tool-use, install."`
}

// Env is what every command's Run receives: the process's streams, so tests run
// commands in-process.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// InGitHubActions is set when GITHUB_ACTIONS=true: standard output is a
	// workflow log, where a line of transcript text could be read as a
	// workflow command. StopToken pauses command processing around what
	// pmcheck prints there (::stop-commands::); it is drawn at random per
	// process, so no transcript can know it.
	InGitHubActions bool
	StopToken       string
}

// guardStdout pauses workflow-command processing on standard output for a
// command that prints transcript text outside the report renderers (scan,
// replay) when it runs under GitHub Actions; call the returned function when
// the command is done.
func guardStdout(env *Env) func() {
	if !env.InGitHubActions {
		return func() {}
	}
	fmt.Fprintf(env.Stdout, "::stop-commands::%s\n", env.StopToken)
	return func() { fmt.Fprintf(env.Stdout, "::%s::\n", env.StopToken) }
}

// ExitError carries an exit code out of a command. A nil Err means the command
// already printed what it had to say.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit %d", e.Code)
	}
	return e.Err.Error()
}

func (e *ExitError) Unwrap() error { return e.Err }

// exitf returns an ExitError with a formatted one-line message.
func exitf(code int, format string, args ...any) error {
	return &ExitError{Code: code, Err: fmt.Errorf(format, args...)}
}

// usageError is an input, usage or configuration error: exit 2.
func usageError(format string, args ...any) error { return exitf(ExitUsage, format, args...) }

// kongExit is thrown through kong's Exit hook so that --help and usage errors
// return from Run instead of ending the process.
type kongExit struct{ code int }

// Run is pmcheck's whole program: parse args, run the command, map errors to
// exit codes. It never calls os.Exit.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	if len(args) == 0 {
		// Bare pmcheck is someone finding out what it does: the help, not
		// a usage error.
		args = []string{"--help"}
	}
	var cli CLI
	env := &Env{Stdin: stdin, Stdout: stdout, Stderr: stderr,
		InGitHubActions: os.Getenv("GITHUB_ACTIONS") == "true", StopToken: report.NewStopToken()}
	defer func() {
		if r := recover(); r != nil {
			if k, ok := r.(kongExit); ok {
				code = k.code
				return
			}
			fmt.Fprintf(stderr, "pmcheck: internal error: %v (please report this with the input that caused it)\n", r)
			code = ExitInternal
		}
	}()
	if usesRules(args) {
		// Loaded on the second core while kong builds the command line
		// (4-5 ms): a check of a small folder finishes 2 ms sooner.
		go rules.Warm()
	}
	parser, err := newParser(grammar(&cli, args), env)
	if err != nil {
		fmt.Fprintf(stderr, "pmcheck: internal error: %v\n", err)
		return ExitInternal
	}
	kctx, err := parser.Parse(args)
	if err != nil {
		fmt.Fprintf(stderr, "pmcheck: %s (run 'pmcheck --help' for usage)\n", oneLine(err.Error()))
		return ExitUsage
	}
	if err := kctx.Run(env); err != nil {
		var ee *ExitError
		if errors.As(err, &ee) {
			if ee.Err != nil {
				fmt.Fprintf(stderr, "pmcheck: %s\n", oneLine(ee.Err.Error()))
			}
			return ee.Code
		}
		fmt.Fprintf(stderr, "pmcheck: %s\n", oneLine(err.Error()))
		return ExitInternal
	}
	return ExitOK
}

// newParser is kong's parser of grammar (the CLI, or the part of it that
// grammar chooses), with pmcheck's name, streams and exit handling.
func newParser(grammar any, env *Env) (*kong.Kong, error) {
	return kong.New(grammar,
		kong.Name("pmcheck"),
		kong.Description("Offline, deterministic forensic analyzer for finished AI coding-agent runs."),
		kong.Writers(env.Stdout, env.Stderr),
		kong.Exit(func(c int) {
			// kong exits 0 after --help and 80 on its own usage errors; usage
			// errors are exit 2 here (docs/exit-codes.md).
			if c != 0 {
				c = ExitUsage
			}
			panic(kongExit{c})
		}),
		kong.ConfigureHelp(kong.HelpOptions{Compact: true}),
		kong.Vars{"version": Version},
		kong.Bind(env),
	)
}

// grammar is what kong builds its parser from. When the first argument
// names a command, it is a struct of the global flags and that command
// alone: kong reflects over every flag and help text of the grammar it is
// given, 7 ms of a check's start-up and of every hook call here, and a
// command's parse, help and errors do not depend on its siblings
// (TestOneCommandGrammar checks every command's). Otherwise (a flag first,
// an unknown word, no arguments) it is the whole CLI.
func grammar(cli *CLI, args []string) any {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return cli // a global flag first may take a value
	}
	t := reflect.TypeFor[CLI]()
	var fields []reflect.StructField
	found := false
	for f := range t.Fields() {
		if _, isCmd := f.Tag.Lookup("cmd"); isCmd {
			if commandName(f) != args[0] {
				continue
			}
			found = true
		}
		fields = append(fields, f)
	}
	if !found {
		return cli
	}
	return reflect.New(reflect.StructOf(fields)).Interface()
}

// commandName is the word that selects a command field: kong's default
// name for a one-word field (TestOneCommandGrammar fails if a command gets
// another name or aliases).
func commandName(f reflect.StructField) string { return strings.ToLower(f.Name) }

// usesRules says whether the command line names a command that evaluates
// the default rules (check, explain, rules): its first word that is not a
// flag.
func usesRules(args []string) bool {
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			continue
		}
		return a == "check" || a == "explain" || a == "rules"
	}
	return false
}

// oneLine keeps error output to one line whatever an error wraps.
// It also keeps a legacy workflow command ("##[") out of the line, since
// standard error goes to the CI log too and messages may quote file names.
// Bidi controls are dropped for the same reason reports drop them.
func oneLine(s string) string {
	s = strings.Map(func(r rune) rune {
		if (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) {
			return -1
		}
		return r
	}, s)
	return strings.ReplaceAll(strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ")), " "), "##[", "#\\#[")
}
