package report

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/pmcheck/pmcheck/rules"
)

// GitHub shows at most 10 error and 10 warning annotations per step
// (a GitHub Actions limit); the rest would be silently dropped, so they
// are counted in one notice that points to the full reports.
const (
	annotationMaxErrors   = 10
	annotationMaxWarnings = 10
	annotationMaxTitle    = 255
	// annotationMaxMessage stays well under GitHub's 64 KB message limit.
	annotationMaxMessage = 4000
)

// GitHub renders workflow-command annotations (::error, ::warning, and one
// ::notice counting what was left out). Notes are never annotated one by one,
// only counted; suppressed findings were accepted and are neither.
func GitHub(doc *Document) []byte {
	var b bytes.Buffer
	byRule := doc.ruleByID()
	errors, warnings := 0, 0
	var leftErrors, leftWarnings, leftNotes int
	for _, p := range doc.Inputs.Unreadable {
		// First: an input the check could not read fails it.
		if errors >= annotationMaxErrors {
			leftErrors++
			continue
		}
		errors++
		line := max(p.Line, 1)
		fmt.Fprintf(&b, "::error file=%s,line=%d,endLine=%d,title=%s::%s\n", escapeProperty(doc.displayPath(p.File)), line, line,
			escapeProperty(InputProblemRule+": input that could not be read"), escapeData(truncateBytes(visible(p.Message), annotationMaxMessage)))
	}
	for _, f := range doc.Findings {
		if f.Suppressed {
			continue
		}
		var command string
		switch f.Severity {
		case rules.SeverityError:
			if errors >= annotationMaxErrors {
				leftErrors++
				continue
			}
			errors++
			command = "error"
		case rules.SeverityWarning:
			if warnings >= annotationMaxWarnings {
				leftWarnings++
				continue
			}
			warnings++
			command = "warning"
		default:
			leftNotes++
			continue
		}
		writeAnnotation(&b, doc, command, f, byRule[f.RuleID])
	}
	if left := leftErrors + leftWarnings + leftNotes; left > 0 {
		msg := fmt.Sprintf("%s not annotated (%s, %s, %s): GitHub shows at most %d error and %d warning annotations per step; see the job summary, the SARIF upload or 'pmcheck render' of the JSON report for all of them",
			plural(left, "more finding"), plural(leftErrors, "error"), plural(leftWarnings, "warning"), plural(leftNotes, "note"), annotationMaxErrors, annotationMaxWarnings)
		fmt.Fprintf(&b, "::notice title=%s::%s\n", escapeProperty(doc.Tool.Name+": findings not annotated"), escapeData(msg))
	}
	return b.Bytes()
}

func writeAnnotation(b *bytes.Buffer, doc *Document, command string, f rules.Finding, r *Rule) {
	p := primaryEvidence(f)
	line := p.Line
	if line < 1 {
		line = 1
	}
	title := truncateRunes(singleLine(r.ID+": "+r.Title), annotationMaxTitle)
	var msg strings.Builder
	msg.WriteString(strings.TrimSpace(visible(f.Message)))
	fmt.Fprintf(&msg, "\nwhen: %s (simulated); run: %s %s", simTime(findingTime(f)), singleLine(f.RunKind), singleLine(f.RunID))
	for _, e := range f.Evidence {
		if e.File == "" || e == p {
			continue
		}
		fmt.Fprintf(&msg, "\nevidence: %s at %s", location(doc.displayPath(e.File), e.Line), simTime(e.Time))
	}
	if f.EvidenceMore > 0 {
		fmt.Fprintf(&msg, "\nevidence: %s", moreEvidence(f.EvidenceMore))
	}
	if help := actionText(visible(r.Help)); help != "" {
		fmt.Fprintf(&msg, "\nwhat to do: %s", help)
	}
	fmt.Fprintf(b, "::%s file=%s,line=%d,endLine=%d,title=%s::%s\n", command,
		escapeProperty(doc.displayPath(p.File)), line, line, escapeProperty(title),
		escapeData(truncateBytes(msg.String(), annotationMaxMessage)))
}

// escapeData escapes a workflow command's message as actions/toolkit's
// escapeData does, so a newline in a transcript cannot end the command and
// start another.
func escapeData(s string) string {
	s = strings.ReplaceAll(s, "%", "%25")
	s = strings.ReplaceAll(s, "\r", "%0D")
	return strings.ReplaceAll(s, "\n", "%0A")
}

// escapeProperty escapes a property value as actions/toolkit's
// escapeProperty does.
func escapeProperty(s string) string {
	s = escapeData(s)
	s = strings.ReplaceAll(s, ":", "%3A")
	return strings.ReplaceAll(s, ",", "%2C")
}
