package transcript

import (
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
	if containsAt(s, harness.PartialNotice(), 0) { // "P" is rare
		p |= probeNotice
	}
	if containsAt(s, agentIDProbe, 5) { // "I", a tenth as common as "a"
		p |= probeAgentID
	}
	return p
}

// containsAt is strings.Contains(s, needle), with the candidates found by
// needle[k] instead of needle[0]. strings.Index tries every occurrence of
// the needle's first byte, and "a" of "agentId:" occurs every 26 bytes of
// a transcript.
func containsAt(s, needle string, k int) bool {
	c := needle[k]
	for i := k; i < len(s); {
		j := strings.IndexByte(s[i:], c)
		if j < 0 {
			return false
		}
		if p := i + j - k; p+len(needle) <= len(s) && s[p:p+len(needle)] == needle {
			return true
		}
		i += j + 1
	}
	return false
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
	return (typ == "user" || typ == "attachment") && containsAt(view(data), markProbe, len(markProbe)-1) // "=" is rarer than "v"
}
