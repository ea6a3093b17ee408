package detect_test

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/pmcheck/pmcheck/analyze"
	"github.com/pmcheck/pmcheck/analyze/detect"
	"github.com/pmcheck/pmcheck/analyze/interpret"
	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/internal/testcorpus"
)

// loadSession reads one session transcript through the real readers.
func loadSession(t testing.TB, file string) *model.Run {
	t.Helper()
	res, err := analyze.Load([]string{file}, analyze.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Runs {
		if r.Kind == model.KindSession {
			return r
		}
	}
	t.Fatalf("%s: no session run (errors %v, skipped %v)", file, res.Errors, res.Skipped)
	return nil
}

// TestResumeGateReferenceFixtures: on the reference implementation's own
// fixtures pmcheck reports exactly the items its SOURCES.md lists, in order.
func TestResumeGateReferenceFixtures(t *testing.T) {
	root := testcorpus.Require(t)
	dir := filepath.Join(root, "wan-huiyan__agent-traffic-control")
	for _, tc := range []struct {
		file string
		want []string
	}{
		{"incident.jsonl", []string{"Fix three disclosure defects", "Review the readability commit"}},
		{"clean.jsonl", nil},
		{"discussion.jsonl", nil},
		{"malformed.jsonl", nil},
	} {
		t.Run(tc.file, func(t *testing.T) {
			run := loadSession(t, filepath.Join(dir, tc.file))
			scan := interpret.ScanTranscript(run.Main)
			if !reflect.DeepEqual(scan.Items, tc.want) {
				t.Fatalf("items = %q, want %q (hits %+v)", scan.Items, tc.want, scan.Hits)
			}
			facts := detect.Analyze(run, detect.Options{})
			var sig []string
			for _, s := range facts.Subagents {
				if s.Signature != "" {
					sig = append(sig, s.Description)
				}
			}
			if len(sig) != len(tc.want) {
				t.Fatalf("subagent facts with a signature = %q, want %q", sig, tc.want)
			}
		})
	}
}
