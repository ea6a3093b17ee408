// Command timeit runs a command several times and prints the best wall time,
// the CPU time (user + system) of that run, and the largest peak RSS of all
// runs, so bench/run.sh needs nothing but Go and a shell:
//
//	timeit [-n 5] -- CMD ARGS...
//
// Output, one line: "wall=0.123456 cpu=0.120000 rss_kib=10240 exit=0".
// The command's standard output is discarded; its standard error is kept.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"time"
)

func main() {
	n := flag.Int("n", 5, "runs (the best wall time is reported)")
	flag.Parse()
	args := flag.Args()
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "timeit: usage: timeit [-n N] -- CMD ARGS...")
		os.Exit(2)
	}
	best, bestCPU := time.Duration(-1), time.Duration(0)
	var rss int64
	code := 0
	for i := 0; i < *n; i++ {
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Stderr = os.Stderr
		start := time.Now()
		err := cmd.Run()
		wall := time.Since(start)
		var exit *exec.ExitError
		switch {
		case errors.As(err, &exit):
			code = exit.ExitCode()
		case err != nil:
			fmt.Fprintf(os.Stderr, "timeit: %v\n", err)
			os.Exit(2)
		}
		st := cmd.ProcessState
		if r := maxRSSKiB(st); r > rss {
			rss = r
		}
		if best < 0 || wall < best {
			best, bestCPU = wall, st.UserTime()+st.SystemTime()
		}
	}
	fmt.Printf("wall=%.6f cpu=%.6f rss_kib=%d exit=%d\n", best.Seconds(), bestCPU.Seconds(), rss, code)
}
