package load

import "github.com/pmcheck/pmcheck/analyze/model"

// Stats are a run's counts for listings.
type Stats struct {
	// Agents: distinct journal keys (workflow) or Agent/Task calls (session;
	// for a run with no parent transcript, its subagent transcripts).
	Agents int `json:"agents"`
	// Attempts: journal occurrences (workflow); 0 for sessions.
	Attempts int `json:"attempts"`
	// Files read for this run; Rows decoded from them; Malformed lines that
	// were skipped.
	Files     int `json:"files"`
	Rows      int `json:"rows"`
	Malformed int `json:"malformed"`
}

// RunStats counts a run. A workflow's parent transcript is counted with its
// session, not here, so totals over all runs count every file once.
func RunStats(r *model.Run) Stats {
	var s Stats
	add := func(t *model.Transcript) {
		if t == nil {
			return
		}
		s.Files++
		s.Rows += t.Rows
		s.Malformed += t.MalformedSkipped
	}
	switch r.Kind {
	case model.KindWorkflow:
		s.Agents, s.Attempts = model.AgentsOf(r.Attempts), len(r.Attempts)
		if r.Journal != nil {
			s.Files++
			s.Rows += len(r.Journal.Lines)
			s.Malformed += r.Journal.MalformedCount
		}
	default:
		add(r.Main)
		s.Agents = len(r.Subagents)
		if r.Main == nil {
			s.Agents = len(r.Agents)
		}
	}
	for _, t := range r.Agents {
		add(t)
	}
	return s
}
