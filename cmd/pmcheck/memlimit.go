package main

import (
	"os"
	"runtime/debug"
)

// softMemoryLimit is the heap size past which the garbage collector runs
// more often than its default pace (GOGC=100 lets the heap reach twice what
// is live before it collects). pmcheck's promise is peak RSS under 512 MiB
// for inputs up to 100 MB; an input whose live data nears 300 MB (a journal
// of 200,000 attempts that never returned: a fact and a finding each) would
// otherwise peak near 600 MiB. Runs whose heap stays below the limit, every
// ordinary one, are not affected; a limit near their live heap would make the
// collector run back to back, which is why it is set this high.
const softMemoryLimit = 448 << 20

// setMemoryLimit sets the soft memory limit unless GOMEMLIMIT set one (the
// user's setting wins, including GOMEMLIMIT=off).
func setMemoryLimit() {
	if _, set := os.LookupEnv("GOMEMLIMIT"); set {
		return
	}
	debug.SetMemoryLimit(softMemoryLimit)
}
