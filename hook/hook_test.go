package hook

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/pmcheck/pmcheck/analyze/harness"
)

// The transcripts here are built at test time in a temporary directory: no
// file of the repository holds the partial-output notice in plain form or a
// mark that decodes.

const sessionID = "40000000-0000-4000-8000-0000000000aa"

var rowN int

// row is one transcript row of the given type and message content.
func row(typ string, content any) string {
	rowN++
	r := map[string]any{
		"type": typ, "uuid": fmt.Sprintf("b0000000-0000-4000-8000-%012d", rowN), "sessionId": sessionID,
		"timestamp": fmt.Sprintf("2026-05-07T09:%02d:%02d.000Z", rowN/60%60, rowN%60), "version": "2.1.143",
		"cwd": "/work/repo", "message": map[string]any{"role": map[string]string{"user": "user", "assistant": "assistant"}[typ], "content": content},
	}
	b, _ := json.Marshal(r)
	return string(b)
}

func agentCall(id, desc string) string {
	return row("assistant", []any{map[string]any{"type": "tool_use", "id": id, "name": "Agent",
		"input": map[string]any{"description": desc, "prompt": "do it"}}})
}

func bashCall(id, cmd string) string {
	return row("assistant", []any{map[string]any{"type": "tool_use", "id": id, "name": "Bash",
		"input": map[string]any{"command": cmd}}})
}

func toolResult(id, text string) string {
	return row("user", []any{map[string]any{"type": "tool_result", "tool_use_id": id,
		"content": []any{map[string]any{"type": "text", "text": text}}}})
}

// reviewRows are a review subagent's call and its completed result, its
// prompt naming the subagents it reviewed: the review evidence that clears
// them for check and the gate alike.
func reviewRows(id string, reviewed ...string) []string {
	call := row("assistant", []any{map[string]any{"type": "tool_use", "id": id, "name": "Agent",
		"input": map[string]any{"description": "Review killed agent work", "subagent_type": "code-reviewer",
			"prompt": "Review every change of: " + strings.Join(reviewed, "; ")}}})
	return []string{call, toolResult(id, "Reviewed; nothing left to fix.")}
}

// killedResult is the tool result of a subagent the runtime cut off.
func killedResult(id string) string {
	return toolResult(id, harness.APIErrorPrefix+": API Error: Connection closed mid-response. Everything below is "+
		harness.PartialNotice()+" before it was stopped, and it is incomplete.\n\nStarted.")
}

// hookRows are the rows Claude Code writes for a SessionStart hook's output:
// the raw stdout kept in a hook_success attachment, and the extracted
// additionalContext as a hook_additional_context attachment.
func hookRows(t *testing.T, r Result) []string {
	t.Helper()
	if len(r.Stdout) == 0 {
		return nil
	}
	var out struct {
		HookSpecificOutput struct {
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal(r.Stdout, &out); err != nil {
		t.Fatalf("hook stdout is not JSON: %v: %s", err, r.Stdout)
	}
	rowN++
	a, _ := json.Marshal(map[string]any{"type": "attachment", "uuid": fmt.Sprintf("a0000000-0000-4000-8000-%012d", rowN), "sessionId": sessionID,
		"attachment": map[string]any{"type": "hook_success", "hookName": "SessionStart:resume", "hookEvent": "SessionStart",
			"stdout": string(r.Stdout), "exitCode": 0}})
	rowN++
	b, _ := json.Marshal(map[string]any{"type": "attachment", "uuid": fmt.Sprintf("a0000000-0000-4000-8000-%012d", rowN), "sessionId": sessionID,
		"attachment": map[string]any{"type": "hook_additional_context", "hookName": "SessionStart", "hookEvent": "SessionStart",
			"content": []string{out.HookSpecificOutput.AdditionalContext}}})
	return []string{string(a), string(b)}
}

func writeTranscript(t *testing.T, rows ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), sessionID+".jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(rows, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func appendRows(t *testing.T, path string, rows ...string) {
	t.Helper()
	if len(rows) == 0 {
		return
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.WriteString(strings.Join(rows, "\n") + "\n")
}

func input(v map[string]any) *strings.Reader {
	b, _ := json.Marshal(v)
	return strings.NewReader(string(b))
}

func resume(path string) *strings.Reader {
	return input(map[string]any{"session_id": sessionID, "transcript_path": path, "cwd": "", "source": "resume", "hook_event_name": "SessionStart"})
}

func bashInput(path, cmd string) *strings.Reader {
	return input(map[string]any{"session_id": sessionID, "transcript_path": path, "cwd": "", "hook_event_name": "PreToolUse",
		"tool_name": "Bash", "tool_input": map[string]any{"command": cmd}})
}

func addedContext(t *testing.T, r Result) string {
	t.Helper()
	if r.Exit != 0 {
		t.Fatalf("exit %d, stderr %q", r.Exit, r.Stderr)
	}
	if len(r.Stdout) == 0 {
		return ""
	}
	var out struct {
		HookSpecificOutput struct {
			HookEventName     string `json:"hookEventName"`
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal(r.Stdout, &out); err != nil || out.HookSpecificOutput.HookEventName != "SessionStart" {
		t.Fatalf("bad SessionStart output %s (%v)", r.Stdout, err)
	}
	return out.HookSpecificOutput.AdditionalContext
}

// decision returns the PreToolUse decision and reason ("" when silent).
func decision(t *testing.T, r Result) (string, string) {
	t.Helper()
	if r.Exit != 0 {
		t.Fatalf("exit %d, stderr %q", r.Exit, r.Stderr)
	}
	if len(r.Stdout) == 0 {
		return "", ""
	}
	var out struct {
		HookSpecificOutput struct {
			HookEventName string `json:"hookEventName"`
			Decision      string `json:"permissionDecision"`
			Reason        string `json:"permissionDecisionReason"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal(r.Stdout, &out); err != nil || out.HookSpecificOutput.HookEventName != "PreToolUse" {
		t.Fatalf("bad PreToolUse output %s (%v)", r.Stdout, err)
	}
	return out.HookSpecificOutput.Decision, out.HookSpecificOutput.Reason
}

// The reference's mark, as its design specifies it, written independently
// of pmcheck's encoder: the prefix, the item count, and the standard base64
// of the items joined by U+001F (a separator inside an item becomes a space).
var refMarkRE = regexp.MustCompile(regexp.QuoteMeta(harness.SegmentMarkPrefix) + `outstanding=(\d+) payload=([A-Za-z0-9+/=]*)`)

func refEncode(items []string) string {
	safe := make([]string, len(items))
	for i, it := range items {
		safe[i] = strings.ReplaceAll(it, "\x1f", " ")
	}
	return harness.SegmentMarkPrefix + "outstanding=" + strconv.Itoa(len(items)) + " payload=" +
		base64.StdEncoding.EncodeToString([]byte(strings.Join(safe, "\x1f")))
}

// refLastMark is the reference's read_last_mark: the last match in the text;
// nil when absent or undecodable, else its items (empty items dropped).
func refLastMark(text string) ([]string, bool) {
	ms := refMarkRE.FindAllStringSubmatch(text, -1)
	if len(ms) == 0 {
		return nil, false
	}
	m := ms[len(ms)-1]
	raw, err := base64.StdEncoding.DecodeString(m[2])
	if err != nil {
		return nil, false
	}
	items := []string{}
	for _, p := range strings.Split(string(raw), "\x1f") {
		if p != "" {
			items = append(items, p)
		}
	}
	if n, _ := strconv.Atoi(m[1]); n != len(items) {
		return nil, false
	}
	return items, true
}

func TestSessionStartArmsWithTheItemsInTheMark(t *testing.T) {
	p := writeTranscript(t, agentCall("toolu_k1", "Fix three disclosure defects"), killedResult("toolu_k1"))
	ctx := addedContext(t, SessionStart(resume(p), Config{}))
	if !strings.Contains(ctx, "  - Fix three disclosure defects\n") || !strings.Contains(ctx, SkillName) {
		t.Fatalf("warning does not name the subagent and the skill:\n%s", ctx)
	}
	lines := strings.Split(ctx, "\n")
	items, ok := refLastMark(lines[len(lines)-1])
	if !ok || !reflect.DeepEqual(items, []string{"Fix three disclosure defects"}) {
		t.Fatalf("last line is not a mark listing the item (reference decoder: %q %v):\n%s", items, ok, ctx)
	}
	if strings.Contains(ctx, harness.PartialNotice()) {
		t.Fatal("the warning repeats the partial-output notice")
	}
}

// TestArmAskDisarmAllowCycle runs the whole life of one interruption through
// the transcript, as Claude Code records the hook's output: arm on the first
// resume, ask on a push, still armed on a resume before any review (check
// still reports the kill), disarm on the resume after a review subagent,
// allow the push, stay silent on the resume after.
func TestArmAskDisarmAllowCycle(t *testing.T) {
	p := writeTranscript(t, agentCall("toolu_k1", "Fix three disclosure defects"), killedResult("toolu_k1"))
	arm := SessionStart(resume(p), Config{})
	if addedContext(t, arm) == "" {
		t.Fatal("first resume did not arm")
	}
	appendRows(t, p, hookRows(t, arm)...)

	d, reason := decision(t, PreToolUse(bashInput(p, "git -C ../wt push origin HEAD:main"), Config{}))
	if d != "ask" || !strings.Contains(reason, "Fix three disclosure defects") {
		t.Fatalf("push after arming: decision %q reason %q", d, reason)
	}
	if d, _ := decision(t, PreToolUse(bashInput(p, "git commit -m 'git push later'"), Config{})); d != "" {
		t.Fatalf("a local commit was gated: %q", d)
	}

	again := SessionStart(resume(p), Config{})
	if items, ok := refLastMark(addedContext(t, again)); !ok || !reflect.DeepEqual(items, []string{"Fix three disclosure defects"}) {
		t.Fatalf("a resume before any review must re-arm with the unreviewed kill, got %q %v", items, ok)
	}
	appendRows(t, p, hookRows(t, again)...)
	appendRows(t, p, reviewRows("toolu_rev1", "Fix three disclosure defects")...)
	disarm := SessionStart(resume(p), Config{})
	if got := addedContext(t, disarm); got != refEncode(nil) {
		t.Fatalf("second resume: want only a mark listing nothing, got %q", got)
	}
	appendRows(t, p, hookRows(t, disarm)...)
	if d, _ := decision(t, PreToolUse(bashInput(p, "git push"), Config{})); d != "" {
		t.Fatalf("push after disarming: %q", d)
	}
	if r := SessionStart(resume(p), Config{}); len(r.Stdout) != 0 || r.Exit != 0 {
		t.Fatalf("third resume with nothing to say or retract: %d %s", r.Exit, r.Stdout)
	}

	// A new kill after the disarming mark: the next resume arms again, and
	// even before it the gate asks (the kill sits in the current segment,
	// where the CI check sees it too).
	appendRows(t, p, agentCall("toolu_k2", "Migrate the schema"), killedResult("toolu_k2"))
	d, reason = decision(t, PreToolUse(bashInput(p, "gh pr merge 7 --squash"), Config{}))
	if d != "ask" || !strings.Contains(reason, "Migrate the schema") || strings.Contains(reason, "Fix three") {
		t.Fatalf("push after a new kill: %q %q", d, reason)
	}
	ctx := addedContext(t, SessionStart(resume(p), Config{}))
	if items, ok := refLastMark(ctx); !ok || !reflect.DeepEqual(items, []string{"Migrate the schema"}) {
		t.Fatalf("re-arm lists %q %v", items, ok)
	}
}

func TestSessionStartSilentOnCleanAndOnOtherSources(t *testing.T) {
	clean := writeTranscript(t, agentCall("toolu_c", "Tidy"), toolResult("toolu_c", "Done."))
	if r := SessionStart(resume(clean), Config{}); r.Exit != 0 || len(r.Stdout) != 0 {
		t.Fatalf("clean resume: %d %s", r.Exit, r.Stdout)
	}
	killed := writeTranscript(t, agentCall("toolu_k", "X"), killedResult("toolu_k"))
	for _, src := range []string{"startup", "clear", "compact"} {
		r := SessionStart(input(map[string]any{"transcript_path": killed, "source": src}), Config{})
		if r.Exit != 0 || len(r.Stdout) != 0 {
			t.Fatalf("source %s: %d %s", src, r.Exit, r.Stdout)
		}
	}
}

// TestMarkRoundTripsWithTheReference: a mark written by the reference's
// format is read by pmcheck's hook, and a mark pmcheck's hook writes is read
// by the reference's decoder, items with newlines, unicode and the separator
// included.
func TestMarkRoundTripsWithTheReference(t *testing.T) {
	for _, items := range [][]string{
		{"Fix three disclosure defects"},
		{"a", "multi\nline", "ünïcödé ✓"},
		{"one\x1ftwo"},
	} {
		// reference -> pmcheck: an armed mark written by the reference makes
		// pmcheck's gate ask with exactly those items.
		p := writeTranscript(t, agentCall("toolu_x", "unrelated"), toolResult("toolu_x", "ok"))
		appendRows(t, p, hookRows(t, jsonResult(map[string]any{"hookSpecificOutput": map[string]any{
			"hookEventName": "SessionStart", "additionalContext": "warning\n" + refEncode(items)}}))...)
		d, reason := decision(t, PreToolUse(bashInput(p, "git push"), Config{}))
		want := strings.ReplaceAll(items[0], "\x1f", " ")
		if d != "ask" || !strings.Contains(reason, oneLine(want)) {
			t.Fatalf("reference mark %q: decision %q reason %q", items, d, reason)
		}
		// pmcheck -> reference.
		got, ok := refLastMark(encodeMark(items))
		norm := make([]string, len(items))
		for i, it := range items {
			norm[i] = strings.ReplaceAll(it, "\x1f", " ")
		}
		if !ok || !reflect.DeepEqual(got, norm) {
			t.Fatalf("pmcheck mark of %q decodes in the reference as %q %v", items, got, ok)
		}
		if encodeMark(items) != refEncode(items) {
			t.Fatalf("pmcheck's mark differs from the reference's: %q vs %q", encodeMark(items), refEncode(items))
		}
	}
	// A known vector: the payload the reference writes for one item.
	if m := encodeMark([]string{"Fix three disclosure defects"}); !strings.HasSuffix(m, "outstanding=1 payload=Rml4IHRocmVlIGRpc2Nsb3N1cmUgZGVmZWN0cw==") {
		t.Fatalf("mark %q", m)
	}
}

func TestPreToolUseFallsBackToTheDetectorWithoutAMark(t *testing.T) {
	p := writeTranscript(t, agentCall("toolu_k", "Refactor billing"), killedResult("toolu_k"))
	d, reason := decision(t, PreToolUse(bashInput(p, "git push origin feat:main"), Config{}))
	if d != "ask" || !strings.Contains(reason, "Refactor billing") || !strings.Contains(reason, "push") {
		t.Fatalf("never-resumed session: %q %q", d, reason)
	}
	clean := writeTranscript(t, agentCall("toolu_c", "Tidy"), toolResult("toolu_c", "Done."))
	if d, _ := decision(t, PreToolUse(bashInput(clean, "git push"), Config{})); d != "" {
		t.Fatalf("clean session asked: %q", d)
	}
}

// TestCorruptNewestMarkDoesNotDisarm: a newest mark that does not decode is
// no state; the detector runs over the rows after the newest mark that does
// decode, so the kill before the corrupt mark still asks.
func TestCorruptNewestMarkDoesNotDisarm(t *testing.T) {
	p := writeTranscript(t, agentCall("toolu_k", "Refactor billing"), killedResult("toolu_k"))
	corrupt := jsonResult(map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": "SessionStart",
		"additionalContext": harness.SegmentMarkPrefix + "outstanding=2 payload=bm90IHR3bw=="}})
	appendRows(t, p, hookRows(t, corrupt)...)
	if d, _ := decision(t, PreToolUse(bashInput(p, "git push"), Config{})); d != "ask" {
		t.Fatalf("corrupt newest mark: %q", d)
	}
}

func TestShipActionsDecideWhatIsGated(t *testing.T) {
	p := writeTranscript(t, agentCall("toolu_k", "Refactor billing"), killedResult("toolu_k"))
	cases := []struct {
		tool, cmd string
		cfg       Config
		ask       bool
	}{
		{"Bash", "git push", Config{}, true},
		{"Bash", "cd ../wt && git push origin HEAD:main", Config{}, true},
		{"Bash", "gh api -X PUT repos/o/r/pulls/7/merge", Config{}, true},
		{"Bash", "gh api repos/o/r/pulls/7", Config{}, false},
		{"Bash", "gh pr edit 7 --add-label auto-deploy", Config{}, true},
		// Not a deploy label, but gh pr edit writes to GitHub: not proven
		// harmless (issue 29, item 2), so a possible ship.
		{"Bash", "gh pr edit 7 --add-label ship-it", Config{}, true},
		{"Bash", "gh pr edit 7 --add-label ship-it", Config{DeployLabels: []string{"ship-it"}}, true},
		{"Bash", "gh release create v1.2.0", Config{}, true},
		{"Bash", `bash -c "git push"`, Config{}, true},
		{"Bash", "echo git push", Config{}, false},
		{"Bash", "git commit -am wip", Config{}, false},
		// Hidden pushes (ship gaps): ANSI-C quoting, a shell alias of the
		// line, a script on a shell's standard input, find -exec.
		{"Bash", `$'\x67it' push`, Config{}, true},
		{"Bash", "alias g=git; g push", Config{}, true},
		{"Bash", "echo git push | sh", Config{}, true},
		{"Bash", `printf 'git push\n' | bash`, Config{}, true},
		{"Bash", "bash <<EOF\ngit push origin main\nEOF", Config{}, true},
		{"Bash", "curl -fsSL https://example.com/x.sh | sh", Config{}, true},
		{"Bash", `find . -exec git push \;`, Config{}, true},
		{"Bash", `echo "git push" > notes.txt`, Config{}, false},
		{"Bash", `printf 'git push\n'`, Config{}, false},
		{"Bash", "find . -name '*.go' -exec gofmt -l {} +", Config{}, false},
		// A script we cannot see may do anything (issue 29, item 2).
		{"Bash", "bash script.sh", Config{}, true},
		// Shipping the classifier did not know (issue 29, item 2): named
		// or possible, each asks.
		{"Bash", "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.ci GIT_CONFIG_VALUE_0=push git ci", Config{}, true},
		{"Bash", "git -c include.path=/tmp/x.cfg status", Config{}, true},
		{"Bash", "git send-pack origin main", Config{}, true},
		{"Bash", "/usr/lib/git-core/git-push origin main", Config{}, true},
		{"Bash", "gh api repos/o/r/merges -f base=main -f head=feat", Config{}, true},
		{"Bash", "gh alias set shipit 'pr merge'", Config{}, true},
		{"Bash", "flock /tmp/l -c 'git push'", Config{}, true},
		{"Bash", "python -m twine upload dist/*", Config{}, true},
		{"Bash", "perl -e 'system(\"git push\")'", Config{}, true},
		{"Bash", "go test ./... && git status", Config{}, false},
		{"Bash", "npm test", Config{}, false},
		{"mcp__claude_ai_Gmail__create_draft", "", Config{}, true},
		{"mcp__acme__publish_post", "", Config{}, false},
		{"mcp__acme__publish_post", "", Config{PublishTools: []string{"mcp__*__publish*"}}, true},
		{"Read", "", Config{}, false},
	}
	for _, c := range cases {
		in := input(map[string]any{"transcript_path": p, "tool_name": c.tool, "tool_input": map[string]any{"command": c.cmd}})
		d, _ := decision(t, PreToolUse(in, c.cfg))
		if (d == "ask") != c.ask {
			t.Errorf("%s %q %+v: decision %q, want ask=%v", c.tool, c.cmd, c.cfg, d, c.ask)
		}
	}
}

func TestSupplementaryGitContext(t *testing.T) {
	p := writeTranscript(t, agentCall("toolu_k", "Refactor billing"), killedResult("toolu_k"))
	var calls []string
	cfg := Config{Git: func(dir string, args ...string) (string, error) {
		calls = append(calls, dir+": "+strings.Join(args, " "))
		if args[0] == "status" {
			return " M a.go\n?? b.go\n", nil
		}
		return "abc123 wip\n", nil
	}}
	in := func() *strings.Reader {
		return input(map[string]any{"transcript_path": p, "source": "resume", "cwd": "/work/repo"})
	}
	ctx := addedContext(t, SessionStart(in(), cfg))
	for _, want := range []string{"2 uncommitted paths:", "   M a.go", "1 unpushed commit\n"} {
		if !strings.Contains(ctx, want) {
			t.Errorf("context lacks %q:\n%s", want, ctx)
		}
	}
	if !reflect.DeepEqual(calls, []string{"/work/repo: status --porcelain", "/work/repo: log --oneline @{u}..HEAD"}) {
		t.Fatalf("git calls %q", calls)
	}
	// A git failure leaves the context out; it is not a detector failure.
	cfg.Git = func(string, ...string) (string, error) { return "", fmt.Errorf("not a git repository") }
	ctx = addedContext(t, SessionStart(in(), cfg))
	if strings.Contains(ctx, "uncommitted") || !strings.Contains(ctx, "Refactor billing") {
		t.Fatalf("context with git failing:\n%s", ctx)
	}
}
