package transcript

import (
	"bytes"
	"fmt"
	"runtime"
	"testing"

	"github.com/pmcheck/pmcheck/analyze/detect/ship"
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
// 203, and the bound fails. Read with the commands classified, it is the
// same (the calls share one analysis and hold its place in bits they had);
// a distinct analysis per call adds what that analysis holds.
func TestModelHoldsLittlePerCall(t *testing.T) {
	for _, c := range []struct {
		name    string
		command func(i int) string
		opts    Options
		bound   uint64
	}{
		{"the same command", func(int) string { return "ls -la" }, Options{}, 180},
		// Classified while read: the calls share one analysis, and the
		// call holds its place in bits it had.
		{"the same command, classified", func(int) string { return "ls -la" }, Options{Shell: shipShell(nil)}, 180},
		// Every call its own analysis with a write (the analysis, its
		// list and path, once per distinct command).
		{"distinct writes, classified", func(i int) string { return fmt.Sprintf("echo %d > f%d", i, i) }, Options{Shell: shipShell(nil)}, 320},
	} {
		least := heldPerCall(t, c.command, c.opts)
		t.Logf("%s: %d bytes a call and its result", c.name, least)
		if least > c.bound {
			t.Errorf("%s: a transcript holds %d bytes a shell call and its result, want at most %d", c.name, least, c.bound)
		}
	}
}

// TestInertCommandsAreNotHeld: read with ship.Inert, a call of an inert
// command (here 48 bytes: git log with flags and a path, as agents run it)
// holds its classification and not the command: at least 40 bytes a call
// less than the same read keeping every command.
func TestInertCommandsAreNotHeld(t *testing.T) {
	command := func(int) string { return "git log --oneline -20 -- analyze/detect/ledger.go" }
	sh := shipShell(nil)
	sh.Inert = ship.Inert
	keep := heldPerCall(t, command, Options{Shell: shipShell(nil)})
	drop := heldPerCall(t, command, Options{Shell: sh})
	t.Logf("%d bytes a call and its result keeping the command, %d keeping its classification alone", keep, drop)
	if drop+40 > keep {
		t.Errorf("an inert command's call holds %d bytes, %d keeping the command: want at least 40 fewer", drop, keep)
	}
}

// heldPerCall is the least over three reads of what a transcript of 20,000
// shell calls (of the commands given) and their results holds per call.
func heldPerCall(t *testing.T, command func(i int) string, opts Options) uint64 {
	const n = 20000
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, `{"type":"assistant","uuid":"a%d","timestamp":"2026-05-07T09:%02d:%02d.000Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_%06d","name":"Bash","input":{"command":%q}}]}}`+"\n", i, i/60%60, i%60, i, command(i))
		fmt.Fprintf(&b, `{"type":"user","uuid":"u%d","timestamp":"2026-05-07T09:%02d:%02d.500Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_%06d","content":"total 0"}]}}`+"\n", i, i/60%60, i%60, i)
	}
	data := b.Bytes()
	least := uint64(1 << 62)
	for range 3 {
		least = min(least, heldAfter(func() any {
			tr, err := Read(bytes.NewReader(data), "s.jsonl", opts)
			if err != nil || len(tr.ToolCalls) != n || len(tr.ToolResults) != n {
				t.Fatalf("read: %v, %d calls", err, len(tr.ToolCalls))
			}
			return tr
		})/n)
	}
	return least
}
