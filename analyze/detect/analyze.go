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
	"cmp"
	"path"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"

	"github.com/pmcheck/pmcheck/analyze/detect/gitjoin"
	"github.com/pmcheck/pmcheck/analyze/detect/ship"
	"github.com/pmcheck/pmcheck/analyze/interpret"
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

// killedItem is one killed (or otherwise unreturned) subagent or attempt whose
// work is at risk until reviewed.
type killedItem struct {
	kind      string // "subagent" | "attempt"
	id        string // agent id
	toolUseID string
	name      string // description or agent name
	key       string
	ledger    *Ledger        // read only; attempts without a transcript share noWork
	known     model.Evidence // when the kill became visible in the files
	evidence  []string
	// reviewedAt is the earliest review subagent's completion when no
	// evidence is timeless.
	reviewedAt *model.Evidence
	// matches are the branch commits and paths that set onBranch.
	matches []string
	// reviews are the review subagents' completion rows.
	reviews []model.Reason
	// timeless is true when some evidence has no time (trailer, file).
	timeless bool
	onBranch bool
	shipped  bool // a ship action ran after the kill
}

func (k *killedItem) reviewed() bool { return k.timeless || k.reviewedAt != nil }

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

// plainScanMax is how many plain analyses a run lists before it indexes
// them: most runs have one or two (a map of one cost each of a fleet's runs
// 300 bytes).
const plainScanMax = 8

type plainFound struct {
	k plainAnalysis
	i int32
}

// plainOf finds a plain analysis stored before.
func (a *analysis) plainOf(k plainAnalysis) (int32, bool) {
	if a.plain != nil {
		i, ok := a.plain[k]
		return i, ok
	}
	for _, p := range a.plains {
		if p.k == k {
			return p.i, true
		}
	}
	return 0, false
}

// plainAnalysis is a ship.Analysis without lists, as a map key.
type plainAnalysis struct {
	mayWrite      bool
	mayShip       bool
	commits       int
	parseError    string
	gitNotBuiltin bool
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
	return a.runSteps(factsStep).(model.Facts)
}

// runFact is the run step: the run's own fact (Shipped is the ships step's).
func runFact(a *pass) any {
	run := a.run
	f := model.RunFact{Kind: run.Kind, ID: run.ID, Path: run.Path, Attempts: len(run.Attempts), Segments: 1}
	f.At = model.Evidence{File: run.Path}
	if run.Main != nil && run.Kind == model.KindSession {
		f.At = model.Evidence{File: run.Main.File, Line: run.Main.FirstRowLine, Time: run.Main.FirstTime}
		f.Segments = ReadSegments(run.Main).Count
		f.Branch = run.Main.GitBranch
	}
	if run.Kind == model.KindWorkflow {
		f.Agents = model.AgentsOf(run.Attempts)
	} else {
		for _, sc := range run.Subagents {
			if !model.CopiedCall(sc) {
				f.Agents++
			}
		}
	}
	for _, t := range a.transcripts() {
		// Count the lines that were skipped, as scan and the report's
		// inputs do; a row read with replacement characters is not lost.
		f.Malformed += t.MalformedSkipped
		if !t.FirstTime.IsZero() && (f.Start.IsZero() || t.FirstTime.Before(f.Start)) {
			f.Start = t.FirstTime
		}
		if t.LastTime.After(f.End) {
			f.End = t.LastTime
		}
	}
	if run.Journal != nil {
		f.Malformed += run.Journal.MalformedCount
	}
	if a.opts.Git != nil {
		f.Branch = a.opts.Git.Name
	}
	return &f
}

// transcripts are the run's files in a fixed order: main, agents, attempts.
func (a *analysis) transcripts() []*model.Transcript { return runTranscripts(a.run) }

// runTranscripts are run's files in a fixed order: main (of a session),
// agents, attempts.
func runTranscripts(run *model.Run) []*model.Transcript {
	var out []*model.Transcript
	seen := map[*model.Transcript]bool{}
	add := func(t *model.Transcript) {
		if t != nil && !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	if run.Kind == model.KindSession {
		add(run.Main)
	}
	for _, t := range run.Agents {
		add(t)
	}
	for _, at := range run.Attempts {
		add(at.Transcript)
	}
	return out
}

// subagentFacts is the subagents step: one fact per Agent/Task call, with
// the resume-gate scan of the transcript that owns it.
func subagentFacts(a *pass) any {
	res := &subagentResult{entries: make([]subagentEntry, 0, len(a.run.Subagents))}
	run := a.run
	owners := map[string]*model.Transcript{}
	for _, t := range append([]*model.Transcript{run.Main}, run.Agents...) {
		if t != nil {
			owners[t.File] = t
		}
	}
	scans := map[string]*ownerScan{}
	var byT map[*model.Transcript]*ownerScan // only an SDK stream's run fills it
	for _, sc := range run.Subagents {
		owner := owners[sc.Owner]
		scan, ok := scans[sc.Owner]
		if t := sc.OwnerTranscript; t != nil {
			// An SDK stream's transcripts share one file name.
			owner = t
			scan, ok = byT[t]
		}
		if !ok {
			scan = newOwnerScan(owner)
			if sc.OwnerTranscript != nil {
				if byT == nil {
					byT = map[*model.Transcript]*ownerScan{}
				}
				byT[owner] = scan
			} else {
				scans[sc.Owner] = scan
			}
		}
		f := model.SubagentFact{
			RunID: run.ID, ToolUseID: sc.ToolUseID, Description: sc.Description, Mode: sc.Mode,
			AgentID: sc.AgentID, Time: sc.At.Time, At: sc.At,
			Segment: scan.segmentOf(sc.At.Line),
		}
		f.InLastSegment = f.Segment == scan.Segments.Count
		end := interpret.SubagentOutcome(sc, scan.pollsOf(owner, sc.AgentID))
		f.Outcome = end.Outcome
		known := end.At
		f.Reasons = subagentReasons(sc, end)
		if h, ok := scan.hitOf(sc.ToolUseID); ok {
			f.Signature, f.Rule = h.Signature, h.Rule
			known = h.At
			f.Reasons = append(f.Reasons, model.Reason{What: "Signature " + h.Signature + " (" + h.Rule + ")", At: h.At})
		}
		f.End = subagentEnd(sc, known)
		if sc.Result != nil && SignatureA(sc.Result) {
			// The notice proves a kill even outside the current segment.
			f.Outcome = OutcomeTerminatedEarly
		}
		f.Killed = interpret.TerminatedEarly(f.Outcome, sc.Mode) || f.Signature != ""
		if f.Outcome == OutcomeCompleted && sc.Child != nil {
			e := interpret.EndingOf(sc.Child)
			f.FalseDone = e.Failed()
			if f.FalseDone {
				f.Reasons = append(f.Reasons, model.Reason{What: "transcript ends: " + e.Phrase(), At: e.At})
			}
		}
		l := ledgerOf(sc.Child, a.classify)
		if sc.Child == nil && a.opts.UnreadChildIsUnknown && f.Outcome != OutcomeRejected {
			l.Partial, l.CommitsUnknown = true, true
			f.Reasons = append(f.Reasons, model.Reason{What: "no transcript of its own in the input: its work is known only from the parent's rows", At: f.At})
		}
		f.Paths, f.PathsPartial, f.Commits, f.CommitsUnknown = l.Paths, l.Partial, l.Commits, l.CommitsUnknown
		var item *killedItem
		// A kill whose report the parent consumed is not work at risk
		// (interpret.Consumed); a false done always is.
		if f.Killed && !scan.consumed(owner, sc.ToolUseID) || f.FalseDone {
			name := sc.Description
			if name == "" {
				name = noDescription
			}
			item = &killedItem{kind: "subagent", id: sc.AgentID, toolUseID: sc.ToolUseID, name: name, ledger: &l, known: known}
		} else if sc.Child != nil {
			res.written = append(res.written, l.Paths...)
		}
		res.entries = append(res.entries, subagentEntry{call: sc, fact: f, item: item})
	}
	if run.Kind == model.KindSession && run.Main != nil {
		res.written = append(res.written, ledgerOf(run.Main, a.classify).Paths...)
	}
	if countLookups != nil {
		n := 0
		for _, s := range scans {
			n += s.visits
		}
		countLookups(n)
	}
	return res
}

// names are the strings that identify an item in a trailer or a prompt.
func (k *killedItem) names() []string {
	var out []string
	for _, s := range []string{k.id, k.toolUseID, k.name} {
		if s != "" && s != noDescription {
			out = append(out, s)
		}
	}
	return out
}

// namedBy reports whether text names the item: its agent id or tool-use id
// (at least 7 characters) anywhere, or its whole description (at least 8
// characters), case-insensitively.
func (k *killedItem) namedBy(text string) bool {
	low := strings.ToLower(text)
	for _, s := range []string{k.id, k.toolUseID} {
		if len(s) >= 7 && strings.Contains(low, strings.ToLower(s)) {
			return true
		}
	}
	if k.kind == "subagent" && len(k.name) >= 8 && k.name != noDescription && strings.Contains(low, strings.ToLower(k.name)) {
		return true
	}
	return false
}

// reviewEvidence is the review step: it collects the configured evidence
// for every item (timeless, reviewedAt, evidence, reviews). Each trailer and
// each review subagent's prompt is read once, through a name index of all
// items, so the cost follows the texts' size, not items × texts.
func reviewEvidence(a *pass) any {
	ro := a.opts.Review
	subs := a.resultOf(subagentsStep).(*subagentResult)
	killed := a.killedOf()
	if len(killed) == 0 {
		return nil
	}
	// The index is built for the first text to search: a run without
	// trailers or review subagents need not index thousands of names.
	var idx *nameIndex
	named := func(text string, exact bool) []int {
		if idx == nil {
			idx = newNameIndex(killed)
		}
		return idx.named(text, exact)
	}
	strict := ro.AgentAuthors != nil
	// Commit trailers on the branch under check, in commit order.
	if a.opts.Git != nil {
		for _, c := range a.opts.Git.Commits {
			if strict && (agentAuthored(c, ro.AgentAuthors) || !c.Verified) {
				// The agent could have written this trailer itself: an
				// e-mail is self-asserted, so only a commit whose
				// signature verifies (gitjoin.VerifySignatures) is
				// another's.
				continue
			}
			for _, tr := range c.Trailers {
				if !containsFold(ro.Trailers, tr.Key) {
					continue
				}
				for _, i := range named(tr.Value, true) {
					k := killed[i]
					k.timeless = true
					k.evidence = append(k.evidence, "trailer "+tr.Key+": "+tr.Value+" in commit "+short(c.ID))
				}
			}
		}
	}
	if strict {
		return nil // review files and review subagents are the agent's own writing
	}
	// Review files on the branch or written by work that was not killed.
	if len(ro.FilePatterns) > 0 {
		var candidates []string
		if a.opts.Git != nil {
			candidates = append(candidates, a.opts.Git.Paths...)
		}
		candidates = uniqueSorted(append(candidates, subs.written...))
		for i, hits := range reviewFiles(ro.FilePatterns, candidates, killed) {
			k := killed[i]
			for _, h := range hits {
				k.timeless = true
				k.evidence = append(k.evidence, "review file "+candidates[h.path])
			}
		}
	}
	// A later completed review subagent whose prompt names the item.
	for _, e := range subs.entries {
		sc, f := e.call, e.fact
		if f.Killed || f.FalseDone || f.Outcome != OutcomeCompleted || sc.Call == nil || !a.isReviewer(sc) {
			continue
		}
		done := sc.At
		if sc.LastNotification != nil {
			done = sc.LastNotification.At
		} else if sc.ResultAt != nil {
			done = *sc.ResultAt
		}
		for _, i := range named(sc.Call.Prompt()+"\n"+sc.Description, false) {
			k := killed[i]
			if sc.ToolUseID == k.toolUseID || !before(k.known, sc.At, false) {
				continue
			}
			if k.reviewedAt == nil || before(done, *k.reviewedAt, false) {
				d := done
				k.reviewedAt = &d
			}
			k.evidence = append(k.evidence, "review subagent "+quote(sc.Description)+" ("+sc.ToolUseID+") at "+loc(sc.At))
			k.reviews = append(k.reviews, model.Reason{What: "review subagent " + quote(sc.Description) + " completed", At: done})
		}
	}
	return nil
}

// isReviewer reports whether a word of the call's description or subagent
// type starts with a reviewer keyword. Words are runs of letters and digits,
// so "code-reviewer" and "Review the parser" match "review" and "Preview
// docs" does not: a substring test let any call whose description merely
// contains the letters pass as a review.
func (a *analysis) isReviewer(sc *model.SubagentCall) bool {
	words := strings.FieldsFunc(strings.ToLower(sc.Description+" "+sc.SubagentType), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	for _, kw := range a.opts.Review.ReviewerKeywords {
		kw = strings.ToLower(strings.TrimSpace(kw))
		if kw == "" {
			continue
		}
		for _, w := range words {
			if strings.HasPrefix(w, kw) {
				return true
			}
		}
	}
	return false
}

// agentAuthored reports whether a commit's author or committer is one of the
// agent's identities (strict review).
func agentAuthored(c gitjoin.Commit, patterns []string) bool {
	for _, p := range patterns {
		for _, e := range []string{c.AuthorEmail, c.CommitterEmail} {
			if ok, _ := path.Match(strings.ToLower(p), strings.ToLower(e)); ok {
				return true
			}
		}
	}
	return false
}

// reviewFileHit is a review file of an item: the pattern's and the path's
// positions.
type reviewFileHit struct{ pattern, path int }

// reviewFiles finds, for each item, the candidate paths that are its review
// files (reviewFileMatches), in the order of patterns and then paths. Trying
// every pattern on every path for every item cost items × paths; a match
// needs the item's agent id or tool-use id inside the path (literally:
// outside {agent}, a pattern match also requires the id as a substring, and
// an id put in for {agent} is a run of literal characters of the pattern),
// so each path is only tried for the items whose ids occur in it, found by
// looking up the path's substrings of the ids' lengths. An id with a
// character path.Match reads as a pattern (*?[\) is not literal in {agent}:
// such items are tried on every path, as before, and so is every item when
// an {agent} pattern has a bracket or an escape.
func reviewFiles(patterns, paths []string, items []*killedItem) [][]reviewFileHit {
	out := make([][]reviewFileHit, len(items))
	byID := map[string][]int{}
	var lengths []int
	// A bracket or escape in an {agent} pattern can put the id inside a
	// character class, where it is no longer literal: then every item is
	// tried on every path.
	allGlob := false
	for _, pat := range patterns {
		allGlob = allGlob || strings.Contains(pat, "{agent}") && strings.ContainsAny(pat, `[\`)
	}
	var everyPath []int
	for i, k := range items {
		glob := false
		for _, id := range []string{k.id, k.toolUseID} {
			if id == "" {
				continue
			}
			byID[id] = append(byID[id], i)
			if !slices.Contains(lengths, len(id)) {
				lengths = append(lengths, len(id))
			}
			glob = glob || strings.ContainsAny(id, `*?[\`)
		}
		if glob || allGlob {
			everyPath = append(everyPath, i)
		}
	}
	var near []int
	for pi, p := range paths {
		near = append(near[:0], everyPath...)
		for _, n := range lengths {
			for j := 0; j+n <= len(p); j++ {
				near = append(near, byID[p[j:j+n]]...)
			}
		}
		slices.Sort(near)
		near = slices.Compact(near)
		for _, i := range near {
			for ti, pat := range patterns {
				if reviewFileMatches(pat, p, items[i]) {
					out[i] = append(out[i], reviewFileHit{ti, pi})
				}
			}
		}
	}
	for _, hits := range out {
		slices.SortFunc(hits, func(a, b reviewFileHit) int {
			return cmp.Or(cmp.Compare(a.pattern, b.pattern), cmp.Compare(a.path, b.path))
		})
	}
	return out
}

// reviewFileMatches matches a review-file pattern against a path for an item.
func reviewFileMatches(pattern, p string, k *killedItem) bool {
	if strings.Contains(pattern, "{agent}") {
		for _, id := range []string{k.id, k.toolUseID} {
			if id == "" {
				continue
			}
			pat := strings.ReplaceAll(pattern, "{agent}", id)
			if ok, _ := path.Match(pat, p); ok {
				return true
			}
			if ok, _ := path.Match("*/"+pat, p); ok && !strings.HasPrefix(pat, "/") {
				return true
			}
		}
		return false
	}
	ok, _ := path.Match(pattern, p)
	return ok && ((k.id != "" && strings.Contains(p, k.id)) || (k.toolUseID != "" && strings.Contains(p, k.toolUseID)))
}

// gitJoin is the git step: it intersects the branch under check with each
// item's ledger (onBranch, matches).
func gitJoin(a *pass) any {
	b := a.opts.Git
	if b == nil {
		return nil
	}
	branchPaths, branchCommits := newSuffixIndex(b.Paths), b.CommitIDs()
	var at []int
	for _, k := range a.killedOf() {
		for _, id := range k.ledger.Commits {
			if branchCommits.Has(id) {
				k.onBranch = true
				k.matches = append(k.matches, "commit "+id)
			}
		}
		for _, lp := range k.ledger.Paths {
			at = branchPaths.matching(lp, at[:0])
			for _, i := range at {
				bp := b.Paths[i]
				k.onBranch = true
				m := "path " + bp
				if lp != bp {
					m += " (written as " + lp + ")"
				}
				k.matches = append(k.matches, m)
			}
		}
		// Work the ledger could not see (a write through an interpreter, a
		// commit that printed no id) cannot be shown to be off the branch:
		// when the branch changes anything, unknown work counts as on it.
		if (k.ledger.Partial || k.ledger.CommitsUnknown) && (len(b.Commits) > 0 || len(b.Paths) > 0) {
			k.onBranch = true
			k.matches = append(k.matches, "unknown work (a write or commit the ledger could not see) on a branch that changes files")
		}
	}
	return nil
}

// preclassify fills the classification cache on every CPU before the
// serial walk: parsing the shell commands was most of the detectors' time
// and ran on one core. Classify is a pure function of the command and the
// options, so the cache holds exactly what classify would compute, and a
// command that recurs (an agent runs its tests dozens of times) is
// classified once.
func (a *analysis) preclassify() {
	if a.run == nil {
		return
	}
	var calls []*model.ToolCall
	for _, t := range a.transcripts() {
		for _, c := range t.ToolCalls {
			if c.Name() != "Bash" || c.CommandCut() { // a cut one: classify does it
				continue
			}
			if _, ok := a.stored(c); !ok {
				calls = append(calls, c)
			}
		}
	}
	workers := runtime.GOMAXPROCS(0)
	if workers < 2 || len(calls) < 256 {
		return // a small run: classify parses on demand
	}
	// The distinct commands, and each call's among them.
	of := make([]int32, len(calls))
	var commands []string
	index := map[string]int32{}
	for i, c := range calls {
		cmd := c.Command()
		j, ok := index[cmd]
		if !ok {
			j = int32(len(commands))
			index[cmd] = j
			commands = append(commands, cmd)
		}
		of[i] = j
	}
	index = nil
	out := make([]ship.Analysis, len(commands))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(64)) - 64
				if i >= len(commands) {
					return
				}
				for j := i; j < min(i+64, len(commands)); j++ {
					out[j] = a.classifyCommand(commands[j])
				}
			}
		}()
	}
	wg.Wait()
	stored := make([]int32, len(commands)) // where each command's analysis is in found, +1
	for i, c := range calls {
		j := of[i]
		if stored[j] == 0 {
			stored[j] = a.remember(c, out[j]) + 1
		} else {
			a.classified[c] = stored[j] - 1
		}
	}
}

// classify parses a Bash call's command once per analysis, unless the
// reader classified it already.
func (a *analysis) classify(c *model.ToolCall) ship.Analysis {
	if r, ok := a.stored(c); ok {
		return r
	}
	if i, ok := a.classified[c]; ok {
		return a.found[i]
	}
	cmd := c.Command()
	if c.CommandCut() {
		// Not by its text: a complete command may read the same.
		if countClassified != nil {
			countClassified(cmd)
		}
		r := a.opts.Classifications.classify(cmd, callShipOptions(c, a.shipOpts))
		a.remember(c, r)
		return r
	}
	if i, ok := a.byCommand[cmd]; ok {
		a.classified[c] = i
		return a.found[i]
	}
	r := a.classifyCommand(cmd)
	if a.byCommand == nil {
		a.byCommand = map[string]int32{}
	}
	a.byCommand[cmd] = a.remember(c, r)
	return r
}

// stored is the classification the transcript's reader made of c's
// command (transcript.Options.Shell), when it is what ship.Classify gives
// the command with this run's options: made with the same deploy labels,
// and the run's git aliases cannot change it (ship.Reuse decides).
func (a *analysis) stored(c *model.ToolCall) (ship.Analysis, bool) { return reused(c, a.shipOpts) }

// reused is the reader's analysis of c's command when ship.Reuse accepts it
// for opts.
func reused(c *model.ToolCall, opts ship.Options) (ship.Analysis, bool) {
	r, labels, ok := c.ShellClass()
	if !ok || !ship.Reuse(r, labels, opts) {
		return ship.Analysis{}, false
	}
	return r, true
}

// callShipOptions are opts for classifying c's command: a command the
// reader cut at its cap is the head of what ran (ship.Options.Truncated).
func callShipOptions(c *model.ToolCall, opts ship.Options) ship.Options {
	opts.Truncated = c.CommandCut()
	return opts
}

// countClassified, when set (tests), is called with each command the
// detectors classify themselves rather than reuse the reader's analysis.
var countClassified func(cmd string)

// classifyCommand classifies a command with the run's options.
func (a *analysis) classifyCommand(cmd string) ship.Analysis {
	if countClassified != nil {
		countClassified(cmd)
	}
	return a.opts.Classifications.classify(cmd, a.shipOpts)
}

// remember caches a call's analysis and returns where it is in found.
func (a *analysis) remember(c *model.ToolCall, r ship.Analysis) int32 {
	if r.Actions == nil && r.Writes == nil {
		k := plainAnalysis{r.MayWrite, r.MayShip, r.Commits, r.ParseError, r.GitNotBuiltin}
		if i, ok := a.plainOf(k); ok {
			a.classified[c] = i
			return i
		}
		if len(a.plains) < plainScanMax {
			a.plains = append(a.plains, plainFound{k, int32(len(a.found))})
		} else {
			if a.plain == nil {
				a.plain = make(map[plainAnalysis]int32, 2*plainScanMax)
				for _, p := range a.plains {
					a.plain[p.k] = p.i
				}
			}
			a.plain[k] = int32(len(a.found))
		}
	}
	i := int32(len(a.found))
	a.classified[c] = i
	a.found = append(a.found, r)
	return i
}

// shipFacts is the ships step: every ship action in the run's transcripts,
// with the items outstanding when it ran (it marks them shipped). A command
// that names no ship action but is not proven harmless (ship.ShipActions)
// is a possible ship action only while a killed item is outstanding: it is
// kept only then, and marks nothing shipped (what shipped is what the
// classifier could name).
func shipFacts(a *pass) any {
	res := &shipResult{ships: []model.ShipFact{}}
	killed := a.killedOf()
	var facts []model.ShipFact
	var copied []bool
	// unproven[i]: facts[i] is a possible ship of the command of calls[i].
	var unproven []bool
	var calls []*model.ToolCall
	anyUnproven := false
	for _, t := range a.transcripts() {
		for _, c := range t.ToolCalls {
			var acts []ship.Action
			maybe := false
			switch {
			case c.Name() == "Bash":
				r := a.classify(c)
				acts = r.Actions
				if len(acts) == 0 && r.MayShip && len(killed) > 0 {
					// Its command is shown only if it is kept (below).
					acts, maybe = []ship.Action{{Kind: ship.KindShip, Possible: true}}, true
					anyUnproven = true
				}
			case a.isPublishTool(c.Name()):
				acts = []ship.Action{{Kind: ship.KindPublish, Command: c.Name()}}
			}
			for _, act := range acts {
				f := model.ShipFact{RunID: a.run.ID, Kind: act.Kind, Command: act.Command, Tool: c.Name(),
					Branch: act.Branch, RefKind: act.RefKind, Possible: act.Possible, Time: c.At().Time, At: c.At(), OutstandingKilled: []string{}}
				if act.RefKind == ship.RefTag {
					f.Tag = act.Target
				}
				if f.Branch == "" && act.Kind == ship.KindPush && act.RefKind == ship.RefBranch {
					f.Branch = t.GitBranch
				}
				facts = append(facts, f)
				copied = append(copied, c.Copied())
				unproven = append(unproven, maybe)
				calls = append(calls, c)
			}
		}
	}
	// The killed items outstanding at each action (it marks them shipped).
	at := make([]model.Evidence, len(facts))
	for i := range facts {
		at[i] = facts[i].At
	}
	var shippedBefore []bool
	if anyUnproven {
		shippedBefore = make([]bool, len(killed))
		for i, k := range killed {
			shippedBefore[i] = k.shipped
		}
	}
	for i, o := range outstandingAt(killed, at) {
		f := &facts[i]
		f.OutstandingCount = o.count
		f.OutstandingKilled = append(f.OutstandingKilled, o.names...)
		f.Outstanding = f.OutstandingCount > 0
		if unproven[i] {
			if !f.Outstanding {
				continue
			}
			f.Command = ship.ShipActions(ship.Analysis{MayShip: true}, calls[i].Command())[0].Command
		}
		// A resume's copy of an earlier file's action is that file's ship
		// fact; it still ships the work killed above it.
		if !copied[i] {
			res.ships = append(res.ships, *f)
		}
	}
	if anyUnproven {
		// Only the actions the classifier named mark items shipped.
		var named []model.Evidence
		for i := range facts {
			if !unproven[i] {
				named = append(named, at[i])
			}
		}
		for i, k := range killed {
			k.shipped = shippedBefore[i]
		}
		markShipped(killed, named)
	}
	sort.SliceStable(res.ships, func(i, j int) bool {
		x, y := res.ships[i].At, res.ships[j].At
		if !x.Time.Equal(y.Time) {
			return x.Time.Before(y.Time)
		}
		if x.File != y.File {
			return x.File < y.File
		}
		return x.Line < y.Line
	})
	for _, s := range res.ships {
		if s.Kind == ship.KindPush || s.Kind == ship.KindMerge {
			res.shipped = true
		}
	}
	if a.opts.Git != nil {
		res.shipped = true
	}
	return res
}

func (a *analysis) isPublishTool(name string) bool { return IsPublishTool(name, a.opts.PublishTools) }

// IsPublishTool reports whether a non-Bash tool call publishes: its name is
// one of patterns (exact, or a path.Match pattern such as "mcp__*__publish*").
// The CI check's ship facts and the resume-gate hook both ask it.
func IsPublishTool(name string, patterns []string) bool {
	for _, p := range patterns {
		if p == name {
			return true
		}
		// path.Match matches the pattern's literal start (up to its first
		// special character) literally: a name without it cannot match,
		// and a pattern without special characters only matches itself.
		// Most tool names are tried against literal patterns, and
		// path.Match was a fifth of the ships step.
		if i := strings.IndexAny(p, `*?[\`); i < 0 || !strings.HasPrefix(name, p[:i]) {
			continue
		}
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}

// assembleFacts is the facts step: the run fact, and the subagent and
// attempt facts with their items' review, branch and ship results.
func assembleFacts(a *pass) any {
	subs := a.resultOf(subagentsStep).(*subagentResult)
	atts := a.resultOf(attemptsStep).(*attemptResult)
	ships := a.resultOf(shipsStep).(*shipResult)
	out := model.Facts{Run: *a.resultOf(runStep).(*model.RunFact), Ships: ships.ships, Watchdogs: []model.WatchdogFact{},
		Subagents: make([]model.SubagentFact, 0, len(subs.entries)), Attempts: atts.facts}
	out.Run.Shipped = ships.shipped
	for _, e := range subs.entries {
		if model.CopiedCall(e.call) {
			continue // a resume's copy: the earlier file reports this call
		}
		f, k := e.fact, e.item
		if k != nil {
			f.Reviewed, f.ReviewEvidence = k.reviewed(), nonNil(k.evidence)
			f.OnShippedBranch, f.ShippedAfterKill = k.onBranch, k.shipped
			f.BranchMatches = k.matches
			f.Reasons = append(f.Reasons, k.reviews...)
		}
		f.ReviewEvidence, f.Paths, f.Commits = nonNil(f.ReviewEvidence), nonNil(f.Paths), nonNil(f.Commits)
		f.BranchMatches, f.Reasons = nonNil(f.BranchMatches), nonNilReasons(f.Reasons)
		out.Subagents = append(out.Subagents, f)
	}
	// The attempt facts are completed in place (this step is the last to
	// read them).
	for i := range atts.facts {
		f, k := &atts.facts[i], atts.items[i]
		if k != nil {
			f.Reviewed, f.ReviewEvidence = k.reviewed(), k.evidence
			f.OnShippedBranch = k.onBranch
			f.BranchMatches = k.matches
			f.Reasons = append(f.Reasons, k.reviews...)
		}
		f.ReviewEvidence, f.Paths, f.Commits = nonNil(f.ReviewEvidence), nonNil(f.Paths), nonNil(f.Commits)
		f.BranchMatches, f.Reasons = nonNil(f.BranchMatches), nonNilReasons(f.Reasons)
	}
	return out
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
