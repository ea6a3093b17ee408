package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// ShipConditions are the `if` conditions of the opt-in prefix form of the
// Bash handler (InstallOptions.PrefixConditions): one per shape of command
// line the ship classifier can find a ship action in. The default install
// has none: the gate runs for every Bash call and the ship classifier alone
// decides, because a prefix list cannot name `command git push`,
// `git --no-pager push`, `env git push`, an alias, or a verb it lacks, and
// Claude Code never runs the hook for a call no condition matches. In the
// prefix form a condition that is too broad (every `gh api` call) costs a
// process start, never a prompt; a condition that is missing lets that ship
// action through unasked. `bash -c`, `sh -c` and `eval` are listed because a
// ship verb can hide inside their string.
//
// `Bash(git -C * push:*)` puts a `*` in the middle of the pattern; only the
// trailing `:*` form is documented, so if Claude Code does not honour it that
// one condition never fires (bare `git -C <dir> push`), with no error.
var ShipConditions = []string{
	"Bash(git push:*)",
	"Bash(git -C * push:*)",
	"Bash(gh pr merge:*)",
	"Bash(gh pr edit:*)",
	"Bash(gh api:*)",
	"Bash(gh release create:*)",
	"Bash(npm publish:*)",
	"Bash(pnpm publish:*)",
	"Bash(cargo publish:*)",
	"Bash(twine upload:*)",
	"Bash(bash -c:*)",
	"Bash(sh -c:*)",
	"Bash(eval:*)",
}

// Subcommands the installed handlers run; they identify pmcheck's entries in a
// settings file (install replaces them, uninstall removes them).
const (
	sessionStartArgs = "hook session-start"
	preToolUseArgs   = "hook pre-tool-use"
)

// InstallOptions configure Install.
type InstallOptions struct {
	// Settings is the Claude Code settings file to edit.
	Settings string
	// Binary is the pmcheck binary the hooks run (absolute, stable).
	Binary string
	// PublishTools and DeployLabels are written into the hook command when
	// set, and the publish tools make the second handler's matcher (nil:
	// DefaultPublishTools()).
	Config Config
	// PrefixConditions installs the Bash handler behind ShipConditions
	// (one handler per `if` condition) instead of for every Bash call: the
	// opt-in for who measured the cost of a hook start on every command and
	// accepts that a ship action no condition names is not gated.
	PrefixConditions bool
	// Uninstall removes pmcheck's handlers instead.
	Uninstall bool
	// Now names the backup (time.Now when zero).
	Now time.Time
}

// InstallResult says what Install did.
type InstallResult struct {
	Changed bool
	Backup  string // the backup written before the change ("" when none)
}

// Install writes (or removes) the resume-gate handlers in a settings file:
// SessionStart with matcher "resume", PreToolUse with matcher "^Bash$" and
// one handler for every Bash call (or, with PrefixConditions, one handler
// per ship condition, the `if` inside the inner hooks array, where Claude
// Code reads it), and a PreToolUse handler for the publish tools. Every other key of the file is kept. The file is backed up
// before it is changed; installing twice changes nothing the second time.
func Install(o InstallOptions) (InstallResult, error) {
	if !o.Uninstall {
		if err := stableCheck(o.Binary); err != nil {
			return InstallResult{}, err
		}
	}
	f, err := readSettingsFile(o.Settings)
	if err != nil {
		return InstallResult{}, err
	}
	if err := f.setHandlers(o); err != nil {
		return InstallResult{}, err
	}
	out, err := encodeJSON(f.settings)
	if err != nil {
		return InstallResult{}, err
	}
	if bytes.Equal(out, f.old) || (len(f.old) == 0 && len(f.settings) == 0) {
		return InstallResult{}, nil
	}
	return f.write(out, o.Now)
}

// settingsFile is a settings file as Install edits it.
type settingsFile struct {
	path     string // as given: messages and the backup name it
	target   string // where it is written: a symbolic link's target
	mode     fs.FileMode
	old      []byte // its bytes before the change (none when it is new)
	settings map[string]any
	hooks    map[string]any // settings["hooks"]
}

// readSettingsFile reads the settings and their hooks object; a file that
// is not a JSON object, or whose hooks are not one, is refused.
func readSettingsFile(path string) (*settingsFile, error) {
	f := &settingsFile{path: path, target: path, mode: 0o600, settings: map[string]any{}}
	// A settings file kept as a symbolic link (a dotfiles checkout) is
	// edited where it points, so the link survives.
	if real, err := filepath.EvalSymlinks(path); err == nil {
		f.target = real
	}
	if st, err := os.Stat(f.target); err == nil {
		f.mode = st.Mode().Perm()
	}
	old, err := os.ReadFile(f.target)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("reading %s: %v", path, err)
	}
	f.old = old
	if len(bytes.TrimSpace(old)) > 0 {
		if err := decodeJSON(old, &f.settings); err != nil {
			return nil, fmt.Errorf("%s is not a JSON object (%v); fix or move it, then run install again", path, err)
		}
	}
	hooks, _ := f.settings["hooks"].(map[string]any)
	if f.settings["hooks"] != nil && hooks == nil {
		return nil, fmt.Errorf(`%s: "hooks" is not an object; fix it, then run install again`, path)
	}
	if hooks == nil {
		hooks = map[string]any{}
	}
	f.hooks = hooks
	return f, nil
}

// setHandlers removes pmcheck's handlers, then (unless o uninstalls) adds
// them as o asks; an event left without handlers, and hooks left empty,
// are dropped from the file.
func (f *settingsFile) setHandlers(o InstallOptions) error {
	for _, ev := range []string{"SessionStart", "PreToolUse"} {
		groups, err := removeOurs(f.hooks[ev])
		if err != nil {
			return fmt.Errorf("%s: hooks.%s: %v", f.path, ev, err)
		}
		f.hooks[ev] = groups
	}
	if !o.Uninstall {
		addHandlers(f.hooks, o)
	}
	for _, ev := range []string{"SessionStart", "PreToolUse"} {
		if len(f.hooks[ev].([]any)) == 0 {
			delete(f.hooks, ev)
		}
	}
	if len(f.hooks) == 0 {
		delete(f.settings, "hooks")
	} else {
		f.settings["hooks"] = f.hooks
	}
	return nil
}

// addHandlers appends pmcheck's groups to hooks whose SessionStart and
// PreToolUse are arrays already (removeOurs made them).
func addHandlers(hooks map[string]any, o InstallOptions) {
	hooks["SessionStart"] = append(hooks["SessionStart"].([]any), map[string]any{
		"matcher": "resume",
		"hooks":   []any{handler(o.Binary, sessionStartArgs, o.Config, "")},
	})
	bash := []any{handler(o.Binary, preToolUseArgs, o.Config, "")}
	if o.PrefixConditions {
		bash = bash[:0]
		for _, cond := range ShipConditions {
			bash = append(bash, handler(o.Binary, preToolUseArgs, o.Config, cond))
		}
	}
	pre := append(hooks["PreToolUse"].([]any), map[string]any{"matcher": "^Bash$", "hooks": bash})
	if m := publishMatcher(o.Config.publishTools()); m != "" {
		pre = append(pre, map[string]any{"matcher": m, "hooks": []any{handler(o.Binary, preToolUseArgs, o.Config, "")}})
	}
	hooks["PreToolUse"] = pre
}

// write backs the old file up (named with now, time.Now when zero), then
// replaces the file with out through a temporary file and a rename, in
// the file's mode, so a failure leaves the old file whole.
func (f *settingsFile) write(out []byte, now time.Time) (InstallResult, error) {
	var res InstallResult
	if len(f.old) > 0 {
		if now.IsZero() {
			now = time.Now()
		}
		res.Backup = f.path + ".pmcheck-" + now.UTC().Format("20060102T150405Z") + ".bak"
		if err := os.WriteFile(res.Backup, f.old, 0o600); err != nil {
			return res, fmt.Errorf("backing up %s: %v (nothing was changed)", f.path, err)
		}
	}
	if err := os.MkdirAll(filepath.Dir(f.target), 0o755); err != nil {
		return res, err
	}
	tmp := f.target + ".pmcheck-tmp"
	if err := os.WriteFile(tmp, out, f.mode); err != nil {
		return res, err
	}
	if err := os.Chmod(tmp, f.mode); err != nil {
		os.Remove(tmp)
		return res, err
	}
	if err := os.Rename(tmp, f.target); err != nil {
		os.Remove(tmp)
		return res, err
	}
	res.Changed = true
	return res, nil
}

// handler is one hook handler running pmcheck.
func handler(bin, args string, cfg Config, cond string) map[string]any {
	cmd := shellQuote(bin) + " " + args
	if args == preToolUseArgs {
		for _, t := range cfg.PublishTools {
			cmd += " --publish-tool=" + shellQuote(t)
		}
		for _, l := range cfg.DeployLabels {
			cmd += " --deploy-label=" + shellQuote(l)
		}
	}
	h := map[string]any{"type": "command", "command": cmd}
	if cond != "" {
		h["if"] = cond
	}
	return h
}

// publishMatcher is the anchored tool-name union of the publish tools (the
// matcher is a regular expression tested unanchored, so "Artifact" alone would
// also match "ArtifactList"). A path.Match "*" becomes ".*".
func publishMatcher(tools []string) string {
	var alts []string
	for _, t := range tools {
		q := regexp.QuoteMeta(t)
		q = strings.ReplaceAll(q, `\*`, ".*")
		q = strings.ReplaceAll(q, `\?`, ".")
		alts = append(alts, q)
	}
	if len(alts) == 0 {
		return ""
	}
	return "^(" + strings.Join(alts, "|") + ")$"
}

// removeOurs drops pmcheck's handlers from one event's groups, and groups
// left empty by that.
func removeOurs(v any) ([]any, error) {
	if v == nil {
		return []any{}, nil
	}
	groups, ok := v.([]any)
	if !ok {
		return nil, errors.New("not an array")
	}
	out := []any{}
	for _, g := range groups {
		gm, ok := g.(map[string]any)
		if !ok {
			out = append(out, g)
			continue
		}
		hs, ok := gm["hooks"].([]any)
		if !ok {
			out = append(out, g)
			continue
		}
		var keep []any
		for _, h := range hs {
			if !isOurs(h) {
				keep = append(keep, h)
			}
		}
		if len(keep) == 0 && len(hs) > 0 {
			continue
		}
		if len(keep) != len(hs) {
			cp := map[string]any{}
			for k, v := range gm {
				cp[k] = v
			}
			cp["hooks"] = keep
			g = cp
		}
		out = append(out, g)
	}
	return out, nil
}

// isOurs: a command handler that runs a pmcheck binary's hook subcommand.
func isOurs(h any) bool {
	hm, ok := h.(map[string]any)
	if !ok {
		return false
	}
	cmd, _ := hm["command"].(string)
	bin, args, ok := splitCommand(cmd)
	return ok && strings.HasPrefix(filepath.Base(bin), "pmcheck") &&
		(strings.HasPrefix(args, sessionStartArgs) || strings.HasPrefix(args, preToolUseArgs))
}

// splitCommand splits a handler command into its (possibly single-quoted)
// program and the rest.
func splitCommand(cmd string) (bin, rest string, ok bool) {
	cmd = strings.TrimSpace(cmd)
	if strings.HasPrefix(cmd, "'") {
		end := strings.Index(cmd[1:], "'")
		if end < 0 {
			return "", "", false
		}
		return cmd[1 : end+1], strings.TrimSpace(cmd[end+2:]), true
	}
	bin, rest, ok = strings.Cut(cmd, " ")
	return bin, strings.TrimSpace(rest), ok
}

// shellQuote quotes s for /bin/sh when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+,=:@", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// stableCheck is StableBinary; tests, whose binaries live in temporary
// directories, replace it.
var stableCheck = StableBinary

// StableBinary refuses a binary the hooks must not point at: a relative path,
// a missing or non-executable file, or one inside a temporary directory (a
// `go run` build, /tmp) or a git checkout or worktree, which disappears with
// the directory — and a PreToolUse hook whose program is gone exits non-zero
// on every push on the machine.
func StableBinary(bin string) error {
	if !filepath.IsAbs(bin) {
		return fmt.Errorf("the hook binary %q is not an absolute path", bin)
	}
	st, err := os.Stat(bin)
	if err != nil {
		return fmt.Errorf("the hook binary %s: %v", bin, err)
	}
	if !st.Mode().IsRegular() || st.Mode().Perm()&0o111 == 0 {
		return fmt.Errorf("the hook binary %s is not an executable file", bin)
	}
	real, err := filepath.EvalSymlinks(bin)
	if err != nil {
		real = bin
	}
	for _, p := range []string{bin, real} {
		if dir, ok := temporary(p); ok {
			return fmt.Errorf("the hook binary %s is inside the temporary directory %s; copy it to a stable place (e.g. `go install` or /usr/local/bin) and install from there", bin, dir)
		}
		if dir, ok := checkout(p); ok {
			return fmt.Errorf("the hook binary %s is inside the git checkout %s, which can be removed or rebuilt under the hook; copy it to a stable place (e.g. `go install` or /usr/local/bin) and install from there", bin, dir)
		}
	}
	return nil
}

func temporary(p string) (string, bool) {
	roots := []string{os.TempDir(), "/tmp", "/var/tmp", "/private/tmp", "/private/var/folders", "/var/folders", "/dev/shm"}
	if c, err := os.UserCacheDir(); err == nil {
		roots = append(roots, filepath.Join(c, "go-build"))
	}
	for _, r := range roots {
		r = filepath.Clean(r)
		if rr, err := filepath.EvalSymlinks(r); err == nil && within(p, rr) {
			return r, true
		}
		if within(p, r) {
			return r, true
		}
	}
	return "", false
}

func checkout(p string) (string, bool) {
	for dir := filepath.Dir(p); ; dir = filepath.Dir(dir) {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir, true
		}
		if filepath.Dir(dir) == dir {
			return "", false
		}
	}
}

func within(p, root string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, "../") && !filepath.IsAbs(rel)
}

// Problem is one thing wrong with an install.
type Problem string

// Check inspects an install: the settings file decodes, pmcheck's handlers
// are present in both events with the `if` inside the inner hooks array and
// an anchored Bash matcher, and every binary they run exists, is executable
// and starts (`<binary> version` exits 0). An empty list means the install
// works.
func Check(settingsPath string) []Problem {
	var ps []Problem
	add := func(f string, a ...any) { ps = append(ps, Problem(fmt.Sprintf(f, a...))) }
	data, err := os.ReadFile(settingsPath)
	if err != nil {
		add("cannot read %s: %v", settingsPath, err)
		return ps
	}
	settings := map[string]any{}
	if err := decodeJSON(data, &settings); err != nil {
		add("%s is not a JSON object (%v): Claude Code ignores every hook in it", settingsPath, err)
		return ps
	}
	hooks, ok := settings["hooks"].(map[string]any)
	if !ok {
		add("%s has no hooks object: the resume gate is not installed (run `pmcheck hook install`)", settingsPath)
		return ps
	}
	bins := map[string]bool{}
	var order []string
	found := map[string]int{}
	for _, ev := range []string{"SessionStart", "PreToolUse"} {
		groups, _ := hooks[ev].([]any)
		for _, g := range groups {
			gm, _ := g.(map[string]any)
			hs, _ := gm["hooks"].([]any)
			matcher, _ := gm["matcher"].(string)
			for _, h := range hs {
				if !isOurs(h) {
					continue
				}
				found[ev]++
				hm := h.(map[string]any)
				bin, _, _ := splitCommand(hm["command"].(string))
				if !bins[bin] {
					bins[bin] = true
					order = append(order, bin)
				}
				if _, bad := gm["if"]; bad {
					add("hooks.%s: an \"if\" beside the matcher is ignored by Claude Code, so every call of %q runs the gate; it belongs inside the inner hooks array", ev, matcher)
				}
				if ev == "PreToolUse" && (matcher == "Bash" || matcher == "") {
					add("hooks.PreToolUse: matcher %q is unanchored or empty and matches other tools (e.g. BashOutput); use \"^Bash$\"", matcher)
				}
			}
		}
	}
	if found["SessionStart"] == 0 {
		add("no pmcheck SessionStart handler in %s: resumes are not checked (run `pmcheck hook install`)", settingsPath)
	}
	if found["PreToolUse"] == 0 {
		add("no pmcheck PreToolUse handler in %s: ship actions are not gated (run `pmcheck hook install`)", settingsPath)
	}
	for _, bin := range order {
		st, err := os.Stat(bin)
		switch {
		case err != nil:
			add("the hook binary %s does not exist: every gated ship action fails with a hook error (reinstall from a stable binary)", bin)
			continue
		case !st.Mode().IsRegular() || st.Mode().Perm()&0o111 == 0:
			add("the hook binary %s is not an executable file: every gated ship action fails with a hook error", bin)
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		out, err := exec.CommandContext(ctx, bin, "version").CombinedOutput()
		cancel()
		if err != nil {
			add("the hook binary %s does not start (%v: %s)", bin, err, oneLine(string(out)))
		}
	}
	return ps
}

func decodeJSON(data []byte, v *map[string]any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if *v == nil {
		return errors.New("null")
	}
	if dec.More() {
		return errors.New("trailing data after the object")
	}
	return nil
}

func encodeJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
