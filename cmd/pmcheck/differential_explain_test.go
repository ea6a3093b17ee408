package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/explain"
	"github.com/pmcheck/pmcheck/report"
)

// TestExplainNamesTheDecidingRows is explain's part of the differential
// test across consumers (internal/differential): for every finding on a
// subagent or attempt fact of every fixture, `explain` of the finding
// lists as its decision every row the engine recorded as deciding that
// fact (its reasons), in the same order, with nothing of its own.
func TestExplainNamesTheDecidingRows(t *testing.T) {
	t.Chdir("../..")
	entries, err := os.ReadDir("fixtures/runs")
	if err != nil {
		t.Fatal(err)
	}
	compared := 0
	for _, e := range entries {
		dir := filepath.Join("fixtures/runs", e.Name())
		saved := filepath.Join(t.TempDir(), "r.json")
		if code, _, _ := runCLI("check", "--fail-level", "none", "--format", "json="+saved, dir); code != ExitOK {
			continue // an input error: no document to explain
		}
		data, err := os.ReadFile(saved)
		if err != nil {
			t.Fatal(err)
		}
		var doc report.Document
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
		for _, f := range doc.Findings {
			if f.Fact == nil || (f.Fact.Kind != "subagent" && f.Fact.Kind != "attempt") {
				continue
			}
			var reasons []model.Reason
			for _, rf := range doc.Facts {
				if rf.Run.Path != f.Fact.Run || rf.Run.ID != f.Fact.RunID {
					continue
				}
				switch f.Fact.Kind {
				case "subagent":
					reasons = rf.Subagents[f.Fact.Index].Reasons
				case "attempt":
					reasons = rf.Attempts[f.Fact.Index].Reasons
				}
			}
			out, err := explain.Explain(&doc, explain.Query{Target: f.Fingerprint})
			if err != nil || len(out.Explanations) != 1 {
				t.Errorf("%s: explain %s: %v (%d explanations)", dir, f.Fingerprint, err, len(out.Explanations))
				continue
			}
			steps := out.Explanations[0].Decision
			compared++
			if len(steps) != len(reasons) {
				t.Errorf("%s: %s: explain lists %d rows, the engine decided on %d (%+v vs %+v)", dir, f.RuleID, len(steps), len(reasons), steps, reasons)
				continue
			}
			for i, r := range reasons {
				if steps[i].What != r.What || steps[i].Line != r.At.Line || doc.DisplayPath(r.At.File) != steps[i].File && r.At.File != steps[i].File {
					t.Errorf("%s: %s: step %d is %q at %s:%d, the engine's reason %q at %s:%d", dir, f.RuleID, i, steps[i].What, steps[i].File, steps[i].Line, r.What, r.At.File, r.At.Line)
				}
			}
		}
	}
	t.Logf("compared %d findings", compared)
	if compared < 10 {
		t.Fatalf("compared %d findings: the test is not looking at the fixtures", compared)
	}
}
