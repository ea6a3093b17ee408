package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/pmcheck/pmcheck/fixtures/gen"
)

// FixturesCmd exposes the scenario generator behind the repository's own
// fixtures (package fixtures/gen), so users build rule tests from the same
// runs pmcheck's tests use. Output is deterministic: the same scenario is the
// same bytes on every run and machine.
type FixturesCmd struct {
	List  FixturesListCmd  `cmd:"" help:"List the scenarios: name and what each one exercises."`
	Write FixturesWriteCmd `cmd:"" help:"Write scenarios (each into DIR/NAME, replacing that folder), or a synthetic fleet with --scale."`
}

// FixturesListCmd prints every scenario's name and description.
type FixturesListCmd struct {
	JSON bool `name:"json" help:"Print the scenarios as a JSON array of {name, description}."`
}

// scenarioInfo is one scenario in `fixtures list --json`.
type scenarioInfo struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// Run prints one line per scenario, sorted by name.
func (c *FixturesListCmd) Run(env *Env) error {
	ss := gen.Scenarios()
	if c.JSON {
		out := make([]scenarioInfo, 0, len(ss))
		for _, s := range ss {
			out = append(out, scenarioInfo{Name: s.Name, Description: s.Doc})
		}
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	for _, s := range ss {
		fmt.Fprintf(tw, "%s\t%s\n", s.Name, s.Doc)
	}
	return tw.Flush()
}

// FixturesWriteCmd writes named scenarios, all of them, or a fleet.
type FixturesWriteCmd struct {
	Dir       string   `arg:"" name:"dir" help:"Folder to write into (created if missing)."`
	Scenarios []string `arg:"" optional:"" name:"scenario" help:"Scenario names (see 'pmcheck fixtures list')."`
	All       bool     `name:"all" help:"Write every scenario."`
	Scale     int      `name:"scale" placeholder:"N" help:"Write a synthetic fleet of N sessions (20 per project folder) into DIR instead of scenarios, for load and benchmark tests."`
}

// Run writes what the flags name; each scenario replaces only its own folder.
func (c *FixturesWriteCmd) Run(env *Env) error {
	switch {
	case c.Scale != 0:
		if c.All || len(c.Scenarios) > 0 {
			return usageError("--scale writes a fleet of sessions, not scenarios: drop --all and the scenario names, or drop --scale")
		}
		if c.Scale < 0 {
			return usageError("--scale %d: give a positive number of sessions", c.Scale)
		}
		if err := gen.WriteScale(c.Dir, c.Scale); err != nil {
			return exitf(ExitInternal, "fixtures write --scale: %v", err)
		}
		fmt.Fprintf(env.Stdout, "wrote a fleet of %d sessions into %s\n", c.Scale, c.Dir)
		return nil
	case c.All && len(c.Scenarios) > 0:
		return usageError("give scenario names or --all, not both")
	case !c.All && len(c.Scenarios) == 0:
		return usageError("name the scenarios to write (see 'pmcheck fixtures list'), or pass --all or --scale N")
	}
	var chosen []gen.Scenario
	if c.All {
		chosen = gen.Scenarios()
	} else {
		for _, name := range c.Scenarios {
			s, ok := gen.Lookup(name)
			if !ok {
				return usageError("unknown scenario %q: 'pmcheck fixtures list' names them all", name)
			}
			chosen = append(chosen, s)
		}
	}
	for _, s := range chosen {
		if err := s.Write(c.Dir); err != nil {
			return exitf(ExitInternal, "fixtures write: %v", err)
		}
	}
	noun := "scenarios"
	if len(chosen) == 1 {
		noun = "scenario"
	}
	fmt.Fprintf(env.Stdout, "wrote %d %s into %s\n", len(chosen), noun, strings.TrimRight(c.Dir, "/"))
	return nil
}
