package hook

import (
	"github.com/pmcheck/pmcheck/analyze/detect"
	"github.com/pmcheck/pmcheck/analyze/detect/ship"
	"github.com/pmcheck/pmcheck/analyze/transcript"
)

// This file is the hooks' only contact with the analyzer: the same reader,
// detector and ship classifier `pmcheck check` runs, so the hook, the live
// watch and the CI check cannot disagree about a transcript.

// scanFile is the resume-gate detector's scan of one transcript, through
// the memo of the last reading of it (memo.go): a full read unless the
// transcript is unchanged since.
func scanFile(path string) (detect.Scan, error) { return scanRemembered(path) }

// readScan reads one transcript (streamed, never whole) and runs the
// resume-gate detector over its current segment: the rows after the newest
// mark that decodes.
func readScan(path string) (detect.Scan, error) {
	t, err := transcript.ReadFile(path, path, transcript.Options{})
	if err != nil {
		return detect.Scan{}, err
	}
	return detect.ScanTranscript(t), nil
}

// encodeMark is the segment mark listing items.
func encodeMark(items []string) string { return detect.EncodeMark(items) }

// shipActions says which ship actions one tool call runs: a Bash command
// through the ship classifier (one it cannot prove harmless is a possible
// ship: ship.ShipActions), a publish tool by its name.
func shipActions(tool, command string, cfg Config) []ship.Action {
	if tool == "Bash" {
		return ship.ShipActions(ship.Classify(command, ship.Options{DeployLabels: cfg.DeployLabels}), command)
	}
	if detect.IsPublishTool(tool, cfg.publishTools()) {
		return []ship.Action{{Kind: ship.KindPublish, Command: tool}}
	}
	return nil
}
