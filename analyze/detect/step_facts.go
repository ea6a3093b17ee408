package detect

import (
	"slices"

	"github.com/pmcheck/pmcheck/analyze/model"
)

// assembleFacts is the facts step: the run fact, the subagent facts with
// their items' review, branch and ship results (item i of the items step is
// the i-th entry with an item), and the attempt facts.
func assembleFacts(a *pass) {
	subs := a.subagents()
	rev, git, ships := a.reviews(), a.branch(), a.ships()
	out := model.Facts{Run: *a.runResult(), Ships: ships.ships, Watchdogs: []model.WatchdogFact{},
		Subagents: make([]model.SubagentFact, 0, len(subs.entries)), Attempts: a.attemptFactList()}
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
	a.res.facts = out
}
