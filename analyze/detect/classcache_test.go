package detect_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/pmcheck/pmcheck/analyze"
	"github.com/pmcheck/pmcheck/analyze/detect"
	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/internal/allocs"
)

// A Classifications cache shared by every run changes no fact: every
// fixture run, and a run made to hold commands that ship, write, parse
// badly, define and use git aliases, analysed without the cache, then twice
// with one cache (cold, then every command cached), and with deploy labels
// other than the cache's, which it must not answer.
func TestSharedClassificationsChangeNothing(t *testing.T) {
	res, err := analyze.Load([]string{fixtures}, analyze.Options{})
	if err != nil {
		t.Fatal(err)
	}
	runs := res.Runs
	// The fixture with four shell calls, given other commands: the alias
	// used where no run defines it comes first, so it is cached without
	// the aliases before the run that defines them asks.
	for _, commands := range [][]string{
		{"ls -la && git status", "git push origin HEAD:main", "$(echo git) push", "echo hi > notes.txt"},
		{"git commit -am step", "gh pr merge 7", "gh pr edit 7 --add-label ship-it", "bash -c 'git push'"},
		{"if then fi (", "git sp", "git status", "git sp"},
		{"git config alias.sp 'push origin'", "git sp", "gh pr edit 7 --add-label ship-it", "git push origin HEAD:main"},
	} {
		run := loadRun(t, "detect-ship-after-kill", model.KindSession)
		n := 0
		for _, c := range run.Main.ToolCalls {
			if c.Name() == "Bash" {
				setCommand(c, commands[n%len(commands)])
				n++
			}
		}
		runs = append(runs, run)
	}
	cache := detect.NewClassifications()
	for _, opts := range []detect.Options{{}, {DeployLabels: []string{"ship-it"}}, {DeployLabels: []string{}}} {
		for _, run := range runs {
			want := detect.Analyze(run, opts)
			with := opts
			with.Classifications = cache
			for pass := range 2 {
				if got := detect.Analyze(run, with); !reflect.DeepEqual(got, want) {
					t.Fatalf("%s, deploy labels %q, pass %d: facts differ with the shared cache:\n got %+v\nwant %+v", run.Path, opts.DeployLabels, pass, got, want)
				}
			}
		}
	}
	if cache.Len() == 0 {
		t.Fatal("nothing was cached: the test checks nothing")
	}
}

// Once its commands are cached, a run's analysis allocates no more for a
// long command than for a short one: the command is parsed once per check,
// not once per run (a fleet of 20,000 sessions running the same commit
// line parsed it 20,000 times).
func TestCachedCommandsCostNothingPerRun(t *testing.T) {
	allocs.SkipUnderRace(t)
	run := loadRun(t, "detect-ship-after-kill", model.KindSession)
	perRun := func(cmd string, cache *detect.Classifications) uint64 {
		for _, c := range run.Main.ToolCalls {
			if c.Name() == "Bash" {
				setCommand(c, cmd)
			}
		}
		opts := detect.Options{Classifications: cache}
		detect.Analyze(run, opts) // fills the cache
		return allocs.LeastPerCall(50, func() { detect.Analyze(run, opts) })
	}
	long := "git add -A && git commit -m " + strings.Repeat("'a long commit message' ", 400)
	short, longCached, longUncached := perRun("git add -A && git commit -m 'short'", detect.NewClassifications()), perRun(long, detect.NewClassifications()), perRun(long, nil)
	t.Logf("bytes a run: short command %d, long command cached %d, uncached %d", short, longCached, longUncached)
	if longCached > short+2048 {
		t.Errorf("with its commands cached, a run with a %d-byte command allocates %d bytes, one with a short command %d: the long command is still parsed per run", len(long), longCached, short)
	}
	if longUncached < 2*longCached {
		t.Errorf("without the cache the long command costs %d bytes a run, with it %d: the test no longer measures parsing", longUncached, longCached)
	}
}

// The cache stops growing at its bound, however many distinct commands
// the runs have, and keeps answering correctly past it.
func TestClassificationsAreBounded(t *testing.T) {
	run := loadRun(t, "detect-ship-after-kill", model.KindSession)
	cache := detect.NewClassifications()
	pad := strings.Repeat("x", 16<<10)
	for i := range 1000 { // 16 MiB of distinct commands
		cmd := fmt.Sprintf("echo %d %s > out%d.txt", i, pad, i)
		for _, c := range run.Main.ToolCalls {
			if c.Name() == "Bash" {
				setCommand(c, cmd)
			}
		}
		want := detect.Analyze(run, detect.Options{})
		if got := detect.Analyze(run, detect.Options{Classifications: cache}); !reflect.DeepEqual(got, want) {
			t.Fatalf("command %d: facts differ with the cache", i)
		}
	}
	if b := cache.Bytes(); b > 8<<20 || cache.Len() >= 1000 || cache.Len() < 100 {
		t.Errorf("after 16 MiB of distinct commands the cache counts %d bytes in %d entries; want at most 8 MiB, and more than a few", b, cache.Len())
	}
}

// A session of one killed subagent, the shape of each of a fleet's 20,000
// small runs, allocates little to analyse: its indexes are sized for it
// (hitOf scans a few signature hits, the plain analyses are listed), not
// fixed maps (10,035 bytes before, 8,386 after; the map of one hit was
// 1.2 KB of a fleet run's analysis). The run fact's fields of an SDK
// message stream (#28) put it in a larger size class: 9,192 bytes.
func TestOneSubagentSessionAllocatesLittle(t *testing.T) {
	allocs.SkipUnderRace(t)
	run := loadRun(t, "detect-sync-killed", model.KindSession)
	best := allocs.LeastPerCall(50, func() { detect.Analyze(run, detect.Options{}) })
	t.Logf("one killed subagent: %d bytes", best)
	if best > 9300 {
		t.Errorf("analysing a session of one killed subagent allocated %d bytes, want at most 9,300", best)
	}
}
