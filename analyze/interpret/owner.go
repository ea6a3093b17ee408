package interpret

import (
	"time"

	"github.com/pmcheck/pmcheck/analyze/model"
)

// Owners reads the run's Agent/Task calls, each through the transcript that
// owns it: a session's main transcript, a subagent's own, or (an Agent SDK
// stream, whose transcripts share one file name) the call's
// OwnerTranscript. Each owner is scanned once (ScanTranscript), when its
// first call is read.
type Owners struct {
	byFile map[string]*model.Transcript
	scans  map[string]*Owner
	byT    map[*model.Transcript]*Owner // only an SDK stream's run fills it
}

// NewOwners indexes run's transcripts that own Agent calls (its main and
// its agents') by file.
func NewOwners(run *model.Run) *Owners {
	o := &Owners{byFile: map[string]*model.Transcript{}, scans: map[string]*Owner{}}
	for _, t := range append([]*model.Transcript{run.Main}, run.Agents...) {
		if t != nil {
			o.byFile[t.File] = t
		}
	}
	return o
}

// Of is the reading of the transcript that owns sc (a transcript of nil
// when the run does not hold it).
func (o *Owners) Of(sc *model.SubagentCall) *Owner {
	if t := sc.OwnerTranscript; t != nil {
		if w, ok := o.byT[t]; ok {
			return w
		}
		w := newOwner(t)
		if o.byT == nil {
			o.byT = map[*model.Transcript]*Owner{}
		}
		o.byT[t] = w
		return w
	}
	if w, ok := o.scans[sc.Owner]; ok {
		return w
	}
	w := newOwner(o.byFile[sc.Owner])
	o.scans[sc.Owner] = w
	return w
}

// Visits counts the hits, marks and poll results the owners' lookups
// looked at (TestPerCallLookupsGrowLinearly bounds it). An SDK stream's
// owners are not counted.
func (o *Owners) Visits() int {
	n := 0
	for _, s := range o.scans {
		n += s.visits
	}
	return n
}

// Owner is the resume-gate scan of one transcript that owns Agent calls,
// indexed for the lookups every call makes: its hit by tool-use id (the
// first, as the scan lists them), its segment (a binary search over the
// marks) and its output polls (grouped by task id once). Each call costs a
// map lookup and a search, not a pass over every hit, mark or tool call of
// the transcript: those passes made n calls cost n² (32,000 killed agents
// took 28 s).
type Owner struct {
	Scan
	t *model.Transcript
	// hit indexes Hits by tool-use id when there are more than
	// hitIndexMin; fewer are scanned (a map of one hit cost each of a
	// fleet's runs 1.2 KB: a quarter of what detecting allocated).
	hit   map[string]Hit
	polls map[string][]*model.ToolResult // built on first use
	// balances is the queue accounting (QueueBalances), built on first use.
	balances    map[string]int
	balancesSet bool
	// visits counts the hits, marks and poll results the lookups looked at.
	visits int
}

// hitIndexMin is the most hits hitOf scans instead of indexing them.
const hitIndexMin = 8

func newOwner(t *model.Transcript) *Owner {
	s := &Owner{Scan: ScanTranscript(t), t: t}
	if len(s.Hits) > hitIndexMin {
		s.hit = make(map[string]Hit, len(s.Hits))
		for _, h := range s.Hits {
			if _, ok := s.hit[h.ToolUseID]; !ok {
				s.hit[h.ToolUseID] = h
			}
		}
	}
	return s
}

// hitOf is the first hit of a tool-use id.
func (s *Owner) hitOf(toolUseID string) (Hit, bool) {
	s.visits++
	if s.hit == nil {
		for _, h := range s.Hits {
			if h.ToolUseID == toolUseID {
				return h, true
			}
		}
		return Hit{}, false
	}
	h, ok := s.hit[toolUseID]
	return h, ok
}

func (s *Owner) segmentOf(line int) int {
	seg, visits := s.Segments.segmentOf(line)
	s.visits += visits
	return seg
}

// pollsOf is Polls(t, agentID), from the transcript's polls grouped once.
func (s *Owner) pollsOf(agentID string) []*model.ToolResult {
	if s.t == nil || agentID == "" {
		return nil
	}
	if s.polls == nil {
		s.polls = PollsByTask(s.t)
	}
	out := s.polls[agentID]
	s.visits += 1 + len(out)
	return out
}

// consumed is Consumed for a call of the owner, from its queue accounting
// made once.
func (s *Owner) consumed(toolUseID string) bool {
	if !s.balancesSet {
		s.balances, s.balancesSet = QueueBalances(s.t), true
	}
	return Consumed(s.balances, toolUseID)
}

// Subagent is the whole reading of how one Agent/Task call ended: its
// outcome (SubagentOutcome) merged with the resume gate's Signature A/B
// scan of its owner, the segment it sits in, whether its work was cut off
// (Killed) or falsely reported done, whether the parent consumed its
// report, and the rows that say so. Check's subagent facts and the hook's
// gate both read it here.
type Subagent struct {
	// Outcome is SubagentOutcome's, except that a tool result carrying
	// Signature A's notice proves a kill even outside the current segment
	// (OutcomeTerminatedEarly).
	Outcome string
	// Signature and Rule name the hit of the current segment ("" when
	// none).
	Signature, Rule string
	// Segment is the 1-based resume segment of the call's row;
	// InLastSegment says it is the current one.
	Segment       int
	InLastSegment bool
	// Known is when the end became visible in the files: the hit's row, else
	// the row that decided the outcome.
	Known model.Evidence
	// End is when the subagent's end became visible on the clock (SubagentEnd).
	End time.Time
	// Killed: its work was cut off (TerminatedEarly) or a signature hit it.
	Killed bool
	// FalseDone: it completed, but its own transcript ends in a failure.
	FalseDone bool
	// AtRisk: its work is at risk until reviewed: killed and its report not
	// consumed by the parent (Consumed), or falsely done.
	AtRisk bool
	// Reasons are the rows behind the outcome, the hit and a false done.
	Reasons []model.Reason
}

// Subagent reads how sc, one of the owner's calls, ended.
func (s *Owner) Subagent(sc *model.SubagentCall) Subagent {
	r := Subagent{Segment: s.segmentOf(sc.At.Line)}
	r.InLastSegment = r.Segment == s.Segments.Count
	end := SubagentOutcome(sc, s.pollsOf(sc.AgentID))
	r.Outcome, r.Known = end.Outcome, end.At
	r.Reasons = SubagentReasons(sc, end)
	if h, ok := s.hitOf(sc.ToolUseID); ok {
		r.Signature, r.Rule, r.Known = h.Signature, h.Rule, h.At
		r.Reasons = append(r.Reasons, model.Reason{What: "Signature " + h.Signature + " (" + h.Rule + ")", At: h.At})
	}
	r.End = SubagentEndTime(sc, r.Known)
	if sc.Result != nil && SignatureA(sc.Result) {
		// The notice proves a kill even outside the current segment.
		r.Outcome = OutcomeTerminatedEarly
	}
	r.Killed = TerminatedEarly(r.Outcome, sc.Mode) || r.Signature != ""
	if r.Outcome == OutcomeCompleted && sc.Child != nil {
		e := EndingOf(sc.Child)
		r.FalseDone = e.Failed()
		if r.FalseDone {
			r.Reasons = append(r.Reasons, model.Reason{What: "transcript ends: " + e.Phrase(), At: e.At})
		}
	}
	// A kill whose report the parent consumed is not work at risk; a false
	// done always is.
	r.AtRisk = r.Killed && !s.consumed(sc.ToolUseID) || r.FalseDone
	return r
}

// SubagentReasons lists the rows behind a subagent's outcome: the spawn, its
// tool result, its last notification and the output poll or row that
// decided it, as far as they exist.
func SubagentReasons(sc *model.SubagentCall, end SubagentEnd) []model.Reason {
	out := []model.Reason{{What: "spawned (" + sc.Mode + ")", At: sc.At}}
	if sc.ResultAt != nil {
		what := "tool result"
		if s := sc.Result.Status(); s != "" {
			what += ", status " + s
		}
		if sc.Result != nil && sc.Result.StartsWithAPIErrorPrefix() {
			what += ", starts with the API-error prefix"
		}
		if sc.Result != nil && sc.Result.HasPartialNotice() {
			what += ", carries the partial-output notice"
		}
		out = append(out, model.Reason{What: what, At: *sc.ResultAt})
	}
	if n := sc.LastNotification; n != nil {
		what := "last notification, no status"
		if n.HasStatus {
			what = "last notification, status " + n.Status
		}
		out = append(out, model.Reason{What: what, At: n.At})
	}
	switch end.By {
	case "poll":
		out = append(out, model.Reason{What: "output poll says " + end.Outcome, At: end.At})
	case "none":
		out = append(out, model.Reason{What: "no tool result and no notification follow", At: end.At})
	case "permission_denials":
		out = append(out, model.Reason{What: "the runtime's result lists the call among its permission denials", At: end.At})
	}
	return out
}

// SubagentEndTime is when a subagent's end became visible: the row that
// decided its outcome or its kill (known), else the child transcript's last
// write.
func SubagentEndTime(sc *model.SubagentCall, known model.Evidence) time.Time {
	end := known.Time
	later := func(t time.Time) {
		if t.After(end) {
			end = t
		}
	}
	if sc.LastNotification != nil {
		later(sc.LastNotification.At.Time)
	} else if sc.ResultAt != nil {
		later(sc.ResultAt.Time)
	}
	// A background agent without a notification, or a call with no result,
	// ran at least until its transcript's last write.
	if sc.Child != nil && sc.LastNotification == nil && (sc.ResultAt == nil || sc.Mode == model.ModeAsync) {
		later(sc.Child.LastTime)
	}
	return end
}
