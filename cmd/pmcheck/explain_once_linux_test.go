//go:build linux

package main

import (
	"encoding/binary"
	"errors"
	"io/fs"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/pmcheck/pmcheck/explain"
)

// TestExplainOpensNoFileTheCheckRead (issue 30): explain, given the
// inputs, quotes the rows a finding cites from the check's own reading of
// them: it opens no file more often than the check alone does. The kernel
// counts the opens (inotify), so nothing in the code under test is hooked.
func TestExplainOpensNoFileTheCheckRead(t *testing.T) {
	for _, c := range []struct{ fixture, target string }{
		// A killed subagent's finding: spawn, result and the push, in the
		// session and the subagent's transcript.
		{explainFixture, "killed-subagent-shipped-unreviewed"},
		// A Workflow run: its attempts and kills, beside the journal.
		{"fixtures/runs/replay-kill-retry", "fixtures/runs/replay-kill-retry/30000000-0000-4000-8000-000000000001.jsonl"},
	} {
		t.Run(filepath.Base(c.fixture), func(t *testing.T) {
			root := t.TempDir()
			copyTree(t, filepath.Join("../..", c.fixture), filepath.Join(root, c.fixture))
			t.Chdir(root)
			w := watchOpens(t, c.fixture)
			if code, _, errOut := runCLI("check", "--fail-level", "none", c.fixture); code != ExitOK {
				t.Fatalf("check: exit %d: %s", code, errOut)
			}
			byCheck := w.opens(t)
			o := explainJSON(t, c.target, c.fixture)
			byExplain := w.opens(t)
			quoted := map[string]bool{}
			for _, x := range o.Explanations {
				steps := append(append([]explain.Step(nil), x.Decision...), x.Kills...)
				for _, a := range x.Agents {
					steps = append(steps, a.At)
				}
				for _, s := range x.Ships {
					steps = append(steps, s.At)
				}
				for _, s := range steps {
					if s.Excerpt != "" {
						quoted[s.File] = true
					}
				}
			}
			if len(quoted) == 0 {
				t.Fatalf("explain %s quotes no row: %+v", c.target, o)
			}
			for f := range quoted {
				if byCheck[f] == 0 {
					t.Errorf("%s: quoted, but the check never opened it (opens %v)", f, byCheck)
				}
			}
			for f, n := range byExplain {
				if n > byCheck[f] {
					t.Errorf("%s: opened %d times by explain, %d by the check alone", f, n, byCheck[f])
				}
			}
		})
	}
}

// openWatch counts the opens of the files under a folder.
type openWatch struct {
	fd    int
	files map[int32]string // watch descriptor → path, slash-separated
}

func watchOpens(t *testing.T, dir string) *openWatch {
	t.Helper()
	fd, err := syscall.InotifyInit1(syscall.IN_NONBLOCK | syscall.IN_CLOEXEC)
	if err != nil {
		t.Skipf("inotify: %v", err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	w := &openWatch{fd: fd, files: map[int32]string{}}
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		// The close is watched too: inotify merges an event into an
		// identical one not yet read, and open, close, open never are.
		wd, err := syscall.InotifyAddWatch(fd, p, syscall.IN_OPEN|syscall.IN_CLOSE)
		if err != nil {
			return err
		}
		w.files[int32(wd)] = filepath.ToSlash(p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// opens returns the opens of each file since the last call.
func (w *openWatch) opens(t *testing.T) map[string]int {
	t.Helper()
	out := map[string]int{}
	buf := make([]byte, 64<<10)
	for {
		n, err := syscall.Read(w.fd, buf)
		if errors.Is(err, syscall.EAGAIN) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		for off := 0; off+syscall.SizeofInotifyEvent <= n; {
			wd := int32(binary.NativeEndian.Uint32(buf[off:]))
			mask := binary.NativeEndian.Uint32(buf[off+4:])
			size := binary.NativeEndian.Uint32(buf[off+12:])
			if mask&syscall.IN_Q_OVERFLOW != 0 {
				t.Fatal("inotify queue overflowed")
			}
			if mask&syscall.IN_OPEN != 0 {
				out[w.files[wd]]++
			}
			off += syscall.SizeofInotifyEvent + int(size)
		}
	}
}
