package report

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/pmcheck/pmcheck/rules"
)

// Text renders the report for people: findings grouped by rule (most severe
// first), each with what happened, its evidence as file:line with simulated
// time, and the rule's help once per rule; then stale baseline entries, input
// problems, and a one-line verdict. The list of analyzed runs is for
// verbose output only: the verdict line counts them.
//
// Transcript text never starts a line: messages are shown on one line (a
// newline as \n), and Render's last pass (inertLines) neutralises "::" at a
// line start and "##[" anywhere, which the GitHub runner reads as commands.
func Text(doc *Document, verbose bool) []byte {
	var out bytes.Buffer
	writeText(&out, doc, verbose, false)
	return out.Bytes()
}

// writeText writes Text's bytes to w as they are made (a report of
// hundreds of thousands of findings is not held whole); write errors are
// the caller's to check on w.
func writeText(w io.Writer, doc *Document, verbose, color bool) error {
	b := bufio.NewWriterSize(w, 64<<10)
	paint := painter(color)
	if n := len(doc.Inputs.Unreadable); n > 0 {
		// First: the check failed on them whatever the findings say.
		fmt.Fprintf(b, "%s %s: %s\n", paint(ansiRed, "error"), paint(ansiBold, InputProblemRule), unreadableSentence(n))
		for _, p := range doc.Inputs.Unreadable {
			b.WriteString("  ")
			b.WriteString(singleLine(p.Message))
			b.WriteString("\n")
		}
		b.WriteString("\n")
	}
	byRule := doc.ruleByID()
	runs := doc.runIndex()
	files, runPaths := shownPaths{doc: doc}, shownPaths{doc: doc}
	for i := 0; i < len(doc.Findings); {
		j := i
		for j < len(doc.Findings) && doc.Findings[j].RuleID == doc.Findings[i].RuleID && doc.Findings[j].Severity == doc.Findings[i].Severity {
			j++
		}
		group := doc.Findings[i:j]
		r := byRule[group[0].RuleID]
		fmt.Fprintf(b, "%s %s: %s (%s)\n", paint(severityColor(group[0].Severity), group[0].Severity), paint(ansiBold, r.ID), singleLine(r.Title), plural(len(group), "finding"))
		for _, f := range group {
			writeTextFinding(b, doc, f, runs, &files, &runPaths)
		}
		if help := strings.TrimSpace(PlainHelp(visible(r.Help))); help != "" {
			fmt.Fprintf(b, "  %s\n    %s\n", paint(ansiBold, "what to do:"), indent(help, "    "))
		}
		b.WriteString("\n")
		i = j
	}
	if len(doc.Findings) == 0 {
		b.WriteString("no findings\n\n")
	}
	if len(doc.StaleBaseline) > 0 {
		fmt.Fprintf(b, "%s:\n", staleBaselineSentence(len(doc.StaleBaseline)))
		for _, e := range doc.StaleBaseline {
			fmt.Fprintf(b, "  %s", singleLine(e.Fingerprint))
			if e.RuleID != "" {
				fmt.Fprintf(b, " (%s)", singleLine(e.RuleID))
			}
			if e.Note != "" {
				fmt.Fprintf(b, " %s", singleLine(e.Note))
			}
			b.WriteString("\n")
		}
		b.WriteString("\n")
	}
	if len(doc.Inputs.Problems) > 0 {
		fmt.Fprintf(b, "input problems (%d):\n", len(doc.Inputs.Problems))
		for _, p := range doc.Inputs.Problems {
			// Piece by piece, as findings are (not through fmt).
			b.WriteString("  ")
			writeLocation(b, files.of(p.File), p.Line)
			for _, s := range [...]string{": ", singleLine(p.Message), "\n"} {
				b.WriteString(s)
			}
		}
		b.WriteString("\n")
	}
	if verbose && len(doc.Runs) > 0 {
		fmt.Fprintf(b, "runs analyzed (%d):\n", len(doc.Runs))
		for _, r := range doc.Runs {
			fmt.Fprintf(b, "  %-8s %s  %s, %s", r.Kind, singleLine(doc.displayPath(r.Path)), plural(r.Agents, "agent"), plural(r.Attempts, "attempt"))
			if r.Malformed > 0 {
				fmt.Fprintf(b, ", %s", plural(r.Malformed, "malformed line"))
			}
			fmt.Fprintf(b, "  [%s]\n", singleLine(r.ID))
		}
		b.WriteString("\n")
	}
	b.WriteString(textCoverage(doc))
	verdict := ansiGreen
	if doc.Outcome.Failed {
		verdict = ansiRed
	}
	b.WriteString(paint(verdict, verdictLine(doc)))
	b.WriteString("\n")
	return b.Flush()
}

func writeTextFinding(b *bufio.Writer, doc *Document, f rules.Finding, runs runIndex, files, runPaths *shownPaths) {
	p := primaryEvidence(f)
	suppressed := ""
	if f.Suppressed {
		suppressed = " [suppressed by baseline]"
	}
	// One line: a newline in transcript text must not start a log line of
	// its own (the runner trims indentation before it looks for a command).
	// Written piece by piece, not through fmt: one line of a report of
	// 200,000 findings.
	b.WriteString("  ")
	sep := ": "
	if p.File == "" {
		sep = "" // a commit's finding: the message names the commit
	}
	writeLocation(b, files.of(p.File), p.Line)
	for _, s := range [...]string{sep, singleLine(f.Message), suppressed, "\n      when: ", simTime(findingTime(f)), " (simulated)"} {
		b.WriteString(s)
	}
	if r := runs.of(f); r != nil {
		for _, s := range [...]string{"; run: ", r.Kind, " ", runPaths.of(r.Path)} {
			b.WriteString(s)
		}
	} else if f.RunID != "" {
		for _, s := range [...]string{"; run: ", singleLine(f.RunKind), " ", singleLine(f.RunID)} {
			b.WriteString(s)
		}
	}
	b.WriteString("\n")
	for _, e := range f.Evidence {
		if e.File == "" || e == p {
			continue
		}
		fmt.Fprintf(b, "      evidence: %s at %s\n", location(doc.displayPath(e.File), e.Line), simTime(e.Time))
	}
	if f.EvidenceMore > 0 {
		fmt.Fprintf(b, "      evidence: %s\n", moreEvidence(f.EvidenceMore))
	}
	if f.Fingerprint != "" {
		for _, s := range [...]string{"      fingerprint: ", singleLine(f.Fingerprint), "\n"} {
			b.WriteString(s)
		}
	}
}

// shownPaths is singleLine(doc.displayPath(p)) with its last answer kept:
// the findings of a run name the same file one after another (a report of
// 200,000 findings cleaned and checked one path 400,000 times).
type shownPaths struct {
	doc     *Document
	in, out string
}

func (s *shownPaths) of(p string) string {
	if p != s.in {
		s.in, s.out = p, singleLine(s.doc.displayPath(p))
	}
	return s.out
}

// writeLocation writes location(shown, line) for a file already shown
// (singleLine'd).
func writeLocation(b *bufio.Writer, shown string, line int) {
	b.WriteString(shown)
	if line > 0 {
		var buf [20]byte
		b.WriteByte(':')
		b.Write(strconv.AppendInt(buf[:0], int64(line), 10))
	}
}

// location formats file:line, or the file alone for line 0 (the whole file).
func location(file string, line int) string {
	file = singleLine(file)
	if line <= 0 {
		return file
	}
	return file + ":" + strconv.Itoa(line)
}

// verdictLine is the one-line summary every human-facing format ends with.
func verdictLine(doc *Document) string {
	o := doc.Outcome
	status := "passed"
	if o.Failed {
		status = "FAILED"
	}
	counts := fmt.Sprintf("%s, %s, %s", plural(o.Errors, "error"), plural(o.Warnings, "warning"), plural(o.Notes, "note"))
	if o.Suppressed > 0 {
		counts += fmt.Sprintf(" (%d suppressed)", o.Suppressed)
	}
	if o.Unreadable > 0 {
		counts = plural(o.Unreadable, "unreadable input") + ", " + counts
	}
	return fmt.Sprintf("%s %s: %s at fail level %s: %s in %s, %s evaluated",
		doc.Tool.Name, doc.Tool.Version, status, o.FailLevel, counts, plural(len(doc.Runs), "run"), plural(len(doc.Rules), "rule"))
}

// ANSI colours of the text report on a terminal (Options.Color).
const (
	ansiReset  = "\x1b[0m"
	ansiBold   = "\x1b[1m"
	ansiRed    = "\x1b[1;31m"
	ansiYellow = "\x1b[1;33m"
	ansiCyan   = "\x1b[36m"
	ansiGreen  = "\x1b[32m"
)

// painter returns the function that wraps pmcheck's own words (severities,
// rule ids, headings, the verdict; never transcript text, which visible
// has made escape-free) in a colour, or leaves them as they are.
func painter(color bool) func(code, s string) string {
	if !color {
		return func(_, s string) string { return s }
	}
	return func(code, s string) string { return code + s + ansiReset }
}

func severityColor(severity string) string {
	switch severity {
	case rules.SeverityError:
		return ansiRed
	case rules.SeverityWarning:
		return ansiYellow
	}
	return ansiCyan
}

// InputProblemRule is the built-in rule id under which reports list the
// inputs that could not be read or trusted (Inputs.Unreadable): SARIF
// results, JUnit errored cases and annotations name it.
const InputProblemRule = "input-problem"

// unreadableSentence says what unreadable inputs mean for the check.
func unreadableSentence(n int) string {
	return fmt.Sprintf("%s could not be read or trusted, so the check fails (exit 2); the findings of the other inputs follow", plural(n, "input"))
}
