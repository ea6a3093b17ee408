package analyze

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// carryFixtures are sessions the carry fuzzer appends to: a killed
// subagent outstanding at a ship action, a sync subagent killed, and a
// killed subagent reviewed (each with its subagents' folder).
var carryFixtures = []string{
	"rule-ship-while-killed-outstanding-bad",
	"detect-sync-killed",
	"rule-killed-subagent-shipped-unreviewed-good",
}

// FuzzCarries: whatever bytes are appended to a session's transcript, when
// the hook's carry says they leave the gate's reading as it is (Carries),
// a full read of the grown transcript gives that reading. A row Carries
// waves through that changes the gate's answer would let the hook allow a
// push a full read refuses.
func FuzzCarries(f *testing.F) {
	// Each base is copied once per fuzzing process, read with its carry
	// once; an input rewrites only the copy's transcript (a process runs
	// one input at a time).
	type base struct {
		dir, transcript string
		data            []byte
		carry           GateCarry
	}
	var bases []base
	for _, name := range carryFixtures {
		src := filepath.Join("..", "fixtures", "runs", name)
		matches, _ := filepath.Glob(filepath.Join(src, "*.jsonl"))
		if len(matches) != 1 {
			f.Fatalf("%s: %d session transcripts, want 1", name, len(matches))
		}
		dir := f.TempDir()
		if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
			f.Fatal(err)
		}
		b := base{dir: dir, transcript: filepath.Base(matches[0])}
		data, err := os.ReadFile(matches[0])
		if err != nil {
			f.Fatal(err)
		}
		_, carry, err := ReadGateCarry(filepath.Join(dir, b.transcript), GateOptions{})
		if err != nil {
			f.Fatal(err)
		}
		if !carry.Foldable {
			f.Fatalf("%s: its reading cannot be carried: the fuzzer would test nothing", name)
		}
		b.data, b.carry = data, carry
		bases = append(bases, b)
		for _, row := range bytes.SplitAfter(data, []byte("\n")) {
			for i := range carryFixtures {
				f.Add(uint8(i), row)
			}
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, rows []byte) {
		b := bases[int(which)%len(bases)]
		if !b.carry.Carries(rows, b.transcript) {
			return
		}
		p := filepath.Join(b.dir, b.transcript)
		if err := os.WriteFile(p, append(bytes.Clone(b.data), rows...), 0o644); err != nil {
			t.Fatal(err)
		}
		g, err := ReadGate(p, GateOptions{})
		if err != nil {
			t.Fatalf("%s: the carry waved through %q, after which a full read fails: %v", b.transcript, rows, err)
		}
		got, _ := json.Marshal(b.carry.Memo)
		want, _ := json.Marshal(g.Memo())
		if !bytes.Equal(got, want) {
			t.Fatalf("%s: the carry waved through %q, but a full read after it reads\n%s\nnot\n%s", b.transcript, rows, want, got)
		}
	})
}
