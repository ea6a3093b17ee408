// Command pmcheck is an offline, deterministic forensic analyzer for finished
// AI coding-agent runs. See README.md.
package main

import "os"

func main() {
	setMemoryLimit()
	os.Exit(Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
