package ship

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/pmcheck/pmcheck/internal/fuzzseed"
)

// FuzzClassify feeds the shell-command classifier arbitrary command lines,
// seeded from every command of the package's table tests
// (docs/reliability.md; a longer run:
// go test ./analyze/detect/ship -run '^$' -fuzz '^FuzzClassify$' -fuzztime 10m).
// FuzzClassifyNeverPanics in ship_test.go only asks for no panic; this target
// also requires an answer within a deadline (a command line must never hang
// the check), the same answer twice, only known action kinds each naming its
// command, an unparsable line marked as possibly writing (the ledger is
// then partial, never silently complete), and no analysis reused (Reuse)
// that a run's git aliases would change.
func FuzzClassify(f *testing.F) {
	for _, s := range fuzzseed.Literals(".", nil) {
		f.Add(s, "auto-deploy")
	}
	f.Add(strings.Repeat("bash -c '", 8)+"git push"+strings.Repeat("'", 8), "deploy")
	f.Add(strings.Repeat("$(", 200)+"git push", "")
	f.Fuzz(func(t *testing.T, cmd, label string) {
		opts := Options{DeployLabels: []string{label}}
		var a, b Analysis
		done := make(chan struct{})
		go func() {
			defer close(done)
			a = Classify(cmd, opts)
			b = Classify(cmd, opts)
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("Classify(%q) did not return within 10s (a hang)", cmd)
		}
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("Classify(%q) is not deterministic:\n%+v\n%+v", cmd, a, b)
		}
		kinds := map[string]bool{KindPush: true, KindMerge: true, KindDeploy: true, KindRelease: true, KindPublish: true}
		for _, act := range a.Actions {
			if !kinds[act.Kind] {
				t.Fatalf("Classify(%q): unknown action kind %q", cmd, act.Kind)
			}
			if act.Command == "" {
				t.Fatalf("Classify(%q): action %+v names no command", cmd, act)
			}
		}
		if a.ParseError != "" && !a.MayWrite {
			t.Fatalf("Classify(%q): unparsable (%s) but not marked as possibly writing", cmd, a.ParseError)
		}
		if a.Commits < 0 {
			t.Fatalf("Classify(%q): %d commits", cmd, a.Commits)
		}
		for _, w := range a.Writes {
			if w == "" {
				t.Fatalf("Classify(%q): an empty write path in %q", cmd, a.Writes)
			}
		}
		// An analysis made without a run's git aliases is reused only when
		// they change nothing (a reader's classification; Reuse).
		with := Options{DeployLabels: opts.DeployLabels, Aliases: aliasEveryWord(cmd)}
		if Reuse(a, opts.DeployLabels, with) {
			if c := Classify(cmd, with); !reflect.DeepEqual(a, c) {
				t.Fatalf("Classify(%q) reused with aliases %v:\n%+v\nClassify gives\n%+v", cmd, with.Aliases, a, c)
			}
		}
	})
}
