// Package harness holds the fixed strings that Claude Code's runtime writes and
// that pmcheck's detectors key on.
//
// The partial-output notice is special: the resume gate matches it as a fixed
// literal, so a plain copy of it in
// any file poisons every agent session that reads the file, so it never appears
// in this repository. PartialNotice assembles it at run time from pieces that
// the compiler cannot fold into one constant.
package harness

import (
	"regexp"
	"strings"

	"github.com/pmcheck/pmcheck/internal/lazyre"
)

// PartialNotice returns the harness's partial-output notice, the text the
// runtime writes into a killed synchronous subagent's tool result.
func PartialNotice() string { return partialNotice }

var partialNotice = strings.Join([]string{"PARTIAL", " output ", "recovered", " from the ", "agent"}, "")

// APIErrorPrefix begins the tool result of a subagent that the runtime cut off
// (CLI ≥ 2.1.199); Signature A requires the result to start with it.
const APIErrorPrefix = "Agent terminated early due to an API error"

// KillSentinelPrefix begins the user row the runtime writes into an attempt it
// interrupts ("[Request interrupted by user]" and "… for tool use]").
const KillSentinelPrefix = "[Request interrupted by user"

// SegmentMarkPrefix starts a resume-gate segment mark.
const SegmentMarkPrefix = "[resume-gate] segment-mark v1 "

// SegmentMarkPattern matches a segment mark in a text:
//
//	<prefix>outstanding=<n> payload=<base64 of the items joined by U+001F>
//
// The payload group stops at the first character outside the base64
// alphabet, so quotes, escaped newlines and prose after the mark end it.
var SegmentMarkPattern = lazyre.New(regexp.QuoteMeta(SegmentMarkPrefix) + `outstanding=(\d+) payload=([A-Za-z0-9+/=]*)`)
