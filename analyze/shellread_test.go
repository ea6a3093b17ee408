package analyze

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInertCommandsKeepNoOutput: the façade gives the transcript reader
// the classifier's inert commands (ship.Inert; the reader imports no
// detection), whether or not it asks the reader to classify: nothing of
// git status's output is kept, the head of a commit's is.
func TestInertCommandsKeepNoOutput(t *testing.T) {
	const id = "10000000-0000-4000-8000-0000000000a1"
	var b strings.Builder
	for i, cmd := range []string{`git commit -m wip`, `git status`} {
		fmt.Fprintf(&b, `{"type":"assistant","uuid":"a%d","timestamp":"2026-05-07T09:00:0%d.000Z","sessionId":"%s","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_%d","name":"Bash","input":{"command":"%s"}}]}}`+"\n", i, i, id, i, cmd)
		fmt.Fprintf(&b, `{"type":"user","uuid":"u%d","timestamp":"2026-05-07T09:00:0%d.500Z","sessionId":"%s","message":{"role":"user","content":[{"tool_use_id":"toolu_%d","type":"tool_result","content":"[main abc1234] wip, output of %d"}]}}`+"\n", i, i, id, i, i)
	}
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, id+".jsonl"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, opts := range []Options{{}, {Shell: ClassifyWhileReading(nil, nil)}} {
		res, err := Load([]string{root}, opts)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Runs) != 1 || res.Runs[0].Main == nil {
			t.Fatalf("classifying %v: %d runs", opts.Shell.Classify != nil, len(res.Runs))
		}
		texts := map[string]string{}
		for _, c := range res.Runs[0].Main.ToolCalls {
			if c.Result != nil {
				texts[c.ID()] = c.Result.Text
			}
		}
		if got := texts["toolu_0"]; !strings.HasPrefix(got, "[main abc1234]") {
			t.Errorf("classifying %v: the commit's output kept %q", opts.Shell.Classify != nil, got)
		}
		if got, ok := texts["toolu_1"]; !ok || got != "" {
			t.Errorf("classifying %v: git status's output kept %q (a result: %v)", opts.Shell.Classify != nil, got, ok)
		}
	}
}
