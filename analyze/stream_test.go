package analyze_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/pmcheck/pmcheck/analyze"
	"github.com/pmcheck/pmcheck/analyze/transcript"
	"github.com/pmcheck/pmcheck/internal/testcorpus"
)

// eachRun is what TestEachIsLoadWhateverJobs compares of a run.
type eachRun struct {
	Path, Kind string
	Stats      analyze.Stats
	Facts      analyze.RunFacts
	Copied     int
}

func eachRunOf(r *analyze.Run) eachRun {
	e := eachRun{Path: r.Path, Kind: r.Kind, Stats: analyze.RunStats(r), Facts: analyze.Facts([]*analyze.Run{r}, analyze.FactsOptions{Jobs: 1})[0]}
	if r.Main != nil {
		e.Copied = r.Main.Copied
	}
	return e
}

// TestEachIsLoadWhateverJobs: streaming the runs through a function gives,
// in run order, what the function gives on the runs Load keeps, and the same
// problems, whatever the number of jobs: on every fixture run (resume
// copies, Workflow runs with their parents, legacy agent files, orphans)
// and, with PMCHECK_CORPUS, the corpus. Run with -race, it also shows the
// readers, the linker and the analysis share nothing they write.
func TestEachIsLoadWhateverJobs(t *testing.T) {
	roots := testcorpus.With(t, filepath.Join("..", "fixtures", "runs"))
	for _, root := range roots {
		res, err := analyze.Load([]string{root}, analyze.Options{Jobs: 1})
		if err != nil {
			t.Fatal(err)
		}
		var want []eachRun
		for _, r := range res.Runs {
			want = append(want, eachRunOf(r))
		}
		for _, jobs := range []int{1, 2, 5} {
			got, runs, err := analyze.Each([]string{root}, analyze.Options{Jobs: jobs}, func(r *analyze.Run, _ int) eachRun { return eachRunOf(r) })
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(runs, want) {
				t.Fatalf("%s: %d jobs: runs differ from Load's", root, jobs)
			}
			if !reflect.DeepEqual(got.Errors, res.Errors) || !reflect.DeepEqual(got.Untrusted, res.Untrusted) || !reflect.DeepEqual(got.Skipped, res.Skipped) {
				t.Fatalf("%s: %d jobs: problems differ:\n%q %q\n%q %q", root, jobs, got.Errors, got.Untrusted, res.Errors, res.Untrusted)
			}
		}
	}
}

// TestEachMarksResumeCopies: a resume copy that starts with its original's
// first row is found only after every session was read; its run is linked
// and handed on once, then, with the copied rows marked.
func TestEachMarksResumeCopies(t *testing.T) {
	root := filepath.Join("..", "fixtures", "runs", "interpret-resume-copied-rows")
	// The rows of the later file that the earlier one holds, read directly.
	first, err := transcript.ReadFile(filepath.Join(root, "70000000-0000-4000-8000-000000000007.jsonl"), "a", transcript.Options{RowHashes: true})
	if err != nil {
		t.Fatal(err)
	}
	later, err := transcript.ReadFile(filepath.Join(root, "70000000-0000-4000-8000-000000000008.jsonl"), "b", transcript.Options{Copied: []map[uint64]uint64{first.RowHashes}})
	if err != nil {
		t.Fatal(err)
	}
	want := later.Copied
	if want < 2 {
		t.Fatalf("the fixture's later file holds %d copied rows; want several", want)
	}
	for _, jobs := range []int{1, 2} {
		var calls atomic.Int32
		_, copied, err := analyze.Each([]string{root}, analyze.Options{Jobs: jobs}, func(r *analyze.Run, _ int) int {
			calls.Add(1)
			return r.Main.Copied
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(copied) != 2 || copied[0] != 0 || copied[1] != want {
			t.Fatalf("jobs %d: copied rows per run = %v; want [0 %d] (the later file is the copy)", jobs, copied, want)
		}
		if n := calls.Load(); n != 2 {
			t.Errorf("jobs %d: fn called %d times; want 2 (each run once)", jobs, n)
		}
	}
}

// TestEachMarksResumeCopyFromTheMiddle: a file that replays another from
// its second row holds only part of it, so it is no copy of it (issue 29:
// only a file that contains another whole is its copy, and an added file
// could be cut that way from a real one). It is linked once, as the
// sessions stream by, with nothing marked, whatever the jobs.
func TestEachMarksResumeCopyFromTheMiddle(t *testing.T) {
	dir := t.TempDir()
	row := func(sid, uuid, ts string) string {
		return `{"type":"user","uuid":"` + uuid + `","timestamp":"` + ts + `","sessionId":"` + sid + `","message":{"role":"user","content":"step ` + uuid + `"}}` + "\n"
	}
	a := "a0000000-0000-4000-8000-000000000001"
	b := "b0000000-0000-4000-8000-000000000002"
	u := func(n string) string { return "00000000-0000-4000-8000-00000000000" + n }
	for name, rows := range map[string]string{
		a: row(a, u("1"), "2026-05-09T12:00:00.000Z") + row(a, u("2"), "2026-05-09T12:00:01.000Z") + row(a, u("3"), "2026-05-09T12:00:02.000Z"),
		// b replays a from its second row, then goes on.
		b: row(b, u("2"), "2026-05-09T12:00:01.000Z") + row(b, u("3"), "2026-05-09T12:00:02.000Z") + row(b, u("4"), "2026-05-09T13:00:00.000Z"),
	} {
		if err := os.WriteFile(filepath.Join(dir, name+".jsonl"), []byte(rows), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, jobs := range []int{1, 2} {
		var calls atomic.Int32
		_, copied, err := analyze.Each([]string{dir}, analyze.Options{Jobs: jobs}, func(r *analyze.Run, _ int) int {
			calls.Add(1)
			return r.Main.Copied
		})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(copied, []int{0, 0}) {
			t.Fatalf("jobs %d: copied rows per run = %v; want [0 0]", jobs, copied)
		}
		if n := calls.Load(); n != 2 {
			t.Errorf("jobs %d: fn called %d times; want 2 (each run once)", jobs, n)
		}
	}
}

// TestEachProblemOrder: problems are listed as when every session file was
// read before any run was linked: a session file's problem comes before
// the problem of an agent file that an earlier session's run reads.
func TestEachProblemOrder(t *testing.T) {
	dir := t.TempDir()
	row := func(sid, uuid string) string {
		return `{"type":"user","uuid":"` + uuid + `","timestamp":"2026-05-09T12:00:00.000Z","sessionId":"` + sid + `","message":{"role":"user","content":"hi"}}` + "\n"
	}
	junk := "not json\nnot json either\n"
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	a := "a0000000-0000-4000-8000-000000000001"
	b := "b0000000-0000-4000-8000-000000000002"
	write(a+".jsonl", row(a, "00000000-0000-4000-8000-00000000000a"))
	// A legacy agent file beside the sessions, of session a, mostly junk:
	// read when session a's run is linked.
	write("agent-a0000000000000001.jsonl", row(a, "00000000-0000-4000-8000-00000000000c")+junk)
	// Session b is mostly junk: read with every session file, before.
	write(b+".jsonl", row(b, "00000000-0000-4000-8000-00000000000b")+junk)
	for _, jobs := range []int{1, 2} {
		res, _, err := analyze.Each([]string{dir}, analyze.Options{Jobs: jobs}, func(r *analyze.Run, _ int) string { return r.Path })
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Untrusted) != 2 || !strings.Contains(res.Untrusted[0], b) || !strings.Contains(res.Untrusted[1], "agent-a0000000000000001") {
			t.Fatalf("jobs %d: untrusted = %q; want session b's, then the agent file's", jobs, res.Untrusted)
		}
	}
}
