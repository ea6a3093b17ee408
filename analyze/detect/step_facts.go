package detect

import (
	"slices"

	"github.com/pmcheck/pmcheck/analyze/model"
)

// assembleFacts is the facts step: the run fact, and the subagent and
// attempt facts with their items' review, branch and ship results. Item i
// of the items step is the i-th entry or attempt with an item, subagents
// first.
func assembleFacts(a *pass) {
	subs := a.subagents()
	atts := a.attempts()
	attFacts := atts.takeFacts()
	rev, git, ships := a.reviews(), a.branch(), a.ships()
	out := model.Facts{Run: *a.runResult(), Ships: ships.ships, Watchdogs: []model.WatchdogFact{},
		Subagents: make([]model.SubagentFact, 0, len(subs.entries)), Attempts: attFacts}
	out.Run.Shipped = ships.shipped
	i := 0 // the next item's place
	for _, e := range subs.entries {
		f := e.fact
		if e.item != nil {
			r, m := rev.review(i), git.match(i)
			f.Reviewed, f.ReviewEvidence = r.reviewed(), nonNil(r.evidence)
			f.OnShippedBranch, f.ShippedAfterKill = m.onBranch, ships.shippedAfter[i]
			f.BranchMatches = m.matches
			// Clipped: the subagents step's list keeps its spare room.
			f.Reasons = append(slices.Clip(f.Reasons), r.reviews...)
			i++
		}
		if model.CopiedCall(e.call) {
			continue // a resume's copy: the earlier file reports this call
		}
		f.ReviewEvidence, f.Paths, f.Commits = nonNil(f.ReviewEvidence), nonNil(f.Paths), nonNil(f.Commits)
		f.BranchMatches, f.Reasons = nonNil(f.BranchMatches), nonNilReasons(f.Reasons)
		out.Subagents = append(out.Subagents, f)
	}
	// The attempt facts were moved to this step (takeFacts), which
	// completes them: they are its own now, not the attempts step's.
	for j := range attFacts {
		f, k := &attFacts[j], atts.items[j]
		if k != nil {
			r, m := rev.review(i), git.match(i)
			f.Reviewed, f.ReviewEvidence = r.reviewed(), r.evidence
			f.OnShippedBranch = m.onBranch
			f.BranchMatches = m.matches
			f.Reasons = append(f.Reasons, r.reviews...)
			i++
		}
		f.ReviewEvidence, f.Paths, f.Commits = nonNil(f.ReviewEvidence), nonNil(f.Paths), nonNil(f.Commits)
		f.BranchMatches, f.Reasons = nonNil(f.BranchMatches), nonNilReasons(f.Reasons)
	}
	a.res.facts = out
}
