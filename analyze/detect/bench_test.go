package detect_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pmcheck/pmcheck/analyze"
	"github.com/pmcheck/pmcheck/analyze/detect"
	"github.com/pmcheck/pmcheck/analyze/harness"
	"github.com/pmcheck/pmcheck/analyze/interpret"
	"github.com/pmcheck/pmcheck/analyze/model"
)

// writeLargeTranscript writes a session transcript of about 11 MB shaped like
// the resume-gate incident parent (2,387 rows, 11.4 MB): long assistant and
// tool-result rows, Agent calls sync and async, Bash calls, queue operations,
// one killed foreground agent and one killed background agent. It returns the
// path and its size.
func writeLargeTranscript(tb testing.TB, dir string) (string, int64) {
	tb.Helper()
	p := filepath.Join(dir, "50000000-0000-4000-8000-000000000001.jsonl")
	f, err := os.Create(p)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	base := time.Date(2026, 5, 6, 9, 0, 0, 0, time.UTC)
	filler := strings.Repeat("The parser change keeps every test green and the review notes are attached. ", 82) // ~6.3 KB
	row := func(i int, typ string, content any) {
		_ = enc.Encode(map[string]any{
			"parentUuid": fmt.Sprintf("p-%d", i-1), "isSidechain": false, "type": typ, "uuid": fmt.Sprintf("p-%d", i),
			"timestamp": base.Add(time.Duration(i) * 7 * time.Second).Format(time.RFC3339Nano), "sessionId": "50000000-0000-4000-8000-000000000001",
			"version": "2.1.143", "cwd": "/work/repo", "gitBranch": "feat/x",
			"message": map[string]any{"role": map[string]string{"user": "user", "assistant": "assistant"}[typ], "content": content},
		})
	}
	for i := 1; i <= 2400; i++ {
		id := fmt.Sprintf("toolu_%06d", i)
		switch i % 8 {
		case 0:
			row(i, "assistant", []any{map[string]any{"type": "tool_use", "id": id, "name": "Agent", "input": map[string]any{"description": fmt.Sprintf("Task %d", i), "prompt": filler[:800], "run_in_background": i%16 == 0}}})
		case 1:
			prev := fmt.Sprintf("toolu_%06d", i-1)
			text := filler + "\nagentId: a" + fmt.Sprintf("%016d", i) + " (use SendMessage to continue)"
			if i == 1201 {
				text = "Agent terminated early due to an API error: API Error: Connection closed mid-response. " + harness.PartialNotice() + " before it stopped.\n" + filler[:400]
			}
			row(i, "user", []any{map[string]any{"type": "tool_result", "tool_use_id": prev, "content": []any{map[string]any{"type": "text", "text": text}}}})
		case 2:
			row(i, "assistant", []any{map[string]any{"type": "tool_use", "id": id, "name": "Bash", "input": map[string]any{"command": "go test ./... && git commit -am 'step' && git push origin feat/x", "description": "Test and push"}}})
		case 3:
			prev := fmt.Sprintf("toolu_%06d", i-1)
			row(i, "user", []any{map[string]any{"type": "tool_result", "tool_use_id": prev, "content": "[feat/x abc1234] step\n" + filler}})
		case 4:
			status := "completed"
			if i == 1604 {
				status = "killed"
			}
			_ = enc.Encode(map[string]any{"type": "queue-operation", "operation": "enqueue", "timestamp": base.Add(time.Duration(i) * 7 * time.Second).Format(time.RFC3339Nano),
				"content": fmt.Sprintf("<task-notification>\n<task-id>a%016d</task-id>\n<tool-use-id>toolu_%06d</tool-use-id>\n<status>%s</status>\n<summary>Agent done</summary>\n<result>%s</result>\n</task-notification>", i-4, i-4, status, filler[:1000])})
		default:
			row(i, "assistant", []any{map[string]any{"type": "text", "text": filler}})
		}
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	st, err := os.Stat(p)
	if err != nil {
		tb.Fatal(err)
	}
	return p, st.Size()
}

func loadMain(tb testing.TB, p string) *model.Run {
	res, err := analyze.Load([]string{p}, analyze.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	return res.Runs[0]
}

// BenchmarkLoadAndDetect is the figure comparable to the reference's ~0.24 s
// for an 11 MB transcript (0.15 s to load, 0.09 s to detect): read the file
// through the streaming readers, then run Signatures A and B.
func BenchmarkLoadAndDetect(b *testing.B) {
	p, size := writeLargeTranscript(b, b.TempDir())
	b.SetBytes(size)
	b.ResetTimer()
	for b.Loop() {
		run := loadMain(b, p)
		if s := interpret.ScanTranscript(run.Main); len(s.Items) != 2 {
			b.Fatalf("items %q", s.Items)
		}
	}
}

// BenchmarkDetectOnly is the detection pass alone over an already-read
// transcript (the reference's 0.09 s part).
func BenchmarkDetectOnly(b *testing.B) {
	p, size := writeLargeTranscript(b, b.TempDir())
	run := loadMain(b, p)
	b.SetBytes(size)
	b.ResetTimer()
	for b.Loop() {
		if s := interpret.ScanTranscript(run.Main); len(s.Items) != 2 {
			b.Fatalf("items %q", s.Items)
		}
	}
}

// BenchmarkAnalyze is every detector (signatures, ledgers, ship parsing) on
// the same run.
func BenchmarkAnalyze(b *testing.B) {
	p, size := writeLargeTranscript(b, b.TempDir())
	run := loadMain(b, p)
	b.SetBytes(size)
	b.ResetTimer()
	for b.Loop() {
		_ = detect.Analyze(run, detect.Options{})
	}
}

// TestLargeTranscriptHits keeps the benchmark input honest: both kills are
// found and the size is in the 11 MB class.
func TestLargeTranscriptHits(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 11 MB")
	}
	p, size := writeLargeTranscript(t, t.TempDir())
	if size < 10<<20 || size > 13<<20 {
		t.Fatalf("size %d is not ~11 MB", size)
	}
	s := interpret.ScanTranscript(loadMain(t, p).Main)
	if len(s.Hits) != 2 || s.Hits[0].Rule != interpret.RuleA || s.Hits[1].Rule != interpret.RuleBQueue {
		t.Fatalf("hits %+v", s.Hits)
	}
}

// polledAgents is a session of n background agents, each polled once with
// TaskOutput (the poll's result names the agent), built in memory.
func polledAgents(n int) *model.Run {
	main := &model.Transcript{File: "s.jsonl"}
	run := &model.Run{Kind: model.KindSession, ID: "s", Path: "s.jsonl", Main: main}
	for i := range n {
		at := model.Evidence{File: "s.jsonl", Line: 2*i + 1}
		id, agent := fmt.Sprintf("toolu_%07d", i), fmt.Sprintf("a%016d", i)
		launched := model.NewToolResult(model.ResultInput{ToolUseID: id, At: at, Text: "Async agent launched successfully.\nagentId: " + agent})
		call := model.NewToolCall(model.CallInput{ID: id, Name: "Agent", At: at, Result: launched})
		main.ToolCalls = append(main.ToolCalls, call)
		run.Subagents = append(run.Subagents, &model.SubagentCall{Call: call, Owner: "s.jsonl", ToolUseID: id, Tool: "Agent",
			Description: fmt.Sprintf("Task %d", i), Mode: model.ModeAsync, At: at, AgentID: agent, Result: launched, ResultAt: &at})
	}
	for i := range n {
		at := model.Evidence{File: "s.jsonl", Line: 2*i + 2}
		main.ToolCalls = append(main.ToolCalls, model.NewToolCall(model.CallInput{ID: fmt.Sprintf("toolu_p%07d", i), Name: "TaskOutput", At: at,
			Result: model.NewToolResult(model.ResultInput{At: at, Extra: &model.ResultExtra{PollTaskID: fmt.Sprintf("a%016d", i), PollStatus: "completed"}})}))
	}
	return run
}

// BenchmarkAnalyzePolledAgents (issue 12, item 12): n background agents
// polled with TaskOutput in one session. Each agent's outcome used to read
// every call of its session for its polls (n²: bench/hostile async-20k spent
// 60% of its time there); the session's polls are indexed once by agent.
func BenchmarkAnalyzePolledAgents(b *testing.B) {
	for _, n := range []int{2000, 8000, 32000} {
		run := polledAgents(n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				f := detect.Analyze(run, detect.Options{})
				if len(f.Subagents) != n || f.Subagents[n-1].Outcome != "completed" {
					b.Fatalf("%d subagents, last %q", len(f.Subagents), f.Subagents[n-1].Outcome)
				}
			}
		})
	}
}
