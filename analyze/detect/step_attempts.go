package detect

import (
	"strings"

	"github.com/pmcheck/pmcheck/analyze/interpret"
	"github.com/pmcheck/pmcheck/analyze/model"
)

// OutcomeOrphan marks an AttemptFact built from an orphan journal line: a
// result or failed line that closed no open attempt.
const OutcomeOrphan = "orphan-result"

// attemptItems is the attempts step: each Workflow attempt's work ledger
// and, when its work is at risk (interpret.Attempt.AtRisk), its item.
// Items and ledgers come from slabs (a journal of 200,000 attempts made as
// many small allocations of each).
func attemptItems(a *pass) {
	run := a.run
	res := &attemptResult{items: make([]*killedItem, len(run.Attempts)), ledgers: make([]*interpret.Ledger, len(run.Attempts))}
	var items slab[killedItem]
	var ledgers slab[interpret.Ledger]
	for i, at := range run.Attempts {
		l := &noWork
		if t := at.Transcript; t != nil {
			l = ledgers.new()
			*l = interpret.LedgerOf(t, a.classify)
		}
		res.ledgers[i] = l
		// Every attempt that did not return cleanly left work nobody
		// accepted: killed, failed, superseded without a sentinel, never
		// returned, false done.
		if end := interpret.ReadAttempt(at); end.AtRisk {
			k := items.new()
			*k = killedItem{kind: "attempt", id: at.AgentID, name: agentName(at), key: at.Key, ledger: l, known: end.Known}
			res.items[i] = k
		}
	}
	a.res.attempts = res
}

// attemptFacts is the attempt-facts step: one fact per Workflow attempt,
// from interpret's reading of it, its ledger and, when its work is at risk,
// its item's review and branch matches; then one per orphan line. Each fact
// is written once, in place, into a slice sized once, and its reasons come
// from a slab (a journal of 200,000 attempts made as many small lists).
func attemptFacts(a *pass) {
	run := a.run
	atts, rev, git := a.attempts(), a.reviews(), a.branch()
	item := a.attemptBase() // the next attempt item's place in the items list
	out := make([]model.AttemptFact, len(run.Attempts)+len(run.Orphans))
	var reasons slab[model.Reason]
	for i, at := range run.Attempts {
		f := &out[i]
		end := interpret.ReadAttempt(at)
		l := atts.ledgers[i]
		*f = model.AttemptFact{
			RunID: run.ID, Key: at.Key, AgentID: at.AgentID, Agent: agentName(at),
			Ordinal: at.Ordinal, SupersededBy: at.SupersededBy,
			Outcome: end.Outcome, FalseDone: end.FalseDone, FailureCause: end.FailureCause,
			SilenceSeconds: end.SilenceSeconds, NeverReturned: end.NeverReturned, At: end.At,
			Time: end.Start, End: end.End,
			Paths: l.Paths, PathsPartial: l.Partial, Commits: l.Commits,
			CommitsReported: len(l.Commits), CommitsUnknown: l.CommitsUnknown,
		}
		rs := end.Reasons()
		if atts.items[i] != nil {
			r, m := rev.review(item), git.match(item)
			f.Reviewed, f.ReviewEvidence = r.reviewed(), r.evidence
			f.OnShippedBranch, f.BranchMatches = m.onBranch, m.matches
			if len(r.reviews) > 0 {
				rs = append(rs[:len(rs):len(rs)], r.reviews...)
			}
			item++
		}
		f.Reasons = reasons.copy(rs)
		f.ReviewEvidence, f.Paths, f.Commits = nonNil(f.ReviewEvidence), nonNil(f.Paths), nonNil(f.Commits)
		f.BranchMatches = nonNil(f.BranchMatches)
	}
	for i, o := range run.Orphans {
		out[len(run.Attempts)+i] = model.AttemptFact{
			RunID: run.ID, Key: o.Key, AgentID: o.AgentID, Agent: o.AgentID, Outcome: OutcomeOrphan,
			SilenceSeconds: -1, Paths: []string{}, Commits: []string{}, Time: o.At.Time, At: o.At,
			Reasons:        reasons.copy([]model.Reason{{What: "journal " + o.Type + " line with no open attempt", At: o.At}}),
			FailureCause:   "journal " + o.Type + " line matches no open attempt",
			ReviewEvidence: []string{}, BranchMatches: []string{},
		}
	}
	a.res.attemptFacts = out
}

// noWork is the ledger of an attempt without a transcript, which wrote
// nothing anyone can see (interpret.LedgerOf(nil)); its items share it.
var noWork = interpret.Ledger{Paths: []string{}, Commits: []string{}}

// agentName is how reports name an attempt's agent.
func agentName(at *model.Attempt) string {
	if at.AgentID != "" {
		return at.AgentID
	}
	k := strings.TrimPrefix(at.Key, "v2:")
	if len(k) > 12 {
		k = k[:12]
	}
	return "key " + k
}
