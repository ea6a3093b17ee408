package detect

import "github.com/pmcheck/pmcheck/analyze/model"

// assembleFacts is the facts step: the run fact, and the subagent and
// attempt facts with their items' review, branch and ship results.
func assembleFacts(a *pass) {
	a.reviewed() // the items' review fields are complete
	a.joined()   // and their branch fields
	subs := a.subagents()
	atts := a.attempts()
	ships := a.ships()
	out := model.Facts{Run: *a.runResult(), Ships: ships.ships, Watchdogs: []model.WatchdogFact{},
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
	a.res.facts = out
}
