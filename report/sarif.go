package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/pmcheck/pmcheck/rules"
)

// SARIF: the subset of SARIF 2.1.0
// that GitHub code scanning reads, written with our own structs so every
// field and its omission is deliberate.

// SARIFSchemaURI is the $schema GitHub's validator accepts (it must end in
// 2.1.0.json).
const SARIFSchemaURI = "https://json.schemastore.org/sarif-2.1.0.json"

// Limits of GitHub code scanning uploads.
const (
	sarifMaxResults        = 25000
	sarifMaxLocations      = 1000
	sarifMaxDescription    = 1024
	sarifMaxRelatedMessage = 1024
)

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool              sarifTool           `json:"tool"`
	AutomationDetails *sarifAutomation    `json:"automationDetails,omitempty"`
	Invocations       []sarifInvocation   `json:"invocations,omitempty"`
	Results           []sarifResult       `json:"results"`
	ColumnKind        string              `json:"columnKind"`
	Properties        *sarifRunProperties `json:"properties,omitempty"`
}

type sarifRunProperties struct {
	FailLevel string `json:"pmcheck/failLevel"`
	Failed    bool   `json:"pmcheck/failed"`
	// Coverage is the range's coverage without its commit list (the JSON
	// report has it), when the check read a range.
	Coverage *sarifCoverage `json:"pmcheck/coverage,omitempty"`
}

// sarifInvocation is written only when inputs could not be read: the run
// did not succeed, and each input is a notification.
type sarifInvocation struct {
	ExecutionSuccessful        bool                `json:"executionSuccessful"`
	ToolExecutionNotifications []sarifNotification `json:"toolExecutionNotifications"`
}

type sarifNotification struct {
	Level     string          `json:"level"`
	Message   sarifText       `json:"message"`
	Locations []sarifLocation `json:"locations,omitempty"`
}

type sarifAutomation struct {
	ID string `json:"id"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name            string      `json:"name"`
	Version         string      `json:"version,omitempty"`
	SemanticVersion string      `json:"semanticVersion,omitempty"`
	InformationURI  string      `json:"informationUri,omitempty"`
	Rules           []sarifRule `json:"rules"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifHelp struct {
	Text     string `json:"text"`
	Markdown string `json:"markdown,omitempty"`
}

type sarifRule struct {
	ID                   string            `json:"id"`
	ShortDescription     sarifText         `json:"shortDescription"`
	FullDescription      sarifText         `json:"fullDescription"`
	Help                 sarifHelp         `json:"help"`
	DefaultConfiguration sarifRuleConfig   `json:"defaultConfiguration"`
	Properties           sarifRuleProperty `json:"properties"`
}

type sarifRuleConfig struct {
	Level string `json:"level"`
}

type sarifRuleProperty struct {
	Tags            []string `json:"tags"`
	Precision       string   `json:"precision"`
	ProblemSeverity string   `json:"problem.severity"`
}

type sarifResult struct {
	RuleID string `json:"ruleId"`
	// RuleIndex has no omitempty: 0 is a valid index.
	RuleIndex        int                `json:"ruleIndex"`
	Level            string             `json:"level"`
	Message          sarifText          `json:"message"`
	Locations        []sarifLocation    `json:"locations"`
	RelatedLocations []sarifLocation    `json:"relatedLocations,omitempty"`
	Suppressions     []sarifSuppression `json:"suppressions,omitempty"`
	Properties       *sarifResultProps  `json:"properties,omitempty"`
}

type sarifResultProps struct {
	RunID         string `json:"pmcheck/runId,omitempty"`
	RunKind       string `json:"pmcheck/runKind,omitempty"`
	SimulatedTime string `json:"pmcheck/simulatedTime,omitempty"`
	// Fingerprint is pmcheck's own identity hash (rule, run, fact). It is a
	// property, not a partialFingerprint: GitHub's primaryLocationLineHash is
	// a hash of the source line that upload-sarif computes itself.
	Fingerprint string `json:"pmcheck/fingerprint,omitempty"`
}

type sarifLocation struct {
	ID               *int                  `json:"id,omitempty"`
	PhysicalLocation sarifPhysicalLocation `json:"physicalLocation"`
	Message          *sarifText            `json:"message,omitempty"`
}

type sarifPhysicalLocation struct {
	ArtifactLocation sarifArtifactLocation `json:"artifactLocation"`
	Region           sarifRegion           `json:"region"`
}

type sarifArtifactLocation struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId,omitempty"`
}

// sarifRegion covers whole lines: evidence has no columns, and a region with
// a start column of 1 and no end column means "to the end of the line".
type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn"`
	EndLine     int `json:"endLine"`
}

type sarifSuppression struct {
	Kind          string `json:"kind"`
	Status        string `json:"status"`
	Justification string `json:"justification"`
}

// SARIF renders the Document as one SARIF 2.1.0 run.
func SARIF(doc *Document, opts Options) ([]byte, error) {
	if len(doc.Findings) > sarifMaxResults {
		return nil, fmt.Errorf("%d findings: GitHub code scanning accepts at most %d results per run; narrow the scan with --shard or raise --fail-level", len(doc.Findings), sarifMaxResults)
	}
	run := sarifRun{
		Tool: sarifTool{Driver: sarifDriver{
			Name:            doc.Tool.Name,
			Version:         doc.Tool.Version,
			SemanticVersion: semanticVersion(doc.Tool.Version),
			InformationURI:  doc.Tool.InformationURI,
			Rules:           make([]sarifRule, 0, len(doc.Rules)),
		}},
		Results:    make([]sarifResult, 0, len(doc.Findings)),
		ColumnKind: "utf16CodeUnits",
		Properties: &sarifRunProperties{FailLevel: doc.Outcome.FailLevel, Failed: doc.Outcome.Failed, Coverage: newSarifCoverage(doc.Coverage)},
	}
	if opts.SARIFCategory != "" {
		run.AutomationDetails = &sarifAutomation{ID: strings.TrimSuffix(opts.SARIFCategory, "/") + "/"}
	}
	// One table gives both ruleId and ruleIndex, so they cannot disagree.
	index := make(map[string]int, len(doc.Rules))
	for i, r := range doc.Rules {
		index[r.ID] = i
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sarifRuleOf(r))
	}
	if len(doc.Inputs.Unreadable) > 0 {
		// The inputs that could not be read: notifications of a run that
		// did not succeed, and results of the built-in input-problem rule,
		// which code scanning shows as alerts on the files.
		ix := len(run.Tool.Driver.Rules)
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sarifRuleOf(inputProblemRule()))
		inv := sarifInvocation{ToolExecutionNotifications: []sarifNotification{}}
		for _, p := range doc.Inputs.Unreadable {
			msg := sarifText{Text: singleLine(p.Message)}
			var locs []sarifLocation
			if p.File != "" {
				locs = []sarifLocation{sarifLocationOf(doc, p.File, p.Line, nil)}
			}
			inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, sarifNotification{Level: "error", Message: msg, Locations: locs})
			if locs != nil {
				// Code scanning needs a location; one without is only the
				// notification.
				run.Results = append(run.Results, sarifResult{RuleID: InputProblemRule, RuleIndex: ix, Level: "error", Message: msg, Locations: locs})
			}
		}
		run.Invocations = []sarifInvocation{inv}
	}
	for _, f := range doc.Findings {
		i, ok := index[f.RuleID]
		if !ok {
			return nil, fmt.Errorf("finding of rule %s: the rule is not in the document's rules", f.RuleID)
		}
		run.Results = append(run.Results, sarifResultOf(doc, f, i))
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(sarifLog{Schema: SARIFSchemaURI, Version: "2.1.0", Runs: []sarifRun{run}}); err != nil {
		return nil, fmt.Errorf("encoding SARIF: %w", err)
	}
	return buf.Bytes(), nil
}

func sarifRuleOf(r Rule) sarifRule {
	// GitHub requires non-empty descriptions and help, each at most 1024
	// characters for descriptions; fall back rather than emit an empty string.
	title := singleLine(strings.TrimSpace(r.Title))
	full := strings.TrimSpace(visible(r.Description))
	if full == "" {
		full = title
	}
	help := strings.TrimSpace(visible(r.Help))
	if help == "" {
		help = full
	}
	tags := r.Tags
	if len(tags) > MaxTagsPerRule {
		tags = tags[:MaxTagsPerRule]
	}
	return sarifRule{
		ID:                   r.ID,
		ShortDescription:     sarifText{Text: truncateRunes(title, sarifMaxDescription)},
		FullDescription:      sarifText{Text: truncateRunes(full, sarifMaxDescription)},
		Help:                 sarifHelp{Text: help, Markdown: help},
		DefaultConfiguration: sarifRuleConfig{Level: sarifLevel(r.Severity)},
		Properties: sarifRuleProperty{
			Tags:            append([]string{}, tags...),
			Precision:       "high",
			ProblemSeverity: problemSeverity(r.Severity),
		},
	}
}

func sarifResultOf(doc *Document, f rules.Finding, ruleIndex int) sarifResult {
	p := primaryEvidence(f)
	msg := sarifPlain(strings.TrimSpace(visible(f.Message)))
	if msg == "" {
		msg = "rule " + f.RuleID + " matched"
	}
	// The simulated time is part of what happened; the message is the only
	// text GitHub shows for an alert.
	msg = fmt.Sprintf("%s (simulated time %s)", msg, simTime(findingTime(f)))
	res := sarifResult{
		RuleID:    f.RuleID,
		RuleIndex: ruleIndex,
		Level:     sarifLevel(f.Severity),
		Message:   sarifText{Text: msg},
		Locations: []sarifLocation{sarifLocationOf(doc, p.File, p.Line, nil)},
		Properties: &sarifResultProps{
			RunID:         f.RunID,
			RunKind:       f.RunKind,
			SimulatedTime: timeOrEmpty(findingTime(f)),
			Fingerprint:   f.Fingerprint,
		},
	}
	related := 0
	for _, e := range f.Evidence {
		if e.File == "" || e == p || related >= sarifMaxLocations {
			continue
		}
		related++
		id := related
		text := truncateRunes(fmt.Sprintf("evidence %d at %s (simulated)", related+1, simTime(e.Time)), sarifMaxRelatedMessage)
		res.RelatedLocations = append(res.RelatedLocations, sarifLocationOf(doc, e.File, e.Line, &sarifText{Text: text}))
		res.RelatedLocations[len(res.RelatedLocations)-1].ID = &id
	}
	if f.Suppressed {
		res.Suppressions = []sarifSuppression{{Kind: "external", Status: "accepted", Justification: "matched an entry of the pmcheck baseline file"}}
	}
	return res
}

func sarifLocationOf(doc *Document, file string, line int, msg *sarifText) sarifLocation {
	if line < 1 {
		line = 1 // line 0 means the whole file; SARIF lines are 1-based
	}
	return sarifLocation{
		PhysicalLocation: sarifPhysicalLocation{
			ArtifactLocation: sarifArtifact(doc.displayPath(file)),
			Region:           sarifRegion{StartLine: line, StartColumn: 1, EndLine: line},
		},
		Message: msg,
	}
}

// sarifArtifact locates a file: relative to %SRCROOT% (the repository), or,
// for an absolute path outside it, as a file: URI of its own.
func sarifArtifact(p string) sarifArtifactLocation {
	if IsAbsPath(p) {
		if !strings.HasPrefix(p, "/") {
			p = "/" + p // C:/x -> file:///C:/x
		}
		return sarifArtifactLocation{URI: "file://" + uriPath(p)}
	}
	return sarifArtifactLocation{URI: uriPath(p), URIBaseID: "%SRCROOT%"}
}

func sarifLevel(severity string) string {
	switch severity {
	case rules.SeverityError, rules.SeverityWarning, rules.SeverityNote:
		return severity
	}
	return "warning"
}

func problemSeverity(severity string) string {
	if severity == rules.SeverityNote {
		return "recommendation"
	}
	return sarifLevel(severity)
}

// semanticVersion returns v when it looks like a semantic version; GitHub
// ignores version when semanticVersion is set, so only set it when it is one.
func semanticVersion(v string) string {
	core, _, _ := strings.Cut(strings.TrimPrefix(v, "v"), "-")
	core, _, _ = strings.Cut(core, "+")
	parts := strings.Split(core, ".")
	if len(parts) != 3 {
		return ""
	}
	for _, p := range parts {
		if p == "" || strings.Trim(p, "0123456789") != "" {
			return ""
		}
	}
	return strings.TrimPrefix(v, "v")
}

func timeOrEmpty(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return simTime(t)
}

// sarifPlain escapes the brackets of SARIF's embedded-link syntax in message
// text ("[text](id)" links to a related location), so transcript text cannot
// forge a link to a location of its choosing. A backslash before a bracket is
// how SARIF writes a literal one; a backslash already there is doubled so it
// cannot escape the escape.
func sarifPlain(s string) string {
	if !strings.ContainsAny(s, "[]") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			if i+1 < len(s) && (s[i+1] == '[' || s[i+1] == ']' || s[i+1] == '\\') {
				b.WriteByte('\\')
			}
		case '[', ']':
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// inputProblemRule is the built-in rule of the inputs that could not be
// read or trusted (Inputs.Unreadable).
func inputProblemRule() Rule {
	return Rule{ID: InputProblemRule, Title: "Input that could not be read or trusted", Severity: rules.SeverityError,
		Description: "An input file could not be read, is mostly not JSON, has a line over the cap, or a launched Workflow run's directory is missing. pmcheck cannot say what it holds, so the check fails closed (exit 2); the findings of the other inputs are still reported.",
		Help:        "Fix the file's permissions, repair or remove it, give the folder that holds the missing run directory, or raise --line-cap, as the message says; then run the check again.",
		Tags:        []string{"input"}}
}
