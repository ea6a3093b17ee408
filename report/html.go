package report

import (
	"cmp"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"html"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/rules"
)

// The HTML report is one self-contained page: inline CSS and SVG, a small
// inline script that only adds filtering and highlighting, and a
// Content-Security-Policy that forbids every network request. Without the
// script the page reads the same (filters are hidden, tooltips are SVG
// titles). Transcript text is always escaped: control and bidirectional
// characters become visible escapes, then HTML-escaped; no href or id is
// ever built from transcript text, nor from a report field outside its
// closed set (Validate refuses those when a saved report is read).

// Layout limits keep the page small and legible whatever the run.
const (
	htmlMaxTimelines   = 100 // runs drawn; runs with findings first
	htmlDirectLanes    = 30  // a run with at most this many lanes draws them all
	htmlInterestLanes  = 80  // else: interesting lanes drawn, up to this many
	htmlCollapsedLanes = 300 // and the others in a collapsed block, up to this many
	htmlMaxFindings    = 2000
	htmlMaxReasons     = 12

	svgWidth  = 1000.0
	labelW    = 230.0
	plotW     = svgWidth - labelW - 28 // room for the last tick's label
	laneH     = 18.0
	axisH     = 22.0
	labelRune = 34
)

// HTML renders the Document as a self-contained web page.
func HTML(doc *Document) []byte {
	var b strings.Builder
	o := doc.Outcome
	status := "passed"
	if o.Failed {
		status = "FAILED"
	}
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	b.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	fmt.Fprintf(&b, "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src '%s'; img-src data:\">\n", htmlScriptHash)
	fmt.Fprintf(&b, "<title>%s: %s</title>\n<style>%s</style>\n</head>\n<body>\n", esc(doc.Tool.Name), status, htmlCSS)

	// Summary.
	fmt.Fprintf(&b, "<header><h1 class=\"%s\">%s: %s at fail level %s</h1>\n", strings.ToLower(status), esc(doc.Tool.Name), status, esc(o.FailLevel))
	fmt.Fprintf(&b, "<p class=\"counts\"><span class=\"sev-error\">%s</span> <span class=\"sev-warning\">%s</span> <span class=\"sev-note\">%s</span>",
		plural(o.Errors, "error"), plural(o.Warnings, "warning"), plural(o.Notes, "note"))
	if o.Suppressed > 0 {
		fmt.Fprintf(&b, " (%d suppressed by the baseline)", o.Suppressed)
	}
	fmt.Fprintf(&b, " in %s; %s evaluated.</p>\n", plural(len(doc.Runs), "run"), plural(len(doc.Rules), "rule"))
	if doc.Git != nil {
		fmt.Fprintf(&b, "<p>Branch under check: <code>%s</code> (%s..%s, %s, %s changed).</p>\n", esc(doc.Git.Name), esc(doc.Git.Base), esc(doc.Git.Head),
			plural(doc.Git.Commits, "commit"), plural(doc.Git.Paths, "path"))
	}
	if n := len(doc.Inputs.Unreadable); n > 0 {
		// First: the check failed on these whatever the findings say.
		fmt.Fprintf(&b, "<section id=\"unreadable\" class=\"unreadable\"><h2>Inputs that could not be read (%d)</h2>\n<p>%s.</p>\n<ul>\n", n, esc(unreadableSentence(n)))
		for i, p := range doc.Inputs.Unreadable {
			if i == markdownMaxListed {
				fmt.Fprintf(&b, "<li>… and %d more</li>\n", n-i)
				break
			}
			fmt.Fprintf(&b, "<li>%s</li>\n", esc(p.Message))
		}
		b.WriteString("</ul>\n</section>\n")
	}
	b.WriteString("<nav><a href=\"#findings\">Findings</a> · <a href=\"#runs\">Runs and timelines</a>")
	if doc.Coverage != nil {
		b.WriteString(" · <a href=\"#coverage\">Coverage</a>")
	}
	if len(doc.Inputs.Problems) > 0 {
		b.WriteString(" · <a href=\"#problems\">Input problems</a>")
	}
	b.WriteString("</nav>\n</header>\n<main>\n")

	findingFacts := map[string]bool{}
	for _, f := range doc.Findings {
		if id := factAnchor(doc, f.Fact); id != "" {
			findingFacts[id] = true
		}
	}
	drawn := drawnRuns(doc)

	b.WriteString(htmlCoverage(doc))

	// Findings.
	fmt.Fprintf(&b, "<section id=\"findings\"><h2>Findings (%d)</h2>\n", len(doc.Findings))
	if len(doc.Findings) > 0 {
		b.WriteString("<p class=\"filters\" hidden>Show: <label><input type=\"checkbox\" data-sev=\"error\" checked> errors</label> <label><input type=\"checkbox\" data-sev=\"warning\" checked> warnings</label> <label><input type=\"checkbox\" data-sev=\"note\" checked> notes</label> <label><input type=\"checkbox\" data-sev=\"suppressed\" checked> suppressed</label></p>\n")
	} else {
		b.WriteString("<p>No findings.</p>\n")
	}
	rulesByID := doc.ruleByID()
	excerpts := doc.excerpts()
	for i, f := range doc.Findings {
		if i == htmlMaxFindings {
			fmt.Fprintf(&b, "<p class=\"more\">… and %d more findings (see the JSON report).</p>\n", len(doc.Findings)-i)
			break
		}
		writeHTMLFinding(&b, doc, i, f, rulesByID[f.RuleID], drawn, excerpts)
	}
	b.WriteString("</section>\n")

	// Runs and timelines.
	fmt.Fprintf(&b, "<section id=\"runs\"><h2>Runs (%d)</h2>\n", len(doc.Runs))
	// The runs are drawn first, so the legend names exactly the colours
	// and marks the timelines use.
	var runs strings.Builder
	drawnKeys := legendKeys{}
	for ri := range doc.Facts {
		b := &runs
		rf := &doc.Facts[ri]
		// The section is "run<i>"; "r<i>" is its run's lane (factAnchor).
		if rf.Run.Title != "" {
			// The session's own name first, as the person who ran it knows it.
			fmt.Fprintf(b, "<section class=\"run\" id=\"run%d\"><h3><span class=\"title\">%s</span> <span class=\"sub\">%s <code>%s</code></span></h3>\n", ri, esc(rf.Run.Title), esc(rf.Run.Kind), esc(doc.displayPath(rf.Run.Path)))
		} else {
			fmt.Fprintf(b, "<section class=\"run\" id=\"run%d\"><h3>%s <code>%s</code></h3>\n", ri, esc(rf.Run.Kind), esc(doc.displayPath(rf.Run.Path)))
		}
		fmt.Fprintf(b, "<p>id <code>%s</code>; %s, %s, %s", esc(rf.Run.ID), plural(rf.Run.Agents, "agent"), plural(rf.Run.Attempts, "attempt"), plural(rf.Run.Segments, "segment"))
		if rf.Run.Verdict != "" {
			fmt.Fprintf(b, "; verdict %s", esc(rf.Run.Verdict))
		}
		if rf.Run.Shipped {
			b.WriteString("; shipped")
			if rf.Run.Branch != "" {
				fmt.Fprintf(b, " (branch <code>%s</code>)", esc(rf.Run.Branch))
			}
		}
		fmt.Fprintf(b, "; %s to %s.</p>\n", simTime(rf.Run.Start), simTime(rf.Run.End))
		if rf.Omitted != nil {
			fmt.Fprintf(b, "<p class=\"more\">The report's size caps left out facts of this run: %s.</p>\n", omittedText(rf.Omitted))
		}
		if drawn[ri] {
			writeTimeline(b, buildTimeline(rf, ri, findingFacts, doc.WhyNoFinding), drawnKeys)
		} else {
			b.WriteString("<p class=\"more\">Timeline not drawn: the page draws at most " + strconv.Itoa(htmlMaxTimelines) + " runs, those with findings first.</p>\n")
		}
		b.WriteString("</section>\n")
	}
	if len(doc.Facts) > 0 {
		writeLegend(&b, drawnKeys)
	}
	b.WriteString(runs.String())
	if len(doc.Facts) == 0 && len(doc.Runs) > 0 {
		b.WriteString("<p class=\"more\">This report holds no facts (schema version 1): no timelines.</p>\n<ul>\n")
		for _, r := range doc.Runs {
			fmt.Fprintf(&b, "<li>%s <code>%s</code> %s, %s</li>\n", esc(r.Kind), esc(doc.displayPath(r.Path)), plural(r.Agents, "agent"), plural(r.Attempts, "attempt"))
		}
		b.WriteString("</ul>\n")
	}
	b.WriteString("</section>\n")

	if len(doc.StaleBaseline) > 0 {
		fmt.Fprintf(&b, "<section id=\"stale\"><h2>Stale baseline entries</h2>\n<p>%s.</p>\n<ul>\n", staleBaselineSentence(len(doc.StaleBaseline)))
		for _, e := range doc.StaleBaseline {
			fmt.Fprintf(&b, "<li><code>%s</code> %s %s</li>\n", esc(e.Fingerprint), esc(e.RuleID), esc(e.Note))
		}
		b.WriteString("</ul>\n</section>\n")
	}
	if len(doc.Inputs.Problems) > 0 {
		fmt.Fprintf(&b, "<section id=\"problems\"><h2>Input problems (%d)</h2>\n<ul>\n", len(doc.Inputs.Problems))
		for i, p := range doc.Inputs.Problems {
			if i == markdownMaxListed {
				fmt.Fprintf(&b, "<li>… and %d more</li>\n", len(doc.Inputs.Problems)-i)
				break
			}
			fmt.Fprintf(&b, "<li><code>%s</code>: %s</li>\n", esc(location(doc.displayPath(p.File), p.Line)), esc(p.Message))
		}
		b.WriteString("</ul>\n</section>\n")
	}
	fmt.Fprintf(&b, "</main>\n<footer>%s</footer>\n<script>%s</script>\n</body>\n</html>\n", esc(verdictLine(doc)), htmlScript)
	return []byte(b.String())
}

// drawnRuns picks the runs whose timelines are drawn: every run with a
// finding first, then the others in order, up to htmlMaxTimelines.
func drawnRuns(doc *Document) map[int]bool {
	drawn := map[int]bool{}
	with := map[string]bool{}
	for _, f := range doc.Findings {
		if f.Fact != nil {
			with[runIdentity(f.Fact.Run, f.Fact.RunID)] = true
		}
	}
	for pass := 0; pass < 2; pass++ {
		for ri, rf := range doc.Facts {
			if len(drawn) == htmlMaxTimelines {
				return drawn
			}
			if (pass == 0) == with[runIdentity(rf.Run.Path, rf.Run.ID)] {
				drawn[ri] = true
			}
		}
	}
	return drawn
}

// factAnchor is the DOM id of a fact's spot on the timeline ("" if none).
func factAnchor(doc *Document, ref *rules.FactRef) string {
	if ref == nil || !isFactKind(ref.Kind) || ref.Index < 0 {
		// Validate refuses such a reference; an id is never built from
		// anything but a known kind and a number.
		return ""
	}
	for ri := range doc.Facts {
		if doc.Facts[ri].Run.Path != ref.Run || doc.Facts[ri].Run.ID != ref.RunID {
			continue
		}
		if ref.Kind == model.FactRun {
			return fmt.Sprintf("r%d", ri)
		}
		return fmt.Sprintf("r%d-%s%d", ri, ref.Kind, ref.Index)
	}
	return ""
}

func writeHTMLFinding(b *strings.Builder, doc *Document, i int, f rules.Finding, r *Rule, drawn map[int]bool, excerpts map[Excerpt]string) {
	sev := f.Severity
	filter := sev
	if f.Suppressed {
		filter = "suppressed"
	}
	fmt.Fprintf(b, "<article class=\"finding sev-%s\" id=\"f%d\" data-sev=\"%s\">\n", sev, i, filter)
	fmt.Fprintf(b, "<h3><span class=\"sev\">%s</span> <code>%s</code> %s", sev, esc(f.RuleID), esc(r.Title))
	if f.Suppressed {
		b.WriteString(" <span class=\"supp\">suppressed by the baseline</span>")
	}
	b.WriteString("</h3>\n")
	fmt.Fprintf(b, "<p class=\"msg\">%s</p>\n<dl>\n", escLines(f.Message))
	p := primaryEvidence(f)
	fmt.Fprintf(b, "<dt>where</dt><dd><code>%s</code></dd>\n", esc(location(doc.displayPath(p.File), p.Line)))
	fmt.Fprintf(b, "<dt>when</dt><dd>%s (simulated)</dd>\n", simTime(findingTime(f)))
	fmt.Fprintf(b, "<dt>run</dt><dd>%s <code>%s</code></dd>\n", esc(f.RunKind), esc(f.RunID))
	fmt.Fprintf(b, "<dt>fingerprint</dt><dd><code>%s</code></dd>\n", esc(f.Fingerprint))
	if len(f.Evidence) > 1 {
		b.WriteString("<dt>other evidence</dt><dd><ul>")
		for _, e := range f.Evidence[1:] {
			fmt.Fprintf(b, "<li><code>%s</code> %s</li>", esc(location(doc.displayPath(e.File), e.Line)), simTime(e.Time))
		}
		if f.EvidenceMore > 0 {
			fmt.Fprintf(b, "<li>%s</li>", esc(moreEvidence(f.EvidenceMore)))
		}
		b.WriteString("</ul></dd>\n")
	}
	b.WriteString("</dl>\n")
	if fact, err := doc.Fact(f.Fact); err == nil {
		writeFactEvidence(b, doc, fact, excerpts)
	}
	if id := factAnchor(doc, f.Fact); id != "" {
		ri, _ := strconv.Atoi(strings.TrimPrefix(strings.SplitN(id, "-", 2)[0], "r"))
		if drawn[ri] {
			fmt.Fprintf(b, "<p><a class=\"to-timeline\" href=\"#%s\">On the timeline</a></p>\n", esc(id))
		}
	}
	if r.Help != "" {
		fmt.Fprintf(b, "<details><summary>What to do</summary><div class=\"help\">%s</div></details>\n", escLines(strings.TrimSpace(r.Help)))
	}
	b.WriteString("</article>\n")
}

// factReasons are the rows a finding card lists for a fact.
func factReasons(fact any) []model.Reason {
	switch v := fact.(type) {
	case model.SubagentFact:
		return v.Reasons
	case model.AttemptFact:
		return v.Reasons
	case model.ShipFact:
		return []model.Reason{{At: v.At}}
	case model.WatchdogFact:
		return []model.Reason{{At: v.At}}
	}
	return nil
}

// ExcerptRows are the rows whose excerpts the HTML page shows (the rows
// behind the findings it lists, as its cards list them), without text: the
// caller reads them (explain.Excerpts) and hands them to AddExcerpts.
func (d *Document) ExcerptRows() []Excerpt {
	var out []Excerpt
	for i, f := range d.Findings {
		if i == htmlMaxFindings {
			break
		}
		fact, err := d.Fact(f.Fact)
		if err != nil {
			continue
		}
		for j, r := range factReasons(fact) {
			if j == htmlMaxReasons {
				break
			}
			if r.At.File != "" && r.At.Line > 0 {
				out = append(out, Excerpt{File: r.At.File, Line: r.At.Line})
			}
		}
	}
	return out
}

// AddExcerpts adds row excerpts (ExcerptRows, with their text) to the
// Document, sorted and without repeats.
func (d *Document) AddExcerpts(ex []Excerpt) {
	d.Excerpts = append(d.Excerpts, ex...)
	slices.SortStableFunc(d.Excerpts, func(a, b Excerpt) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line))
	})
	d.Excerpts = slices.CompactFunc(d.Excerpts, func(a, b Excerpt) bool { return a.File == b.File && a.Line == b.Line })
}

// writeFactEvidence lists the rows behind a fact and how it was shipped.
func writeFactEvidence(b *strings.Builder, doc *Document, fact any, excerpts map[Excerpt]string) {
	var reasons []model.Reason
	var found, matches []string
	switch v := fact.(type) {
	case model.SubagentFact:
		reasons, found, matches = v.Reasons, v.ReviewEvidence, v.BranchMatches
	case model.AttemptFact:
		reasons, found, matches = v.Reasons, v.ReviewEvidence, v.BranchMatches
	case model.ShipFact:
		reasons = []model.Reason{{What: v.Kind + " by " + v.Tool + ": " + v.Command, At: v.At}}
		if len(v.OutstandingKilled) > 0 {
			found = []string{"outstanding unreviewed killed subagents: " + strings.Join(v.OutstandingKilled, "; ")}
		}
	case model.WatchdogFact:
		what := v.Source + " " + v.Kind
		if v.Predicted != "" || v.Observed != "" {
			what += fmt.Sprintf(": predicted %q, observed %q", v.Predicted, v.Observed)
		}
		reasons = []model.Reason{{What: what, At: v.At}}
	default:
		return
	}
	if len(reasons) > 0 {
		b.WriteString("<ol class=\"chain\">")
		for i, r := range reasons {
			if i == htmlMaxReasons {
				fmt.Fprintf(b, "<li>… and %d more rows</li>", len(reasons)-i)
				break
			}
			fmt.Fprintf(b, "<li><code>%s</code> <span class=\"t\">%s</span> %s", esc(location(doc.displayPath(r.At.File), r.At.Line)), clockLabel(r.At.Time), esc(r.What))
			if x := excerpts[Excerpt{File: r.At.File, Line: r.At.Line}]; x != "" {
				// The row itself, as explain shows it.
				fmt.Fprintf(b, "<br><q class=\"excerpt\">%s</q>", esc(x))
			}
			b.WriteString("</li>")
		}
		b.WriteString("</ol>\n")
	}
	for _, s := range found {
		fmt.Fprintf(b, "<p class=\"ev\">%s</p>\n", esc(s))
	}
	if len(matches) > 0 {
		fmt.Fprintf(b, "<p class=\"ev\">On the branch under check: %s</p>\n", esc(strings.Join(matches, "; ")))
	}
}

func omittedText(o *Omitted) string {
	var parts []string
	add := func(n int, what string) {
		if n > 0 {
			parts = append(parts, plural(n, what))
		}
	}
	add(o.Attempts, "attempt")
	add(o.Subagents, "subagent")
	add(o.Ships, "ship action")
	add(o.Watchdogs, "watchdog event")
	add(o.ListItems, "list entry")
	add(o.Strings, "cut string")
	return strings.Join(parts, ", ")
}

// writeTimeline draws a run's lanes as SVG. Lanes are chosen so a run with
// hundreds of agents stays legible: all lanes when there are few, else the
// interesting ones, with the rest in a collapsed block.
func writeTimeline(b *strings.Builder, tl *timeline, keys legendKeys) {
	var direct, rest []*lane
	if len(tl.lanes) <= htmlDirectLanes {
		direct = tl.lanes
	} else {
		for _, l := range tl.lanes {
			if l.interesting && len(direct) < htmlInterestLanes {
				direct = append(direct, l)
			} else {
				rest = append(rest, l)
			}
		}
	}
	writeSVG(b, tl, direct, keys)
	if len(rest) > 0 {
		shown := rest
		if len(shown) > htmlCollapsedLanes {
			shown = shown[:htmlCollapsedLanes]
		}
		fmt.Fprintf(b, "<details class=\"more-lanes\"><summary>%d more lanes (completed and quiet)</summary>\n", len(rest))
		writeSVG(b, tl, shown, keys)
		if len(rest) > len(shown) {
			fmt.Fprintf(b, "<p class=\"more\">… and %d more lanes not drawn (see the JSON report).</p>\n", len(rest)-len(shown))
		}
		b.WriteString("</details>\n")
	}
}

func writeSVG(b *strings.Builder, tl *timeline, lanes []*lane, keys legendKeys) {
	segs := tl.scale()
	x := func(t time.Time) float64 {
		if t.IsZero() {
			return labelW
		}
		return segs.x(t)
	}
	h := axisH + laneH*float64(len(lanes)) + 4
	b.WriteString("<div class=\"tl\">")
	fmt.Fprintf(b, "<svg class=\"timeline\" viewBox=\"0 0 %s %s\" role=\"img\" aria-label=\"timeline\" data-t0=\"%s\" data-t1=\"%s\" data-x0=\"%s\" data-w=\"%s\"",
		num(svgWidth), num(h), tl.t0.UTC().Format(time.RFC3339Nano), tl.t1.UTC().Format(time.RFC3339Nano), num(labelW), num(plotW))
	if len(segs) > 1 {
		// The piecewise scale of a folded axis: "t0 t1 x0 x1" per piece.
		var parts []string
		for _, sg := range segs {
			parts = append(parts, rfc(sg.t0)+" "+rfc(sg.t1)+" "+num(sg.x0)+" "+num(sg.x1))
		}
		fmt.Fprintf(b, " data-segs=\"%s\"", strings.Join(parts, ";"))
	}
	b.WriteString(">\n")
	// Axis: ticks at round simulated times, about ten over the plot, in
	// each piece of the axis that is not folded.
	b.WriteString("<g class=\"axis\">")
	for _, sg := range segs {
		if sg.folded {
			continue
		}
		step := tick(time.Duration(float64(sg.t1.Sub(sg.t0)) * plotW / max(sg.x1-sg.x0, 1)))
		first := sg.t0.Truncate(step)
		if first.Before(sg.t0) {
			first = first.Add(step)
		}
		for t := first; !t.After(sg.t1); t = t.Add(step) {
			tx := num(x(t))
			label := t.UTC().Format("15:04:05")
			if step >= time.Minute {
				label = t.UTC().Format("15:04")
			}
			if tl.clipped && x(t) > labelW+plotW-50 {
				label = "" // room for "later →"
			}
			fmt.Fprintf(b, "<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\"/><text x=\"%s\" y=\"12\">%s</text>", tx, num(axisH-4), tx, num(h), tx, label)
		}
	}
	if tl.clipped {
		fmt.Fprintf(b, "<text class=\"clip\" x=\"%s\" y=\"12\">later →</text>", num(labelW+plotW+2))
	}
	b.WriteString("</g>\n")
	for _, sg := range segs {
		if !sg.folded {
			continue
		}
		// A folded stretch with no agent activity: a narrow band marked
		// with a zigzag, its length on hover.
		keys["fold"] = true
		mx := (sg.x0 + sg.x1) / 2
		fmt.Fprintf(b, "<g class=\"fold\"><title>%s with no agent activity folded (%s to %s)</title><rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\"/><path d=\"M%s %sl3 5-3 5M%s %sl3 5-3 5\"/></g>\n",
			foldedLength(sg.t1.Sub(sg.t0)), clockLabel(sg.t0), clockLabel(sg.t1), num(sg.x0), num(axisH-4), num(sg.x1-sg.x0), num(h-axisH+4),
			num(mx-4), num(2), num(mx), num(2))
	}
	for i, l := range lanes {
		y := axisH + laneH*float64(i)
		mid := y + laneH/2
		cls := "lane lane-" + l.kind
		bar := "bar-" + l.kind
		if l.killed {
			cls += " killed"
			bar = "bar-killed"
		} else if l.outcome != "" && l.outcome != "completed" {
			cls += " bad"
			bar = "bar-bad"
		}
		if !l.start.IsZero() {
			keys[bar] = true
		}
		fmt.Fprintf(b, "<g class=\"%s\" id=\"%s\" data-start=\"%s\" data-end=\"%s\" data-outcome=\"%s\">", cls, l.id, rfc(l.start), rfc(l.end), esc(l.outcome))
		fmt.Fprintf(b, "<title>%s</title>", esc(l.title))
		fmt.Fprintf(b, "<text class=\"label\" x=\"4\" y=\"%s\">%s</text>", num(mid+4), esc(truncateLabel(l.label)))
		if !l.start.IsZero() {
			x1 := x(l.start)
			x2 := min(x(l.end), labelW+plotW)
			if l.end.IsZero() || x2 < x1+1 {
				x2 = x1 + 1
			}
			fmt.Fprintf(b, "<rect class=\"bar\" x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" rx=\"2\"/>", num(x1), num(y+4), num(x2-x1), num(laneH-8))
		}
		for _, m := range l.markers {
			if !m.t.IsZero() {
				keys[markerKey(m)] = true
			}
			writeMarker(b, m, x, mid)
		}
		b.WriteString("</g>\n")
	}
	b.WriteString("</svg></div>\n")
}

func writeMarker(b *strings.Builder, m marker, x func(time.Time) float64, mid float64) {
	if m.t.IsZero() {
		return
	}
	id := ""
	if m.id != "" {
		id = " id=\"" + m.id + "\""
	}
	mx := x(m.t)
	beyond := ""
	if mx > labelW+plotW {
		// Past the clipped axis: drawn at its right edge.
		mx, beyond = labelW+plotW+4, " beyond"
	}
	fmt.Fprintf(b, "<g class=\"m m-%s src-%s%s\"%s data-t=\"%s\" data-x=\"%s\"><title>%s</title>", m.kind, cssClass(m.cls), beyond, id, rfc(m.t), num(mx), esc(m.title))
	switch m.kind {
	case "launch":
		fmt.Fprintf(b, "<circle cx=\"%s\" cy=\"%s\" r=\"3.5\"/>", num(mx), num(mid))
	case "end":
		fmt.Fprintf(b, "<rect x=\"%s\" y=\"%s\" width=\"3\" height=\"10\"/>", num(mx-1.5), num(mid-5))
	case "kill":
		fmt.Fprintf(b, "<path d=\"M%s %sl8 8M%s %sl-8 8\"/>", num(mx-4), num(mid-4), num(mx+4), num(mid-4))
	case "quiet":
		fx := min(x(m.from), labelW+plotW)
		fmt.Fprintf(b, "<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"6\"/>", num(fx), num(mid-3), num(max(mx-fx, 1)))
	case "watchdog":
		fmt.Fprintf(b, "<path d=\"M%s %sl5 5-5 5-5-5z\"/>", num(mx), num(mid-5))
	case "ship":
		fmt.Fprintf(b, "<path d=\"M%s %sl6 10h-12z\"/>", num(mx), num(mid-6))
	case "review":
		fmt.Fprintf(b, "<path d=\"M%s %sl3 3 7-7\"/>", num(mx-5), num(mid))
	}
	b.WriteString("</g>")
}

// legendKeys are the legend entries the drawn timelines use: a bar colour
// ("bar-…") or a marker with its colour (markerKey).
type legendKeys map[string]bool

// markerKey is a marker's legend entry: its shape, and the colour class
// its CSS gives it.
func markerKey(m marker) string {
	switch m.kind {
	case "end":
		if m.cls == "failed" || m.cls == "stopped" {
			return "end-bad"
		}
	case "watchdog":
		switch m.cls {
		case "watch", "harness", "workflow-runtime":
			return "watchdog-" + m.cls
		}
		return "watchdog-other"
	}
	return m.kind
}

// legendEntries are every legend entry, in the order shown: the key, the
// swatch (SVG inside a 14x12 box, drawn with the timeline's classes) and
// the words.
var legendEntries = []struct{ key, swatch, words string }{
	{"bar-run", `<g class="lane lane-run"><rect class="bar" x="1" y="3" width="12" height="6" rx="2"/></g>`, "the run itself"},
	{"bar-subagent", `<g class="lane"><rect class="bar" x="1" y="3" width="12" height="6" rx="2"/></g>`, "subagent, completed"},
	{"bar-attempt", `<g class="lane"><rect class="bar" x="1" y="3" width="12" height="6" rx="2"/></g>`, "Workflow attempt, completed"},
	{"bar-bad", `<g class="lane bad"><rect class="bar" x="1" y="3" width="12" height="6" rx="2"/></g>`, "not completed (failed, stopped, open)"},
	{"bar-killed", `<g class="lane killed"><rect class="bar" x="1" y="3" width="12" height="6" rx="2"/></g>`, "killed"},
	{"launch", `<g class="m"><circle cx="7" cy="6" r="3.5"/></g>`, "launch"},
	{"end", `<g class="m m-end"><rect x="5.5" y="1" width="3" height="10"/></g>`, "returned"},
	{"end-bad", `<g class="m m-end src-failed"><rect x="5.5" y="1" width="3" height="10"/></g>`, "ended failed or stopped"},
	{"kill", `<g class="m m-kill"><path d="M3 2l8 8M11 2l-8 8"/></g>`, "kill"},
	{"quiet", `<g class="m m-quiet"><rect x="1" y="3" width="12" height="6"/></g>`, "quiet stretch"},
	{"watchdog-watch", `<g class="m m-watchdog src-watch"><path d="M7 1l5 5-5 5-5-5z"/></g>`, "watch event"},
	{"watchdog-other", `<g class="m m-watchdog"><path d="M7 1l5 5-5 5-5-5z"/></g>`, "ProgressWatch event"},
	{"watchdog-harness", `<g class="m m-watchdog src-harness"><path d="M7 1l5 5-5 5-5-5z"/></g>`, "executor-harness watchdog event"},
	{"watchdog-workflow-runtime", `<g class="m m-watchdog src-workflow-runtime"><path d="M7 1l5 5-5 5-5-5z"/></g>`, "Workflow runtime event"},
	{"ship", `<g class="m m-ship"><path d="M7 1l6 10H1z"/></g>`, "ship action"},
	{"review", `<g class="m m-review"><path d="M2 6l3 3 7-7"/></g>`, "review"},
	{"fold", `<g class="fold"><path d="M4 1l3 5-3 5M8 1l3 5-3 5"/></g>`, "idle time folded (hover for how long)"},
}

// writeLegend writes one legend entry per colour and mark the timelines
// drew, none for what they did not.
func writeLegend(b *strings.Builder, keys legendKeys) {
	b.WriteString("<p class=\"legend\">Timelines run on the simulated clock (UTC). One lane per subagent or Workflow attempt; the first lane is the run itself. Hover a lane or a mark for details.</p>\n<ul class=\"legend\">")
	for _, e := range legendEntries {
		if keys[e.key] {
			fmt.Fprintf(b, "<li data-key=\"%s\"><svg class=\"key\" width=\"14\" height=\"12\" aria-hidden=\"true\">%s</svg> %s</li>", e.key, e.swatch, e.words)
		}
	}
	b.WriteString("</ul>\n")
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }

func rfc(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// cssClass keeps a class name to [a-z0-9-] (outcome and source names are
// pmcheck's own, but a saved report can be edited).
func cssClass(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') || r == '-' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func truncateLabel(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= labelRune {
		return s
	}
	n := 0
	for i := range s {
		if n == labelRune-1 {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// esc makes text safe as HTML element content or a quoted attribute value:
// control characters, invalid UTF-8 and bidirectional formatting characters
// become visible escapes, then &, <, >, " and ' are escaped.
func esc(s string) string {
	return html.EscapeString(htmlVisible(s))
}

// escLines is esc with newlines kept as <br>.
func escLines(s string) string {
	return strings.ReplaceAll(esc(s), "\n", "<br>\n")
}

func htmlVisible(s string) string {
	s = visible(s)
	if !strings.ContainsFunc(s, isHTMLBidi) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if isHTMLBidi(r) {
			fmt.Fprintf(&b, `\u%04x`, r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// isHTMLBidi: the bidi embeddings, overrides and isolates, and the marks.
func isHTMLBidi(r rune) bool {
	return isBidiControl(r) || r == 0x200e || r == 0x200f || r == 0x061c
}

// htmlScript only adds behaviour: severity filters and highlighting a
// finding's lane when its link is hovered. The page reads the same without it.
const htmlScript = `(function(){var d=document;d.documentElement.className+=" js";` +
	`var f=d.querySelector(".filters");if(f){f.hidden=false;f.addEventListener("change",function(){` +
	`var on={};f.querySelectorAll("input").forEach(function(i){on[i.dataset.sev]=i.checked});` +
	`d.querySelectorAll("article.finding").forEach(function(a){a.hidden=!on[a.dataset.sev]})})}` +
	`d.querySelectorAll("a.to-timeline").forEach(function(a){var t=d.getElementById(a.getAttribute("href").slice(1));if(!t)return;` +
	`a.addEventListener("mouseenter",function(){t.classList.add("hl")});a.addEventListener("mouseleave",function(){t.classList.remove("hl")})})})();`

var htmlScriptHash = func() string {
	h := sha256.Sum256([]byte(htmlScript))
	return "sha256-" + base64.StdEncoding.EncodeToString(h[:])
}()

const htmlCSS = `
:root{--fg:#1d232a;--muted:#5b6570;--bg:#fff;--line:#d8dde3;--err:#b3261e;--warn:#9a6700;--note:#2f5f8a;--ok:#1a7f37}
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);background:var(--bg)}
header,main,footer{max-width:1180px;margin:0 auto;padding:0 20px}
header{padding-top:18px;border-bottom:1px solid var(--line)}
h1{font-size:24px;margin:0 0 6px}h1.failed{color:var(--err)}h1.passed{color:var(--ok)}
h2{font-size:19px;margin:26px 0 10px;border-bottom:1px solid var(--line);padding-bottom:4px}
h3{font-size:16px;margin:0 0 6px}
code{font:13px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;overflow-wrap:anywhere}
nav{margin:8px 0 12px}a{color:#0b5cad}
.counts span{font-weight:600}.sev-error .sev,span.sev-error{color:var(--err)}.sev-warning .sev,span.sev-warning{color:var(--warn)}.sev-note .sev,span.sev-note{color:var(--note)}
.sev{text-transform:uppercase;font-size:12px;font-weight:700;letter-spacing:.04em}
article.finding{border:1px solid var(--line);border-left:5px solid var(--note);border-radius:6px;padding:10px 14px;margin:0 0 12px}
article.sev-error{border-left-color:var(--err)}article.sev-warning{border-left-color:var(--warn)}
.supp{font-size:12px;color:var(--muted);border:1px solid var(--line);border-radius:10px;padding:0 6px}
.msg{margin:4px 0 8px;overflow-wrap:anywhere}
dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;margin:0 0 6px;font-size:14px}dt{color:var(--muted)}dd{margin:0}dd ul{margin:0;padding-left:18px}
ol.chain{margin:6px 0;padding-left:22px;font-size:14px}ol.chain .t{color:var(--muted);font-variant-numeric:tabular-nums}
.ev{margin:2px 0;font-size:14px;overflow-wrap:anywhere}
details{margin:6px 0}summary{cursor:pointer;color:var(--muted)}.help{white-space:normal;font-size:14px;padding:4px 0 0 12px}
.more,.legend{color:var(--muted);font-size:14px}
q.excerpt{display:block;font:12px/1.4 ui-monospace,monospace;color:var(--muted);overflow-wrap:anywhere;quotes:none}
h3 .sub{font-weight:400;color:var(--muted);font-size:14px}
ul.legend{list-style:none;padding:0;margin:0 0 10px;display:flex;flex-wrap:wrap;gap:2px 14px}
.tl{overflow-x:auto}.tl svg.timeline{min-width:900px}
.fold path{stroke:var(--muted);stroke-width:1.2;fill:none}.fold rect{fill:#eef1f4}
section.run{margin:0 0 22px}
svg.timeline{width:100%;height:auto;display:block;border:1px solid var(--line);border-radius:4px;background:#fbfcfd}
svg.key{vertical-align:middle}
.axis line{stroke:#e6e9ed;stroke-width:1}.axis text.clip{text-anchor:end;font-style:italic}.m.beyond{opacity:.55}.axis text{font:10px ui-monospace,monospace;fill:var(--muted);text-anchor:middle}
.lane .label{font:11px system-ui,sans-serif;fill:var(--fg)}
.lane .bar{fill:#9cc3e6}.lane-run .bar{fill:#d5dbe1}.lane.bad .bar{fill:#f0c36d}.lane.killed .bar{fill:#f3a19b}
.m circle{fill:#fff;stroke:#2f5f8a;stroke-width:1.5}.m-end rect{fill:var(--ok)}.m-end.src-failed rect,.m-end.src-stopped rect{fill:var(--warn)}
.m-kill path,path.m-kill{stroke:var(--err);stroke-width:2.2;fill:none}
.m-quiet rect,rect.m-quiet{fill:#8a94a0;fill-opacity:.35}
.m-watchdog path,path.m-watchdog{fill:#6f42c1}.src-harness path{fill:#bf3989}.src-workflow-runtime path{fill:#0969da}.src-watch path{fill:#57606a}
.m-ship path,path.m-ship{fill:#cf222e}.m-review path,path.m-review{stroke:var(--ok);stroke-width:2.2;fill:none}
.lane:target .bar,.lane.hl .bar,.m:target path,.m.hl path{stroke:#111;stroke-width:2}
footer{color:var(--muted);font-size:13px;border-top:1px solid var(--line);margin-top:30px;padding:10px 20px 30px}
`
