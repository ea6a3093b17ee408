package load

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeAsyncSession writes a session that launches n background agents and
// receives a task-notification for each (half of them by a tool-use id the
// export redacted, so they link by task id).
func writeAsyncSession(tb testing.TB, n int) string {
	dir := tb.TempDir()
	f, err := os.Create(filepath.Join(dir, "80000000-0000-4000-8000-000000000001.jsonl"))
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriter(f)
	row := func(line int, typ, content string) {
		fmt.Fprintf(w, `{"type":%q,"uuid":"u-%d","sessionId":"80000000-0000-4000-8000-000000000001","timestamp":"2026-05-01T09:00:00Z","message":{"role":%q,"content":%s}}`+"\n", typ, line, typ, content)
	}
	line := 0
	for i := range n {
		id, agent := fmt.Sprintf("toolu_bg%07d", i), fmt.Sprintf("a%016d", i)
		line++
		row(line, "assistant", fmt.Sprintf(`[{"type":"tool_use","id":%q,"name":"Agent","input":{"description":"Task %d","prompt":"Do it.","run_in_background":true}}]`, id, i))
		line++
		row(line, "user", fmt.Sprintf(`[{"type":"tool_result","tool_use_id":%q,"content":"Async agent launched successfully.\nagentId: %s (internal ID)"}]`, id, agent))
	}
	for i := range n {
		id, agent := fmt.Sprintf("toolu_bg%07d", i), fmt.Sprintf("a%016d", i)
		if i%2 == 1 {
			id = "REDACTED"
		}
		body := "<task-notification>\n<task-id>" + agent + "</task-id>\n<tool-use-id>" + id + "</tool-use-id>\n<status>completed</status>\n<summary>Agent completed</summary>\n</task-notification>"
		line++
		row(line, "user", strings.ReplaceAll(fmt.Sprintf("%q", body), `\x`, `\u00`))
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	f.Close()
	return dir
}

// BenchmarkLinkAsyncAgents: n background agents with n notifications. Each
// transcript's notifications are indexed once, so time per op grows linearly
// with n; copying and sorting every notification for every call grew with n².
func BenchmarkLinkAsyncAgents(b *testing.B) {
	for _, n := range []int{2000, 8000, 32000} {
		dir := writeAsyncSession(b, n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				res, err := Load([]string{dir}, Options{Jobs: 1})
				if err != nil || len(res.Runs) != 1 || len(res.Runs[0].Subagents) != n {
					b.Fatalf("load: %v", err)
				}
				if st := res.Runs[0].Subagents[n-1].Status; st != "completed" {
					b.Fatalf("last agent's status %q", st)
				}
			}
		})
	}
}
