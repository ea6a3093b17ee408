package journal

// Machine is the journal's attempt state machine, fed one line at a time:
// a `started` line opens occurrence n+1 of its key (superseding occurrence
// n), and a `result` or `failed` line closes the newest open occurrence of
// its agent id, or is an orphan when none is open. Attempts runs it over a
// whole journal for check; replay's watcher runs it over the lines each
// poll reads. It holds only positions: each caller keeps its own record of
// an occurrence at the position Start returns.
type Machine struct {
	lastByKey map[string]int32 // each key's newest occurrence
	// open is each agent id's newest open occurrence + 1 (0: none), the
	// top of a stack linked by below: a result closes the latest, in O(1)
	// (a scan back over every occurrence per orphan result took 23 s for
	// 40,000 of them).
	open    map[string]int32
	below   []int32 // the open occurrence under each, + 1
	ordinal []int32
}

// NewMachine returns a machine sized for about n started lines.
func NewMachine(n int) *Machine {
	return &Machine{lastByKey: make(map[string]int32, n), open: make(map[string]int32, n),
		below: make([]int32, 0, n), ordinal: make([]int32, 0, n)}
}

// Start runs a started line: the new occurrence's position (the number of
// occurrences before it), its ordinal within its key, and the position of
// the occurrence it supersedes (-1 for none).
func (m *Machine) Start(key, agentID string) (index, ordinal, superseded int) {
	index, ordinal, superseded = len(m.ordinal), 1, -1
	if last, ok := m.lastByKey[key]; ok {
		superseded, ordinal = int(last), int(m.ordinal[last])+1
	}
	m.lastByKey[key] = int32(index)
	m.ordinal = append(m.ordinal, int32(ordinal))
	m.below = append(m.below, 0)
	if agentID != "" {
		m.below[index] = m.open[agentID]
		m.open[agentID] = int32(index + 1)
	}
	return index, ordinal, superseded
}

// Close runs a result or failed line: the position of the occurrence it
// closes, or ok false for an orphan (no open occurrence of the agent id, or
// no agent id).
func (m *Machine) Close(agentID string) (index int, ok bool) {
	if agentID == "" {
		return 0, false
	}
	top := m.open[agentID]
	if top == 0 {
		return 0, false
	}
	m.open[agentID] = m.below[top-1]
	return int(top - 1), true
}
