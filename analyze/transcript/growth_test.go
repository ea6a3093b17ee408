package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/pmcheck/pmcheck/analyze/model"
)

// TestShellMemoIsBounded: a file of more distinct commands than the
// reader's memo holds stops growing it at shellMemoBytes (300,000 distinct
// commands used to keep 300,000 entries: 288-291 MiB peak RSS against
// 250-262 without the memo). Counted as entries: the file runs each of n
// commands twice, the second time after all of them, so the classifier is
// asked n times plus once for each command the memo did not keep; a
// command kept before the bound is still classified once.
func TestShellMemoIsBounded(t *testing.T) {
	const n = 40000
	var b bytes.Buffer
	command := func(i int) string { return fmt.Sprintf("python3 run.py --seed %d --out results", i) }
	for pass := range 2 {
		for i := range n {
			in, _ := json.Marshal(map[string]any{"command": command(i)})
			fmt.Fprintf(&b, `{"type":"assistant","uuid":"u-%d-%d","timestamp":"2026-05-07T09:00:05.000Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"t%d-%d","name":"Bash","input":%s}]}}`+"\n", pass, i, pass, i, in)
		}
	}
	data := b.Bytes()
	perEntry := len(command(0)) + shellMemoEntryCost // the least an entry counts
	for _, read := range []struct {
		name string
		read func(Options) (*model.Transcript, error)
	}{
		{"serial", func(o Options) (*model.Transcript, error) { return Read(bytes.NewReader(data), "f.jsonl", o) }},
		{"parallel", func(o Options) (*model.Transcript, error) {
			return readParallel(bytes.NewReader(data), "f.jsonl", o, 2, 1<<20)
		}},
	} {
		var asked atomic.Int64
		sh := shipShell(nil)
		classify := sh.Classify
		sh.Classify = func(cmd string) model.ShellAnalysis { asked.Add(1); return classify(cmd) }
		tr, err := read.read(Options{Shell: sh})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range tr.ToolCalls {
			if _, _, ok := c.ShellClass(); !ok {
				t.Fatalf("%s: call %q has no classification", read.name, c.Command())
			}
		}
		kept := 2*n - int(asked.Load())
		t.Logf("%s read: %d of %d distinct commands memoised (%d bytes counted at most)", read.name, kept, n, kept*perEntry)
		if kept*perEntry > shellMemoBytes {
			t.Errorf("%s read: the memo kept %d commands, %d bytes counted; want at most %d", read.name, kept, kept*perEntry, shellMemoBytes)
		}
		if kept < shellMemoBytes/perEntry/2 {
			t.Errorf("%s read: the memo kept only %d commands: it no longer saves the repeats of the first", read.name, kept)
		}
	}
}
