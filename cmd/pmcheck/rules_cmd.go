package main

// RulesCmd groups the rule commands (issue 5).
type RulesCmd struct {
	List RulesListCmd `cmd:"" help:"List the rules."`
}

// RulesListCmd lists rules.
type RulesListCmd struct{}

// Run is not built yet.
func (c *RulesListCmd) Run(env *Env) error {
	return exitf(ExitInternal, "rules is not built yet")
}
