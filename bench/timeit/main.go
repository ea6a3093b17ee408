// Command timeit runs a command several times and prints the best wall time,
// the CPU time (user + system) of that run, and the largest peak RSS of all
// runs, so bench/run.sh needs nothing but Go and a shell:
//
//	timeit [-n 5] [-stdin FILE] [-append FILE -to TARGET] -- CMD ARGS...
//
// Output, one line: "wall=0.123456 cpu=0.120000 rss_kib=10240 exit=0
// p50=0.123456 p99=0.123456" (p50 and p99 of the runs' wall times, for
// latency targets such as a hook call's). With -stdin, every run reads
// FILE on its standard input. The command's standard output is discarded;
// its standard error is kept. With -append, the bytes of FILE are
// appended to TARGET before each run, untimed (a transcript that grows by
// a row between two hook calls), every "{n}" in them replaced by the run's
// number so that each appended row is a row of its own.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"time"
)

func main() {
	n := flag.Int("n", 5, "runs (the best wall time is reported)")
	stdin := flag.String("stdin", "", "a file every run reads on its standard input")
	appendFile := flag.String("append", "", "a file whose bytes are appended to -to before each run, untimed")
	target := flag.String("to", "", "the file -append appends to")
	flag.Parse()
	var row []byte
	if *appendFile != "" {
		var err error
		if row, err = os.ReadFile(*appendFile); err != nil || *target == "" {
			fmt.Fprintf(os.Stderr, "timeit: -append needs a readable file and -to: %v\n", err)
			os.Exit(2)
		}
	}
	args := flag.Args()
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "timeit: usage: timeit [-n N] -- CMD ARGS...")
		os.Exit(2)
	}
	best, bestCPU := time.Duration(-1), time.Duration(0)
	var walls []time.Duration
	var rss int64
	code := 0
	for i := 0; i < *n; i++ {
		if row != nil {
			if err := appendRow(*target, bytes.ReplaceAll(row, []byte("{n}"), []byte(strconv.Itoa(i)))); err != nil {
				fmt.Fprintf(os.Stderr, "timeit: %v\n", err)
				os.Exit(2)
			}
		}
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Stderr = os.Stderr
		var in *os.File
		if *stdin != "" {
			var err error
			if in, err = os.Open(*stdin); err != nil {
				fmt.Fprintf(os.Stderr, "timeit: %v\n", err)
				os.Exit(2)
			}
			cmd.Stdin = in
		}
		start := time.Now()
		err := cmd.Run()
		wall := time.Since(start)
		if in != nil {
			in.Close()
		}
		walls = append(walls, wall)
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
	slices.Sort(walls)
	fmt.Printf("wall=%.6f cpu=%.6f rss_kib=%d exit=%d p50=%.6f p99=%.6f\n", best.Seconds(), bestCPU.Seconds(), rss, code,
		walls[len(walls)/2].Seconds(), walls[min(len(walls)-1, len(walls)*99/100)].Seconds())
}

func appendRow(path string, row []byte) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if _, err := f.Write(row); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
