package report

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/rules"
)

// A step summary above 1 MiB is not shown at all (a GitHub Actions limit),
// so the summary is built to a budget well below it: the fixed parts
// first, then as many finding rows as fit, then a note saying how many were
// left out.
const (
	markdownBudget      = 900 << 10
	markdownMaxListed   = 100 // runs, problems, stale baseline entries
	markdownMaxCellText = 1000
	// markdownTailShare is the most the parts after the findings table
	// (help, stale baseline entries, problems, runs) may take from the
	// findings rows' budget.
	markdownTailShare = 256 << 10
)

// Markdown renders a GitHub job summary.
func Markdown(doc *Document) []byte { return markdown(doc, "") }

// markdown renders the summary; htmlLink, when set, is where the HTML report
// can be opened (the action's artifact), and every finding links to it with
// its anchor in that page.
//
// The parts are built apart because the findings rows get the budget the
// others leave: the head (outcome, counts per rule, coverage), the tail
// (what to do, stale baseline entries, problems, runs) and the verdict.
func markdown(doc *Document, htmlLink string) []byte {
	counts := countFindingsByRule(doc)
	head := markdownHead(doc, htmlLink, counts)
	tail := markdownTail(doc, counts)
	verdict := mdCell(verdictLine(doc)) + "\n"
	// The rows get what the head and a bounded share of the tail leave;
	// a tail larger than its share is cut below.
	rows := markdownFindings(doc, htmlLink, markdownBudget-len(head)-min(len(tail), markdownTailShare)-len(verdict)-200)
	var b bytes.Buffer
	b.WriteString(head)
	b.WriteString(rows)
	b.WriteString(tail)
	// Every part counts against the budget: rules, help texts, problems and
	// runs are many or long too. What does not fit is cut at a line, and
	// the verdict line always ends the summary.
	if room := markdownBudget - len(verdict) - len(markdownCutNote); b.Len() > room {
		cut := bytes.LastIndexByte(b.Bytes()[:room], '\n') + 1
		b.Truncate(cut)
		b.WriteString(markdownCutNote)
	}
	b.WriteString(verdict)
	return b.Bytes()
}

// ruleFindingCount is how many findings of a rule are open and suppressed.
type ruleFindingCount struct{ open, suppressed int }

// countFindingsByRule counts the findings of every rule that fired.
func countFindingsByRule(doc *Document) map[string]*ruleFindingCount {
	counts := map[string]*ruleFindingCount{}
	for _, f := range doc.Findings {
		c := counts[f.RuleID]
		if c == nil {
			c = &ruleFindingCount{}
			counts[f.RuleID] = c
		}
		if f.Suppressed {
			c.suppressed++
		} else {
			c.open++
		}
	}
	return counts
}

// markdownHead is the outcome, the unreadable inputs, the counts of each
// rule that fired and the commit range's coverage.
func markdownHead(doc *Document, htmlLink string, counts map[string]*ruleFindingCount) string {
	o := doc.Outcome
	var head strings.Builder
	status := "passed"
	if o.Failed {
		status = "FAILED"
	}
	fmt.Fprintf(&head, "## %s: %s at fail level %s\n\n", mdCell(doc.Tool.Name), status, o.FailLevel)
	if o.Unreadable > 0 {
		fmt.Fprintf(&head, "%s, ", plural(o.Unreadable, "unreadable input"))
	}
	fmt.Fprintf(&head, "%s, %s, %s", plural(o.Errors, "error"), plural(o.Warnings, "warning"), plural(o.Notes, "note"))
	if o.Suppressed > 0 {
		fmt.Fprintf(&head, " (%d suppressed by the baseline)", o.Suppressed)
	}
	fmt.Fprintf(&head, " in %s; %s evaluated.\n\n", plural(len(doc.Runs), "run"), plural(len(doc.Rules), "rule"))
	if htmlLink != "" {
		fmt.Fprintf(&head, "The [HTML report](%s) shows each finding's evidence and every run's timeline; the finding numbers below are its anchors (`#f0`, `#f1`, …).\n\n", htmlLink)
	}

	head.WriteString(mdUnreadable(doc))

	if len(counts) > 0 {
		head.WriteString("| rule | severity | title | findings | suppressed |\n|---|---|---|---:|---:|\n")
		for _, r := range doc.Rules {
			if c := counts[r.ID]; c != nil {
				fmt.Fprintf(&head, "| %s | %s | %s | %d | %d |\n", mdCell(r.ID), r.Severity, mdCell(r.Title), c.open, c.suppressed)
			}
		}
		head.WriteString("\n")
	}

	head.WriteString(markdownCoverage(doc))
	return head.String()
}

// markdownTail is what to do for each rule that fired, then the stale
// baseline entries, the input problems and the runs, each list capped.
func markdownTail(doc *Document, counts map[string]*ruleFindingCount) string {
	var tail strings.Builder
	if len(counts) > 0 {
		tail.WriteString("### What to do\n\n")
		for _, r := range doc.Rules {
			if counts[r.ID] != nil {
				writeMarkdownWhatToDo(&tail, r)
			}
		}
	}
	if len(doc.StaleBaseline) > 0 {
		fmt.Fprintf(&tail, "### Stale baseline entries\n\n%s.\n\n", staleBaselineSentence(len(doc.StaleBaseline)))
		for i, e := range doc.StaleBaseline {
			if i == markdownMaxListed {
				fmt.Fprintf(&tail, "- … and %d more\n", len(doc.StaleBaseline)-i)
				break
			}
			fmt.Fprintf(&tail, "- %s %s %s\n", mdCell(e.Fingerprint), mdCell(e.RuleID), mdCell(e.Note))
		}
		tail.WriteString("\n")
	}
	if len(doc.Inputs.Problems) > 0 {
		fmt.Fprintf(&tail, "### Input problems\n\n")
		for i, p := range doc.Inputs.Problems {
			if i == markdownMaxListed {
				fmt.Fprintf(&tail, "- … and %d more\n", len(doc.Inputs.Problems)-i)
				break
			}
			fmt.Fprintf(&tail, "- %s: %s\n", mdCell(location(doc.displayPath(p.File), p.Line)), mdCell(p.Message))
		}
		tail.WriteString("\n")
	}
	writeMarkdownRuns(&tail, doc)
	return tail.String()
}

// writeMarkdownWhatToDo writes a rule's description and help, folded.
func writeMarkdownWhatToDo(tail *strings.Builder, r Rule) {
	fmt.Fprintf(tail, "<details><summary><b>%s</b> %s</summary>\n\n", mdCell(r.ID), mdCell(r.Title))
	if d := strings.TrimSpace(visible(r.Description)); d != "" {
		fmt.Fprintf(tail, "%s\n\n", truncateBytes(d, 4096))
	}
	if h := strings.TrimSpace(visible(r.Help)); h != "" {
		fmt.Fprintf(tail, "%s\n\n", truncateBytes(h, 8192))
	}
	tail.WriteString("</details>\n\n")
}

// writeMarkdownRuns writes the table of analyzed runs, capped.
func writeMarkdownRuns(tail *strings.Builder, doc *Document) {
	if len(doc.Runs) == 0 {
		return
	}
	tail.WriteString("### Runs analyzed\n\n| kind | path | id | agents | attempts | malformed lines |\n|---|---|---|---:|---:|---:|\n")
	for i, r := range doc.Runs {
		if i == markdownMaxListed {
			fmt.Fprintf(tail, "\n… and %d more runs.\n", len(doc.Runs)-i)
			break
		}
		fmt.Fprintf(tail, "| %s | %s | %s | %d | %d | %d |\n", mdCell(r.Kind), mdCell(doc.displayPath(r.Path)), mdCell(r.ID), r.Agents, r.Attempts, r.Malformed)
	}
	tail.WriteString("\n")
}

// markdownFindings is the findings table, as many rows as fit in budget
// bytes, then how many were left out.
func markdownFindings(doc *Document, htmlLink string, budget int) string {
	if len(doc.Findings) == 0 {
		return ""
	}
	var rows strings.Builder
	if htmlLink != "" {
		rows.WriteString("### Findings\n\n| # | severity | rule | where | when (simulated) | what happened | evidence |\n|---|---|---|---|---|---|---|\n")
	} else {
		rows.WriteString("### Findings\n\n| severity | rule | where | when (simulated) | what happened | evidence |\n|---|---|---|---|---|---|\n")
	}
	shown := 0
	for i, f := range doc.Findings {
		row := markdownFindingRow(doc, f)
		if htmlLink != "" {
			// The anchor of the finding in the HTML report (its id there).
			row = fmt.Sprintf("| [f%d](%s#f%d) ", i, htmlLink, i) + row
		}
		if rows.Len()+len(row) > budget {
			break
		}
		rows.WriteString(row)
		shown++
	}
	if left := len(doc.Findings) - shown; left > 0 {
		fmt.Fprintf(&rows, "\n%s not shown: the job summary is limited to 1 MiB. Render the JSON report with 'pmcheck render' or open the SARIF results for all of them.\n", plural(left, "more finding"))
	}
	rows.WriteString("\n")
	return rows.String()
}

func markdownFindingRow(doc *Document, f rules.Finding) string {
	p := primaryEvidence(f)
	sev := f.Severity
	if f.Suppressed {
		sev += " (suppressed)"
	}
	return fmt.Sprintf("| %s | %s | %s | %s | %s | %s |\n", sev, mdCell(f.RuleID), mdCell(location(doc.displayPath(p.File), p.Line)),
		simTime(findingTime(f)), mdCell(truncateBytes(f.Message, markdownMaxCellText)), mdEvidence(doc, f, p))
}

// markdownCutNote ends a summary that was cut to its budget.
const markdownCutNote = "\n… the rest of this summary was left out: GitHub shows no job summary above 1 MiB. Render the JSON report with 'pmcheck render' for all of it.\n\n"

// mdCell makes transcript text inert in markdown: one line, HTML special
// characters as entities, markdown punctuation backslash-escaped, bare URLs
// kept from autolinking, so a message cannot open a link, an image, a table
// cell or an HTML tag.
func mdCell(s string) string {
	s = singleLine(truncateBytes(s, markdownMaxCellText))
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		case '\\', '`', '*', '_', '[', ']', '|', '~', '!', '#':
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return noAutolink(b.String())
}

// CheckHTMLLink accepts the address of the HTML report for the job summary:
// an https URL without spaces, quotes, angle brackets, parentheses or
// control characters, so it cannot break out of a markdown link.
func CheckHTMLLink(u string) error {
	if !strings.HasPrefix(u, "https://") || len(u) > 2048 {
		return fmt.Errorf("--html-link %q: give the https:// address of the HTML report (the upload-artifact step's artifact-url)", u)
	}
	for _, r := range u {
		if r <= ' ' || r == 0x7f || strings.ContainsRune("\"'<>()[]`\\|", r) {
			return fmt.Errorf("--html-link %q: the address has a character that is not allowed in a link (%q)", u, r)
		}
	}
	return nil
}

// mdSourceLink is file:line as a markdown link to the file's line, relative
// to the repository root (GitHub's #L anchor), for a repository-relative
// path; an absolute path or one leaving the repository is shown as text.
// The target is percent-encoded byte by byte outside a small safe set, so
// no file name can end the link or add markup.
func mdSourceLink(file string, line int) string {
	text := mdCell(location(file, line))
	if file == "" || IsAbsPath(file) || file == ".." || strings.HasPrefix(file, "../") {
		return text
	}
	var target strings.Builder
	for i := 0; i < len(file); i++ {
		c := file[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("/._-", c) >= 0 {
			target.WriteByte(c)
		} else {
			fmt.Fprintf(&target, "%%%02X", c)
		}
	}
	if line > 0 {
		fmt.Fprintf(&target, "#L%d", line)
	}
	return "[" + text + "](" + target.String() + ")"
}

// mdEvidence is a finding's evidence cell: every location, the primary one
// first, as a link to the file and line relative to the repository.
func mdEvidence(doc *Document, f rules.Finding, p model.Evidence) string {
	var ev strings.Builder
	for _, e := range f.Evidence {
		if e.File == "" {
			continue
		}
		if ev.Len() > markdownMaxCellText {
			ev.WriteString("; …")
			break
		}
		if ev.Len() > 0 {
			ev.WriteString("; ")
		}
		ev.WriteString(mdSourceLink(doc.displayPath(e.File), e.Line))
		if e != p {
			ev.WriteString(" at " + simTime(e.Time))
		}
	}
	if f.EvidenceMore > 0 {
		if ev.Len() > 0 {
			ev.WriteString("; ")
		}
		ev.WriteString(mdCell(moreEvidence(f.EvidenceMore)))
	}
	return ev.String()
}

// mdUnreadable lists the inputs that could not be read, first in the
// summary.
func mdUnreadable(doc *Document) string {
	var head strings.Builder
	if n := len(doc.Inputs.Unreadable); n > 0 {
		fmt.Fprintf(&head, "### Inputs that could not be read (%d)\n\n%s.\n\n", n, mdCell(unreadableSentence(n)))
		for i, p := range doc.Inputs.Unreadable {
			if i == markdownMaxListed {
				fmt.Fprintf(&head, "- … and %d more\n", n-i)
				break
			}
			fmt.Fprintf(&head, "- %s\n", mdCell(p.Message))
		}
		head.WriteString("\n")
	}
	return head.String()
}
