package main

// RenderCmd renders saved canonical JSON reports (issue 6).
type RenderCmd struct {
	Inputs []string `arg:"" name:"saved.json" help:"Saved canonical JSON reports."`
}

// Run is not built yet.
func (c *RenderCmd) Run(env *Env) error {
	return exitf(ExitInternal, "render is not built yet")
}
