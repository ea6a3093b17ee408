package detect

import (
	"strings"

	"github.com/pmcheck/pmcheck/analyze/interpret"
	"github.com/pmcheck/pmcheck/analyze/model"
)

// OutcomeOrphan marks an AttemptFact built from an orphan journal line: a
// result or failed line that closed no open attempt.
const OutcomeOrphan = "orphan-result"

// attemptFacts is the attempts step: one fact per Workflow attempt, then one
// per orphan line.
func attemptFacts(a *pass) {
	run := a.run
	// One fact per attempt and orphan, written in place into a slice sized
	// once; items and reasons come from slabs (a journal of 200,000 attempts
	// made as many small allocations of each).
	n := len(run.Attempts) + len(run.Orphans)
	res := &attemptResult{facts: make([]model.AttemptFact, n), items: make([]*killedItem, n)}
	var items slab[killedItem]
	var reasons slab[model.Reason]
	var ledgers slab[interpret.Ledger]
	for i, at := range run.Attempts {
		f := &res.facts[i]
		*f = model.AttemptFact{
			RunID: run.ID, Key: at.Key, AgentID: at.AgentID, Agent: agentName(at),
			Ordinal: at.Ordinal, SupersededBy: at.SupersededBy,
		}
		t := at.Transcript
		end := interpret.ReadAttempt(at)
		f.Outcome, f.FalseDone, f.FailureCause = end.Outcome, end.FalseDone, end.FailureCause
		f.SilenceSeconds, f.NeverReturned, f.At = end.SilenceSeconds, end.NeverReturned, end.At
		var buf [4]model.Reason
		f.Reasons = reasons.copy(end.AppendReasons(buf[:0], at))
		f.Time, f.End = end.Start, end.End
		l := interpret.LedgerOf(t, a.classify)
		f.Paths, f.PathsPartial, f.Commits = l.Paths, l.Partial, l.Commits
		f.CommitsReported, f.CommitsUnknown = len(l.Commits), l.CommitsUnknown
		// Every attempt that did not return cleanly left work nobody accepted:
		// killed, failed, superseded without a sentinel, never returned, false done.
		if end.AtRisk {
			k := items.new()
			*k = killedItem{
				kind: "attempt", id: at.AgentID, name: f.Agent, key: at.Key, ledger: &noWork,
				known: end.Known,
			}
			if t != nil {
				k.ledger = ledgers.new()
				*k.ledger = l
			}
			res.items[i] = k
		}
	}
	for i, o := range run.Orphans {
		res.facts[len(run.Attempts)+i] = model.AttemptFact{
			RunID: run.ID, Key: o.Key, AgentID: o.AgentID, Agent: o.AgentID, Outcome: OutcomeOrphan,
			SilenceSeconds: -1, Paths: []string{}, Commits: []string{}, Time: o.At.Time, At: o.At,
			Reasons:      reasons.copy([]model.Reason{{What: "journal " + o.Type + " line with no open attempt", At: o.At}}),
			FailureCause: "journal " + o.Type + " line matches no open attempt",
		}
	}
	a.res.attempts = res
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
