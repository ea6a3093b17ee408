package hook

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pmcheck/pmcheck/analyze"
	"github.com/pmcheck/pmcheck/internal/incr"
	"github.com/pmcheck/pmcheck/internal/testcorpus"
)

// readStats are the transcripts read from their first byte and the bytes
// decoded since the last readStats.
func readStats() (fresh, bytes int64) { return freshFiles.Swap(0), decoded.Swap(0) }

// TestARowTheGateReadsIsReadAlone: a call after rows the gate reads (an
// Agent call and its killed result, a review, a subagent's transcript
// written) decodes only the bytes appended since the last reading, through
// the readers it kept, and answers as a full read does.
func TestARowTheGateReadsIsReadAlone(t *testing.T) {
	withCache(t)
	var rows []string
	for i := range 200 {
		id := "toolu_sh" + strings.Repeat("x", i%7) + string(rune('a'+i%26))
		rows = append(rows, bashCall(id, "go test ./..."), toolResult(id, strings.Repeat("ok ", 40)))
	}
	p := writeTranscript(t, rows...)
	readStats()
	if d := push(t, p); d != "" {
		t.Fatalf("nothing killed yet: %q", d)
	}
	if fresh, _ := readStats(); fresh != 1 {
		t.Fatalf("the first call read %d transcripts from their start, want 1", fresh)
	}
	before := size(t, p)
	appendRows(t, p, agentCall("toolu_k", "Port the exporter"), killedResult("toolu_k"))
	f0, _ := counts()
	if d := push(t, p); d != "ask" {
		t.Fatalf("the kill is not seen: %q", d)
	}
	fresh, n := readStats()
	if f, _ := counts(); f != f0+1 || fresh != 0 || n != size(t, p)-before {
		t.Fatalf("the kill: %d readings, %d transcripts read from their start, %d bytes decoded (want 1, 0, %d)", f-f0, fresh, n, size(t, p)-before)
	}
	// A subagent's transcript appears: read in full (it is new), the
	// parent's rows from where they stopped.
	const agent = "a4000000000000999"
	childOf(t, p, agent, row("user", "Review the exporter."))
	before = size(t, p)
	appendRows(t, p, reviewRows("toolu_rev", "Port the exporter")...)
	if got, want := answer(readGate(p, Config{})), answer(analyze.ReadGate(p, Config{}.gate())); got != want {
		t.Fatalf("after the review: the state's reading %s, a full read %s", got, want)
	}
	if fresh, n := readStats(); fresh != 1 || n <= size(t, p)-before {
		t.Fatalf("after the review: %d transcripts read from their start, %d bytes decoded (want 1, more than %d)", fresh, n, size(t, p)-before)
	}
	if d := push(t, p); d != "" {
		t.Fatalf("after the review: %q", d)
	}
}

func size(t *testing.T, p string) int64 {
	t.Helper()
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

// TestReadersThatDoNotHoldAreNotUsed: readers kept for a transcript that
// was since rewritten (the same length, other bytes), replaced (another
// file with the same bytes), or truncated and grown again, readers copied
// from another transcript's state, and a readers' state that does not
// decode are not used: the transcript is read from its start, and the
// answer is a full read's.
func TestReadersThatDoNotHoldAreNotUsed(t *testing.T) {
	dir := withCache(t)
	killed := []string{agentCall("toolu_k", "Port the exporter"), killedResult("toolu_k")}
	calm := []string{agentCall("toolu_k", "Port the exporter"), toolResult("toolu_k", "Done. The exporter is ported.")}
	cases := []struct {
		name   string
		change func(p, other string)
	}{
		{"rewritten in place", func(p, _ string) {
			data, _ := os.ReadFile(p)
			os.WriteFile(p, bytes.Replace(data, []byte("toolu_sh1"), []byte("toolu_sh2"), 1), 0o644)
		}},
		{"replaced by a copy of its bytes", func(p, _ string) {
			data, _ := os.ReadFile(p)
			tmp := p + ".new"
			os.WriteFile(tmp, data, 0o644)
			os.Rename(tmp, p)
		}},
		{"truncated and grown again", func(p, _ string) {
			os.WriteFile(p, []byte(strings.Join(append([]string{bashCall("toolu_x", "ls")}, calm...), "\n")+"\n"), 0o644)
		}},
		{"another transcript's readers", func(p, other string) {
			data, err := os.ReadFile(incr.PathFor(dir, readersKind, other))
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(incr.PathFor(dir, readersKind, p), data, 0o600)
		}},
		{"corrupt", func(p, _ string) {
			f := incr.PathFor(dir, readersKind, p)
			data, _ := os.ReadFile(f)
			data[len(data)/2] ^= 1
			os.WriteFile(f, data, 0o600)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := writeTranscript(t, bashCall("toolu_sh1", "ls"), toolResult("toolu_sh1", "a"))
			other := filepath.Join(t.TempDir(), sessionID+".jsonl")
			os.WriteFile(other, []byte(strings.Join(killed, "\n")+"\n"), 0o644)
			push(t, p)
			push(t, other)
			c.change(p, other)
			appendRows(t, p, killed...)
			readStats()
			got, want := answer(readGate(p, Config{})), answer(analyze.ReadGate(p, Config{}.gate()))
			if got != want {
				t.Fatalf("the state's reading %s, a full read %s", got, want)
			}
			if fresh, _ := readStats(); fresh != 1 {
				t.Fatalf("the transcript was not read from its start (%d)", fresh)
			}
		})
	}
}

// TestReadersEncoding: the readers' state decodes to what was encoded, and
// any cut of it does not decode.
func TestReadersEncoding(t *testing.T) {
	rs := []analyze.FrozenReader{
		{Path: "/a/b.jsonl", Mark: incr.Mark{ID: incr.Identity{Dev: 1, Ino: 2}, Offset: 4097, Head: [32]byte{1}, Tail: [32]byte{31: 9}}, State: []byte("state")},
		{Path: "/a/b/workflows/wf_1/journal.jsonl", Journal: true, State: []byte{}},
	}
	data := encodeReaders(rs)
	got, err := decodeReaders(data)
	if err != nil || len(got) != 2 || got[0].Path != rs[0].Path || got[0].Mark != rs[0].Mark || string(got[0].State) != "state" || got[0].Journal ||
		got[1].Path != rs[1].Path || !got[1].Journal {
		t.Fatalf("%+v %v", got, err)
	}
	for n := range len(data) {
		if _, err := decodeReaders(data[:n]); err == nil {
			t.Errorf("cut at %d decodes", n)
		}
	}
}

// TestEverySessionsReadersFreeze: the reader of every transcript of every
// fixture and corpus session freezes (a reader that does not is left out,
// and its file is read from its first byte at every call).
func TestEverySessionsReadersFreeze(t *testing.T) {
	roots := []string{filepath.Join("..", "fixtures", "runs")}
	if d := testcorpus.Dir(t); d != "" {
		roots = append(roots, d)
	}
	sessions := 0
	for _, p := range sessionTranscripts(t, roots) {
		r, err := analyze.ReadGateCarryFrom(p, Config{}.gate(), nil)
		if err != nil || r.Fresh == 0 {
			continue // not a session the gate reads
		}
		sessions++
		if rs := r.Readers(); int64(len(rs)) != r.Fresh {
			t.Errorf("%s: %d of its %d transcripts' readers froze", p, len(rs), r.Fresh)
		}
	}
	if sessions == 0 {
		t.Fatal("no sessions")
	}
}
