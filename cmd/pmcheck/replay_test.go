package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/sebdah/goldie/v2"
)

// replayTarget is what `pmcheck replay` is given for a fixture: its run
// directory, or its session transcript when it has none. Relative to the
// fixture folder, so goldens hold no host paths.
func replayTarget(t *testing.T, fixture string) string {
	t.Helper()
	var dirs []string
	var sessions []string
	_ = filepath.WalkDir(fixture, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Name() == "journal.jsonl" {
			dirs = append(dirs, filepath.Dir(p))
		}
		if !d.IsDir() && strings.HasSuffix(p, ".jsonl") && filepath.Dir(p) == fixture {
			sessions = append(sessions, p)
		}
		return nil
	})
	var target string
	switch {
	case len(dirs) == 1:
		target = dirs[0]
	case len(dirs) == 0 && len(sessions) == 1:
		target = sessions[0]
	default:
		t.Fatalf("%s: expected one run directory or one session, found %v %v", fixture, dirs, sessions)
	}
	rel, _ := filepath.Rel(fixture, target)
	return filepath.ToSlash(rel)
}

func runReplay(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Run(append([]string{"replay"}, args...), strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), code
}

func replayFixtures(t *testing.T) []string {
	t.Helper()
	matches, err := filepath.Glob("../../fixtures/runs/replay-*")
	if err != nil || len(matches) == 0 {
		t.Fatalf("no replay fixtures: %v", err)
	}
	matches = append(matches, "../../fixtures/runs/workflow-clean")
	sort.Strings(matches)
	return matches
}

// TestReplayGolden runs `pmcheck replay` on every replay fixture, in text
// (with --timestamps --explain --watchdogs) and in --json, and compares
// stdout, stderr and the exit code with golden/replay.
func TestReplayGolden(t *testing.T) {
	for _, dir := range replayFixtures(t) {
		abs, _ := filepath.Abs(dir)
		name := filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			t.Chdir(abs)
			target := replayTarget(t, ".")
			g := goldie.New(t, goldie.WithFixtureDir(filepath.Join(abs, "../../../golden/replay")), goldie.WithNameSuffix(".golden"))
			// --as-watch: these goldens are compared with watch's own output.
			out, errs, code := runReplay(t, "--as-watch", "--timestamps", "--explain", "--watchdogs", target)
			g.Assert(t, name+".text", []byte(fmt.Sprintf("$ pmcheck replay --as-watch --timestamps --explain --watchdogs %s\n%s--- stderr\n%s--- exit %d\n", target, out, errs, code)))
			out, errs, code = runReplay(t, "--as-watch", "--json", target)
			g.Assert(t, name+".json", []byte(fmt.Sprintf("$ pmcheck replay --as-watch --json %s\n%s--- stderr\n%s--- exit %d\n", target, out, errs, code)))
		})
	}
}

// TestReplayWatchLines pins, for each fixture, the watch lines derived by
// hand from watch's rules (the Doc of each scenario explains them), so a
// golden regenerated with -update cannot silently change the semantics.
func TestReplayWatchLines(t *testing.T) {
	want := map[string]struct {
		lines []string
		exit  int
	}{
		"replay-kill-retry": {[]string{
			"2026-05-07T10:00:07Z START  wf_kill0001: 2 agents started so far, 2 attempts.",
			"2026-05-07T10:01:42Z OK     a:ak00000000000003 attempt 1 returned a result.",
			"2026-05-07T10:03:52Z KILL   a:ak00000000000001 attempt 1 after 200s of silence; restarted as attempt 2.",
			"2026-05-07T10:03:52Z        attempt 1 wrote 2 paths, reported 1 commit.  -> agent-postmortem rescue plan wf_kill0001",
			"2026-05-07T10:05:02Z OK     a:ak00000000000002 attempt 2 returned a result.",
			"2026-05-07T10:05:12Z DONE   2 agents, 3 attempts, clean after 1 retry.  -> agent-postmortem run wf_kill0001",
		}, 0},
		// The same kill, but a result line closed attempt 1 before its
		// retry: it returned (OK), it was not killed (no KILL), as check's
		// attempt fact says (interpret.AttemptKilled).
		"replay-result-then-retry": {[]string{
			"2026-05-07T10:00:07Z START  wf_rtry0001: 2 agents started so far, 2 attempts.",
			"2026-05-07T10:01:42Z OK     a:ak00000000000233 attempt 1 returned a result.",
			"2026-05-07T10:03:52Z OK     a:ak00000000000231 attempt 1 returned a result.",
			"2026-05-07T10:05:02Z OK     a:ak00000000000232 attempt 2 returned a result.",
			"2026-05-07T10:05:12Z DONE   2 agents, 3 attempts, clean after 1 retry.  -> agent-postmortem run wf_rtry0001",
		}, 0},
		"replay-kill-fallback": {[]string{
			"2026-05-07T11:00:02Z START  wf_fall0001: 1 agents started so far, 1 attempts.",
			"2026-05-07T11:01:37Z KILL   a:ak00000000000011 attempt 1 (details unavailable); restarted as attempt 2.",
			"2026-05-07T11:03:22Z OK     a:ak00000000000012 attempt 2 returned a result.",
			"2026-05-07T11:03:27Z DONE   1 agents, 2 attempts, clean after 1 retry.  -> agent-postmortem run wf_fall0001",
		}, 0},
		"replay-rate-limit": {[]string{
			"2026-05-07T14:00:07Z START  wf_rate0001: 1 agents started so far, 1 attempts.",
			"2026-05-07T14:01:42Z KILL   a:ar00000000000001 attempt 1 after 60s of silence; restarted as attempt 2.",
			"2026-05-07T14:01:42Z        attempt 1 wrote 0 paths, reported 0 commits.  -> agent-postmortem rescue plan wf_rate0001",
			"2026-05-07T14:02:37Z OK     a:ar00000000000002 attempt 2 returned a result.",
			"2026-05-07T14:02:37Z DONE   1 agents, 2 attempts, clean after 1 retry.  -> agent-postmortem run wf_rate0001",
		}, 0},
		"replay-quiet-doubling": {[]string{
			"2026-05-07T13:00:07Z START  wf_quiet001: 1 agents started so far, 1 attempts.",
			"2026-05-07T13:05:12Z QUIET  a:aq00000000000001 attempt 1 has produced nothing for 302s.",
			"2026-05-07T13:10:12Z QUIET  a:aq00000000000001 attempt 1 has produced nothing for 602s.",
			"2026-05-07T13:20:12Z QUIET  a:aq00000000000001 attempt 1 has produced nothing for 1202s.",
			"2026-05-07T13:25:02Z OK     a:aq00000000000001 attempt 1 returned a result.",
			"2026-05-07T13:25:32Z DONE   1 agents, 1 attempts, clean.  -> agent-postmortem run wf_quiet001",
		}, 0},
		"replay-done-grace": {[]string{
			"2026-05-07T15:00:07Z START  wf_grace001: 2 agents started so far, 2 attempts.",
			"2026-05-07T15:00:52Z OK     a:ag00000000000001 attempt 1 returned a result.",
			"2026-05-07T15:01:02Z OK     a:ag00000000000002 attempt 1 returned a result.",
			"2026-05-07T15:02:02Z OK     a:ag00000000000003 attempt 1 returned a result.",
			"2026-05-07T15:02:32Z DONE   3 agents, 3 attempts, clean.  -> agent-postmortem run wf_grace001",
		}, 0},
		"replay-done-taskstop": {[]string{
			"2026-05-07T16:00:07Z START  wf_stop0001: 2 agents started so far, 2 attempts.",
			"2026-05-07T16:00:22Z OK     a:as00000000000002 attempt 1 returned a result.",
			"2026-05-07T16:01:02Z DONE   2 agents, 2 attempts, FAILED: 1 agent returned no result.  -> agent-postmortem run wf_stop0001",
		}, 3},
		"replay-done-sync-result": {[]string{
			"2026-05-07T17:00:07Z START  wf_sync0001: 1 agents started so far, 1 attempts.",
			"2026-05-07T17:01:32Z OK     a:ay00000000000001 attempt 1 returned a result.",
			"2026-05-07T17:01:42Z DONE   1 agents, 1 attempts, clean.  -> agent-postmortem run wf_sync0001",
		}, 0},
		"replay-failed-causes": {[]string{
			"2026-05-07T12:00:07Z START  wf_fail0001: 1 agents started so far, 1 attempts.",
			"2026-05-07T12:00:17Z FAILED a:af00000000000001 attempt 1: hit a usage limit.",
			"2026-05-07T12:00:37Z FAILED a:af00000000000002 attempt 1: ended on an API error.",
			"2026-05-07T12:01:02Z FAILED a:af00000000000003 attempt 1: interrupted before finishing.",
			"2026-05-07T12:01:17Z FAILED a:af00000000000004 attempt 1: ran out of context.",
			"2026-05-07T12:01:37Z FAILED a:af00000000000005 attempt 1: cause not recorded.",
			"2026-05-07T12:01:37Z FAILED a:af00000000000006 attempt 1: cause not recorded.",
			"2026-05-07T12:02:07Z DONE   6 agents, 6 attempts, FAILED: 6 agents returned no result.  -> agent-postmortem run wf_fail0001",
		}, 3},
		"replay-limit-hours": {[]string{
			"2026-05-07T18:00:07Z START  wf_limit001: 1 agents started so far, 1 attempts.",
			"2026-05-07T18:05:22Z QUIET  a:al00000000000001 attempt 1 has produced nothing for 302s.",
			"2026-05-07T18:10:22Z QUIET  a:al00000000000001 attempt 1 has produced nothing for 602s.",
			"2026-05-07T18:20:22Z QUIET  a:al00000000000001 attempt 1 has produced nothing for 1202s.",
			"2026-05-07T18:40:22Z QUIET  a:al00000000000001 attempt 1 has produced nothing for 2402s.",
			"2026-05-07T19:20:22Z QUIET  a:al00000000000001 attempt 1 has produced nothing for 4802s.",
			"2026-05-07T20:40:22Z QUIET  a:al00000000000001 attempt 1 has produced nothing for 9602s.",
			"2026-05-07T23:20:22Z QUIET  a:al00000000000001 attempt 1 has produced nothing for 19202s.",
			"2026-05-08T00:00:02Z LIMIT  6h reached; run not finished.",
		}, 4},
		"replay-malformed-line": {[]string{
			"2026-05-07T19:00:07Z START  wf_malf0001: 1 agents started so far, 1 attempts.",
			"2026-05-07T19:00:07Z MALFORMED journal line 2 is not JSON",
			"2026-05-07T19:00:52Z OK     a:am00000000000001 attempt 1 returned a result.",
			"2026-05-07T19:01:02Z LIMIT  journal has malformed lines; run state unknown.",
		}, 4},
		"replay-malformed-too-long": {[]string{
			"2026-05-07T20:00:07Z START  wf_long0001: 1 agents started so far, 1 attempts.",
			"2026-05-07T20:00:52Z OK     a:ao00000000000001 attempt 1 returned a result.",
			"2026-05-07T20:01:02Z MALFORMED journal line longer than 1 MB",
		}, 4},
		"replay-journal-late":          {nil, 2},
		"replay-launch-missing-rundir": {nil, 2},
		"replay-orphan-result": {[]string{
			"2026-05-08T09:00:07Z START  wf_orph0001: 1 agents started so far, 1 attempts.",
			"2026-05-08T09:01:22Z DONE   1 agents, 1 attempts, FAILED: 1 agent returned no result.  -> agent-postmortem run wf_orph0001",
		}, 3},
		"replay-no-identity": {[]string{
			"2026-05-08T10:00:02Z START  wf_noid0001: 3 agents started so far, 3 attempts.",
			"2026-05-08T10:00:02Z FAILED agent-1 attempt 1: cause not recorded.",
			"2026-05-08T10:00:02Z OK     agent-2 attempt 1 returned a result.",
			"2026-05-08T10:00:32Z DONE   3 agents, 3 attempts, FAILED: 2 agents returned no result.  -> agent-postmortem run wf_noid0001",
		}, 3},
		"replay-torn-final-line": {[]string{
			"2026-05-08T11:00:07Z START  wf_torn0001: 1 agents started so far, 1 attempts.",
			"2026-05-08T11:00:52Z OK     a:au00000000000001 attempt 1 returned a result.",
			"2026-05-08T11:01:22Z DONE   1 agents, 1 attempts, clean.  -> agent-postmortem run wf_torn0001",
		}, 0},
		"replay-superseded-not-killed": {[]string{
			"2026-05-08T12:00:07Z START  wf_nokl0001: 1 agents started so far, 1 attempts.",
			"2026-05-08T12:01:12Z OK     a:av00000000000002 attempt 2 returned a result.",
			"2026-05-08T12:01:17Z DONE   1 agents, 2 attempts, clean after 1 retry.  -> agent-postmortem run wf_nokl0001",
		}, 0},
		"replay-unknown-terminal": {[]string{
			"2026-05-08T13:00:07Z START  wf_unkn0001: 1 agents started so far, 1 attempts.",
			"2026-05-08T13:00:52Z OK     a:aw00000000000001 attempt 1 returned a result.",
			"2026-05-08T13:01:22Z DONE   1 agents, 1 attempts, clean.  -> agent-postmortem run wf_unkn0001",
		}, 4},
		// A Workflow notification that says killed is the terminal stopped:
		// DONE at the first poll after it (its write at +56s, polls every
		// 5s from +2s), not after the grace and never at the 6-hour LIMIT.
		"replay-stopped-run-clean": {[]string{
			"2026-05-09T10:00:07Z START  wf_stop0001: 1 agents started so far, 1 attempts.",
			"2026-05-09T10:00:52Z OK     a:aw00000000000211 attempt 1 returned a result.",
			"2026-05-09T10:00:57Z DONE   1 agents, 1 attempts, clean.  -> agent-postmortem run wf_stop0001",
		}, 0},
		// Stopped while key B's agent was still running: DONE at once, FAILED.
		"replay-stopped-run-failed": {[]string{
			"2026-05-09T11:00:07Z START  wf_stop0002: 2 agents started so far, 2 attempts.",
			"2026-05-09T11:00:42Z OK     a:aw00000000000221 attempt 1 returned a result.",
			"2026-05-09T11:01:32Z DONE   2 agents, 2 attempts, FAILED: 1 agent returned no result.  -> agent-postmortem run wf_stop0002",
		}, 3},
		"replay-keyless": {[]string{
			"2026-05-08T14:00:07Z START  wf_nokey001: 2 agents started so far, 2 attempts.",
			"2026-05-08T14:00:22Z OK     a:ax00000000000001 attempt 1 returned a result.",
			"2026-05-08T14:00:27Z OK     a:ax00000000000002 attempt 1 returned a result.",
			"2026-05-08T14:00:32Z DONE   2 agents, 2 attempts, clean.  -> agent-postmortem run wf_nokey001",
		}, 0},
		"replay-kill-rounding": {[]string{
			"2026-05-08T15:00:07Z START  wf_round001: 1 agents started so far, 1 attempts.",
			"2026-05-08T15:01:47Z KILL   a:az00000000000001 attempt 1 after 2s of silence; restarted as attempt 2.",
			"2026-05-08T15:01:47Z        attempt 1 wrote 0 paths, reported 0 commits.  -> agent-postmortem rescue plan wf_round001",
			"2026-05-08T15:01:52Z KILL   a:az00000000000003 attempt 1 after 4s of silence; restarted as attempt 2.",
			"2026-05-08T15:01:52Z        attempt 1 wrote 0 paths, reported 0 commits.  -> agent-postmortem rescue plan wf_round001",
			"2026-05-08T15:01:52Z KILL   a:az00000000000005 attempt 1 after unknowns of silence; restarted as attempt 2.",
			"2026-05-08T15:01:52Z        attempt 1 wrote 0 paths, reported 0 commits.  -> agent-postmortem rescue plan wf_round001",
			"2026-05-08T15:02:47Z OK     a:az00000000000002 attempt 2 returned a result.",
			"2026-05-08T15:02:52Z OK     a:az00000000000004 attempt 2 returned a result.",
			"2026-05-08T15:02:52Z OK     a:az00000000000006 attempt 2 returned a result.",
			"2026-05-08T15:02:52Z DONE   3 agents, 6 attempts, clean after 3 retries.  -> agent-postmortem run wf_round001",
		}, 0},
	}
	seen := 0
	for _, dir := range replayFixtures(t) {
		name := filepath.Base(dir)
		w, ok := want[name]
		if !ok {
			continue
		}
		seen++
		abs, _ := filepath.Abs(dir)
		t.Run(name, func(t *testing.T) {
			t.Chdir(abs)
			out, errs, code := runReplay(t, "--as-watch", "--timestamps", replayTarget(t, "."))
			got := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			if out == "" {
				got = nil
			}
			if strings.Join(got, "\n") != strings.Join(w.lines, "\n") {
				t.Errorf("lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(w.lines, "\n"))
			}
			if code != w.exit {
				t.Errorf("exit %d, want %d (stderr %q)", code, w.exit, errs)
			}
			if code == 2 && !strings.HasPrefix(errs, "no journal appeared within 60 s: watch follows a Workflow run") {
				t.Errorf("exit 2 without watch's message: %q", errs)
			}
		})
	}
	if seen != len(want) {
		t.Errorf("only %d of %d expected fixtures exist", seen, len(want))
	}
}

// TestReplayEveryFixtureHasAGolden keeps golden/replay in step with the
// fixtures: a fixture without goldens, or a stray golden, fails.
func TestReplayEveryFixtureHasAGolden(t *testing.T) {
	want := map[string]bool{}
	for _, dir := range replayFixtures(t) {
		want[filepath.Base(dir)+".text.golden"] = true
		want[filepath.Base(dir)+".json.golden"] = true
	}
	entries, err := os.ReadDir("../../golden/replay")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !want[e.Name()] {
			t.Errorf("golden/replay/%s belongs to no fixture", e.Name())
		}
		delete(want, e.Name())
	}
	for n := range want {
		t.Errorf("golden/replay/%s is missing: run go test ./cmd/pmcheck -run TestReplayGolden -update", n)
	}
}
