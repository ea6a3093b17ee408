package main

// ReplayCmd replays a Workflow run through the simulated clock.
// Owned by the replay work (issue 3); this placeholder only keeps the CLI whole.
type ReplayCmd struct {
	Run_ string `arg:"" name:"run" help:"Workflow run directory, journal.jsonl, or run-id prefix."`
}

// Run is not built yet.
func (c *ReplayCmd) Run(env *Env) error {
	return exitf(ExitInternal, "replay is not built yet")
}
