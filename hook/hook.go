// Package hook is the resume gate as two Claude Code hook commands:
//
//   - SessionStart (matcher "resume") runs the resume-gate detector over the
//     rows after the newest mark that decodes and answers with
//     hookSpecificOutput.additionalContext: a warning ending in a mark that
//     lists the outstanding subagents (arms the gate), a bare mark listing
//     nothing (disarms it), or nothing at all.
//   - PreToolUse, on ship actions only, reads the newest mark (or, when there
//     is none or it does not decode, runs the detector) and answers "ask" with
//     the outstanding items in the reason, so a human keypress stands between
//     unreviewed subagent work and a push, merge, deploy, release or publish.
//
// The additionalContext lands in the session's transcript, which is where the
// next resume, the next ship action and `pmcheck check` in CI read the mark.
//
// Exit codes are the hook contract: 0 with or without JSON on stdout; 2 with
// one line on stderr on any internal error (for PreToolUse that blocks the
// call, for SessionStart it only shows the line). The one exception is a
// transcript file that does not exist: the session was never persisted, so it
// cannot have been resumed and no mark can exist; the call is allowed with a
// systemMessage naming the cause and the remedy.
package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/pmcheck/pmcheck/analyze"
	"github.com/pmcheck/pmcheck/internal/exitcode"
)

// Exit codes of the hook commands (Claude Code's): 0 proceeds (the JSON on
// stdout decides), 2 is the fail-closed internal error.
const (
	ExitOK    = exitcode.HookProceed
	ExitError = exitcode.HookBlock
)

// SkillName is the skill the warning points at for what to do next.
const SkillName = "recover-killed-session-from-transcript-and-worktree"

// maxPayload bounds the hook payload read from stdin: Claude Code's payloads
// are a few kilobytes plus the tool input.
const maxPayload = 16 << 20

// Config is what the hooks can be told on their command line.
type Config struct {
	// PublishTools are non-Bash tool names (path.Match patterns allowed) that
	// publish; nil means DefaultPublishTools().
	PublishTools []string
	// DeployLabels are the labels whose `gh pr edit --add-label` deploys; nil
	// means the ship classifier's default.
	DeployLabels []string
	// Git runs git for the supplementary context (gitContext when nil).
	Git func(dir string, args ...string) (string, error)
}

func (c Config) gate() analyze.GateOptions {
	return analyze.GateOptions{PublishTools: c.PublishTools, DeployLabels: c.DeployLabels}
}

// Result is what a hook command hands back to Claude Code.
type Result struct {
	Exit   int
	Stdout []byte // a JSON object, or empty
	Stderr string // one line, or empty
}

// payload is the part of the hook input the gate reads.
type payload struct {
	TranscriptPath string
	Cwd            string
	Source         string
	ToolName       string
	Command        string
	// Unclassified says why the tool call could not be read (PreToolUse).
	Unclassified string
}

// readPayload decodes the hook input. A missing or mistyped key is an error:
// a payload the gate does not understand is a surprise about the harness.
func readPayload(r io.Reader, event string) (payload, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxPayload+1))
	if err != nil {
		return payload{}, fmt.Errorf("reading the hook input: %v", err)
	}
	if len(data) > maxPayload {
		return payload{}, fmt.Errorf("the hook input is larger than %d MiB", maxPayload>>20)
	}
	var raw map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&raw); err != nil || raw == nil {
		return payload{}, errors.New("the hook input is not a JSON object")
	}
	str := func(key string, required bool) (string, error) {
		v, ok := raw[key]
		if !ok {
			if required {
				return "", fmt.Errorf("the hook input has no %q", key)
			}
			return "", nil
		}
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return "", fmt.Errorf("the hook input's %q is not a string", key)
		}
		return s, nil
	}
	var p payload
	if p.TranscriptPath, err = str("transcript_path", true); err != nil {
		return p, err
	}
	if p.TranscriptPath == "" {
		return p, errors.New(`the hook input's "transcript_path" is empty`)
	}
	if p.Cwd, err = str("cwd", false); err != nil {
		return p, err
	}
	switch event {
	case "SessionStart":
		if p.Source, err = str("source", true); err != nil {
			return p, err
		}
	case "PreToolUse":
		// What the call is only decides whether the gate looks at all. A
		// tool name or command the gate cannot read does not block: the
		// call is treated as a ship action (a call the gate cannot read is
		// one it cannot prove harmless), so it asks when work is outstanding
		// and proceeds otherwise, with a note on stderr.
		if p.ToolName, err = str("tool_name", true); err != nil {
			p.Unclassified = err.Error()
			return p, nil
		}
		var in map[string]json.RawMessage
		if v, ok := raw["tool_input"]; ok {
			if err := json.Unmarshal(v, &in); err != nil || in == nil {
				p.Unclassified = `the hook input's "tool_input" is not an object`
				return p, nil
			}
		}
		c, ok := in["command"]
		switch {
		case ok:
			// null decodes into a string without an error, as "": a
			// command the gate cannot read is never an empty command.
			if err := json.Unmarshal(c, &p.Command); err != nil || bytes.Equal(bytes.TrimSpace(c), []byte("null")) {
				p.Unclassified = `the hook input's "tool_input.command" is not a string`
			}
		case p.ToolName == "Bash":
			p.Unclassified = `the hook input has no "tool_input.command" for a Bash call`
		}
	}
	return p, nil
}

// SessionStart is Component 1, the detector on resume.
func SessionStart(stdin io.Reader, cfg Config) Result {
	fail := func(err error) Result {
		return Result{Exit: ExitError, Stderr: "pmcheck resume gate: detector failed (" + oneLine(err.Error()) + ") - this session is unguarded"}
	}
	p, err := readPayload(stdin, "SessionStart")
	if err != nil {
		return fail(err)
	}
	if p.Source != "resume" {
		return Result{Exit: ExitOK}
	}
	g, err := readGate(p.TranscriptPath, cfg)
	if err != nil {
		if missing(err) {
			return notPersisted("SessionStart")
		}
		return fail(transcriptError(p.TranscriptPath, err))
	}
	var text string
	switch items := g.Warn(); {
	case len(items) > 0:
		text = warning(items, supplementary(p.Cwd, cfg))
	case g.Disarm():
		// Nothing outstanding any more, but the newest mark still lists
		// items: a mark listing nothing disarms the gate.
		text = encodeMark(nil)
	default:
		// Nothing to say and nothing to retract: stay silent.
		return Result{Exit: ExitOK}
	}
	return jsonResult(map[string]any{"hookSpecificOutput": map[string]any{
		"hookEventName": "SessionStart", "additionalContext": text}})
}

// PreToolUse is Component 2, the ask-gate on ship actions.
func PreToolUse(stdin io.Reader, cfg Config) Result {
	fail := func(err error) Result {
		return Result{Exit: ExitError, Stderr: "pmcheck resume gate: gate failed (" + oneLine(err.Error()) + ") - blocking to stay safe"}
	}
	p, err := readPayload(stdin, "PreToolUse")
	if err != nil {
		return fail(err)
	}
	// What the call is only decides whether the gate looks at all; a call
	// that may run a git alias is read with the session's aliases.
	note := ""
	if p.Unclassified != "" {
		note = "pmcheck resume gate: " + p.Unclassified + "; treated as a ship action"
	} else if !analyze.MayShip(p.ToolName, p.Command, cfg.gate()) {
		return Result{Exit: ExitOK} // not a ship action: local work is never gated
	}
	g, err := readGate(p.TranscriptPath, cfg)
	if err != nil {
		if missing(err) {
			return notPersisted("PreToolUse")
		}
		return fail(transcriptError(p.TranscriptPath, err))
	}
	kinds := []string{"ship action"}
	if p.Unclassified == "" {
		if kinds = g.ShipKinds(p.ToolName, p.Command); len(kinds) == 0 {
			return Result{Exit: ExitOK} // a git command no alias of the session makes a ship action
		}
	}
	items := g.Ask()
	if len(items) == 0 {
		return Result{Exit: ExitOK, Stderr: note}
	}
	reason := fmt.Sprintf("Resume gate: this session has unreviewed subagent work outstanding: %s. "+
		"They were terminated early and nobody has reviewed what they left. "+
		"Review their work (skill: %s) before this %s.",
		listItems(items, "; "), SkillName, strings.Join(kinds, "/"))
	r := jsonResult(map[string]any{"hookSpecificOutput": map[string]any{
		"hookEventName": "PreToolUse", "permissionDecision": "ask", "permissionDecisionReason": reason}})
	if r.Exit == ExitOK {
		r.Stderr = note
	}
	return r
}

// warning is the arming context: the items, the unreviewed local work, the
// skill to use, and the mark listing the items as its last line.
func warning(items []string, extra []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Resume gate: before this session was interrupted, %d %s terminated early, and nobody has reviewed what %s left:\n",
		len(items), plural(len(items), "subagent was", "subagents were"), plural(len(items), "it", "they"))
	for _, it := range capItems(items) {
		b.WriteString("  - " + it + "\n")
	}
	if len(extra) > 0 {
		b.WriteString("Work that exists but has not been through review:\n")
		for _, e := range extra {
			b.WriteString("  " + e + "\n")
		}
	}
	b.WriteString("Treat that output as unreviewed: read it before building on it or shipping it (skill: " + SkillName + "). " +
		"Until a later resume finds nothing outstanding, push, merge, deploy, release and publish actions ask for confirmation.\n")
	b.WriteString(encodeMark(items))
	return b.String()
}

// notPersisted is the one failure that allows the call: the transcript file
// does not exist, so the session was never persisted, could not have been
// resumed, and carries no mark. Saying so (instead of staying silent) keeps
// a check that did nothing from looking like a check that passed.
func notPersisted(event string) Result {
	msg := "Resume gate did not run (" + event + "): this session's transcript file does not exist. " +
		"A session started by another Claude Code process (CLAUDE_CODE_CHILD_SESSION) writes none; " +
		"set CLAUDE_CODE_FORCE_SESSION_PERSISTENCE=1 so the gate can guard it."
	return jsonResult(map[string]any{"systemMessage": msg})
}

func missing(err error) bool { return errors.Is(err, fs.ErrNotExist) }

func transcriptError(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	if st, serr := os.Stat(path); serr == nil && st.IsDir() {
		return fmt.Errorf("transcript_path %s is a directory", path)
	}
	return fmt.Errorf("transcript %s: %v", path, err)
}

func jsonResult(v any) Result {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return Result{Exit: ExitError, Stderr: "pmcheck resume gate: could not encode the hook output (" + err.Error() + ")"}
	}
	return Result{Exit: ExitOK, Stdout: b.Bytes()}
}

// maxListed and maxItemLen bound what a warning or a reason repeats of the
// items (descriptions come from the transcript and are not capped there).
const (
	maxListed  = 20
	maxItemLen = 200
)

func capItems(items []string) []string {
	out := make([]string, 0, min(len(items), maxListed+1))
	for i, it := range items {
		if i == maxListed {
			out = append(out, fmt.Sprintf("… and %d more", len(items)-maxListed))
			break
		}
		out = append(out, capLen(oneLine(it)))
	}
	return out
}

func capLen(s string) string {
	if len(s) <= maxItemLen {
		return s
	}
	cut := maxItemLen
	for cut > 0 && (s[cut]&0xC0) == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}

func listItems(items []string, sep string) string { return strings.Join(capItems(items), sep) }

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// DefaultPublishTools is the publish-tool list used when none is configured.
func DefaultPublishTools() []string { return analyze.DefaultPublishTools() }
