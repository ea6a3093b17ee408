package incr

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func writeFile(t *testing.T, p string, data []byte) {
	t.Helper()
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

func markFile(t *testing.T, p string, off int64) Mark {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	m, err := MarkOf(f, st, off)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func check(t *testing.T, p string, m Mark) error {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	return m.Check(f, st)
}

func rows(n int, tag string) []byte {
	var b bytes.Buffer
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `{"type":"user","uuid":"%s-%d","message":{"content":"row %d"}}`+"\n", tag, i, i)
	}
	return b.Bytes()
}

// TestMarkHoldsOnAppendOnly: appending keeps the mark; truncation, a
// replacement (even with the same bytes), a rewrite of the first rows or of
// the rows just before the offset do not.
func TestMarkHoldsOnAppendOnly(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "s.jsonl")
	data := rows(500, "a") // well over two windows
	writeFile(t, p, data)
	m := markFile(t, p, int64(len(data)))

	f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	f.Write(rows(3, "b"))
	f.Close()
	if err := check(t, p, m); err != nil {
		t.Fatalf("after an append: %v", err)
	}
	f, _ = os.Open(p)
	st, _ := f.Stat()
	ext, err := m.Extend(f, st, st.Size())
	f.Close()
	if want := markFile(t, p, st.Size()); err != nil || ext != want {
		t.Fatalf("the extended mark differs from a new mark of the same bytes (%v)", err)
	}

	cases := map[string]func(){
		"truncated": func() { os.Truncate(p, int64(len(data)-10)) },
		"truncated, then grown past the offset": func() {
			os.Truncate(p, 100)
			f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
			f.Write(rows(600, "c"))
			f.Close()
		},
		"replaced by a rename, same bytes": func() {
			q := filepath.Join(dir, "new")
			writeFile(t, q, append(bytes.Clone(data), rows(3, "b")...))
			os.Rename(q, p)
		},
		"first row rewritten in place": func() {
			f, _ := os.OpenFile(p, os.O_WRONLY, 0)
			f.WriteAt([]byte("X"), 20)
			f.Close()
		},
		"row before the offset rewritten in place": func() {
			f, _ := os.OpenFile(p, os.O_WRONLY, 0)
			f.WriteAt([]byte("X"), int64(len(data)-30))
			f.Close()
		},
	}
	for name, change := range cases {
		writeFile(t, p, append(bytes.Clone(data), rows(3, "b")...))
		m := markFile(t, p, int64(len(data)))
		change()
		if err := check(t, p, m); !errors.Is(err, ErrChanged) {
			t.Errorf("%s: the mark still holds (%v)", name, err)
		}
	}
}

func sampleState(path string, payload string) State {
	return State{Version: "test-1", Path: path, Mark: Mark{ID: Identity{1, 2}, Offset: 77, Head: [32]byte{3}, Tail: [32]byte{4}}, Payload: []byte(payload)}
}

// TestStateRoundTripAndEveryCorruption: a saved state loads back whole;
// every truncation and every flipped byte of it is refused.
func TestStateRoundTripAndEveryCorruption(t *testing.T) {
	dir := t.TempDir()
	tr := filepath.Join(dir, "s.jsonl")
	file := PathFor(dir, "hook", tr)
	want := sampleState(tr, "the reader's work")
	if err := Save(file, want); err != nil {
		t.Fatal(err)
	}
	got, err := Load(file, "test-1", tr)
	if err != nil || got.Path != want.Path || got.Mark != want.Mark || string(got.Payload) != string(want.Payload) {
		t.Fatalf("round trip: %+v %v", got, err)
	}
	if info, _ := os.Stat(file); info.Mode().Perm() != 0o600 {
		t.Errorf("state mode %v, want 0600", info.Mode().Perm())
	}
	if info, _ := os.Stat(filepath.Dir(file)); info.Mode().Perm() != 0o700 {
		t.Errorf("state directory mode %v, want 0700", info.Mode().Perm())
	}
	data, _ := os.ReadFile(file)
	for n := 0; n < len(data); n++ {
		if _, err := decode(data[:n]); err == nil {
			t.Fatalf("a state cut at %d of %d bytes decodes", n, len(data))
		}
	}
	for i := range data {
		bad := bytes.Clone(data)
		bad[i] ^= 0x40
		if _, err := decode(bad); err == nil {
			t.Fatalf("a state with byte %d flipped decodes", i)
		}
	}
}

// TestStateOfAnotherVersionOrFileIsRefused: a state written by another
// version, or for another transcript (a state file copied or renamed onto
// this transcript's name), is not used.
func TestStateOfAnotherVersionOrFileIsRefused(t *testing.T) {
	dir := t.TempDir()
	tr := filepath.Join(dir, "s.jsonl")
	other := filepath.Join(dir, "other.jsonl")
	file := PathFor(dir, "hook", tr)
	Save(file, sampleState(tr, "x"))
	if _, err := Load(file, "test-2", tr); !errors.Is(err, ErrInvalid) {
		t.Errorf("another version: %v", err)
	}
	// The other transcript's state, put where this one's is looked for.
	Save(file, sampleState(other, "x"))
	if _, err := Load(file, "test-1", tr); !errors.Is(err, ErrInvalid) {
		t.Errorf("another transcript's state: %v", err)
	}
	if PathFor(dir, "hook", tr) == PathFor(dir, "hook", other) {
		t.Error("two transcripts share a state file")
	}
	if _, err := Load(filepath.Join(dir, "missing.state"), "test-1", tr); err == nil {
		t.Error("a missing state loads")
	}
}

// TestSaveIntoAnUnwritableCacheFails: the error is returned (the caller
// goes on without a state); nothing is left behind.
func TestSaveIntoAnUnwritableCacheFails(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	writeFile(t, blocker, nil) // a file where the cache directory would be
	if err := Save(filepath.Join(blocker, "hook", "x.state"), sampleState("/s.jsonl", "x")); err == nil {
		t.Fatal("saved under a file")
	}
}

// TestDirHonoursTheOverrideAndXDG: $PMCHECK_CACHE_DIR, else
// $XDG_CACHE_HOME/pmcheck.
func TestDirHonoursTheOverrideAndXDG(t *testing.T) {
	t.Setenv(CacheDirEnv, "")
	t.Setenv("XDG_CACHE_HOME", "/x/cache")
	if d, err := Dir(); err != nil || d != "/x/cache/pmcheck" {
		t.Errorf("XDG: %q %v", d, err)
	}
	t.Setenv(CacheDirEnv, "/y/states")
	if d, err := Dir(); err != nil || d != "/y/states" {
		t.Errorf("override: %q %v", d, err)
	}
}

// TestConcurrentSavesAndLoads: writers replacing one state while readers
// load it: every load is a whole state one of the writers wrote, or (never,
// once the first save is in) an error.
func TestConcurrentSavesAndLoads(t *testing.T) {
	dir := t.TempDir()
	tr := filepath.Join(dir, "s.jsonl")
	file := PathFor(dir, "hook", tr)
	if err := Save(file, sampleState(tr, "w0-0")); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for w := 1; w <= 3; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 100; i++ {
				payload := strings.Repeat(fmt.Sprintf("w%d-%d;", w, i), 500+i)
				if err := Save(file, sampleState(tr, payload)); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	for r := 0; r < 2; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 300; i++ {
				s, err := Load(file, "test-1", tr)
				if err != nil {
					t.Errorf("a load during writes failed: %v", err)
					return
				}
				if p := string(s.Payload); p != "w0-0" && !strings.HasSuffix(p, ";") {
					t.Errorf("torn payload %.40q", p)
					return
				}
			}
		}()
	}
	wg.Wait()
	if left, _ := filepath.Glob(file + ".tmp-*"); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// TestSIGKILLDuringSaveLeavesAUsableState: a writer process killed with
// SIGKILL at random points while it saves states over and over leaves a
// state that loads whole (the last one it renamed into place, or the first
// one) or none that loads; never a torn one. The writer is this test
// binary, re-run as a helper.
func TestSIGKILLDuringSaveLeavesAUsableState(t *testing.T) {
	if os.Getenv("PMCHECK_INCR_WRITER") != "" {
		return // the helper below runs instead
	}
	dir := t.TempDir()
	tr := filepath.Join(dir, "s.jsonl")
	file := PathFor(dir, "hook", tr)
	loaded := 0
	for round := 0; round < 12; round++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestSIGKILLWriterHelper$")
		cmd.Env = append(os.Environ(), "PMCHECK_INCR_WRITER="+file, "PMCHECK_INCR_TRANSCRIPT="+tr)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 1)
		out.Read(buf) // the helper is writing
		time.Sleep(time.Duration(round*3) * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		s, err := Load(file, "test-1", tr)
		if err != nil {
			if errors.Is(err, ErrInvalid) {
				t.Fatalf("round %d: the state left by a killed writer is torn: %v", round, err)
			}
			continue // none yet: discarded, a full read
		}
		n, convErr := strconv.Atoi(strings.TrimRight(string(s.Payload[:bytes.IndexByte(s.Payload, ';')]), ";"))
		if convErr != nil || len(s.Payload) != (n%7+1)*100000 {
			t.Fatalf("round %d: the state left by a killed writer is not one it wrote (%d bytes)", round, len(s.Payload))
		}
		loaded++
	}
	if loaded == 0 {
		t.Fatal("no round left a state: the writer never got to save")
	}
}

// TestSIGKILLWriterHelper is the writer TestSIGKILLDuringSaveLeavesAUsableState
// kills: it saves large states in a loop until killed.
func TestSIGKILLWriterHelper(t *testing.T) {
	file := os.Getenv("PMCHECK_INCR_WRITER")
	if file == "" {
		t.Skip("a helper of TestSIGKILLDuringSaveLeavesAUsableState")
	}
	tr := os.Getenv("PMCHECK_INCR_TRANSCRIPT")
	os.Stdout.Write([]byte("."))
	for i := 0; ; i++ {
		p := bytes.Repeat([]byte{'x'}, (i%7+1)*100000)
		copy(p, strconv.Itoa(i)+";")
		Save(file, sampleState(tr, string(p)))
	}
}
