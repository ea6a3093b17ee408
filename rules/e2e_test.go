package rules_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pmcheck/pmcheck/analyze"
	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/rules"
)

// fixturePipeline turns a fixture directory into the facts of its runs. It is
// the one place this test touches the analyze packages: point it at whatever
// `pmcheck check` calls (files -> runs -> detectors -> replay -> facts) so the
// rules are tested on exactly what users get.
var fixturePipeline = func(dir string) ([]model.Facts, error) {
	res, err := analyze.Load([]string{dir}, analyze.Options{})
	if err != nil {
		return nil, err
	}
	return analyze.Facts(res.Runs, analyze.FactsOptions{}), nil
}

// TestDefaultRulesOnFixtures runs every default rule through the pipeline on
// its generated fixtures: exactly one finding on rule-<id>-bad, none on
// rule-<id>-good.
func TestDefaultRulesOnFixtures(t *testing.T) {
	pack, err := rules.Defaults()
	if err != nil {
		t.Fatal(err)
	}
	facts := map[string][]model.Facts{}
	for _, r := range pack.Rules {
		for _, side := range []string{"bad", "good"} {
			name := "rule-" + r.ID + "-" + side
			dir := filepath.Join("..", "fixtures", "runs", name)
			if _, err := os.Stat(dir); err != nil {
				t.Fatalf("%s: %v (TestEveryDefaultRuleHasDocsAndFixtures says how to add it)", name, err)
			}
			fs, err := fixturePipeline(dir)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if len(fs) == 0 {
				t.Fatalf("%s: the pipeline found no run", name)
			}
			facts[name] = fs
		}
	}
	for _, r := range pack.Rules {
		t.Run(r.ID, func(t *testing.T) {
			only, err := rules.Build(rules.Options{Disable: others(pack, r.ID)})
			if err != nil {
				t.Fatal(err)
			}
			bad, err := rules.Evaluate(only, facts["rule-"+r.ID+"-bad"])
			if err != nil {
				t.Fatal(err)
			}
			if len(bad) != 1 {
				t.Errorf("rule-%s-bad: %d findings, want 1: %+v", r.ID, len(bad), bad)
			}
			good, err := rules.Evaluate(only, facts["rule-"+r.ID+"-good"])
			if err != nil {
				t.Fatal(err)
			}
			if len(good) != 0 {
				t.Errorf("rule-%s-good: %d findings, want none: %+v", r.ID, len(good), good)
			}
			// The good fixture must hold the near miss, or its silence proves nothing.
			w, ok := nearMiss[r.ID]
			if !ok {
				t.Fatalf("add the near miss of rule-%s-good to nearMiss", r.ID)
			}
			wp, err := rules.Parse("near-miss.yaml", []byte("version: 1\nrules:\n  - {id: near-miss, title: N, severity: note, select: "+w.kind+", where: '"+w.where+"', message: m}\n"))
			if err != nil {
				t.Fatal(err)
			}
			if hits, err := rules.Evaluate(wp, facts["rule-"+r.ID+"-good"]); err != nil || len(hits) == 0 {
				t.Errorf("rule-%s-good has no %s fact with %s: it does not contain what the rule must not fire on (%v)", r.ID, w.kind, w.where, err)
			}
		})
	}
}

// nearMiss says, per default rule, what its good fixture contains that the
// rule must not fire on.
var nearMiss = map[string]struct{ kind, where string }{
	"killed-subagent-shipped-unreviewed":     {"subagent", "killed && shipped_after_kill && reviewed"},
	"killed-subagent-not-shipped-unreviewed": {"subagent", `signature == "A" && reviewed`},
	"ship-while-killed-outstanding":          {"ship", `kind == "push"`},
	"killed-attempt-with-work":               {"attempt", `outcome == "killed"`},
	"agent-never-returned":                   {"attempt", `outcome == "completed" && ordinal == 1`},
	"false-done":                             {"subagent", `outcome == "completed"`},
	"subagent-open-at-end":                   {"subagent", `outcome == "launched-never-returned"`},
	"watchdog-disagreement":                  {"watchdog", `source == "workflow-runtime"`},
	"quiet-agent":                            {"watchdog", `source == "watch" && kind == "QUIET"`},
	"runtime-counts-disagree":                {"run", `runtime_counted`},
}

func others(p *rules.Pack, keep string) []string {
	var out []string
	for _, id := range p.IDs() {
		if id != keep {
			out = append(out, id)
		}
	}
	return out
}
