package analyze

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
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

// uuidPattern finds a row's uuid.
var uuidPattern = regexp.MustCompile(`"uuid":"[^"]*"`)

// FuzzCarries: whatever bytes are appended to a session's transcript, when
// the hook's carry says they leave the gate's reading as it is (Carries),
// a full read of the grown transcript gives that reading. A row Carries
// waves through that changes the gate's answer would let the hook allow a
// push a full read refuses. The bases are the sessions cut after each of
// their rows (a session as the hook sees it while it grows), seeded with
// the rows that followed: the kill notifications, results, calls and
// shell commands the gate must or need not read, for the fuzzer to alter.
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
		data, err := os.ReadFile(matches[0])
		if err != nil {
			f.Fatal(err)
		}
		rows := bytes.SplitAfter(data, []byte("\n"))
		foldable := 0
		for cut := 1; cut <= len(rows); cut++ {
			dir := f.TempDir()
			if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
				f.Fatal(err)
			}
			b := base{dir: dir, transcript: filepath.Base(matches[0]), data: bytes.Join(rows[:cut], nil)}
			p := filepath.Join(dir, b.transcript)
			if err := os.WriteFile(p, b.data, 0o644); err != nil {
				f.Fatal(err)
			}
			r, err := ReadGateCarryFrom(p, GateOptions{}, nil)
			carry := r.Carry
			if err != nil || !carry.Foldable {
				continue // every append is a full read: nothing to test here
			}
			foldable++
			b.carry = carry
			bases = append(bases, b)
			at := uint8(len(bases) - 1)
			if cut < len(rows) {
				f.Add(at, rows[cut])
				f.Add(at, bytes.Join(rows[cut:], nil))
			}
			// The session's rows again as new rows (a row repeated with its
			// uuid is a duplicate the reader skips), as written and with a
			// subagent's end told otherwise.
			for _, row := range rows {
				fresh := uuidPattern.ReplaceAll(row, []byte(`"uuid":"fffffff0-0000-4000-8000-00000000f022"`))
				f.Add(at, fresh)
				f.Add(at, bytes.ReplaceAll(fresh, []byte("killed"), []byte("completed")))
			}
		}
		if foldable == 0 {
			f.Fatalf("%s: no cut of it can be carried: the fuzzer would test nothing", name)
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
