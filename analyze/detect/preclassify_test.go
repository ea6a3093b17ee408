package detect_test

import (
	"reflect"
	"runtime"
	"testing"

	"github.com/pmcheck/pmcheck/analyze/detect"
	"github.com/pmcheck/pmcheck/analyze/model"
)

// TestPreclassifyIsSerial: the facts of a run with hundreds of shell
// commands (classified on every CPU before the detectors walk the run) are
// the facts computed on one CPU, where each command is classified on
// demand.
func TestPreclassifyIsSerial(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 11 MB")
	}
	p, _ := writeLargeTranscript(t, t.TempDir())
	run := loadMain(t, p)
	commands := []string{
		"ls -la && git status", "git push origin HEAD:main", "$(echo git) push", "echo hi > notes.txt",
		"git commit -am step", "gh pr merge 7", "python3 gen.py", "cat a | grep b", "bash -c 'git push'",
	}
	n := 0
	for _, c := range run.Main.ToolCalls {
		if c.Name() == "Bash" {
			setCommand(c, commands[n%len(commands)])
			n++
		}
	}
	if n < 256 {
		t.Fatalf("only %d shell calls: the parallel path is not taken", n)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	parallel := detect.Analyze(run, detect.Options{})
	runtime.GOMAXPROCS(1)
	serial := detect.Analyze(run, detect.Options{})
	if !reflect.DeepEqual(parallel, serial) {
		t.Fatalf("facts differ:\nparallel %+v\nserial   %+v", parallel, serial)
	}
	if len(serial.Ships) == 0 {
		t.Fatal("no ship facts: the commands above were not classified")
	}
}

// setCommand replaces a loaded shell call's command.
func setCommand(c *model.ToolCall, cmd string) {
	in := c.Input()
	in.Command = cmd
	c.Set(in)
}
