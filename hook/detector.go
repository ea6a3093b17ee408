package hook

import "github.com/pmcheck/pmcheck/analyze"

// This file is the hooks' only contact with the analyzer: the façade call
// `pmcheck check` shares (analyze.ReadGate), so the hook, the live watch
// and the CI check cannot disagree about a transcript. The hook decides
// nothing about the transcript itself.

// readGate is the gate's reading of the session at path, through the memo
// of the last reading of it (memo.go): a full read unless the transcript
// is unchanged since.
func readGate(path string, cfg Config) (*analyze.GateState, error) {
	return gateRemembered(path, cfg)
}

// readGateFull loads the session at path (streamed, never whole) with its
// subagents, as check would, and reads what a ship action would find
// outstanding at the end of the transcript.
func readGateFull(path string, cfg Config) (*analyze.GateState, error) {
	return analyze.ReadGate(path, cfg.gate())
}

// encodeMark is the segment mark listing items.
func encodeMark(items []string) string { return analyze.EncodeMark(items) }

func (c Config) publishTools() []string {
	if c.PublishTools == nil {
		return analyze.DefaultPublishTools()
	}
	return c.PublishTools
}
