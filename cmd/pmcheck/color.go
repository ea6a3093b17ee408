package main

import (
	"io"
	"os"
)

// colorFlag is --color, for the commands that print the text report.
type colorFlag struct {
	Color string `name:"color" default:"auto" enum:"auto,always,never" help:"Colour severities and rule ids in the text report on standard output: auto (only on a terminal, with NO_COLOR unset, outside CI), always or never."`
}

// colored decides whether the text report on standard output is coloured:
// always and never say so; auto colours only a terminal, never when
// NO_COLOR is set to anything (no-color.org) and never in a CI log (CI or
// GITHUB_ACTIONS set), where escapes are noise in logs and annotations.
func (c colorFlag) colored(stdout io.Writer) bool {
	switch c.Color {
	case "always":
		return true
	case "never":
		return false
	}
	if os.Getenv("NO_COLOR") != "" || os.Getenv("CI") != "" || os.Getenv("GITHUB_ACTIONS") != "" {
		return false
	}
	return isTerminal(stdout)
}
