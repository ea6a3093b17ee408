package transcript

import (
	"bytes"
	"strings"

	"github.com/pmcheck/pmcheck/analyze/harness"
)

// Probes: the questions the builder asks of a tool result's whole text (does
// it hold the harness's partial-output notice, an "agentId:" line?) and of a
// row's whole line (could it hold a segment mark?). They are answered where
// the text is decoded, by the goroutine that decodes it (in parallel for a
// large file, parallel.go), while the bytes are still in cache, and stored
// with the decoded value; the builder reads the answers. Before, the builder
// searched each result's text again after the line was decoded, and the
// line for the mark probe, on the one goroutine that applies every line.

const (
	// probeNotice: the text holds harness.PartialNotice().
	probeNotice uint8 = 1 << iota
	// probeAgentID: the text holds "agentId:" (only then is the tail's
	// agentId line looked for, with a regexp).
	probeAgentID
)

// agentIDProbe guards agentIDLineRE.
const agentIDProbe = "agentId:"

// textProbes answers the probes for one text.
func textProbes(s string) uint8 {
	var p uint8
	if strings.Contains(s, harness.PartialNotice()) {
		p |= probeNotice
	}
	if strings.Contains(s, agentIDProbe) {
		p |= probeAgentID
	}
	return p
}

// contentProbes answers the probes for c.text() without joining its parts:
// no probe's needle holds a newline (TestProbeNeedlesHaveNoNewline), so one
// found in the joined text lies inside one part.
func contentProbes(c *content) uint8 {
	if c.isString {
		return textProbes(c.str)
	}
	var p uint8
	for i := range c.blocks {
		if b := &c.blocks[i]; b.Type == "text" && b.Text != "" {
			p |= textProbes(b.Text)
		}
	}
	return p
}

// mayHoldMark reports whether marksInRow may find a mark in a row of type
// typ whose trimmed line is data: only user and attachment rows carry marks,
// and only lines that hold markProbe are decoded again to look for them.
func mayHoldMark(typ string, data []byte) bool {
	return (typ == "user" || typ == "attachment") && bytes.Contains(data, markProbe)
}
