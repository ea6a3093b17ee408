package analyze

import (
	"os"
	"path/filepath"
	"testing"
)

// TestReadersThatPanicAreReadAgain: kept readers that make the reading
// panic (a state that passed its checksum but holds what no reader wrote)
// are dropped for a read from the first byte, whose answer the call
// gives: never a failed call.
func TestReadersThatPanicAreReadAgain(t *testing.T) {
	src := filepath.Join("..", "fixtures", "runs", "rule-killed-subagent-shipped-unreviewed-bad")
	var session string
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if filepath.Ext(e.Name()) == ".jsonl" {
			session = filepath.Join(src, e.Name())
		}
	}
	if session == "" {
		t.Fatal("no session in " + src)
	}
	first, err := ReadGateCarryFrom(session, GateOptions{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	readers := first.Readers()
	if len(readers) == 0 {
		t.Fatal("no readers kept")
	}
	want, err := ReadGate(session, GateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	onSeeded = func() {
		calls++
		panic("a reader holding what no reader wrote")
	}
	defer func() { onSeeded = nil }()
	got, err := ReadGateCarryFrom(session, GateOptions{}, readers)
	if err != nil || calls != 1 || got.Fresh == 0 {
		t.Fatalf("err %v, %d seeded readings, %d read from the first byte", err, calls, got.Fresh)
	}
	if g, w := got.Gate.Memo(), want.Memo(); len(g.Warn) == 0 || len(g.Warn) != len(w.Warn) || g.Warn[0] != w.Warn[0] {
		t.Fatalf("the reading %+v, a full read %+v", g, w)
	}
}
