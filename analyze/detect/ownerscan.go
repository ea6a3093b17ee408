package detect

import (
	"github.com/pmcheck/pmcheck/analyze/interpret"
	"github.com/pmcheck/pmcheck/analyze/model"
)

// ownerScan is the resume-gate scan of one transcript that owns Agent calls,
// indexed for the lookups every call makes: its hit by tool-use id (the
// first, as the scan lists them), its segment (a binary search over the
// marks) and its output polls (grouped by task id once). Each call costs a
// map lookup and a search, not a pass over every hit, mark or tool call of
// the transcript: those passes made n calls cost n² (32,000 killed agents
// took 28 s).
type ownerScan struct {
	Scan
	// hit indexes Hits by tool-use id when there are more than
	// hitIndexMin; fewer are scanned (a map of one hit cost each of a
	// fleet's runs 1.2 KB: a quarter of what detecting allocated).
	hit   map[string]Hit
	polls map[string][]*model.ToolResult // built on first use
	// balances is the queue accounting (interpret.QueueBalances), built on
	// first use.
	balances    map[string]int
	balancesSet bool
	// visits counts the hits, marks and poll results the lookups looked at
	// (TestPerCallLookupsGrowLinearly bounds it).
	visits int
}

// countLookups, when set (by tests), receives each subagentFacts step's
// ownerScan visits.
var countLookups func(visits int)

// hitIndexMin is the most hits hitOf scans instead of indexing them.
const hitIndexMin = 8

func newOwnerScan(t *model.Transcript) *ownerScan {
	s := &ownerScan{Scan: ScanTranscript(t)}
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
func (s *ownerScan) hitOf(toolUseID string) (Hit, bool) {
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

func (s *ownerScan) segmentOf(line int) int {
	seg, visits := s.Segments.segmentOf(line)
	s.visits += visits
	return seg
}

// pollsOf is interpret.Polls(t, agentID), from the transcript's polls
// grouped once.
func (s *ownerScan) pollsOf(t *model.Transcript, agentID string) []*model.ToolResult {
	if t == nil || agentID == "" {
		return nil
	}
	if s.polls == nil {
		s.polls = interpret.PollsByTask(t)
	}
	out := s.polls[agentID]
	s.visits += 1 + len(out)
	return out
}

// consumed is interpret.Consumed for a call of t, from t's queue accounting
// made once.
func (s *ownerScan) consumed(t *model.Transcript, toolUseID string) bool {
	if !s.balancesSet {
		s.balances, s.balancesSet = interpret.QueueBalances(t), true
	}
	return interpret.Consumed(s.balances, toolUseID)
}
