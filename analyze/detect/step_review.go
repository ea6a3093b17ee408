package detect

import (
	"cmp"
	"path"
	"slices"
	"strings"
	"unicode"

	"github.com/pmcheck/pmcheck/analyze/detect/gitjoin"
	"github.com/pmcheck/pmcheck/analyze/interpret"
	"github.com/pmcheck/pmcheck/analyze/model"
)

// names are the strings that identify an item in a trailer or a prompt.
func (k *killedItem) names() []string {
	var out []string
	for _, s := range []string{k.id, k.toolUseID, k.name} {
		if s != "" && s != interpret.NoDescription {
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
	if k.kind == "subagent" && len(k.name) >= 8 && k.name != interpret.NoDescription && strings.Contains(low, strings.ToLower(k.name)) {
		return true
	}
	return false
}

// reviewEvidence is the review step: it collects the configured evidence
// for every item (timeless, reviewedAt, evidence, reviews) into its own
// result. Each trailer and each review subagent's prompt is read once,
// through a name index of all items, so the cost follows the texts' size,
// not items × texts.
func reviewEvidence(a *pass) {
	res := &a.res.review
	ro := a.opts.Review
	subs := a.subagents()
	killed := a.items()
	if len(killed) == 0 {
		return
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
					k := res.at(i, len(killed))
					k.timeless = true
					k.evidence = append(k.evidence, "trailer "+tr.Key+": "+tr.Value+" in commit "+short(c.ID))
				}
			}
		}
	}
	if strict {
		return // review files and review subagents are the agent's own writing
	}
	// Review files on the branch or written by work that was not killed.
	if len(ro.FilePatterns) > 0 {
		var candidates []string
		if a.opts.Git != nil {
			candidates = append(candidates, a.opts.Git.Paths...)
		}
		candidates = uniqueSorted(append(candidates, subs.written...))
		for i, hits := range reviewFiles(ro.FilePatterns, candidates, killed) {
			for _, h := range hits {
				k := res.at(i, len(killed))
				k.timeless = true
				k.evidence = append(k.evidence, "review file "+candidates[h.path])
			}
		}
	}
	// A later completed review subagent whose prompt names the item.
	for _, e := range subs.entries {
		sc, f := e.call, e.fact
		if f.Killed || f.FalseDone || f.Outcome != interpret.OutcomeCompleted || sc.Call == nil || !a.isReviewer(sc) {
			continue
		}
		done := sc.At
		if sc.LastNotification != nil {
			done = sc.LastNotification.At
		} else if sc.ResultAt != nil {
			done = *sc.ResultAt
		}
		for _, i := range named(sc.Call.Prompt()+"\n"+sc.Description, false) {
			if it := killed[i]; sc.ToolUseID == it.toolUseID || !before(it.known, sc.At, false) {
				continue
			}
			k := res.at(i, len(killed))
			if k.reviewedAt == nil || before(done, *k.reviewedAt, false) {
				d := done
				k.reviewedAt = &d
			}
			k.evidence = append(k.evidence, "review subagent "+quote(sc.Description)+" ("+sc.ToolUseID+") at "+loc(sc.At))
			k.reviews = append(k.reviews, model.Reason{What: "review subagent " + quote(sc.Description) + " completed", At: done})
		}
	}
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
