package hook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pmcheck/pmcheck/analyze"
	"github.com/pmcheck/pmcheck/analyze/layout"
	"github.com/pmcheck/pmcheck/internal/incr"
	"github.com/pmcheck/pmcheck/internal/testcorpus"
)

// sessionTranscripts lists the session transcripts under roots: every
// .jsonl file that is not a subagent's or a Workflow run's.
func sessionTranscripts(t *testing.T, roots []string) []string {
	t.Helper()
	var files []string
	for _, root := range roots {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			slash := filepath.ToSlash(p)
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") &&
				!strings.Contains(slash, "/subagents/") && !strings.Contains(slash, "/workflows/") {
				files = append(files, p)
			}
			return nil
		})
	}
	if len(files) == 0 {
		t.Fatal("no transcripts")
	}
	return files
}

// copySession copies the session's own folder (<session>/: its subagents'
// transcripts and sidecars) into dir, complete, and returns where the
// transcript goes there (empty: the test writes it).
func copySession(t *testing.T, src, dir string) string {
	t.Helper()
	stem := layout.Stem(filepath.Base(src))
	from := filepath.Join(filepath.Dir(src), stem)
	filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(from, p)
		to := filepath.Join(dir, stem, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		if d.Type().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(to, data, 0o644)
		}
		return nil
	})
	p := filepath.Join(dir, filepath.Base(src))
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// answer is a reading as the decisions see it: the gate's memo (what
// PreToolUse and SessionStart decide from, the mark included), or the
// error.
func answer(g *analyze.GateState, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	b, _ := json.Marshal(g.Memo())
	return string(b)
}

// write is one step of a session growing: bytes appended to one file.
type write struct {
	path string
	data []byte
}

// interleaved lays out the session of src in dir as it grew: its
// sidecars and other files whole from the start, and the rows of its
// transcript and of its subagents' transcripts appended in the order of
// their timestamps (a row without one goes with the row before it in its
// file; each file's rows stay in their order). It returns the
// transcript's path and the writes.
func interleaved(t *testing.T, src, dir string) (string, []write) {
	t.Helper()
	stem := layout.Stem(filepath.Base(src))
	from := filepath.Join(filepath.Dir(src), stem)
	type file struct {
		path string
		rows [][]byte
		at   []string
	}
	files := []*file{{path: filepath.Join(dir, filepath.Base(src))}}
	sources := []string{src}
	filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(from, p)
		to := filepath.Join(dir, stem, rel)
		switch {
		case d.IsDir():
			os.MkdirAll(to, 0o755)
		case strings.HasSuffix(p, ".jsonl"):
			files, sources = append(files, &file{path: to}), append(sources, p)
		case d.Type().IsRegular():
			data, _ := os.ReadFile(p)
			os.WriteFile(to, data, 0o644)
		}
		return nil
	})
	for i, f := range files {
		data, err := os.ReadFile(sources[i])
		if err != nil {
			t.Fatal(err)
		}
		last := ""
		for _, r := range bytes.SplitAfter(data, []byte("\n")) {
			if len(r) == 0 {
				continue
			}
			var ts struct{ Timestamp string }
			if json.Unmarshal(r, &ts) == nil && ts.Timestamp != "" {
				last = ts.Timestamp
			}
			f.rows, f.at = append(f.rows, r), append(f.at, last)
		}
	}
	os.WriteFile(files[0].path, nil, 0o644)
	var out []write
	next := make([]int, len(files))
	for {
		best := -1
		for i, f := range files {
			if next[i] < len(f.rows) && (best < 0 || f.at[next[i]] < files[best].at[next[best]]) {
				best = i
			}
		}
		if best < 0 {
			return files[0].path, out
		}
		out = append(out, write{files[best].path, files[best].rows[next[best]]})
		next[best]++
	}
}

// TestCarriedReadingIsAFullReadAtEveryPrefix is the differential test of
// the hook's state: every fixture and corpus session is written row by
// row (its subagents' files in place), again in random pieces (seeded;
// most end mid-row), and again with its transcript and its subagents'
// transcripts growing together, row by row in the order of their
// timestamps; after each step the hook's reading through its state
// (carried over the appended bytes, or read in full) is compared with a
// fresh full read of the same bytes. The fixtures are compared at every
// prefix; a corpus session of more than maxEvery steps at maxEvery
// prefixes spread over it (every prefix of every corpus session costs
// minutes: each full read reads the whole prefix), the state still seeing
// the steps in between as one append.
func TestCarriedReadingIsAFullReadAtEveryPrefix(t *testing.T) {
	withCache(t)
	carried.Store(0)
	throughReaders.Store(0)
	defer func(v int64) { refreezeAfter = v }(refreezeAfter)
	fixtures := sessionTranscripts(t, []string{filepath.Join("..", "fixtures", "runs")})
	var corpus []string
	if dir := testcorpus.Dir(t); dir != "" {
		corpus = sessionTranscripts(t, []string{dir})
	}
	const maxEvery = 30
	compared := 0
	for i, src := range append(fixtures, corpus...) {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		rows := bytes.SplitAfter(data, []byte("\n"))
		rng := rand.New(rand.NewSource(int64(i + 1)))
		var pieces [][]byte
		for rest := data; len(rest) > 0; {
			n := min(len(rest), 1+rng.Intn(2*len(data)/max(1, len(rows))+1))
			pieces, rest = append(pieces, rest[:n]), rest[n:]
		}
		modes := 2
		if _, err := os.Stat(analyze.SessionFolder(src)); err == nil {
			modes = 3 // its subagents' files can grow with it
		}
		for mode := 0; mode < modes; mode++ {
			// The readers kept after every reading, or only once enough
			// was decoded through them (the default).
			refreezeAfter = [2]int64{0, 64 << 10}[(i+mode)%2]
			var p string
			var steps []write
			switch mode {
			case 0, 1:
				p = copySession(t, src, t.TempDir())
				for _, b := range [][][]byte{rows, pieces}[mode] {
					steps = append(steps, write{p, b})
				}
			case 2:
				p, steps = interleaved(t, src, t.TempDir())
			}
			every := 1
			if i >= len(fixtures) && len(steps) > maxEvery {
				every = len(steps) / maxEvery
			}
			written := 0
			for k, s := range steps {
				f, err := os.OpenFile(s.path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
				if err != nil {
					t.Fatal(err)
				}
				f.Write(s.data)
				f.Close()
				written += len(s.data)
				if k%every != 0 && k != len(steps)-1 {
					continue
				}
				got := answer(readGate(p, Config{}))
				want := answer(analyze.ReadGate(p, Config{}.gate()))
				compared++
				if got != want {
					t.Fatalf("%s (mode %d), after %d bytes (step %d, %s): the state's reading\n%s\na full read\n%s", src, mode, written, k, s.path, got, want)
				}
			}
		}
	}
	if carried.Load() == 0 || throughReaders.Load() == 0 {
		t.Fatal("no reading was ever carried, or none read through kept readers: the test compares full reads with full reads")
	}
	t.Logf("%d fixture and %d corpus sessions, %d prefixes compared, %d readings carried, %d readings (%d of them through kept readers alone)",
		len(fixtures), len(corpus), compared, carried.Load(), readings.Load(), throughReaders.Load())
}

// childOf writes (or appends to) the transcript of the parent's subagent
// agentID, where the loader finds it (<session>/subagents/).
func childOf(t *testing.T, parent, agentID string, rows ...string) {
	t.Helper()
	dir := filepath.Join(filepath.Dir(parent), layout.Stem(filepath.Base(parent)), "subagents")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "agent-"+agentID+".jsonl")
	f, err := os.OpenFile(p, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(strings.Join(rows, "\n") + "\n")
	f.Close()
}

// counts are the full reads and carried readings since the last counts.
func counts() (full, carry int64) { return readings.Load(), carried.Load() }

// TestCarryOverShellRowsWithoutAFullRead: with a kill outstanding, rows
// of shell commands and their output appended are read alone and the
// reading carried (the push still asks, without a full read); a review
// subagent appended is a full read, and the push is then allowed.
func TestCarryOverShellRowsWithoutAFullRead(t *testing.T) {
	withCache(t)
	carried.Store(0)
	p := writeTranscript(t, agentCall("toolu_k", "Port the exporter"), killedResult("toolu_k"))
	if push(t, p) != "ask" {
		t.Fatal("the kill is not seen")
	}
	for i := 0; i < 5; i++ {
		id := fmt.Sprintf("toolu_sh%d", i)
		appendRows(t, p, bashCall(id, "go test ./..."), toolResult(id, "ok"))
		f0, c0 := counts()
		if d := push(t, p); d != "ask" {
			t.Fatalf("after %d shell rows: %q", i+1, d)
		}
		if f, c := counts(); f != f0 || c != c0+1 {
			t.Fatalf("after %d shell rows: %d full reads, %d carried (want 0, 1)", i+1, f-f0, c-c0)
		}
	}
	// An unterminated row in flight: carried too, and read again whole.
	f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"type":"assistant","uuid":"b0000000-0000-4000-8000-99`)
	f.Close()
	if d := push(t, p); d != "ask" {
		t.Fatalf("a row in flight: %q", d)
	}
	appendRows(t, p, `9999999","sessionId":"`+sessionID+`","message":{"role":"assistant","content":"still working"}}`)
	appendRows(t, p, reviewRows("toolu_rev", "Port the exporter")...)
	f0, _ := counts()
	if d := push(t, p); d != "" {
		t.Fatalf("after the review: %q", d)
	}
	if f, _ := counts(); f != f0+1 {
		t.Fatalf("the review was not read in full (%d full reads)", f-f0)
	}
}

// TestCarryAnAliasIsAFullRead: a shell command that defines a git alias
// is a row the gate reads (the session's aliases classify its commands).
func TestCarryAnAliasIsAFullRead(t *testing.T) {
	withCache(t)
	p := writeTranscript(t, agentCall("toolu_k", "Port the exporter"), killedResult("toolu_k"))
	push(t, p)
	appendRows(t, p, bashCall("toolu_al", "git config alias.p push"), toolResult("toolu_al", ""))
	got, want := answer(readGate(p, Config{})), answer(analyze.ReadGate(p, Config{}.gate()))
	if got != want || !strings.Contains(want, `"p":["push"]`) {
		t.Fatalf("the state's reading %s, a full read %s", got, want)
	}
}

// TestCarrySubagentFilesChanged: a subagent's transcript that changed is
// read (a nested kill there is outstanding), however harmless the
// parent's appended rows are.
func TestCarrySubagentFilesChanged(t *testing.T) {
	withCache(t)
	const agent = "a4000000000000999"
	p := writeTranscript(t)
	childOf(t, p, agent, row("user", "Coordinate the port."))
	appendRows(t, p, agentCall("toolu_p", "Coordinate the port"), toolResult("toolu_p", "Done.\nagentId: "+agent))
	if d := push(t, p); d != "" {
		t.Fatalf("nothing killed yet: %q", d)
	}
	childOf(t, p, agent, agentCall("toolu_n", "Nested exporter"), killedResult("toolu_n"))
	appendRows(t, p, bashCall("toolu_sh", "ls"))
	want := answer(analyze.ReadGate(p, Config{}.gate()))
	if !strings.Contains(want, "Nested exporter") {
		t.Fatalf("the nested kill is not outstanding in a full read: %s", want)
	}
	if got := answer(readGate(p, Config{})); got != want {
		t.Fatalf("the state's reading %s, a full read %s", got, want)
	}
}

// TestCarryASubagentsLaterTimeIsAFullRead: a kill a subagent's transcript
// shows later than the parent's last row is outstanding only once the
// parent's end passes it (the gate reads at the end of the parent): a
// parent row of any kind appended after it is then a full read.
func TestCarryASubagentsLaterTimeIsAFullRead(t *testing.T) {
	withCache(t)
	const agent = "a4000000000000998"
	p := writeTranscript(t, agentCall("toolu_p", "Coordinate the port"), toolResult("toolu_p", "Done.\nagentId: "+agent))
	childOf(t, p, agent, agentCall("toolu_n", "Nested exporter"), killedResult("toolu_n")) // later rows
	if want := answer(analyze.ReadGate(p, Config{}.gate())); strings.Contains(want, "Nested exporter") {
		t.Fatalf("the construct does not test the end's time: %s", want)
	}
	if got := answer(readGate(p, Config{})); strings.Contains(got, "Nested exporter") {
		t.Fatalf("first call: %s", got)
	}
	appendRows(t, p, bashCall("toolu_sh", "ls")) // after the kill
	want := answer(analyze.ReadGate(p, Config{}.gate()))
	if !strings.Contains(want, "Nested exporter") {
		t.Fatalf("the kill is not outstanding at the new end: %s", want)
	}
	if got := answer(readGate(p, Config{})); got != want {
		t.Fatalf("the state's reading %s, a full read %s", got, want)
	}
}

// TestCarryFallsBackToAFullRead: a state that does not hold for the
// transcript as it is now — truncated and grown back past the offset,
// rewritten before the offset at the same size, another transcript at the
// same path, a state of another version, a corrupt state — is a full read
// whose answer is the transcript's, however harmless the appended rows.
// Each transcript is over 8 KiB, so the two hashed windows are apart.
func TestCarryFallsBackToAFullRead(t *testing.T) {
	cache := withCache(t)
	var pad []string
	for i := 0; i < 40; i++ {
		id := fmt.Sprintf("toolu_pad%d", i)
		pad = append(pad, bashCall(id, "go vet ./..."), toolResult(id, strings.Repeat("ok ", 40)))
	}
	killed := []string{agentCall("toolu_k", "Port the exporter"), killedResult("toolu_k")}
	setup := func(t *testing.T) string {
		p := writeTranscript(t, append(append([]string{}, pad...), killed...)...)
		if push(t, p) != "ask" {
			t.Fatal("the kill is not seen")
		}
		return p
	}
	shell := func(n int) []string {
		var rows []string
		for i := 0; i < n; i++ {
			id := fmt.Sprintf("toolu_more%d", i)
			rows = append(rows, bashCall(id, "make"), toolResult(id, strings.Repeat("built ", 40)))
		}
		return rows
	}
	check := func(t *testing.T, p, want string) {
		t.Helper()
		f0, _ := counts()
		got, wantRead := answer(readGate(p, Config{})), answer(analyze.ReadGate(p, Config{}.gate()))
		if got != wantRead || !strings.Contains(got, want) {
			t.Fatalf("the state's reading %s, a full read %s (want %q)", got, wantRead, want)
		}
		if f, _ := counts(); f != f0+1 {
			t.Fatalf("%d full reads, want 1", f-f0)
		}
	}
	size := func(p string) int64 {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		return st.Size()
	}

	// fillTo appends a row that ends exactly at offset, so that what
	// follows it reads as whole rows from there.
	fillTo := func(t *testing.T, p string, offset int64) {
		id := "toolu_fill"
		base := toolResult(id, "")
		need := offset - size(p) - int64(len(base)) - 1
		if need < 0 {
			t.Fatalf("no room for a row: %d", need)
		}
		rowN-- // the same width of uuid and time
		appendRows(t, p, toolResult(id, strings.Repeat("x", int(need))))
		if size(p) != offset {
			t.Fatalf("filled to %d, not %d", size(p), offset)
		}
	}
	t.Run("truncated and grown back past the offset", func(t *testing.T) {
		p := setup(t)
		old := size(p)
		data, _ := os.ReadFile(p)
		os.Truncate(p, int64(bytes.LastIndexByte(data[:bytes.Index(data, []byte(`"toolu_k"`))], '\n')+1))
		fillTo(t, p, old)
		appendRows(t, p, shell(1)...)
		check(t, p, `{}`)
	})
	t.Run("rewritten before the offset at the same size", func(t *testing.T) {
		p := setup(t)
		data, _ := os.ReadFile(p)
		i := bytes.LastIndex(data, []byte("Port the exporter"))
		f, _ := os.OpenFile(p, os.O_WRONLY, 0)
		f.WriteAt([]byte("Port the importer"), int64(i))
		f.Close()
		appendRows(t, p, shell(1)...)
		check(t, p, "Port the importer")
	})
	t.Run("another transcript at the same path", func(t *testing.T) {
		p := setup(t)
		old := size(p)
		os.Remove(p)
		os.WriteFile(p, []byte(strings.Join(pad[:len(pad)-2], "\n")+"\n"), 0o644)
		fillTo(t, p, old)
		appendRows(t, p, shell(1)...)
		check(t, p, `{}`)
	})
	forge := func(t *testing.T, p string, edit func(*incr.State)) {
		file := incr.PathFor(cache, "hook", p)
		st, err := incr.Load(file, memoVersion(), p)
		if err != nil {
			t.Fatal(err)
		}
		var m memo
		json.Unmarshal(st.Payload, &m)
		m.Carry.Memo = analyze.GateMemo{} // a reading that would allow
		st.Payload, _ = json.Marshal(m)
		edit(&st)
		if err := incr.Save(file, st); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("a state of another version", func(t *testing.T) {
		p := setup(t)
		forge(t, p, func(st *incr.State) { st.Version = memoFormat + " another pmcheck" })
		appendRows(t, p, shell(1)...)
		check(t, p, "Port the exporter")
	})
	t.Run("a corrupt state", func(t *testing.T) {
		p := setup(t)
		forge(t, p, func(*incr.State) {})
		file := incr.PathFor(cache, "hook", p)
		data, _ := os.ReadFile(file)
		data[len(data)-40] ^= 1 // the payload, under the checksum
		os.WriteFile(file, data, 0o600)
		appendRows(t, p, shell(1)...)
		check(t, p, "Port the exporter")
	})
}

// TestCarryASubagentsShellRows: rows the gate ignores appended to a
// running subagent's transcript are read alone and the reading carried;
// a new file in the session's folder is a full read.
func TestCarryASubagentsShellRows(t *testing.T) {
	withCache(t)
	carried.Store(0)
	const agent = "a4000000000000997"
	p := writeTranscript(t)
	childOf(t, p, agent, row("user", "Port the exporter in the background."))
	appendRows(t, p, agentCall("toolu_bg", "Background port"))
	meta := filepath.Join(analyze.SessionFolder(p), "subagents", "agent-"+agent+".meta.json")
	os.WriteFile(meta, []byte(`{"agentType":"general-purpose","description":"Background port","toolUseId":"toolu_bg"}`), 0o644)
	first := answer(readGate(p, Config{}))
	for i := 0; i < 3; i++ {
		id := fmt.Sprintf("toolu_child%d", i)
		childOf(t, p, agent, bashCall(id, "go build ./..."), toolResult(id, "ok"))
		appendRows(t, p, bashCall(fmt.Sprintf("toolu_parent%d", i), "git status"))
		f0, c0 := counts()
		got, want := answer(readGate(p, Config{})), answer(analyze.ReadGate(p, Config{}.gate()))
		if got != want || got != first {
			t.Fatalf("after %d appends: the state's reading %s, a full read %s, at first %s", i+1, got, want, first)
		}
		if f, c := counts(); f != f0 || c != c0+1 {
			t.Fatalf("after %d appends: %d full reads, %d carried (want 0, 1)", i+1, f-f0, c-c0)
		}
	}
	childOf(t, p, "a4000000000000996", row("user", "Another."))
	f0, _ := counts()
	readGate(p, Config{})
	if f, _ := counts(); f != f0+1 {
		t.Fatalf("a new subagent file: %d full reads, want 1", f-f0)
	}
}

// TestCarryAnEndedSubagentsRowIsAFullRead: once the parent's rows show a
// subagent's call ended, how its transcript ends is read (a false done):
// a row appended to it, of any kind, is a full read.
func TestCarryAnEndedSubagentsRowIsAFullRead(t *testing.T) {
	withCache(t)
	const agent = "a4000000000000995"
	p := writeTranscript(t)
	childOf(t, p, agent, row("user", "Port the exporter."), row("assistant", []any{map[string]any{"type": "text", "text": "Working on it."}}))
	appendRows(t, p, agentCall("toolu_done", "Port the exporter"), toolResult("toolu_done", "Done.\nagentId: "+agent))
	if got := answer(readGate(p, Config{})); got != "{}" {
		t.Fatalf("a completed subagent: %s", got)
	}
	childOf(t, p, agent, row("assistant", []any{map[string]any{"type": "text", "text": "Claude AI usage limit reached|1778000000"}}))
	want := answer(analyze.ReadGate(p, Config{}.gate()))
	if !strings.Contains(want, "Port the exporter") {
		t.Fatalf("the false done is not outstanding in a full read: %s", want)
	}
	if got := answer(readGate(p, Config{})); got != want {
		t.Fatalf("the state's reading %s, a full read %s", got, want)
	}
}

// progressRow is an agent_progress row: a running subagent's message
// relayed into its parent (CLI 2.1.1x–2.1.76), naming its call and agent.
func progressRow(toolUseID, agentID string) string {
	rowN++
	b, _ := json.Marshal(map[string]any{
		"type": "progress", "uuid": fmt.Sprintf("b0000000-0000-4000-8000-%012d", rowN), "sessionId": sessionID,
		"timestamp": fmt.Sprintf("2026-05-07T09:%02d:%02d.000Z", rowN/60%60, rowN%60),
		"data":      map[string]any{"type": "agent_progress", "agentId": agentID, "prompt": "", "message": map[string]any{"type": "assistant"}},
		"toolUseID": "agent_msg_" + toolUseID, "parentToolUseID": toolUseID,
	})
	return string(b)
}

// TestCarryARunningSubagentsProgressRows: a running subagent's progress
// rows repeat the link its first one made, and are carried; a row that
// links another agent is a full read.
func TestCarryARunningSubagentsProgressRows(t *testing.T) {
	withCache(t)
	const agent, other = "a4000000000000994", "a4000000000000993"
	p := writeTranscript(t, agentCall("toolu_sync", "Port the exporter"), progressRow("toolu_sync", agent))
	first := answer(readGate(p, Config{}))
	for i := 0; i < 3; i++ {
		appendRows(t, p, progressRow("toolu_sync", agent))
		f0, c0 := counts()
		if got, want := answer(readGate(p, Config{})), answer(analyze.ReadGate(p, Config{}.gate())); got != want || got != first {
			t.Fatalf("after %d progress rows: the state's reading %s, a full read %s", i+1, got, want)
		}
		if f, c := counts(); f != f0 || c != c0+1 {
			t.Fatalf("after %d progress rows: %d full reads, %d carried (want 0, 1)", i+1, f-f0, c-c0)
		}
	}
	appendRows(t, p, progressRow("toolu_sync", other))
	f0, _ := counts()
	if got, want := answer(readGate(p, Config{})), answer(analyze.ReadGate(p, Config{}.gate())); got != want {
		t.Fatalf("another agent's link: the state's reading %s, a full read %s", got, want)
	}
	if f, _ := counts(); f != f0+1 {
		t.Fatalf("another agent's link: %d full reads, want 1", f-f0)
	}
}

// TestCarryAQueuedPromptButNotAQueuedNotification: a prompt the user
// queued while the model worked is carried; a queued task notification
// (a background agent's end) is a full read, and is what it says.
func TestCarryAQueuedPromptButNotAQueuedNotification(t *testing.T) {
	withCache(t)
	p := writeTranscript(t, row("user", "Port the exporter in the background."), agentCall("toolu_bg", "Background port"),
		toolResult("toolu_bg", "Async agent launched successfully.\nagentId: a4000000000000992"))
	readGate(p, Config{})
	queue := func(content string) string {
		rowN++
		b, _ := json.Marshal(map[string]any{"type": "queue-operation", "operation": "enqueue", "sessionId": sessionID,
			"timestamp": fmt.Sprintf("2026-05-07T09:%02d:%02d.000Z", rowN/60%60, rowN%60), "content": content})
		return string(b)
	}
	appendRows(t, p, queue("also respect the OS system preference"))
	f0, c0 := counts()
	if got, want := answer(readGate(p, Config{})), answer(analyze.ReadGate(p, Config{}.gate())); got != want {
		t.Fatalf("a queued prompt: the state's reading %s, a full read %s", got, want)
	}
	if f, c := counts(); f != f0 || c != c0+1 {
		t.Fatalf("a queued prompt: %d full reads, %d carried (want 0, 1)", f-f0, c-c0)
	}
	appendRows(t, p, queue("<task-notification>\n<task-id>a4000000000000992</task-id>\n<tool-use-id>toolu_bg</tool-use-id>\n<status>killed</status>\n<summary>Agent \"Background port\" was stopped</summary>\n</task-notification>"))
	f0, _ = counts()
	got, want := answer(readGate(p, Config{})), answer(analyze.ReadGate(p, Config{}.gate()))
	if got != want || !strings.Contains(want, "Background port") {
		t.Fatalf("a queued notification: the state's reading %s, a full read %s", got, want)
	}
	if f, _ := counts(); f != f0+1 {
		t.Fatalf("a queued notification: %d full reads, want 1", f-f0)
	}
}

// TestCarryALegacySubagentBesideTheSession: a subagent transcript beside
// the session's (the legacy layout) is outside the folder the state
// lists, so the reading is never carried: a nested kill appended there is
// seen.
func TestCarryALegacySubagentBesideTheSession(t *testing.T) {
	withCache(t)
	const agent = "a4000000000000991"
	p := writeTranscript(t)
	legacy := filepath.Join(filepath.Dir(p), "agent-"+agent+".jsonl")
	os.WriteFile(legacy, []byte(row("user", "Coordinate the port.")+"\n"), 0o644)
	appendRows(t, p, agentCall("toolu_p", "Coordinate the port"), toolResult("toolu_p", "Working.\nagentId: "+agent))
	readGate(p, Config{})
	f, _ := os.OpenFile(legacy, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(agentCall("toolu_n", "Nested exporter") + "\n" + killedResult("toolu_n") + "\n")
	f.Close()
	appendRows(t, p, bashCall("toolu_sh", "ls"))
	if got, want := answer(readGate(p, Config{})), answer(analyze.ReadGate(p, Config{}.gate())); got != want {
		t.Fatalf("the state's reading %s, a full read %s", got, want)
	}
}
