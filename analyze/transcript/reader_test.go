package transcript

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pmcheck/pmcheck/analyze/harness"
	"github.com/pmcheck/pmcheck/analyze/model"
)

func read(t *testing.T, lines ...string) *model.Transcript {
	t.Helper()
	tr, err := Read(strings.NewReader(strings.Join(lines, "\n")+"\n"), "t.jsonl", Options{})
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// TestTimestampsNormaliseToUTCAndWriteTimesOnlyRise covers offsets, missing
// timestamps, rows out of order, and rows above the first timestamp.
func TestTimestampsNormaliseToUTCAndWriteTimesOnlyRise(t *testing.T) {
	tr := read(t,
		`{"type":"summary","summary":"x"}`,
		`{"type":"user","timestamp":"2026-05-06T11:00:00+02:00","message":{"role":"user","content":"a"}}`,
		`{"type":"assistant","timestamp":"2026-05-06T09:00:05.5Z","message":{"role":"assistant","content":[{"type":"text","text":"b"}]}}`,
		`{"type":"assistant","timestamp":"2026-05-06T09:00:02Z","message":{"role":"assistant","content":[{"type":"text","text":"c"}]}}`,
		`{"type":"user","timestamp":"2026-05-06T09:00:07","message":{"role":"user","content":"d"}}`,
	)
	at := func(s string) time.Time { v, _ := time.Parse(time.RFC3339Nano, s); return v }
	if !tr.FirstTime.Equal(at("2026-05-06T09:00:00Z")) || tr.FirstTime.Location() != time.UTC {
		t.Errorf("first time = %v, want 09:00:00 UTC", tr.FirstTime)
	}
	cases := map[int]string{1: "2026-05-06T09:00:00Z", 2: "2026-05-06T09:00:00Z", 3: "2026-05-06T09:00:05.5Z", 4: "2026-05-06T09:00:05.5Z", 5: "2026-05-06T09:00:07Z"}
	for line, want := range cases {
		if got := tr.WriteTimeAt(line); !got.Equal(at(want)) {
			t.Errorf("write time of line %d = %v, want %v", line, got, want)
		}
	}
	if !tr.LastTime.Equal(at("2026-05-06T09:00:07Z")) {
		t.Errorf("last time = %v", tr.LastTime)
	}
	// The out-of-order row keeps its own timestamp but the running maximum as
	// its write time.
	if ev := tr.Tail.LastAssistant; !ev.Timestamp.Equal(at("2026-05-06T09:00:02Z")) || !ev.WriteTime.Equal(at("2026-05-06T09:00:05.5Z")) {
		t.Errorf("last assistant timestamp %v write %v", ev.Timestamp, ev.WriteTime)
	}
}

// TestContentShapes reads string and block content, tool_use/tool_result with
// string and array content, a string toolUseResult, and numbers where strings
// belong, without losing the rest of the row.
func TestContentShapes(t *testing.T) {
	tr := read(t,
		`{"type":"assistant","timestamp":"2026-01-01T00:00:00Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":"","signature":"x"},{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"git push origin main","description":"push","timeout":5},"caller":{"type":"direct"}}]}}`,
		`{"type":"user","timestamp":"2026-01-01T00:00:01Z","toolUseResult":"Error: rejected","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"Error: rejected","is_error":true}]}}`,
		`{"type":"assistant","timestamp":12345,"version":7,"message":{"role":"assistant","content":[{"type":"tool_use","id":"t2","name":"Write","input":{"file_path":42}},{"type":"tool_use","id":"t3","name":"Edit","input":{"file_path":"/r/a.go"}}]}}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t3","content":[{"type":"text","text":"ok"},{"type":"image","source":{}}]}]}}`,
		`{"type":"assistant","message":"not an object"}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t9","content":"answer before call"}]}}`,
		`{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"t9","name":"Agent","input":{"description":"late","prompt":"p"}}]}}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t404","content":"no call"}]}}`,
	)
	if len(tr.Malformed) != 0 || tr.Rows != 8 {
		t.Fatalf("rows=%d malformed=%v", tr.Rows, tr.Malformed)
	}
	if len(tr.ToolCalls) != 4 {
		t.Fatalf("want 4 tool calls, got %d", len(tr.ToolCalls))
	}
	bash := tr.ToolCalls[0]
	if bash.Command() != "git push origin main" || bash.Result == nil || !bash.Result.IsError() || bash.Result.ResultString() != "Error: rejected" {
		t.Errorf("bash = %+v result %+v", bash, bash.Result)
	}
	if tr.ToolCalls[1].FilePath() != "" || tr.ToolCalls[2].FilePath() != "/r/a.go" {
		t.Errorf("a number where a path belongs must be dropped alone: %q %q", tr.ToolCalls[1].FilePath(), tr.ToolCalls[2].FilePath())
	}
	if r := tr.ToolCalls[2].Result; r == nil || r.Text != "ok" || r.IsError() {
		t.Errorf("edit result = %+v", r)
	}
	if late := tr.ToolCalls[3]; late.Result == nil || late.Result.Text != "answer before call" || late.Result.ToolUseID() != "t9" || late.Result.At().File != "t.jsonl" {
		t.Errorf("a result above its call is still linked: %+v", late.Result)
	}
	// Every result names its call's id and its own row, whether the call was
	// read before it, after it or not at all.
	want := map[string]int{"t1": 2, "t3": 4, "t9": 6, "t404": 8}
	for _, r := range tr.ToolResults {
		if at := r.At(); at.File != "t.jsonl" || at.Line != want[r.ToolUseID()] {
			t.Errorf("result %q at %+v, want line %d", r.ToolUseID(), at, want[r.ToolUseID()])
		}
		delete(want, r.ToolUseID())
	}
	if len(want) != 0 {
		t.Errorf("results not kept: %v", want)
	}
}

// TestAgentResultFlags: the partial-output notice and the API-error prefix are
// found in an Agent result, and the agentId tail is read.
func TestAgentResultFlags(t *testing.T) {
	text := harness.APIErrorPrefix + ": You've hit your session limit · resets 1:40pm (UTC)\n\n" + harness.PartialNotice() + ":\nhalf done\nagentId: a1234567 (for resuming to continue this agent's work if needed)"
	var b bytes.Buffer
	b.WriteString(`{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Task","input":{"description":"Fix it","prompt":"fix"}}]}}` + "\n")
	b.WriteString(`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":` + jsonString(text) + `}]}]}}` + "\n")
	tr, err := Read(&b, "t.jsonl", Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := tr.ToolCalls[0].Result
	if r == nil || !r.HasPartialNotice() || !r.StartsWithAPIErrorPrefix() || r.TailAgentID() != "a1234567" {
		t.Fatalf("result = %+v", r)
	}
}

// TestNotificationsFromUserRowsAndQueue covers both deliveries, a missing
// status, a <result> holding tags, and queue content as a block array.
func TestNotificationsFromUserRowsAndQueue(t *testing.T) {
	tr := read(t,
		`{"type":"queue-operation","operation":"enqueue","content":"<task-notification>\n<task-id>a1</task-id>\n<tool-use-id>toolu_1</tool-use-id>\n<summary>Agent \"x\" was stopped</summary>\n<result>see <b>this</b> </result> and </result>\n</task-notification>"}`,
		`{"type":"queue-operation","operation":"remove"}`,
		`{"type":"queue-operation","operation":"enqueue","content":[{"type":"text","text":"/init"}]}`,
		`{"type":"user","origin":{"kind":"task-notification"},"message":{"role":"user","content":"<task-notification>\n<task-id>b7</task-id>\n<status>killed</status>\n<summary>Background command \"grep\" completed (exit code 1)</summary>\n</task-notification>\nRead the output file"}}`,
	)
	if len(tr.QueueOps) != 3 || tr.QueueOps[1].Operation != "remove" || tr.QueueOps[2].Notification != nil {
		t.Fatalf("queue ops = %+v", tr.QueueOps)
	}
	n := tr.QueueOps[0].Notification
	if n == nil || n.TaskID != "a1" || n.ToolUseID != "toolu_1" || n.HasStatus || n.Result != "see <b>this</b> </result> and" || n.Source != "queue-enqueue" {
		t.Errorf("enqueued notification = %+v", n)
	}
	if len(tr.Notifications) != 1 || tr.Notifications[0].Status != "killed" || tr.Notifications[0].Source != "user-row" || tr.Notifications[0].ToolUseID != "" {
		t.Errorf("user-row notifications = %+v", tr.Notifications)
	}
}

// TestTailForKillSilence: the last user row, the meaningful row before it,
// and API-error rows.
func TestTailForKillSilence(t *testing.T) {
	tr := read(t,
		`{"type":"user","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"go"}}`,
		`{"type":"assistant","timestamp":"2026-01-01T00:00:10Z","message":{"role":"assistant","content":[{"type":"text","text":"working"}]}}`,
		`{"type":"assistant","timestamp":"2026-01-01T00:00:20Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":""}]}}`,
		`{"type":"system","timestamp":"2026-01-01T00:01:00Z","subtype":"api_error"}`,
		`{"type":"user","timestamp":"2026-01-01T00:03:30Z","message":{"role":"user","content":[{"type":"text","text":"[Request interrupted by user]"}]}}`,
	)
	if tr.Tail.LastUser == nil || tr.Tail.LastUser.Line != 5 || len(tr.Interrupts) != 1 {
		t.Fatalf("last user = %+v", tr.Tail.LastUser)
	}
	if m := tr.Tail.MeaningfulBeforeLastUser; m == nil || m.Line != 2 {
		t.Errorf("meaningful before the sentinel = %+v, want line 2 (thinking-only rows do not count)", m)
	}
	tr = read(t, `{"type":"assistant","isApiErrorMessage":true,"error":"rate_limit","message":{"model":"<synthetic>","role":"assistant","content":[{"type":"text","text":"You've hit your limit"}]}}`)
	if len(tr.APIErrors) != 1 || tr.APIErrors[0].APIError != "rate_limit" || !tr.APIErrors[0].Synthetic {
		t.Errorf("api errors = %+v", tr.APIErrors)
	}
}

// TestSegmentMarksOnlyWhereTheGateWritesThem: a mark counts only inside a
// SessionStart hook's additional context (a hook_additional_context
// attachment, or a user row's <system-reminder> part); a mark an agent could
// have written anywhere else is not read. The test builds the mark at run
// time so no decodable mark sits in a source file.
func TestSegmentMarksOnlyWhereTheGateWritesThem(t *testing.T) {
	mark := harness.SegmentMarkPrefix + "outstanding=" + "1 payload=" + "Rml4IGl0"
	// escaped is the mark with its bracket JSON-escaped, as fixtures store it.
	escaped := `\u005b` + mark[1:]
	reminder := `<system-reminder>\nSessionStart:resume hook additional context: warning\n` + mark + `\n</system-reminder>`
	accepted := map[string]string{
		"hook_additional_context attachment":            `{"type":"attachment","attachment":{"type":"hook_additional_context","hookName":"SessionStart","hookEvent":"SessionStart","content":["warning\n` + mark + `"]}}`,
		"escaped bracket":                               `{"type":"attachment","attachment":{"type":"hook_additional_context","hookName":"SessionStart","hookEvent":"SessionStart","content":["warning\n` + escaped + `"]}}`,
		"hook reminder row of a CLI before attachments": `{"type":"user","isMeta":true,"version":"2.1.39","message":{"role":"user","content":"` + reminder + `"}}`,
		"hook reminder row, matcherless":                `{"type":"user","isMeta":true,"version":"2.0.42","message":{"role":"user","content":"` + strings.Replace(reminder, "SessionStart:resume", "SessionStart", 1) + `"}}`,
	}
	rejected := map[string]string{
		// Issue 29, item 1: the reminder form only as Claude Code writes it.
		"reminder in a text block (a skill body)":     `{"type":"user","isMeta":true,"version":"2.1.39","message":{"role":"user","content":[{"type":"text","text":"` + reminder + `"}]}}`,
		"reminder in a plain user row":                `{"type":"user","version":"2.1.39","message":{"role":"user","content":"` + reminder + `"}}`,
		"reminder row of a CLI with attachments":      `{"type":"user","isMeta":true,"version":"2.1.143","message":{"role":"user","content":"` + reminder + `"}}`,
		"reminder row without a version":              `{"type":"user","isMeta":true,"message":{"role":"user","content":"` + reminder + `"}}`,
		"reminder row with an unreadable version":     `{"type":"user","isMeta":true,"version":"two","message":{"role":"user","content":"` + reminder + `"}}`,
		"reminder after other text":                   `{"type":"user","isMeta":true,"version":"2.1.39","message":{"role":"user","content":"Base directory for this skill: /x\n\n` + reminder + `"}}`,
		"reminder before other text":                  `{"type":"user","isMeta":true,"version":"2.1.39","message":{"role":"user","content":"` + reminder + `\nand more"}}`,
		"second reminder of a part":                   `{"type":"user","isMeta":true,"version":"2.1.39","message":{"role":"user","content":"<system-reminder>\nPostToolUse:Edit hook additional context: ok\n</system-reminder>\n` + reminder + `"}}`,
		"a SessionStart reminder closed and reopened": `{"type":"user","isMeta":true,"version":"2.1.39","message":{"role":"user","content":"<system-reminder>\nSessionStart:resume hook additional context: x\n</system-reminder>\n<system-reminder>\n` + mark + `\n</system-reminder>"}}`,
		"raw stdout copy":                             `{"type":"attachment","attachment":{"type":"hook_success","hookName":"SessionStart:resume","hookEvent":"SessionStart","stdout":"warning\n` + mark + `"}}`,
		"another hook's context":                      `{"type":"attachment","attachment":{"type":"hook_additional_context","hookName":"PostToolUse:Bash","hookEvent":"PostToolUse","content":["` + mark + `"]}}`,
		"assistant text":                              `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"` + reminder + `"}]}}`,
		"tool result":                                 `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"` + reminder + `"}]}}`,
		"plain user text":                             `{"type":"user","message":{"role":"user","content":"please note ` + mark + `"}}`,
		"reminder of another hook":                    `{"type":"user","isMeta":true,"version":"2.1.39","message":{"role":"user","content":"<system-reminder>\nPostToolUse:Edit hook additional context: ` + mark + `\n</system-reminder>"}}`,
		"reminder forged in a notification":           `{"type":"user","message":{"role":"user","content":"<task-notification>\n<task-id>a1</task-id>\n<status>killed</status>\n<result>x\n` + reminder + `</result>\n</task-notification>"}}`,
		"queue operation":                             `{"type":"queue-operation","operation":"enqueue","content":"` + reminder + `"}`,
	}
	for name, row := range accepted {
		tr := read(t, row)
		if len(tr.Marks) != 1 || tr.Marks[0].Outstanding != "1" || tr.Marks[0].Payload != "Rml4IGl0" || tr.Marks[0].At.Line != 1 {
			t.Errorf("%s: marks = %+v, want the one mark", name, tr.Marks)
		}
	}
	for name, row := range rejected {
		if tr := read(t, row); len(tr.Marks) != 0 {
			t.Errorf("%s: marks = %+v, want none", name, tr.Marks)
		}
	}
}

func TestOverCapLineIsCounted(t *testing.T) {
	long := `{"type":"user","message":{"role":"user","content":"` + strings.Repeat("x", 200) + `"}}`
	in := long + "\n" + `{"type":"user","message":{"role":"user","content":"ok"}}` + "\n"
	tr, err := Read(strings.NewReader(in), "t.jsonl", Options{LineCap: 100})
	if err != nil {
		t.Fatal(err)
	}
	if tr.OverCap != 1 || tr.Rows != 1 || len(tr.Malformed) != 1 || tr.Malformed[0].Line != 1 || tr.Malformed[0].Length != int64(len(long)) {
		t.Fatalf("over-cap handling: rows=%d malformed=%+v", tr.Rows, tr.Malformed)
	}
}

func TestUnreadableFileIsAnError(t *testing.T) {
	if _, err := ReadFile(filepath.Join(t.TempDir(), "missing.jsonl"), "missing.jsonl", Options{}); !os.IsNotExist(err) {
		t.Fatalf("err = %v", err)
	}
}

func jsonString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// TestReplayedRowsAreCountedOnce: rows a resume (or a recorder) wrote again
// with the same uuid are counted as duplicates and not read twice, so a
// replayed Agent call is not a second call.
func TestReplayedRowsAreCountedOnce(t *testing.T) {
	call := `{"type":"assistant","uuid":"u1","timestamp":"2026-01-01T00:00:00Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Agent","input":{"description":"d","prompt":"p"}}]}}`
	tr := read(t, call, `{"type":"user","uuid":"u2","message":{"role":"user","content":"next"}}`, call)
	if tr.Rows != 3 || tr.Duplicates != 1 || len(tr.ToolCalls) != 1 {
		t.Fatalf("rows=%d duplicates=%d calls=%d; want 3, 1, 1", tr.Rows, tr.Duplicates, len(tr.ToolCalls))
	}
}

// TestResultCapFollowsTheLastCallOfItsID: when two retained calls share an
// id, the result's text cap is the last call's tool's (an output poll's
// header is read only for a poll), whichever call the result links to.
func TestResultCapFollowsTheLastCallOfItsID(t *testing.T) {
	long := strings.Repeat("x", 5000)
	use := func(name, input string) string {
		return `{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"` + name + `","input":` + input + `}]}}`
	}
	result := `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"<task_id>b7</task_id>\n<status>running</status>\n` + long + `"}]}}`
	for _, c := range []struct {
		calls      []string
		keep       int
		pollStatus string
	}{
		{[]string{use("Bash", `{"command":"git commit -m x"}`)}, model.BashResultLimit, ""},
		{[]string{use("Bash", `{"command":"git commit -m x"}`), use("Agent", `{"description":"d"}`)}, model.AgentResultLimit, ""},
		{[]string{use("Agent", `{"description":"d"}`), use("TaskOutput", `{"task_id":"b7"}`)}, model.OtherResultLimit, "running"},
		{[]string{use("Agent", `{"description":"d"}`), use("TaskOutput", `{"task_id":"b7"}`), use("Agent", `{"description":"d"}`)}, model.AgentResultLimit, ""},
	} {
		tr := read(t, append(c.calls, result)...)
		r := tr.ToolCalls[0].Result
		if r == nil {
			t.Fatalf("%d calls: the result is not linked", len(c.calls))
		}
		if len(r.Text) != c.keep || r.PollStatus() != c.pollStatus {
			t.Errorf("%d calls: kept %d bytes, poll status %q; want %d and %q", len(c.calls), len(r.Text), r.PollStatus(), c.keep, c.pollStatus)
		}
	}
}

// TestCopiedLaterOriginalWins: Options.Copied lists the earlier files' row
// hashes; for a uuid more than one of them holds, the last one's content
// hash decides, as when the sets were merged in order. A row matches only
// its own content.
func TestCopiedLaterOriginalWins(t *testing.T) {
	data := []byte(`{"type":"user","uuid":"u1","sessionId":"s2","timestamp":"2026-05-07T09:00:00Z","message":{"role":"user","content":"hi"}}` + "\n" +
		`{"type":"user","uuid":"u2","sessionId":"s2","timestamp":"2026-05-07T09:00:01Z","message":{"role":"user","content":"there"}}` + "\n")
	own, err := Read(bytes.NewReader(data), "s2.jsonl", Options{RowHashes: true})
	if err != nil || len(own.RowHashes) != 2 {
		t.Fatalf("%v, %d row hashes", err, len(own.RowHashes))
	}
	h1 := HashUUID("u1")
	wrong := map[uint64]uint64{h1: own.RowHashes[h1] + 1}
	for _, tc := range []struct {
		copied []map[uint64]uint64
		want   int
	}{
		{nil, 0},
		{[]map[uint64]uint64{own.RowHashes}, 2},
		{[]map[uint64]uint64{wrong}, 0},
		{[]map[uint64]uint64{own.RowHashes, wrong}, 1}, // u1 from the later, wrong: u2 only
		{[]map[uint64]uint64{wrong, own.RowHashes}, 2},
		{[]map[uint64]uint64{nil, wrong, nil}, 0},
	} {
		got, err := Read(bytes.NewReader(data), "s2.jsonl", Options{Copied: tc.copied})
		if err != nil || got.Copied != tc.want {
			t.Errorf("Copied %v: %v, %d rows copied, want %d", tc.copied, err, got.Copied, tc.want)
		}
	}
}
