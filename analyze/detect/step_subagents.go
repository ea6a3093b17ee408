package detect

import (
	"github.com/pmcheck/pmcheck/analyze/interpret"
	"github.com/pmcheck/pmcheck/analyze/model"
)

// subagentFacts is the subagents step: one fact per Agent/Task call, from
// interpret's reading of how it ended (through the transcript that owns
// it), with its work ledger.
func subagentFacts(a *pass) {
	res := &subagentResult{entries: make([]subagentEntry, 0, len(a.run.Subagents))}
	run := a.run
	owners := interpret.NewOwners(run)
	for _, sc := range run.Subagents {
		end := owners.Of(sc).Subagent(sc)
		f := model.SubagentFact{
			RunID: run.ID, ToolUseID: sc.ToolUseID, Description: sc.Description, Mode: sc.Mode,
			AgentID: sc.AgentID, Time: sc.At.Time, At: sc.At,
			Segment: end.Segment, InLastSegment: end.InLastSegment,
			Outcome: end.Outcome, Signature: end.Signature, Rule: end.Rule, End: end.End,
			Killed: end.Killed, FalseDone: end.FalseDone, Reasons: end.Reasons,
		}
		l, unknown := interpret.SubagentLedger(sc, f.Outcome, a.classify, a.opts.UnreadChildIsUnknown)
		if unknown != "" {
			f.Reasons = append(f.Reasons, model.Reason{What: unknown, At: f.At})
		}
		f.Paths, f.PathsPartial, f.Commits, f.CommitsUnknown = l.Paths, l.Partial, l.Commits, l.CommitsUnknown
		var item *killedItem
		if end.AtRisk {
			name := sc.Description
			if name == "" {
				name = interpret.NoDescription
			}
			item = &killedItem{kind: "subagent", id: sc.AgentID, toolUseID: sc.ToolUseID, name: name, ledger: &l, known: end.Known}
		} else if sc.Child != nil {
			res.written = append(res.written, l.Paths...)
		}
		res.entries = append(res.entries, subagentEntry{call: sc, fact: f, item: item})
	}
	if run.Kind == model.KindSession && run.Main != nil {
		res.written = append(res.written, interpret.LedgerOf(run.Main, a.classify).Paths...)
	}
	if countLookups != nil {
		countLookups(owners.Visits())
	}
	a.res.subagents = res
}

// countLookups, when set (by tests), receives each subagents step's owner
// lookups (interpret.Owners.Visits).
var countLookups func(visits int)
