package rules

import (
	"errors"
	"strings"
	"testing"

	"github.com/pmcheck/pmcheck/analyze/model"
)

// FuzzParse feeds the rule loader arbitrary bytes, seeded from the table tests
// and the default pack. Whatever the input: no panic; an error is a
// *LoadError whose problems are one line each with a 1-based position; a
// success is a pack with rules or detector settings whose rules evaluate without panicking.
func FuzzParse(f *testing.F) {
	f.Add([]byte(validRule))
	f.Add(defaultsYAML)
	f.Add([]byte(settingsFile))
	for _, tc := range loadErrorCases {
		f.Add([]byte(tc.src))
	}
	facts := fuzzFacts()
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse("f.yaml", data)
		if err != nil {
			checkLoadError(t, err)
			return
		}
		if len(p.Rules) == 0 && len(p.settingsFrom) == 0 {
			t.Fatal("loaded a pack with neither rules nor settings")
		}
		for _, r := range p.Rules {
			if r.ID == "" || r.Title == "" || severityRank(r.Severity) == 0 || len(r.compiled) != len(r.Select) || len(r.Select) == 0 {
				t.Fatalf("loaded an incomplete rule: %+v", r)
			}
		}
		// Runtime errors are allowed (they stop the check with exit 2);
		// panics and malformed findings are not.
		fs, err := Evaluate(p, facts)
		if err == nil {
			for _, f := range fs {
				if len(f.Fingerprint) != 32 || f.RuleID == "" {
					t.Fatalf("malformed finding %+v", f)
				}
			}
		}
	})
}

// FuzzParseBaseline does the same for baseline files.
func FuzzParseBaseline(f *testing.F) {
	fp := strings.Repeat("ab", 16)
	f.Add([]byte("version: 1\nfindings: []\n"))
	f.Add([]byte("version: 1\nfindings:\n  - fingerprint: " + fp + "\n    rule: r\n    run: s\n    message: m\n"))
	f.Add([]byte("version: 1\nfindings:\n  - fingerprint: " + fp + "\n  - fingerprint: " + fp + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := ParseBaseline("b.yaml", data)
		if err != nil {
			checkLoadError(t, err)
			return
		}
		seen := map[string]bool{}
		for _, e := range b.Entries {
			if !fingerprintRE().MatchString(e.Fingerprint) || seen[e.Fingerprint] {
				t.Fatalf("accepted a bad or duplicate fingerprint %q", e.Fingerprint)
			}
			seen[e.Fingerprint] = true
		}
	})
}

func checkLoadError(t *testing.T, err error) {
	t.Helper()
	var le *LoadError
	if !errors.As(err, &le) || len(le.Errs) == 0 {
		t.Fatalf("error %T is not a *LoadError with problems: %v", err, err)
	}
	for _, e := range le.Errs {
		if e.Pos.Line < 1 || e.Pos.Col < 1 || e.Pos.File != le.Errs[0].Pos.File {
			t.Fatalf("bad position in %q", e.Error())
		}
		if strings.ContainsAny(e.Error(), "\n\r") {
			t.Fatalf("problem is not one line: %q", e.Error())
		}
	}
	if strings.ContainsAny(err.Error(), "\n\r") {
		t.Fatalf("error is not one line: %q", err.Error())
	}
}

// fuzzFacts has one fact of every kind, with every list populated, so fuzzed
// rules exercise the evaluator.
func fuzzFacts() []model.Facts {
	s := killedSubagent()
	s.ReviewEvidence = []string{"x"}
	return []model.Facts{{
		Run:       model.RunFact{Kind: model.KindSession, ID: "s1", Shipped: true, At: at("s1.jsonl", 1)},
		Subagents: []model.SubagentFact{s},
		Attempts:  []model.AttemptFact{killedAttempt()},
		Ships:     []model.ShipFact{{Kind: "push", Command: "git push", OutstandingKilled: []string{"a"}, Outstanding: true, At: at("s1.jsonl", 9)}},
		Watchdogs: []model.WatchdogFact{{Source: "watch", Kind: "QUIET", Agent: "a", SilenceSeconds: 601, At: at("a.jsonl", 3)}},
	}}
}
