package transcript

import (
	"bytes"
	"fmt"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/pmcheck/pmcheck/internal/allocs"
)

// smallTranscript is a session of a few rows: a prompt, a retained and a
// counted call, their results and an answer (about 2 KB).
func smallTranscript(i int) []byte {
	var b bytes.Buffer
	head := fmt.Sprintf(`"sessionId":"s%d","version":"2.1.143","cwd":"/w","gitBranch":"main"`, i)
	fmt.Fprintf(&b, `{"type":"user","uuid":"u%d-1","timestamp":"2026-05-07T09:00:00.000Z",%s,"message":{"role":"user","content":"Fix it."}}`+"\n", i, head)
	fmt.Fprintf(&b, `{"type":"assistant","uuid":"u%d-2","timestamp":"2026-05-07T09:00:05.000Z",%s,"message":{"role":"assistant","model":"m","content":[{"type":"tool_use","id":"t%d-1","name":"Bash","input":{"command":"go test ./..."}},{"type":"tool_use","id":"t%d-2","name":"Read","input":{"file_path":"/w/a.go"}}],"stop_reason":"tool_use"}}`+"\n", i, head, i, i)
	fmt.Fprintf(&b, `{"type":"user","uuid":"u%d-3","timestamp":"2026-05-07T09:00:09.000Z",%s,"message":{"role":"user","content":[{"tool_use_id":"t%d-1","type":"tool_result","content":"ok"},{"tool_use_id":"t%d-2","type":"tool_result","content":"package a"}]}}`+"\n", i, head, i, i)
	fmt.Fprintf(&b, `{"type":"assistant","uuid":"u%d-4","timestamp":"2026-05-07T09:00:12.000Z",%s,"message":{"role":"assistant","model":"m","content":[{"type":"text","text":"Done."}],"stop_reason":"end_turn"}}`+"\n", i, head)
	return b.Bytes()
}

// TestSmallFilesReuseTheirBuilder (issue 12): reading a small transcript
// allocates what its model keeps, not a builder with its scratch maps
// each time. A folder of 40,000 files of a few rows read each one with a
// new builder (about 2 KB of garbage a file, a fifth of what reading
// such a folder allocated); the bound fails on that code (5,061 bytes
// in 52 allocations a read here, against 2,391 in 32 with the pool).
func TestSmallFilesReuseTheirBuilder(t *testing.T) {
	allocs.SkipUnderRace(t)
	const n = 400
	files := make([][]byte, n)
	for i := range files {
		files[i] = smallTranscript(i)
	}
	read := func(i int) {
		tr, err := readPooled(bytes.NewReader(files[i%n]), "f.jsonl", Options{})
		if err != nil || tr.Rows != 4 || tr.ToolCounts["Bash"] != 1 || tr.Types["user"] != 2 {
			t.Fatalf("read %d: %v %+v", i, err, tr)
		}
	}
	// No collection while measuring: it would empty the pools.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	for i := range 8 { // the pools are filled
		read(i)
	}
	// The fewest of five rounds: a goroutine moved to another processor
	// does not find what it put in the pools (the line reader's 256 KiB
	// buffer among them) and allocates it again.
	bytesPer, allocsPer := uint64(1<<62), uint64(1<<62)
	for range 5 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for i := range n {
			read(i)
		}
		runtime.ReadMemStats(&after)
		bytesPer = min(bytesPer, (after.TotalAlloc-before.TotalAlloc)/n)
		allocsPer = min(allocsPer, (after.Mallocs-before.Mallocs)/n)
	}
	t.Logf("%d bytes, %d allocations a read", bytesPer, allocsPer)
	if bytesPer > 3000 || allocsPer > 40 {
		t.Errorf("a small file's reading allocates %d bytes in %d allocations, want at most 3,000 in 40", bytesPer, allocsPer)
	}
}

// TestPooledBuilderForgetsItsFile: a builder reused after a file with
// other tools, types, results and a pending result reads the next file
// exactly as a new one does.
func TestPooledBuilderForgetsItsFile(t *testing.T) {
	other := []byte(`{"type":"user","uuid":"x1","message":{"role":"user","content":[{"tool_use_id":"late","type":"tool_result","content":"r"}]}}
{"type":"weird","uuid":"x2"}
{"type":"assistant","uuid":"x3","message":{"role":"assistant","content":[{"type":"tool_use","id":"c1","name":"Grep","input":{}},{"type":"tool_use","id":"c2","name":"Agent","input":{"prompt":"p"}}]}}
`)
	want, err := Read(bytes.NewReader(smallTranscript(1)), "f.jsonl", Options{})
	if err != nil {
		t.Fatal(err)
	}
	for range 4 {
		if _, err := readPooled(bytes.NewReader(other), "o.jsonl", Options{}); err != nil {
			t.Fatal(err)
		}
		got, err := readPooled(bytes.NewReader(smallTranscript(1)), "f.jsonl", Options{})
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got.Types, got.ToolCounts, len(got.ToolCalls), len(got.ToolResults), got.UUIDs, got.FirstUUID) !=
			fmt.Sprint(want.Types, want.ToolCounts, len(want.ToolCalls), len(want.ToolResults), want.UUIDs, want.FirstUUID) {
			t.Fatalf("reused builder: %v %v %d %d, want %v %v %d %d", got.Types, got.ToolCounts, len(got.ToolCalls), len(got.ToolResults),
				want.Types, want.ToolCounts, len(want.ToolCalls), len(want.ToolResults))
		}
	}
}
