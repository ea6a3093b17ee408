package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/pmcheck/pmcheck/analyze/detect/ship"
	"github.com/pmcheck/pmcheck/analyze/model"
)

// shipShell classifies with ship.Classify and the given deploy labels.
func shipShell(labels []string) ShellOptions {
	opts := ship.Options{DeployLabels: labels}
	// The command is a view of the line: the analysis must not point into it.
	return ShellOptions{Classify: func(cmd string) model.ShellAnalysis { return ship.Classify(strings.Clone(cmd), opts) }, Labels: labels}
}

// TestReaderClassifiesEveryBashCall: asked to, the reader (serial and
// parallel) gives every Bash call of every fixture and corpus transcript
// the analysis ship.Classify makes of its command as the call keeps it,
// with the labels it was made with; analyses are shared (no more than the
// distinct commands, fewer when many find nothing); a heads-only read and a
// read not asked classify nothing.
func TestReaderClassifiesEveryBashCall(t *testing.T) {
	roots := realRoots(t)
	calls, shared := 0, 0
	for _, labels := range [][]string{nil, {"ship-it"}, {}} {
		eachTranscript(t, roots, func(p string, data []byte) error {
			var asked atomic.Int64
			sh := shipShell(labels)
			classify := sh.Classify
			sh.Classify = func(cmd string) model.ShellAnalysis { asked.Add(1); return classify(cmd) }
			serial, parallel, err := readBoth(p, data, Options{Shell: sh})
			if err != nil {
				return err
			}
			for _, tr := range []*model.Transcript{serial, parallel} {
				distinct := map[string]bool{}
				for _, c := range tr.ToolCalls {
					if c.Name() != "Bash" {
						continue
					}
					calls++
					distinct[c.Command()] = true
					a, made, ok := c.ShellClass()
					if !ok {
						t.Fatalf("%s:%d: Bash call %q has no classification", p, c.At().Line, c.Command())
					}
					if !reflect.DeepEqual(made, labels) {
						t.Fatalf("%s: made with labels %q, asked %q", p, made, labels)
					}
					if want := ship.Classify(c.Command(), ship.Options{DeployLabels: labels}); !reflect.DeepEqual(a, want) {
						t.Fatalf("%s:%d: %q: the reader's analysis %+v, ship.Classify's %+v", p, c.At().Line, c.Command(), a, want)
					}
				}
				if tr.Shell != nil {
					if len(tr.Shell.List) > len(distinct) {
						t.Fatalf("%s: %d analyses kept for %d distinct commands", p, len(tr.Shell.List), len(distinct))
					}
					shared += len(distinct) - len(tr.Shell.List)
				}
			}
			for _, opts := range []Options{{HeadsOnly: true, Shell: sh}, {}} {
				before := asked.Load()
				tr, err := Read(bytes.NewReader(data), p, opts)
				if err != nil {
					return err
				}
				if tr.Shell != nil || asked.Load() != before {
					t.Fatalf("%s: a read with %+v classified commands", p, opts)
				}
				for _, c := range tr.ToolCalls {
					if _, _, ok := c.ShellClass(); ok {
						t.Fatalf("%s: a read with %+v left a classification", p, opts)
					}
				}
			}
			return nil
		})
	}
	if calls == 0 || shared == 0 {
		t.Fatalf("%d Bash calls, %d analyses shared: the test checks nothing", calls, shared)
	}
}

// TestReaderClassifiesACommandOncePerFile: a file that runs the same
// commands hundreds of times has each classified once, read serially or
// in parallel, whether or not the classifier behind it caches (a check's
// cache that is full, or refuses an analysis too large, caches nothing).
func TestReaderClassifiesACommandOncePerFile(t *testing.T) {
	var b strings.Builder
	distinct := map[string]bool{}
	for i := range 600 {
		cmd := []string{"go test ./... 2>&1 | tail -40", "git push origin HEAD:main", "ls"}[i%3]
		if i%20 == 0 {
			cmd = fmt.Sprintf("echo %d > out%d.txt", i, i) // 30 more, past the memo's list
		}
		distinct[cmd] = true
		in, _ := json.Marshal(map[string]any{"command": cmd})
		fmt.Fprintf(&b, `{"type":"assistant","uuid":"u-%d","timestamp":"2026-05-07T09:00:05.000Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"t%d","name":"Bash","input":%s}]}}`+"\n", i, i, in)
	}
	data := []byte(b.String())
	var asked atomic.Int64
	sh := shipShell(nil)
	classify := sh.Classify
	sh.Classify = func(cmd string) model.ShellAnalysis { asked.Add(1); return classify(cmd) }
	reads := map[string]func() (*model.Transcript, error){
		"serial": func() (*model.Transcript, error) { return Read(bytes.NewReader(data), "f.jsonl", Options{Shell: sh}) },
		"parallel": func() (*model.Transcript, error) {
			return readParallel(bytes.NewReader(data), "f.jsonl", Options{Shell: sh}, 2, 4096)
		},
	}
	for name, read := range reads {
		asked.Store(0)
		tr, err := read()
		if err != nil {
			t.Fatal(err)
		}
		if len(tr.ToolCalls) != 600 {
			t.Fatalf("%s: %d calls", name, len(tr.ToolCalls))
		}
		// Both workers may classify one of the three repeated commands at
		// once, before either has kept it.
		if n := asked.Load(); n < int64(len(distinct)) || n > int64(len(distinct))+3 {
			t.Fatalf("%s read: %d commands classified for %d distinct ones", name, n, len(distinct))
		}
	}
}

// TestReaderStopsClassifyingWhenTheListIsFull: a transcript names at most
// 65,535 analyses; past that, its calls keep none (the detectors classify
// them), the reader stops classifying instead of classifying for nothing,
// and a parallel read gives every call what the serial read gives.
func TestReaderStopsClassifyingWhenTheListIsFull(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 70,000 calls")
	}
	const n = 70000
	var b bytes.Buffer
	command := func(i int) string {
		if i == 0 || i >= n-10 {
			return "ls" // a plain analysis, kept first, asked for again at the end
		}
		return fmt.Sprintf("echo %d > f%d", i, i) // one analysis each
	}
	for i := range n {
		in, _ := json.Marshal(map[string]any{"command": command(i)})
		fmt.Fprintf(&b, `{"type":"assistant","uuid":"u-%d","timestamp":"2026-05-07T09:00:05.000Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"t%d","name":"Bash","input":%s}]}}`+"\n", i, i, in)
	}
	data := b.Bytes()
	var asked atomic.Int64
	sh := shipShell(nil)
	classify := sh.Classify
	sh.Classify = func(cmd string) model.ShellAnalysis { asked.Add(1); return classify(cmd) }
	serial, err := Read(bytes.NewReader(data), "f.jsonl", Options{Shell: sh})
	if err != nil {
		t.Fatal(err)
	}
	full := len(serial.Shell.List)
	if full != 1<<16-1 {
		t.Fatalf("%d analyses kept, want the 65,535 a call can name", full)
	}
	for i, c := range serial.ToolCalls {
		_, _, ok := c.ShellClass()
		if want := i < full; ok != want {
			t.Fatalf("call %d (%q): classified %v, want %v", i, c.Command(), ok, want)
		}
	}
	if a := asked.Load(); a != int64(full)+1 {
		t.Fatalf("the serial read classified %d commands: it should stop at the first the list cannot hold (%d)", a, full+1)
	}
	asked.Store(0)
	parallel, err := readParallel(bytes.NewReader(data), "f.jsonl", Options{Shell: sh}, 2, 4096)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(parallel, serial) {
		t.Fatal("the parallel read's model differs from the serial read's")
	}
	if a := asked.Load(); a >= n-1000 {
		t.Fatalf("the parallel read classified %d of %d commands: it did not stop", a, n)
	}
}

// TestReaderKeepsOnlyTheClassificationOfInertCommands: with Inert given, a
// Bash call whose command ship.Inert accepts keeps its (empty)
// classification and no command, read serially or in parallel; every other
// call keeps its command as a read without Inert does. Over the fixtures
// and the corpus (real agents' commands: ls, cat, grep, git status, git
// log, with pipes and flags).
func TestReaderKeepsOnlyTheClassificationOfInertCommands(t *testing.T) {
	roots := realRoots(t)
	dropped, kept, saved := 0, 0, 0
	eachTranscript(t, roots, func(p string, data []byte) error {
		whole, err := Read(bytes.NewReader(data), p, Options{Shell: shipShell(nil)})
		if err != nil {
			return err
		}
		sh := shipShell(nil)
		sh.Inert = ship.Inert
		serial, parallel, err := readBoth(p, data, Options{Shell: sh})
		if err != nil {
			return err
		}
		for _, tr := range []*model.Transcript{serial, parallel} {
			if len(tr.ToolCalls) != len(whole.ToolCalls) {
				t.Fatalf("%s: %d calls, %d read keeping every command", p, len(tr.ToolCalls), len(whole.ToolCalls))
			}
			for i, c := range tr.ToolCalls {
				w := whole.ToolCalls[i]
				if w.Name() != "Bash" {
					continue
				}
				a, _, ok := c.ShellClass()
				wa, _, _ := w.ShellClass()
				if !ok || !reflect.DeepEqual(a, wa) {
					t.Fatalf("%s:%d: classification %+v (%v), %+v keeping the command", p, c.At().Line, a, ok, wa)
				}
				switch {
				case ship.Inert(w.Command()):
					if c.Command() != "" {
						t.Fatalf("%s:%d: inert %q kept", p, c.At().Line, c.Command())
					}
					dropped++
					saved += len(w.Command())
				case c.Command() != w.Command():
					t.Fatalf("%s:%d: %q kept as %q", p, c.At().Line, w.Command(), c.Command())
				default:
					kept++
				}
			}
		}
		return nil
	})
	if dropped == 0 || kept == 0 {
		t.Fatalf("%d commands dropped, %d kept: the test checks nothing", dropped, kept)
	}
	t.Logf("%d inert commands (%d bytes) kept as their classification alone, %d commands kept", dropped/2, saved/2, kept/2)
}
