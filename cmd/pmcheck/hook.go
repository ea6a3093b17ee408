package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pmcheck/pmcheck/hook"
)

// HookCmd groups the resume-gate hook commands (docs/hooks.md).
type HookCmd struct {
	SessionStart HookSessionStartCmd `cmd:"" name:"session-start" help:"Claude Code SessionStart hook (matcher resume): warn about subagents killed before the interruption and write the segment mark."`
	PreToolUse   HookPreToolUseCmd   `cmd:"" name:"pre-tool-use" help:"Claude Code PreToolUse hook: ask before a ship action while killed subagents are outstanding."`
	Install      HookInstallCmd      `cmd:"" help:"Write (or --uninstall, or --check) the resume-gate hooks in a Claude Code settings file."`
}

// hookExit prints a hook result and returns its exit code. A hook's exit
// code is Claude Code's contract (0, or 2 on internal error), so it bypasses
// pmcheck's own error mapping.
func hookExit(env *Env, r hook.Result) error {
	if len(r.Stdout) > 0 {
		env.Stdout.Write(r.Stdout)
	}
	if r.Stderr != "" {
		fmt.Fprintln(env.Stderr, r.Stderr)
	}
	if r.Exit == 0 {
		return nil
	}
	return &ExitError{Code: r.Exit}
}

// guard turns a panic inside a hook into the hook's internal-error exit (2),
// not pmcheck's 3, which Claude Code would treat as a non-blocking error: the
// gate fails closed on its own faults.
func guard(env *Env, event string, run func() hook.Result) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = hookExit(env, hook.Result{Exit: hook.ExitError,
				Stderr: fmt.Sprintf("pmcheck resume gate: %s failed (internal error: %v)", event, r)})
		}
	}()
	return hookExit(env, run())
}

// HookSessionStartCmd is Component 1 of the resume gate.
type HookSessionStartCmd struct{}

// Run reads the hook payload from stdin.
func (c *HookSessionStartCmd) Run(env *Env) error {
	return guard(env, "SessionStart", func() hook.Result { return hook.SessionStart(env.Stdin, hook.Config{}) })
}

// HookPreToolUseCmd is Component 2 of the resume gate.
type HookPreToolUseCmd struct {
	PublishTools []string `name:"publish-tool" placeholder:"NAME" help:"Tool name (glob allowed) whose calls are publish actions; replaces the default list (repeatable, as in check)."`
	DeployLabels []string `name:"deploy-label" placeholder:"LABEL" help:"PR label whose addition deploys (repeatable, as in check)."`
}

// Run reads the hook payload from stdin.
func (c *HookPreToolUseCmd) Run(env *Env) error {
	cfg := hook.Config{PublishTools: c.PublishTools, DeployLabels: c.DeployLabels}
	return guard(env, "PreToolUse", func() hook.Result { return hook.PreToolUse(env.Stdin, cfg) })
}

// HookInstallCmd writes the hooks into a settings file.
type HookInstallCmd struct {
	Project      bool     `help:"Edit the project's .claude/settings.json (in the current directory) instead of ~/.claude/settings.json."`
	Settings     string   `help:"Edit this settings file instead."`
	Binary       string   `help:"The pmcheck binary the hooks run (default: this one). Must be absolute and stable: not in a temporary directory or a git checkout."`
	PublishTools []string `name:"publish-tool" placeholder:"NAME" help:"Tool name (glob allowed) whose calls are publish actions; replaces the default list (repeatable). Re-run install after connecting a new MCP server."`
	DeployLabels []string `name:"deploy-label" placeholder:"LABEL" help:"PR label whose addition deploys (repeatable)."`
	Uninstall    bool     `help:"Remove pmcheck's hooks from the settings file."`
	Check        bool     `help:"Report whether the installed hooks work (settings decode, handlers in place, binary present and starting); exit 1 when not."`
}

// Run installs, uninstalls or checks.
func (c *HookInstallCmd) Run(env *Env) error {
	settings, err := c.settingsPath()
	if err != nil {
		return usageError("hook install: %v", err)
	}
	if c.Check {
		ps := hook.Check(settings)
		for _, p := range ps {
			fmt.Fprintf(env.Stdout, "problem: %s\n", p)
		}
		if len(ps) > 0 {
			return &ExitError{Code: ExitFindings}
		}
		fmt.Fprintf(env.Stdout, "ok: the resume-gate hooks in %s are in place and their binary starts\n", settings)
		return nil
	}
	bin := c.Binary
	if bin == "" && !c.Uninstall {
		if bin, err = os.Executable(); err != nil {
			return usageError("hook install: cannot find this binary (%v); pass --binary", err)
		}
	}
	o := hook.InstallOptions{Settings: settings, Binary: bin, Uninstall: c.Uninstall,
		Config: hook.Config{PublishTools: c.PublishTools, DeployLabels: c.DeployLabels}}
	if !c.Uninstall {
		fmt.Fprintf(env.Stdout, "hook binary: %s\n", bin)
		fmt.Fprintf(env.Stdout, "Bash calls (PreToolUse ^Bash$): every one; the ship classifier decides\n")
		tools := c.PublishTools
		if tools == nil {
			tools = hook.DefaultPublishTools()
		}
		fmt.Fprintf(env.Stdout, "publish tools: %s\n", strings.Join(tools, " "))
	}
	res, err := hook.Install(o)
	if err != nil {
		return usageError("hook install: %v", err)
	}
	switch {
	case !res.Changed:
		fmt.Fprintf(env.Stdout, "%s: already up to date, nothing changed\n", settings)
	case res.Backup != "":
		fmt.Fprintf(env.Stdout, "%s: updated (backup: %s; restore with cp)\n", settings, res.Backup)
	default:
		fmt.Fprintf(env.Stdout, "%s: written\n", settings)
	}
	return nil
}

func (c *HookInstallCmd) settingsPath() (string, error) {
	switch {
	case c.Settings != "":
		return filepath.Abs(c.Settings)
	case c.Project:
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		return filepath.Join(wd, ".claude", "settings.json"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no home directory (%v); pass --settings", err)
	}
	return filepath.Join(home, ".claude", "settings.json"), nil
}
