package explain

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/pmcheck/pmcheck/report"
)

// JSON renders the output as indented JSON with a final newline.
func JSON(o *Output) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(o); err != nil {
		return nil, fmt.Errorf("encoding explanation: %w", err)
	}
	return report.EscapeDisplayControls(b.Bytes()), nil
}

// Text renders the output for people. Transcript text is made inert.
func Text(o *Output) []byte {
	var b bytes.Buffer
	for i, x := range o.Explanations {
		if i > 0 {
			b.WriteString("\n")
		}
		writeText(&b, x)
	}
	return b.Bytes()
}

func writeText(b *bytes.Buffer, x Explanation) {
	in := Inert
	if f := x.Finding; f != nil {
		fmt.Fprintf(b, "finding %s: %s %s\n", in(f.Fingerprint), f.Severity, in(f.RuleID))
		for _, l := range strings.Split(strings.TrimRight(f.Message, "\n"), "\n") {
			fmt.Fprintf(b, "  %s\n", in(l))
		}
	}
	fmt.Fprintf(b, "run: %s %s\n", x.Run.Kind, in(x.Run.Path))
	if x.Fact != nil {
		if x.Target == "run" {
			fmt.Fprintf(b, "  %s\n", in(x.Fact.Summary))
			fmt.Fprintf(b, "  simulated time: %s to %s\n", when(x.Run.Start), when(x.Run.End))
		} else {
			fmt.Fprintf(b, "fact: %s %d: %s\n", x.Fact.Kind, x.Fact.Index, in(x.Fact.Summary))
		}
	}
	if x.Target == "run" {
		writeRun(b, x)
		return
	}
	b.WriteString("\nhow it was decided:\n")
	writeSteps(b, x.Decision)
	if r := x.Review; r != nil {
		b.WriteString("\nreview evidence:\n")
		if len(r.Found) == 0 {
			b.WriteString("  found: none\n")
		}
		for _, f := range r.Found {
			fmt.Fprintf(b, "  found: %s\n", in(f))
		}
		for _, s := range r.Searched {
			fmt.Fprintf(b, "  searched: %s\n", in(s))
		}
	}
	if s := x.Shipped; s != nil {
		b.WriteString("\nshipped:\n")
		switch {
		case s.Branch == nil:
			b.WriteString("  branch under check: none joined (no --git), so on_shipped_branch is false\n")
		case len(s.Matches) == 0:
			fmt.Fprintf(b, "  branch under check %s (%s..%s): carries none of this work\n", in(s.Branch.Name), in(s.Branch.Base), in(s.Branch.Head))
		default:
			fmt.Fprintf(b, "  branch under check %s (%s..%s) carries this work:\n", in(s.Branch.Name), in(s.Branch.Base), in(s.Branch.Head))
			for _, m := range s.Matches {
				fmt.Fprintf(b, "    %s\n", in(m))
			}
		}
		if len(s.Ships) == 0 {
			b.WriteString("  ship actions after it: none\n")
		}
		for _, sh := range s.Ships {
			writeShip(b, sh, "  ")
		}
	}
	if r := x.Rule; r != nil {
		fmt.Fprintf(b, "\nrule: %s (%s) %s\n", in(r.ID), r.Severity, in(r.Title))
		if r.Where != "" {
			fmt.Fprintf(b, "  fires on %s facts where: %s\n", strings.Join(r.Select, ", "), in(strings.Join(strings.Fields(r.Where), " ")))
		}
	}
	if len(x.Findings) > 0 {
		fmt.Fprintf(b, "\nfindings on this fact: %s\n", strings.Join(x.Findings, ", "))
	} else if x.Target == "fact" {
		b.WriteString("\nno rule made a finding of this fact")
		if len(x.WhyNot) == 0 {
			b.WriteString("\n")
		} else {
			b.WriteString(": for each rule that selects it, what was false:\n")
		}
		for _, w := range x.WhyNot {
			fmt.Fprintf(b, "  %s\n", in(w.Sentence()))
		}
	}
}

func writeRun(b *bytes.Buffer, x Explanation) {
	in := Inert
	fmt.Fprintf(b, "  segments: %d\n", x.Segments)
	fmt.Fprintf(b, "\nagents and attempts (%d):\n", len(x.Agents))
	for _, a := range x.Agents {
		name := a.Name
		if a.Kind == "attempt" {
			name = fmt.Sprintf("%s attempt %d", a.Name, a.Ordinal)
		} else if a.Mode != "" {
			name = a.Mode + " " + quoteName(a.Name)
		}
		flags := a.Outcome
		if a.Killed {
			flags += ", killed"
		}
		if a.Reviewed {
			flags += ", reviewed"
		}
		fmt.Fprintf(b, "  %s  %s..%s  %s: %s\n", loc(a.At), clock(a.Start), clock(a.End), in(name), flags)
	}
	fmt.Fprintf(b, "\nkills (%d):\n", len(x.Kills))
	writeSteps(b, x.Kills)
	fmt.Fprintf(b, "\nship actions (%d):\n", len(x.Ships))
	for _, s := range x.Ships {
		writeShip(b, s, "  ")
	}
	if len(x.Findings) > 0 {
		fmt.Fprintf(b, "\nfindings in this run (%d): %s\n", len(x.Findings), strings.Join(x.Findings, ", "))
	} else {
		b.WriteString("\nno findings in this run\n")
	}
}

func quoteName(s string) string { return `"` + s + `"` }

func writeShip(b *bytes.Buffer, s Ship, pre string) {
	in := Inert
	fmt.Fprintf(b, "%s%s  %s  %s by %s: %s\n", pre, loc(s.At), when(s.At.Time), s.Kind, in(s.Tool), in(s.Command))
	if len(s.Outstanding) > 0 {
		fmt.Fprintf(b, "%s    unreviewed killed subagents outstanding: %s\n", pre, in(strings.Join(s.Outstanding, "; ")))
	}
}

func writeSteps(b *bytes.Buffer, steps []Step) {
	if len(steps) == 0 {
		b.WriteString("  (none)\n")
	}
	for _, s := range steps {
		fmt.Fprintf(b, "  %s  %s  %s\n", loc(s), when(s.Time), Inert(s.What))
		if s.Excerpt != "" {
			fmt.Fprintf(b, "      | %s\n", s.Excerpt)
		}
	}
}

func loc(s Step) string {
	if s.Line > 0 {
		return fmt.Sprintf("%s:%d", Inert(s.File), s.Line)
	}
	return Inert(s.File)
}

func when(t time.Time) string {
	if t.IsZero() {
		return "unknown time"
	}
	return t.UTC().Format(time.RFC3339)
}

func clock(t time.Time) string {
	if t.IsZero() {
		return "?"
	}
	return t.UTC().Format("15:04:05")
}
