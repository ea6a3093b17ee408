package detect

import (
	"github.com/pmcheck/pmcheck/analyze/interpret"
	"github.com/pmcheck/pmcheck/analyze/model"
)

// subagentFacts is the subagents step: one fact per Agent/Task call, with
// the resume-gate scan of the transcript that owns it.
func subagentFacts(a *pass) {
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
	a.res.subagents = res
}
