package detect_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pmcheck/pmcheck/analyze"
	"github.com/pmcheck/pmcheck/analyze/detect"
	"github.com/pmcheck/pmcheck/analyze/model"
)

// TestTrustShipFactsOfTagsAndHiddenPushes (issue 12, item 8; issue 11): in
// the run where a killed subagent's work is outstanding, a push of tags is a
// ship action on a tag (no branch, not the session's branch), and a push the
// classifier cannot resolve ($(echo git) push) is a possible ship action that
// still counts the outstanding killed work, instead of no action at all.
func TestTrustShipFactsOfTagsAndHiddenPushes(t *testing.T) {
	for _, tc := range []struct {
		command      string
		refKind, tag string
		branch       string
		possible     bool
	}{
		{"git push --tags", "tag", "--tags", "", false},
		{"git push origin v1.2.3", "tag", "v1.2.3", "", false},
		{"git push origin main", "branch", "", "main", false},
		{"$(echo git) push origin main", "", "", "", true},
		{"echo origin | xargs git", "", "", "", true},
	} {
		run := loadRun(t, "detect-ship-after-kill", model.KindSession)
		for _, c := range run.Main.ToolCalls {
			if c.Name() == "Bash" && c.Command() == "npm test; git -C /work/repo push origin feat/detect:main" {
				setCommand(c, tc.command)
			}
		}
		f := detect.Analyze(run, detect.Options{})
		var push *model.ShipFact
		for i := range f.Ships {
			if f.Ships[i].Kind == "push" {
				push = &f.Ships[i]
			}
		}
		if push == nil {
			t.Errorf("%q: no push ship fact (ships %+v)", tc.command, f.Ships)
			continue
		}
		if push.RefKind != tc.refKind || push.Tag != tc.tag || push.Branch != tc.branch || push.Possible != tc.possible {
			t.Errorf("%q: ship fact ref_kind %q tag %q branch %q possible %v; want %q %q %q %v",
				tc.command, push.RefKind, push.Tag, push.Branch, push.Possible, tc.refKind, tc.tag, tc.branch, tc.possible)
		}
		if !push.Outstanding {
			t.Errorf("%q: the killed subagent's work was outstanding at this push", tc.command)
		}
	}
}

// TestTrustAliasesAndComputedCommandsInARun (issue 12, item 8): a git alias
// defined with git config in one Bash call of the run makes a later `git
// NAME` a possible push that counts the killed work outstanding; so does a
// command whose program name is computed with no ship verb in sight. The
// same commands without the alias are still possible ship actions (issue
// 29, item 2: `git sync` is no subcommand git knows, and an alias may have
// been written into .git/config), of kind "ship"; a named harmless program
// ships nothing.
func TestTrustAliasesAndComputedCommandsInARun(t *testing.T) {
	for _, tc := range []struct {
		define, command string
		kind            string // a possible fact of this kind, outstanding; "" no fact at that line
	}{
		{"git config --global alias.sync 'push origin HEAD:main'", "npm test; git sync", "push"},
		{"git config alias.sync 'push origin HEAD:main'", "git -C /work/repo sync", "push"},
		{"echo git config alias.sync push", "npm test; git sync", "ship"},
		{"", "$A $B", "push"},
		{"", `"$CMD" origin main`, "push"},
		{"", "echo $HOME", ""},
		{"", "$VENV/bin/python -m pytest", ""},
	} {
		run := loadRun(t, "detect-ship-after-kill", model.KindSession)
		var target *model.ToolCall
		for _, c := range run.Main.ToolCalls {
			switch {
			case c.Name() == "Bash" && c.Command() == "npm test; git -C /work/repo push origin feat/detect:main":
				setCommand(c, tc.command)
				target = c
			case c.Name() == "Bash" && c.Command() == "echo git push" && tc.define != "":
				setCommand(c, tc.define) // a call after the push: order does not matter
			}
		}
		if target == nil {
			t.Fatal("the fixture's push call is gone")
		}
		f := detect.Analyze(run, detect.Options{})
		var push *model.ShipFact
		for i := range f.Ships {
			if f.Ships[i].At == target.At() {
				push = &f.Ships[i]
			}
		}
		switch {
		case tc.kind == "" && push != nil:
			t.Errorf("%q (alias %q): no ship action, got %+v", tc.command, tc.define, *push)
		case tc.kind != "" && (push == nil || push.Kind != tc.kind || !push.Possible || !push.Outstanding):
			t.Errorf("%q (alias %q): want a possible %s with the killed work outstanding, got %+v", tc.command, tc.define, tc.kind, push)
		}
	}
}

// manyKilledBeforePushes writes a session of k killed foreground subagents
// with long descriptions followed by m pushes to distinct branches, built
// from the detect-ship-after-kill fixture's rows.
func manyKilledBeforePushes(tb testing.TB, k, m int) *model.Run {
	tb.Helper()
	data, err := os.ReadFile(fixtures + "detect-ship-after-kill/40000000-0000-4000-8000-000000000014.jsonl")
	if err != nil {
		tb.Fatal(err)
	}
	src := bytes.Split(data, []byte("\n"))
	long := strings.Repeat("d", 10<<10)
	var out bytes.Buffer
	out.Write(src[0])
	out.WriteByte('\n')
	n := 100
	next := func(line []byte, old string) {
		n++
		out.Write(bytes.ReplaceAll(line, []byte(old), []byte(fmt.Sprintf("00000001-0000-4000-8000-%012d", n))))
		out.WriteByte('\n')
	}
	for i := range k {
		for _, j := range []int{3, 4} {
			l := bytes.ReplaceAll(src[j], []byte("toolu_kill14"), []byte(fmt.Sprintf("toolu_kill%06d", i)))
			l = bytes.ReplaceAll(l, []byte("Harden the login flow"), []byte(fmt.Sprintf("%06d %s", i, long)))
			next(l, fmt.Sprintf("00000001-0000-4000-8000-%012d", j+1))
		}
	}
	for i := range m {
		for _, j := range []int{5, 6} {
			l := bytes.ReplaceAll(src[j], []byte("toolu_push14b"), []byte(fmt.Sprintf("toolu_push%06d", i)))
			l = bytes.ReplaceAll(l, []byte("feat/detect:main"), []byte(fmt.Sprintf("feat/detect:release-%d", i)))
			next(l, fmt.Sprintf("00000001-0000-4000-8000-%012d", j+1))
		}
	}
	dir := tb.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "40000000-0000-4000-8000-000000000014.jsonl"), out.Bytes(), 0o644); err != nil {
		tb.Fatal(err)
	}
	res, err := analyze.Load([]string{dir}, analyze.Options{})
	if err != nil || len(res.Runs) != 1 {
		tb.Fatalf("load: %v, %d runs", err, len(res.Runs))
	}
	return res.Runs[0]
}

// BenchmarkShipFactsManyKilledManyPushes (issue 12, item 11): k killed
// subagents with 10 KB descriptions before m pushes. Each ship fact keeps at
// most 20 names and a count, so the facts' size grows with k + m (it grew
// with k × m × description length: a 2.6 MB transcript once took 117 s and
// 17.4 GB). The outstanding check is a sweep (outstandingAt,
// BenchmarkOutstandingAt), not a comparison per (killed, push) pair. Measured (2 vCPU): 500/50 -> 2000/200 is 159 ->
// 639 MB/op (4x for 4x the input); most of it and of the time is the review
// name index over the descriptions, not the ship facts.
func BenchmarkShipFactsManyKilledManyPushes(b *testing.B) {
	for _, size := range []struct{ k, m int }{{500, 50}, {2000, 200}} {
		run := manyKilledBeforePushes(b, size.k, size.m)
		b.Run(fmt.Sprintf("k=%d,m=%d", size.k, size.m), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				f := detect.Analyze(run, detect.Options{})
				if len(f.Ships) < size.m || f.Ships[len(f.Ships)-1].OutstandingCount != size.k {
					b.Fatalf("%d ships, last outstanding %d", len(f.Ships), f.Ships[len(f.Ships)-1].OutstandingCount)
				}
			}
		})
	}
}
