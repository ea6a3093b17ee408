// Command gencorpus writes the benchmark corpora of bench/run.sh that are not
// a fleet (the fleet is `pmcheck fixtures write --scale N DIR`):
//
//	go run ./bench/gencorpus -shape large -out DIR    # 11 MB parent + 35 MB of subagents
//	go run ./bench/gencorpus -shape many -out DIR     # 47 MB: 3 MiB parent + 64 subagents
//	go run ./bench/gencorpus -shape huge -size 1024 -out DIR   # one transcript of 1024 MiB
//	go run ./bench/gencorpus -shape workflow -span 6h -out DIR # a Workflow run over 6 hours
//
// Output is deterministic (fixtures/gen/fleet).
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/pmcheck/pmcheck/fixtures/gen/fleet"
)

func main() {
	shape := flag.String("shape", "", "large, many, huge or workflow")
	out := flag.String("out", "", "directory to write into")
	size := flag.Int64("size", 1024, "huge: transcript size in MiB")
	span := flag.Duration("span", 6*time.Hour, "workflow: time from the first row to the last")
	agents := flag.Int("agents", 8, "workflow: number of agents")
	rows := flag.Int("rows", 2000, "workflow: rows per agent")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "gencorpus: -out DIR is required")
		os.Exit(2)
	}
	var err error
	switch *shape {
	case "large":
		err = fleet.LargeSession().Write(*out, 11)
	case "many":
		err = fleet.ManyFilesSession().Write(*out, 47)
	case "huge":
		err = fleet.HugeSession(*size<<20).Write(*out, 1)
	case "workflow":
		err = fleet.WriteWorkflow(*out, *span, *agents, *rows)
	default:
		fmt.Fprintln(os.Stderr, "gencorpus: -shape must be large, many, huge or workflow")
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "gencorpus: %v\n", err)
		os.Exit(1)
	}
}
