package transcript

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/pmcheck/pmcheck/analyze/detect/ship"
	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/internal/testcorpus"
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
	roots := []string{filepath.Join("..", "..", "fixtures", "runs")}
	if dir := testcorpus.Dir(t); dir != "" {
		roots = append(roots, dir)
	}
	calls, shared := 0, 0
	for _, labels := range [][]string{nil, {"ship-it"}, {}} {
		for _, root := range roots {
			err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() || !strings.HasSuffix(p, ".jsonl") {
					return err
				}
				data, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				var asked atomic.Int64
				sh := shipShell(labels)
				classify := sh.Classify
				sh.Classify = func(cmd string) model.ShellAnalysis { asked.Add(1); return classify(cmd) }
				serial, err := Read(bytes.NewReader(data), p, Options{Shell: sh})
				if err != nil {
					return err
				}
				parallel, err := readParallel(bytes.NewReader(data), p, Options{Shell: sh}, 2, 700)
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
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	if calls == 0 || shared == 0 {
		t.Fatalf("%d Bash calls, %d analyses shared: the test checks nothing", calls, shared)
	}
}
