package replay

// SetSplitAgents sets the number of subagents from which a session's replay
// runs in halves, and returns a function that puts it back.
func SetSplitAgents(n int) (restore func()) {
	was := splitAgents
	splitAgents = n
	return func() { splitAgents = was }
}
