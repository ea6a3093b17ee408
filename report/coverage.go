package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pmcheck/pmcheck/analyze/model"
)

// Coverage says which commits of the range under check (`--commits`) were
// traced to the runs that made them: every format shows it, so a pull
// request whose runs were never given cannot pass as an audited one.
type Coverage struct {
	// Range is BASE..HEAD as given; Base and Head the full ids.
	Range string `json:"range"`
	Base  string `json:"base"`
	Head  string `json:"head"`
	// Summary is the sentence every format shows.
	Summary string `json:"summary"`
	Commits int    `json:"commits"`
	// ByAgent counts the commits a trailer or a link says an agent made;
	// Traced those linked to a run of the input, Runs the distinct runs they
	// are linked to.
	ByAgent int `json:"by_agent"`
	Traced  int `json:"traced"`
	Runs    int `json:"runs"`
	// CheckpointMissing counts the commits naming a checkpoint that cannot be
	// read; AgentWithoutRun the agent commits linked to no run (and naming
	// no missing checkpoint); NoAgentEvidence the commits nothing links to an
	// agent.
	CheckpointMissing int `json:"checkpoint_missing"`
	AgentWithoutRun   int `json:"agent_without_run"`
	NoAgentEvidence   int `json:"no_agent_evidence"`
	// List holds every commit of the range, oldest first.
	List []CoverageCommit `json:"list"`
	// PullRequests are the pull requests the runs name (pr-link rows, a
	// gitOperation's pr), by run: evidence that ties a run to a pull
	// request, not to a commit.
	PullRequests []CoveragePR `json:"pull_requests"`
}

// CoveragePR is one pull request a run names.
type CoveragePR struct {
	Run        string         `json:"run"`
	Number     int            `json:"number,omitempty"`
	URL        string         `json:"url,omitempty"`
	Repository string         `json:"repository,omitempty"`
	By         string         `json:"by"`
	At         model.Evidence `json:"at"`
}

func (p CoveragePR) text() string {
	s := "pull request"
	if p.Number > 0 {
		s += fmt.Sprintf(" #%d", p.Number)
	}
	if p.Repository != "" {
		s += " of " + p.Repository
	}
	if p.URL != "" {
		s += " (" + p.URL + ")"
	}
	return s
}

// CoverageCommit is one commit of the range, as coverage shows it.
type CoverageCommit struct {
	SHA       string `json:"sha"`
	Subject   string `json:"subject"`
	Author    string `json:"author"`
	Committer string `json:"committer"`
	// ByAgent: a trailer or a link says an agent made it.
	ByAgent bool `json:"by_agent"`
	// Status: traced, checkpoint-missing, agent-without-run or
	// no-agent-evidence.
	Status             string             `json:"status"`
	Checkpoints        []string           `json:"checkpoints"`
	CheckpointProblems []string           `json:"checkpoint_problems"`
	Links              []model.CommitLink `json:"links"`
}

// Coverage statuses.
const (
	StatusTraced            = "traced"
	StatusCheckpointMissing = "checkpoint-missing"
	StatusAgentWithoutRun   = "agent-without-run"
	StatusNoAgentEvidence   = "no-agent-evidence"
)

// NewCoverage sums up the commit facts of a range.
func NewCoverage(spec, base, head string, commits []model.CommitFact, prs []CoveragePR) *Coverage {
	c := &Coverage{Range: spec, Base: base, Head: head, Commits: len(commits), List: make([]CoverageCommit, 0, len(commits)), PullRequests: prs}
	if c.PullRequests == nil {
		c.PullRequests = []CoveragePR{}
	}
	runs := map[string]bool{}
	for _, f := range commits {
		cc := CoverageCommit{SHA: f.SHA, Subject: f.Subject, Author: f.Author, Committer: f.Committer, ByAgent: f.ByAgent, Checkpoints: nonNilStrings(f.Checkpoints),
			CheckpointProblems: nonNilStrings(f.CheckpointProblems), Links: f.Links}
		if cc.Links == nil {
			cc.Links = []model.CommitLink{}
		}
		if f.ByAgent {
			c.ByAgent++
		}
		switch {
		case len(f.CheckpointsMissing) > 0:
			cc.Status = StatusCheckpointMissing
			c.CheckpointMissing++
		case len(f.Runs) > 0:
			cc.Status = StatusTraced
			c.Traced++
		case f.ByAgent:
			cc.Status = StatusAgentWithoutRun
			c.AgentWithoutRun++
		default:
			cc.Status = StatusNoAgentEvidence
			c.NoAgentEvidence++
		}
		for _, r := range f.Runs {
			runs[r] = true
		}
		c.List = append(c.List, cc)
	}
	c.Runs = len(runs)
	c.Summary = c.sentence()
	return c
}

// sentence: "14 commits: 11 traced to 3 runs, 1 checkpoint missing, 2 with
// no agent evidence"; "0 of 5 commits made by agents" when nothing links
// any commit to an agent.
func (c *Coverage) sentence() string {
	if c.ByAgent == 0 {
		return fmt.Sprintf("0 of %s made by agents", plural(c.Commits, "commit"))
	}
	parts := []string{fmt.Sprintf("%d traced to %s", c.Traced, plural(c.Runs, "run"))}
	if c.CheckpointMissing > 0 {
		parts = append(parts, fmt.Sprintf("%d checkpoint missing", c.CheckpointMissing))
	}
	if c.AgentWithoutRun > 0 {
		parts = append(parts, fmt.Sprintf("%d made by an agent whose run is not in the input", c.AgentWithoutRun))
	}
	if c.NoAgentEvidence > 0 {
		parts = append(parts, fmt.Sprintf("%d with no agent evidence", c.NoAgentEvidence))
	}
	return plural(c.Commits, "commit") + ": " + strings.Join(parts, ", ")
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// shortSHA is a commit id as tables show it.
func shortSHA(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// linkText is a commit's links, as one line: "run <id> (entire-checkpoint)".
func (c CoverageCommit) linkText() string {
	var parts []string
	for _, l := range c.Links {
		s := l.Run + " (" + l.By + ")"
		if !slices.Contains(parts, s) {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, ", ")
}

// textCoverage is coverage's block in the text report.
func textCoverage(doc *Document) string {
	c := doc.Coverage
	if c == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "coverage of %s: %s\n", singleLine(c.Range), singleLine(c.Summary))
	for _, cc := range c.List {
		if cc.Status == StatusNoAgentEvidence {
			continue
		}
		fmt.Fprintf(&b, "  %s %s  %s", shortSHA(cc.SHA), cc.Status, singleLine(cc.Subject))
		if t := cc.linkText(); t != "" {
			fmt.Fprintf(&b, "  [%s]", singleLine(t))
		}
		b.WriteString("\n")
	}
	for _, p := range c.PullRequests {
		fmt.Fprintf(&b, "  run %s names %s (%s at %s)\n", singleLine(p.Run), singleLine(p.text()), p.By, location(doc.displayPath(p.At.File), p.At.Line))
	}
	b.WriteString("\n")
	return b.String()
}

// markdownCoverage is coverage's section in the job summary.
func markdownCoverage(doc *Document) string {
	c := doc.Coverage
	if c == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "### Coverage of %s\n\n%s.\n\n", mdCell(c.Range), mdCell(c.Summary))
	if len(c.List) > 0 {
		b.WriteString("| commit | status | subject | runs (evidence) |\n|---|---|---|---|\n")
		for i, cc := range c.List {
			if i == markdownMaxListed {
				fmt.Fprintf(&b, "\n… and %d more commits (see the JSON report).\n", len(c.List)-i)
				break
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", shortSHA(cc.SHA), cc.Status, mdCell(cc.Subject), mdCell(cc.linkText()))
		}
		b.WriteString("\n")
	}
	for i, p := range c.PullRequests {
		if i == markdownMaxListed {
			break
		}
		fmt.Fprintf(&b, "- run %s names %s (%s)\n", mdCell(p.Run), mdCell(p.text()), p.By)
	}
	if len(c.PullRequests) > 0 {
		b.WriteString("\n")
	}
	return b.String()
}

// htmlCoverage is coverage's section of the HTML page: a table of the
// commits with their runs, each linked to its timeline.
func htmlCoverage(doc *Document) string {
	c := doc.Coverage
	if c == nil {
		return ""
	}
	anchor := map[string]int{}
	for i := len(doc.Facts) - 1; i >= 0; i-- {
		anchor[doc.Facts[i].Run.ID] = i
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<section id=\"coverage\"><h2>Coverage of <code>%s</code></h2>\n<p>%s.</p>\n", esc(c.Range), esc(c.Summary))
	b.WriteString("<table><thead><tr><th>commit</th><th>status</th><th>subject</th><th>author</th><th>runs (evidence)</th></tr></thead><tbody>\n")
	for i, cc := range c.List {
		if i == htmlMaxFindings {
			fmt.Fprintf(&b, "<tr><td colspan=\"5\">… and %d more commits (see the JSON report)</td></tr>\n", len(c.List)-i)
			break
		}
		fmt.Fprintf(&b, "<tr class=\"%s\"><td><code>%s</code></td><td>%s</td><td>%s</td><td>%s</td><td>", esc(cc.Status), esc(shortSHA(cc.SHA)), esc(cc.Status), esc(cc.Subject), esc(cc.Author))
		for j, l := range cc.Links {
			if j > 0 {
				b.WriteString(", ")
			}
			if ri, ok := anchor[l.Run]; ok {
				fmt.Fprintf(&b, "<a href=\"#run%d\"><code>%s</code></a> (%s)", ri, esc(l.Run), esc(l.By))
			} else {
				fmt.Fprintf(&b, "<code>%s</code> (%s)", esc(l.Run), esc(l.By))
			}
		}
		for _, p := range cc.CheckpointProblems {
			fmt.Fprintf(&b, "<br>checkpoint %s", esc(p))
		}
		b.WriteString("</td></tr>\n")
	}
	b.WriteString("</tbody></table>\n")
	if len(c.PullRequests) > 0 {
		b.WriteString("<ul>\n")
		for i, p := range c.PullRequests {
			if i == markdownMaxListed {
				fmt.Fprintf(&b, "<li>… and %d more</li>\n", len(c.PullRequests)-i)
				break
			}
			run := "<code>" + esc(p.Run) + "</code>"
			if ri, ok := anchor[p.Run]; ok {
				run = fmt.Sprintf("<a href=\"#run%d\">%s</a>", ri, run)
			}
			fmt.Fprintf(&b, "<li>run %s names %s (%s)</li>\n", run, esc(p.text()), esc(p.By))
		}
		b.WriteString("</ul>\n")
	}
	b.WriteString("</section>\n")
	return b.String()
}

// sarifCoverage is coverage in SARIF's run properties: the counts and the
// sentence, and the commits that are not traced.
type sarifCoverage struct {
	Range             string   `json:"range"`
	Summary           string   `json:"summary"`
	Commits           int      `json:"commits"`
	ByAgent           int      `json:"byAgent"`
	Traced            int      `json:"traced"`
	Runs              int      `json:"runs"`
	CheckpointMissing []string `json:"checkpointMissing"`
	AgentWithoutRun   []string `json:"agentWithoutRun"`
}

func newSarifCoverage(c *Coverage) *sarifCoverage {
	if c == nil {
		return nil
	}
	s := &sarifCoverage{Range: c.Range, Summary: c.Summary, Commits: c.Commits, ByAgent: c.ByAgent, Traced: c.Traced, Runs: c.Runs,
		CheckpointMissing: []string{}, AgentWithoutRun: []string{}}
	for _, cc := range c.List {
		switch cc.Status {
		case StatusCheckpointMissing:
			s.CheckpointMissing = append(s.CheckpointMissing, cc.SHA)
		case StatusAgentWithoutRun:
			s.AgentWithoutRun = append(s.AgentWithoutRun, cc.SHA)
		}
	}
	return s
}

// junitCoverage is the coverage testsuite: one testcase per commit, failing
// when the commit names a checkpoint that cannot be read; an agent commit
// whose run is not in the input passes with a note (the warning rule says
// so too).
func junitCoverage(c *Coverage) *junitSuite {
	if c == nil {
		return nil
	}
	s := &junitSuite{Name: xmlText("coverage " + singleLine(c.Range)), Time: "0",
		Properties: []junitProperty{{Name: "summary", Value: xmlText(c.Summary)}}}
	for _, cc := range c.List {
		tc := junitCase{Name: xmlText(shortSHA(cc.SHA) + " " + singleLine(cc.Subject)), Classname: "commit", Time: "0"}
		switch cc.Status {
		case StatusCheckpointMissing:
			tc.Failure = &junitResult{Message: xmlText("checkpoint missing: " + strings.Join(cc.CheckpointProblems, "; ")), Type: StatusCheckpointMissing}
			s.Failures++
		default:
			out := cc.Status
			if t := cc.linkText(); t != "" {
				out += ": " + t
			}
			tc.SystemOut = &junitCharBox{Body: xmlText(out)}
		}
		s.Tests++
		s.Cases = append(s.Cases, tc)
	}
	return s
}
