// Package rules evaluates YAML-declared policy over the facts pmcheck derived,
// producing Findings. Rules never print: reports render Findings.
//
// What a check does with it (docs/rules.md documents the file format):
//
//	pack, err := rules.Build(rules.Options{Files: f, Disable: d, Severity: s}) // the embedded defaults when f is empty
//	// pack.Settings configure the detectors: review evidence, publish tools, deploy labels
//	findings, err := rules.Evaluate(pack, facts) // sorted, with stable fingerprints
//	stale := baseline.Apply(findings)            // from rules.LoadBaseline; marks Suppressed
//	if rules.Failing(findings, failLevel) > 0 { /* exit 1 */ }
//	meta := pack.Meta()                          // the rule table of SARIF and JUnit
package rules

import (
	"time"

	"github.com/pmcheck/pmcheck/analyze/model"
)

// Severity levels, from most to least severe.
const (
	SeverityError   = "error"
	SeverityWarning = "warning"
	SeverityNote    = "note"
)

// Finding is one rule match: the single type every report renders.
type Finding struct {
	RuleID   string `json:"rule_id"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
	// RunID and RunKind name the run the fact came from; RunPath is its file
	// (a session's main transcript) or directory (a Workflow run), which is
	// what identifies a run: several files may carry one session id.
	RunID   string `json:"run_id"`
	RunKind string `json:"run_kind"`
	RunPath string `json:"run_path,omitempty"`
	// Evidence lists the locations that prove the finding, the primary one first.
	Evidence []model.Evidence `json:"evidence"`
	// EvidenceMore counts the further distinct locations of facts that
	// collapsed into this finding past the MaxEvidence listed ("and N
	// more").
	EvidenceMore int `json:"evidence_more,omitempty"`
	// Time is the simulated time of the fact (zero when unknown).
	Time time.Time `json:"time,omitzero"`
	// Fingerprint is stable across runs, machines, clones and working
	// directories: it hashes the rule id, the run's repository-relative path
	// and id and the fact's identity, never line numbers or
	// times.
	Fingerprint string `json:"fingerprint"`
	// LegacyFingerprint is the fingerprint pmcheck 0.x gave the finding
	// before fingerprints hashed the repository-relative path (the path as
	// the working directory showed it); set only when asked for
	// (EvalOptions.Legacy) and different. Baselines still match it.
	LegacyFingerprint string `json:"-"`
	// Suppressed is set when a baseline entry matched.
	Suppressed bool `json:"suppressed,omitempty"`
	// Fact points at the fact the rule matched (the first one when several
	// collapsed into this finding); nil in reports that carry no facts.
	Fact *FactRef `json:"fact,omitempty"`
}

// FactRef names one fact of a report: the run (by its path and id, which
// together identify it: several orphaned sessions can share a folder), the
// fact kind as rules select it, and the fact's 0-based position among the
// run's facts of that kind (0 for the run fact).
type FactRef struct {
	Run   string `json:"run"`
	RunID string `json:"run_id"`
	Kind  string `json:"kind"`
	Index int    `json:"index"`
}
