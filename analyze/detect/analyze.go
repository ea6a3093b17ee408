// Package detect derives the facts rules see from one linked run: killed synchronous and asynchronous subagents
// (resume-gate Signatures A and B, windowed to the current resume segment),
// Workflow attempt outcomes, the work ledger of each attempt and subagent,
// ship actions and what was outstanding when each ran, review evidence, and
// the join with the branch under check. docs/detectors.md explains every
// inference.
//
// The detectors read only model values; they never touch the disk (the git
// join is read beforehand by package gitjoin and passed in Options).
package detect

import (
	"sort"
	"strconv"
	"strings"

	"github.com/pmcheck/pmcheck/analyze/detect/gitjoin"
	"github.com/pmcheck/pmcheck/analyze/detect/ship"
	"github.com/pmcheck/pmcheck/analyze/model"
)

// DefaultPublishTools are the non-Bash tools that publish client-facing
// output when no list is configured (the resume-gate installer's list).
var DefaultPublishTools = []string{
	"Artifact",
	"ShareOnboardingGuide",
	"DesignSync",
	"mcp__claude_ai_Atlassian__createConfluencePage",
	"mcp__claude_ai_Atlassian__updateConfluencePage",
	"mcp__claude_ai_Google_Drive__create_file",
	"mcp__claude_ai_Gmail__create_draft",
}

// DefaultReviewTrailers name the commit trailers that record a review.
var DefaultReviewTrailers = []string{"Reviewed-Killed-Agent"}

// DefaultReviewerKeywords identify a review subagent by its description or
// subagent type.
var DefaultReviewerKeywords = []string{"review"}

// Options configure the detectors. A nil list means its default; an empty,
// non-nil list switches that source off.
type Options struct {
	// PublishTools are tool names (path.Match patterns allowed, e.g.
	// "mcp__*__publish*") whose calls are publish actions.
	PublishTools []string
	// DeployLabels are the labels whose `gh pr edit --add-label` deploys.
	DeployLabels []string
	Review       ReviewOptions
	// Git is the branch under check (from gitjoin.Join), nil when not given.
	Git *gitjoin.Branch
	// Classifications, when set, caches shell-command classifications
	// across the runs analysed with these options (classcache.go).
	Classifications *Classifications
	// UnreadChildIsUnknown: a subagent launched without a transcript of its
	// own in the input did work nobody can list, so its ledger is partial
	// (a range check, where checkpoints may not store subagent
	// transcripts: what is known is the parent's rows, and the facts say
	// so). Off, such a subagent's ledger is empty, as before.
	UnreadChildIsUnknown bool
}

// ReviewOptions say what counts as evidence that a killed subagent's or
// attempt's work was reviewed.
type ReviewOptions struct {
	// Trailers are commit-trailer keys on the branch under check whose value
	// names the agent (its id, tool-use id or description).
	Trailers []string
	// FilePatterns are path.Match patterns for review files; "{agent}" stands
	// for the agent id or tool-use id. A pattern without it must match a path
	// that contains one of them.
	FilePatterns []string
	// ReviewerKeywords identify a review subagent: a word of its description
	// or subagent type starts with one (so "review" names "Review the
	// parser" and "code-reviewer", not "Preview docs").
	ReviewerKeywords []string
	// AgentAuthors, when set (non-nil), is the strict mode for a required
	// check: only evidence the agent cannot write itself counts. Review
	// subagents and review files (which the agent's own transcripts or
	// branch could hold) do not; a trailer counts only on a commit whose
	// signature verified (gitjoin.Commit.Verified) and whose author and
	// committer e-mail match none of these path.Match patterns (the
	// agent's git identities). An empty list counts every signed author.
	AgentAuthors []string
}

// WithDefaults fills every nil list with its default: the options the
// detectors actually use, which reports show.
func (o Options) WithDefaults() Options {
	if o.PublishTools == nil {
		o.PublishTools = DefaultPublishTools
	}
	if o.Review.Trailers == nil {
		o.Review.Trailers = DefaultReviewTrailers
	}
	if o.Review.ReviewerKeywords == nil {
		o.Review.ReviewerKeywords = DefaultReviewerKeywords
	}
	return o
}

type analysis struct {
	run      *model.Run
	opts     Options
	shipOpts ship.Options
	// classified caches each Bash call's parse: the ledgers and the ship
	// facts all read it, and parsing is the costliest step per call. It
	// maps a call to its analysis in found; analyses without lists (most:
	// "may write", or nothing found) are stored once and shared (plain), as
	// a transcript has tens of thousands of shell calls and an 80-byte
	// analysis for each cost a 1 GiB transcript's check 17 MiB.
	classified map[*model.ToolCall]int32
	found      []ship.Analysis
	plains     []plainFound // the first plainScanMax, then plain
	plain      map[plainAnalysis]int32
	// byCommand finds a command classified on demand before (a run too
	// small for preclassify still repeats its test command).
	byCommand map[string]int32
}

// Analyze derives the facts of one run. Watchdog facts are the replay's and
// are left empty here.
func Analyze(run *model.Run, opts Options) model.Facts {
	a := &analysis{run: run, opts: opts.WithDefaults()}
	a.shipOpts = ShipOptions(run, a.opts.DeployLabels) // aliases.go
	a.classified = map[*model.ToolCall]int32{}
	a.preclassify()
	if run == nil {
		return model.Facts{Attempts: []model.AttemptFact{}, Subagents: []model.SubagentFact{}, Ships: []model.ShipFact{}, Watchdogs: []model.WatchdogFact{}}
	}
	return a.runSteps(factsStep).facts
}

// before reports whether evidence x precedes y: by line in the same file,
// else by simulated time. When the order cannot be known it returns unknown
// (callers choose the direction that reports rather than hides).
func before(x, y model.Evidence, unknown bool) bool {
	if x.File == y.File && x.File != "" {
		return x.Line < y.Line
	}
	if x.Time.IsZero() || y.Time.IsZero() {
		return unknown
	}
	return !x.Time.After(y.Time)
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

func equalsAnyFold(v string, list []string) bool {
	v = strings.TrimSpace(v)
	for _, x := range list {
		if strings.EqualFold(v, strings.TrimSpace(x)) {
			return true
		}
	}
	return false
}

func uniqueSorted(s []string) []string {
	m := map[string]bool{}
	var out []string
	for _, x := range s {
		if !m[x] {
			m[x] = true
			out = append(out, x)
		}
	}
	sort.Strings(out)
	return out
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func nonNilReasons(r []model.Reason) []model.Reason {
	if r == nil {
		return []model.Reason{}
	}
	return r
}

func short(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

func quote(s string) string { return `"` + s + `"` }

func loc(e model.Evidence) string {
	return e.File + ":" + strconv.Itoa(e.Line)
}
