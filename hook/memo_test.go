package hook

import (
	"bytes"
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/pmcheck/pmcheck/internal/incr"
	"github.com/pmcheck/pmcheck/internal/testcorpus"
)

// withCache gives the test a cache directory of its own and counts the
// full reads from zero.
func withCache(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv(incr.CacheDirEnv, dir)
	readings.Store(0)
	return dir
}

func push(t *testing.T, p string) string {
	t.Helper()
	d, _ := decision(t, PreToolUse(bashInput(p, "git push origin HEAD:main"), Config{}))
	return d
}

// TestMemoAnswersAnUnchangedTranscriptWithoutReadingIt: a second call on a
// transcript nothing was appended to answers from the memo; an append is
// read (in full) and answered from what it holds.
func TestMemoAnswersAnUnchangedTranscriptWithoutReadingIt(t *testing.T) {
	withCache(t)
	p := writeTranscript(t, agentCall("toolu_a", "Refactor billing"), toolResult("toolu_a", "done"))
	if d := push(t, p); d != "" || readings.Load() != 1 {
		t.Fatalf("clean: %q, %d full reads", d, readings.Load())
	}
	if d := push(t, p); d != "" || readings.Load() != 1 {
		t.Fatalf("unchanged: %q, %d full reads (want the memo)", d, readings.Load())
	}
	appendRows(t, p, agentCall("toolu_b", "Port the exporter"), killedResult("toolu_b"))
	if d := push(t, p); d != "ask" || readings.Load() != 2 {
		t.Fatalf("after a kill was appended: %q, %d full reads", d, readings.Load())
	}
	if d := push(t, p); d != "ask" || readings.Load() != 2 {
		t.Fatalf("unchanged again: %q, %d full reads", d, readings.Load())
	}
}

// TestMemoTruncationReplacementAndAForeignState: a transcript truncated, or
// replaced by another file (even with the same bytes), or a memo that is
// another transcript's, corrupt, or not writable at all: a full read, and
// the full read's answer.
func TestMemoTruncationReplacementAndAForeignState(t *testing.T) {
	cache := withCache(t)
	clean := []string{agentCall("toolu_a", "Refactor billing"), toolResult("toolu_a", "done")}
	killed := []string{agentCall("toolu_b", "Port the exporter"), killedResult("toolu_b")}
	p := writeTranscript(t, append(append([]string{}, clean...), killed...)...)
	if push(t, p) != "ask" {
		t.Fatal("the kill is not seen")
	}

	t.Run("truncated", func(t *testing.T) {
		data, _ := os.ReadFile(p)
		cut := bytes.Index(data, []byte("toolu_b")) // the kill's rows go
		cut = bytes.LastIndexByte(data[:cut], '\n') + 1
		os.Truncate(p, int64(cut))
		n := readings.Load()
		if d := push(t, p); d != "" || readings.Load() != n+1 {
			t.Fatalf("truncated: %q (%d full reads)", d, readings.Load()-n)
		}
		appendRows(t, p, killed...)
	})

	t.Run("replaced by the same bytes", func(t *testing.T) {
		push(t, p)
		data, _ := os.ReadFile(p)
		q := p + ".new"
		os.WriteFile(q, data, 0o644)
		os.Rename(q, p)
		n := readings.Load()
		if d := push(t, p); d != "ask" || readings.Load() != n+1 {
			t.Fatalf("replaced: %q (%d full reads)", d, readings.Load()-n)
		}
	})

	t.Run("rewritten before the offset, same size", func(t *testing.T) {
		push(t, p)
		data, _ := os.ReadFile(p)
		// The kill's description changes in place (the last rows): a
		// full read names the new one.
		i := bytes.LastIndex(data, []byte("Port the exporter"))
		f, _ := os.OpenFile(p, os.O_WRONLY, 0)
		f.WriteAt([]byte("Port the importer"), int64(i))
		f.Close()
		n := readings.Load()
		_, reason := decision(t, PreToolUse(bashInput(p, "git push"), Config{}))
		if !strings.Contains(reason, "Port the importer") || readings.Load() != n+1 {
			t.Fatalf("rewritten: %q (%d full reads)", reason, readings.Load()-n)
		}
	})

	t.Run("another transcript's memo at this one's name", func(t *testing.T) {
		other := writeTranscript(t, clean...) // nothing outstanding
		push(t, other)
		state, _ := os.ReadFile(incr.PathFor(cache, "hook", other))
		os.WriteFile(incr.PathFor(cache, "hook", p), state, 0o600)
		n := readings.Load()
		if d := push(t, p); d != "ask" || readings.Load() != n+1 {
			t.Fatalf("foreign memo: %q (%d full reads)", d, readings.Load()-n)
		}
	})

	t.Run("corrupt memo", func(t *testing.T) {
		push(t, p)
		file := incr.PathFor(cache, "hook", p)
		data, _ := os.ReadFile(file)
		data[len(data)/2] ^= 1
		os.WriteFile(file, data, 0o600)
		n := readings.Load()
		if d := push(t, p); d != "ask" || readings.Load() != n+1 {
			t.Fatalf("corrupt memo: %q (%d full reads)", d, readings.Load()-n)
		}
	})

	t.Run("unwritable cache", func(t *testing.T) {
		blocker := filepath.Join(t.TempDir(), "file")
		os.WriteFile(blocker, nil, 0o600)
		t.Setenv(incr.CacheDirEnv, filepath.Join(blocker, "cache"))
		for i := 0; i < 2; i++ {
			n := readings.Load()
			if r := PreToolUse(bashInput(p, "git push"), Config{}); r.Exit != ExitOK || readings.Load() != n+1 {
				t.Fatalf("unwritable cache: exit %d %s (%d full reads)", r.Exit, r.Stderr, readings.Load()-n)
			}
		}
	})
}

// TestMemoConcurrentCalls: parallel tool calls on one transcript, while
// rows are appended, each answer as a full read of some state of the file
// does (here: the kill is appended before any call, so all ask), and the
// memo left behind is whole.
func TestMemoConcurrentCalls(t *testing.T) {
	cache := withCache(t)
	p := writeTranscript(t, agentCall("toolu_b", "Port the exporter"), killedResult("toolu_b"))
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 10; i++ {
				r := PreToolUse(bashInput(p, "git push"), Config{})
				if !strings.Contains(string(r.Stdout), `"ask"`) {
					errs <- fmt.Sprintf("exit %d %s %s", r.Exit, r.Stdout, r.Stderr)
					return
				}
			}
		}()
	}
	for i := 0; i < 10; i++ {
		appendRows(t, p, toolResult("toolu_x", "unrelated"))
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
	if _, err := incr.Load(incr.PathFor(cache, "hook", p), memoVersion(), p); err != nil {
		t.Fatalf("the memo left by parallel calls: %v", err)
	}
}

// TestMemoIsAFullReadAtEveryPrefix: every fixture and corpus transcript,
// written row by row (and in random pieces ending mid-row), answers
// session-start and a gated push at each step, twice (the second from the
// memo), exactly as a hook without memo does.
func TestMemoIsAFullReadAtEveryPrefix(t *testing.T) {
	withCache(t)
	var files []string
	for _, root := range testcorpus.With(t, filepath.Join("..", "fixtures", "runs")) {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") && !strings.Contains(p, "subagents") {
				files = append(files, p)
			}
			return nil
		})
	}
	if len(files) == 0 {
		t.Fatal("no transcripts")
	}
	rng := rand.New(rand.NewSource(1))
	calls := 0
	for i, src := range files {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(t.TempDir(), "s.jsonl")
		os.WriteFile(p, nil, 0o644)
		steps := bytes.SplitAfter(data, []byte("\n"))
		if i%2 == 1 { // random pieces, mid-row included
			steps = nil
			for rest := data; len(rest) > 0; {
				n := min(len(rest), 1+rng.Intn(400))
				steps, rest = append(steps, rest[:n]), rest[n:]
			}
		}
		every := max(1, len(steps)/12)
		f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
		for k, piece := range steps {
			f.Write(piece)
			if k%every != 0 && k != len(steps)-1 {
				continue
			}
			memoOff = true
			wantPush := PreToolUse(bashInput(p, "git push origin HEAD:main"), Config{})
			wantResume := SessionStart(resume(p), Config{})
			memoOff = false
			for try := 0; try < 2; try++ {
				calls++
				gotPush := PreToolUse(bashInput(p, "git push origin HEAD:main"), Config{})
				gotResume := SessionStart(resume(p), Config{})
				if !reflect.DeepEqual(gotPush, wantPush) || !reflect.DeepEqual(gotResume, wantResume) {
					t.Fatalf("%s, %d bytes, call %d: with the memo\n%+v\n%+v\nwithout\n%+v\n%+v", src, len(bytes.Join(steps[:k+1], nil)), try,
						gotPush, gotResume, wantPush, wantResume)
				}
			}
		}
		f.Close()
	}
	if readings.Load() >= int64(calls) {
		t.Fatalf("%d full reads for %d calls: the memo was never used", readings.Load(), calls)
	}
	t.Logf("%d transcripts, %d calls with the memo, %d full reads", len(files), calls*2, readings.Load())
}
