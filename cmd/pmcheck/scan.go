package main

// ScanCmd lists runs.
type ScanCmd struct {
	Root string `arg:"" optional:"" name:"root" help:"Root to discover runs in (default ~/.claude/projects)."`
}

// Run is not built yet.
func (c *ScanCmd) Run(env *Env) error {
	return exitf(ExitInternal, "scan is not built yet")
}
