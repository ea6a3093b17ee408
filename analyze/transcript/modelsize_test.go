package transcript

import (
	"bytes"
	"fmt"
	"runtime"
	"testing"
)

// heldAfter returns the bytes of live heap that f's result holds: the live
// heap after f, less the live heap before it, each after collections that
// also empty the pools.
func heldAfter(f func() any) uint64 {
	live := func() uint64 {
		var m runtime.MemStats
		runtime.GC()
		runtime.GC() // a pool's victims go at the second
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	before := live()
	v := f()
	after := live()
	runtime.KeepAlive(v)
	if after < before {
		return 0
	}
	return after - before
}

// TestModelHoldsLittlePerCall: what a transcript keeps of a shell call and
// its result (the call, the result, their places in the transcript's lists,
// the id and command, the write-time steps of two rows and the completion)
// is 164 bytes here, most of it the two structs, which a large transcript
// keeps tens of thousands of. With calls and results of 64 bytes each,
// allocated one by one, and the id and the command in two strings, it was
// 203, and the bound fails.
func TestModelHoldsLittlePerCall(t *testing.T) {
	const n = 20000
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, `{"type":"assistant","uuid":"a%d","timestamp":"2026-05-07T09:%02d:%02d.000Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_%06d","name":"Bash","input":{"command":"ls -la"}}]}}`+"\n", i, i/60%60, i%60, i)
		fmt.Fprintf(&b, `{"type":"user","uuid":"u%d","timestamp":"2026-05-07T09:%02d:%02d.500Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_%06d","content":"total 0"}]}}`+"\n", i, i/60%60, i%60, i)
	}
	data := b.Bytes()
	least := uint64(1 << 62)
	for range 3 {
		least = min(least, heldAfter(func() any {
			tr, err := Read(bytes.NewReader(data), "s.jsonl", Options{})
			if err != nil || len(tr.ToolCalls) != n || len(tr.ToolResults) != n {
				t.Fatalf("read: %v, %d calls", err, len(tr.ToolCalls))
			}
			return tr
		})/n)
	}
	t.Logf("%d bytes a call and its result", least)
	if least > 180 {
		t.Errorf("a transcript holds %d bytes a shell call and its result, want at most 180", least)
	}
}
