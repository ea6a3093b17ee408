package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pmcheck/pmcheck/analyze/harness"
	"github.com/pmcheck/pmcheck/hook"
)

func runHook(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errs bytes.Buffer
	code := Run(append([]string{"hook"}, args...), strings.NewReader(stdin), &out, &errs)
	return out.String(), errs.String(), code
}

// TestHookCommandsKeepClaudeCodesExitContract: through the real command line,
// a ship action on a killed-subagent session asks (exit 0, JSON), an internal
// error exits 2 with one stderr line, a missing transcript allows with a
// systemMessage.
func TestHookCommandsKeepClaudeCodesExitContract(t *testing.T) {
	session := "../../fixtures/runs/detect-sync-killed/40000000-0000-4000-8000-000000000001.jsonl"
	abs, _ := filepath.Abs(session)
	payload := func(path, cmd string) string {
		b, _ := json.Marshal(map[string]any{"transcript_path": path, "tool_name": "Bash", "tool_input": map[string]any{"command": cmd}})
		return string(b)
	}
	out, errs, code := runHook(t, payload(abs, "git push origin HEAD:main"), "pre-tool-use")
	if code != 0 || errs != "" || !strings.Contains(out, `"permissionDecision":"ask"`) || !strings.Contains(out, "Fix three disclosure defects") {
		t.Fatalf("ship action: exit %d stderr %q stdout %s", code, errs, out)
	}
	out, errs, code = runHook(t, payload(abs, "git status"), "pre-tool-use")
	if code != 0 || out != "" || errs != "" {
		t.Fatalf("non-ship: exit %d %q %q", code, out, errs)
	}
	out, errs, code = runHook(t, payload(t.TempDir(), "git push"), "pre-tool-use")
	if code != 2 || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "is a directory") {
		t.Fatalf("directory: exit %d %q %q", code, out, errs)
	}
	out, errs, code = runHook(t, `{"source":"resume"}`, "session-start")
	if code != 2 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, `no "transcript_path"`) {
		t.Fatalf("session-start without a path: exit %d %q %q", code, out, errs)
	}
	out, _, code = runHook(t, payload(filepath.Join(t.TempDir(), "x.jsonl"), "git push"), "pre-tool-use")
	if code != 0 || !strings.Contains(out, "CLAUDE_CODE_FORCE_SESSION_PERSISTENCE=1") {
		t.Fatalf("missing transcript: exit %d %q", code, out)
	}
	out, _, code = runHook(t, payload(abs, "gh pr edit 3 --add-label ship-it"), "pre-tool-use", "--deploy-label", "ship-it")
	if code != 0 || !strings.Contains(out, `"ask"`) {
		t.Fatalf("configured deploy label: exit %d %q", code, out)
	}
}

func TestHookInstallCommand(t *testing.T) {
	settings := filepath.Join(t.TempDir(), "settings.json")
	// A go test binary lives in a temporary build directory: install refuses it.
	if exe, _ := os.Executable(); hook.StableBinary(exe) != nil {
		_, errs, code := runHook(t, "", "install", "--settings", settings)
		if code != 2 || !strings.Contains(errs, "hook binary") {
			t.Fatalf("install from a temporary binary: exit %d %q", code, errs)
		}
		if _, err := os.Stat(settings); err == nil {
			t.Fatal("a refused install wrote the settings file")
		}
	}
	out, _, code := runHook(t, "", "install", "--check", "--settings", settings)
	if code != 1 || !strings.Contains(out, "problem: cannot read") {
		t.Fatalf("check without settings: exit %d %q", code, out)
	}
	os.WriteFile(settings, []byte(`{"hooks":{"SessionStart":[{"matcher":"resume","hooks":[{"type":"command","command":"/nonexistent/pmcheck hook session-start"}]}]}}`), 0o600)
	out, _, code = runHook(t, "", "install", "--check", "--settings", settings)
	if code != 1 || !strings.Contains(out, "/nonexistent/pmcheck does not exist") || !strings.Contains(out, "no pmcheck PreToolUse handler") {
		t.Fatalf("check of a broken install: exit %d %q", code, out)
	}
	out, _, code = runHook(t, "", "install", "--uninstall", "--settings", settings)
	if code != 0 || !strings.Contains(out, "updated (backup:") {
		t.Fatalf("uninstall: exit %d %q", code, out)
	}
	if b, _ := os.ReadFile(settings); strings.TrimSpace(string(b)) != "{}" {
		t.Fatalf("after uninstall: %s", b)
	}
}

// TestCheckReadsTheMarksTheHookWrote: the CI check and the hook read the
// same marks. A killed subagent is flagged by killed-subagent-not-shipped-unreviewed
// until a resume of the session arms and a later one disarms the gate; after
// that the session is not flagged again, until a new kill follows the mark.
func TestCheckReadsTheMarksTheHookWrote(t *testing.T) {
	src, err := os.ReadFile("../../fixtures/runs/detect-sync-killed/40000000-0000-4000-8000-000000000001.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	session := filepath.Join(dir, "40000000-0000-4000-8000-000000000001.jsonl")
	os.WriteFile(session, src, 0o644)
	flagged := func() int {
		t.Helper()
		out, errs, _ := func() (string, string, int) {
			var o, e bytes.Buffer
			c := Run([]string{"check", "--fail-level", "none", "-f", "json", session}, strings.NewReader(""), &o, &e)
			return o.String(), e.String(), c
		}()
		var doc struct {
			Findings []struct {
				RuleID string `json:"rule_id"`
			} `json:"findings"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("check output: %v %s %s", err, out, errs)
		}
		n := 0
		for _, f := range doc.Findings {
			if f.RuleID == "killed-subagent-not-shipped-unreviewed" {
				n++
			}
		}
		return n
	}
	n := 0
	appendLines := func(lines ...string) {
		f, _ := os.OpenFile(session, os.O_APPEND|os.O_WRONLY, 0)
		defer f.Close()
		for _, l := range lines {
			f.WriteString(l + "\n")
		}
	}
	resume := func() {
		t.Helper()
		b, _ := json.Marshal(map[string]any{"transcript_path": session, "source": "resume"})
		out, errs, code := runHook(t, string(b), "session-start")
		if code != 0 {
			t.Fatalf("session-start: %d %s", code, errs)
		}
		if out == "" {
			return
		}
		var o struct {
			HookSpecificOutput struct {
				AdditionalContext string `json:"additionalContext"`
			} `json:"hookSpecificOutput"`
		}
		json.Unmarshal([]byte(out), &o)
		n++
		row, _ := json.Marshal(map[string]any{"type": "attachment", "uuid": "00000009-0000-4000-8000-00000000000" + string(rune('0'+n)),
			"sessionId": "40000000-0000-4000-8000-000000000001",
			"attachment": map[string]any{"type": "hook_additional_context", "hookName": "SessionStart", "hookEvent": "SessionStart",
				"content": []string{o.HookSpecificOutput.AdditionalContext}}})
		appendLines(string(row))
	}
	if got := flagged(); got != 1 {
		t.Fatalf("before any resume: %d findings", got)
	}
	resume() // arms: the mark lists the subagent
	if got := flagged(); got != 0 {
		t.Fatalf("after the arming resume: %d findings", got)
	}
	resume() // disarms
	if got := flagged(); got != 0 {
		t.Fatalf("after the disarming resume: %d findings", got)
	}
	// A new kill after the mark is flagged again.
	call, _ := json.Marshal(map[string]any{"type": "assistant", "uuid": "00000009-0000-4000-8000-000000000020", "timestamp": "2026-05-07T13:00:00Z",
		"sessionId": "40000000-0000-4000-8000-000000000001", "message": map[string]any{"role": "assistant", "content": []any{
			map[string]any{"type": "tool_use", "id": "toolu_new", "name": "Agent", "input": map[string]any{"description": "Migrate the schema", "prompt": "go"}}}}})
	res, _ := json.Marshal(map[string]any{"type": "user", "uuid": "00000009-0000-4000-8000-000000000021", "timestamp": "2026-05-07T13:01:00Z",
		"sessionId": "40000000-0000-4000-8000-000000000001", "message": map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "tool_result", "tool_use_id": "toolu_new", "content": []any{map[string]any{"type": "text",
				"text": harness.APIErrorPrefix + ": API Error: overloaded. " + harness.PartialNotice() + " before it stopped."}}}}}})
	appendLines(string(call), string(res))
	if got := flagged(); got != 1 {
		t.Fatalf("after a new kill: %d findings", got)
	}
}
