package main

// CheckCmd is the CI command.
type CheckCmd struct {
	Paths []string `arg:"" optional:"" name:"path" help:"Session transcripts, Workflow run directories, or roots to discover runs in."`
}

// Run is not built yet.
func (c *CheckCmd) Run(env *Env) error {
	return exitf(ExitInternal, "check is not built yet")
}
