package detect_test

import (
	"testing"

	"github.com/pmcheck/pmcheck/analyze/detect"
	"github.com/pmcheck/pmcheck/analyze/model"
)

// TestTrustShipFactsOfTagsAndHiddenPushes (issue 12, item 8; issue 11): in
// the run where a killed subagent's work is outstanding, a push of tags is a
// ship action on a tag (no branch, not the session's branch), and a push the
// classifier cannot resolve ($(echo git) push) is a possible ship action that
// still counts the outstanding killed work, instead of no action at all.
func TestTrustShipFactsOfTagsAndHiddenPushes(t *testing.T) {
	for _, tc := range []struct {
		command      string
		refKind, tag string
		branch       string
		possible     bool
	}{
		{"git push --tags", "tag", "--tags", "", false},
		{"git push origin v1.2.3", "tag", "v1.2.3", "", false},
		{"git push origin main", "branch", "", "main", false},
		{"$(echo git) push origin main", "", "", "", true},
		{"echo origin | xargs git", "", "", "", true},
	} {
		run := loadRun(t, "detect-ship-after-kill", model.KindSession)
		for _, c := range run.Main.ToolCalls {
			if c.Name == "Bash" && c.Command == "npm test; git -C /work/repo push origin feat/detect:main" {
				c.Command = tc.command
			}
		}
		f := detect.Analyze(run, detect.Options{})
		var push *model.ShipFact
		for i := range f.Ships {
			if f.Ships[i].Kind == "push" {
				push = &f.Ships[i]
			}
		}
		if push == nil {
			t.Errorf("%q: no push ship fact (ships %+v)", tc.command, f.Ships)
			continue
		}
		if push.RefKind != tc.refKind || push.Tag != tc.tag || push.Branch != tc.branch || push.Possible != tc.possible {
			t.Errorf("%q: ship fact ref_kind %q tag %q branch %q possible %v; want %q %q %q %v",
				tc.command, push.RefKind, push.Tag, push.Branch, push.Possible, tc.refKind, tc.tag, tc.branch, tc.possible)
		}
		if !push.Outstanding {
			t.Errorf("%q: the killed subagent's work was outstanding at this push", tc.command)
		}
	}
}
