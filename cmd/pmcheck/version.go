package main

import "fmt"

// Version is pmcheck's version; release builds override it with -ldflags.
var Version = "0.1.0-dev"

// VersionCmd prints the version.
type VersionCmd struct{}

// Run prints the version.
func (VersionCmd) Run(env *Env) error {
	fmt.Fprintf(env.Stdout, "pmcheck %s\n", Version)
	return nil
}
