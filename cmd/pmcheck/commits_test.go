package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pmcheck/pmcheck/internal/entiretest"
)

const (
	sessA = "a1000000-0000-4000-8000-000000000001"
	sessB = "b2000000-0000-4000-8000-000000000002"
)

// prRepo is a pull request of three commits on feat: an agent commit with
// a checkpoint on the branch backend, one with a checkpoint on the ref
// backend, and a human commit.
func prRepo(t *testing.T) (*entiretest.Repo, string) {
	r := entiretest.New(t)
	base := r.Git("rev-parse", "HEAD")
	r.Git("checkout", "-q", "-b", "feat")
	r.Commit("agent work one\n\nEntire-Checkpoint: a1b2c3d4e5f6", "one.go", "package one\n")
	r.BranchCheckpoint("a1b2c3d4e5f6", []entiretest.Session{{ID: sessA, Agent: "Claude Code", Transcript: entiretest.Transcript(sessA, 3, "")}})
	r.Commit("agent work two\n\nEntire-Checkpoint: 01J9ZQ3XKX4RMA6P8SF7TBV2C0", "two.go", "package two\n")
	r.RefCheckpoint("01J9ZQ3XKX4RMA6P8SF7TBV2C0", []entiretest.Session{{ID: sessB, Agent: "Claude Code", Transcript: entiretest.Transcript(sessB, 2, "")}})
	r.Commit("human fix", "three.go", "package three\n")
	return r, base
}

func rangeCheck(t *testing.T, dir string, args ...string) (int, map[string]any, string, string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "r.json")
	code, stdout, stderr := runIn(t, dir, append([]string{"check", "--no-config", "--format", "text", "--format", "json=" + out}, args...)...)
	var doc map[string]any
	if data, err := os.ReadFile(out); err == nil {
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
	}
	return code, doc, stdout, stderr
}

func coverageOf(t *testing.T, doc map[string]any) map[string]any {
	t.Helper()
	c, ok := doc["coverage"].(map[string]any)
	if !ok {
		t.Fatalf("no coverage in the report")
	}
	return c
}

func TestCommitsTracedThroughBothBackends(t *testing.T) {
	r, base := prRepo(t)
	code, doc, stdout, stderr := rangeCheck(t, r.Dir, "--commits", base+"..feat")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	c := coverageOf(t, doc)
	if got, want := c["summary"], "3 commits: 2 traced to 2 runs, 1 with no agent evidence"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
	if !strings.Contains(stdout, "coverage of "+base+"..feat: 3 commits: 2 traced to 2 runs") {
		t.Errorf("text report lacks the coverage:\n%s", stdout)
	}
	if !strings.Contains(stdout, "entire-checkpoint") {
		t.Errorf("text report lacks the evidence of the links:\n%s", stdout)
	}
	runs := doc["runs"].([]any)
	if len(runs) != 2 {
		t.Fatalf("%d runs, want 2", len(runs))
	}
	for _, x := range runs {
		p := x.(map[string]any)["path"].(string)
		if !strings.HasPrefix(p, "entire/checkpoints/") {
			t.Errorf("run path %q is not shown as its checkpoint", p)
		}
	}
}

// A trailer whose checkpoint was never pushed fails the check, naming the
// checkpoint and the commit.
func TestMissingCheckpointFails(t *testing.T) {
	r, base := prRepo(t)
	sha := r.Commit("agent work three\n\nEntire-Checkpoint: 0123456789ab", "four.go", "package four\n")
	code, doc, stdout, stderr := rangeCheck(t, r.Dir, "--commits", base+"..feat")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "error checkpoint-missing") || !strings.Contains(stdout, "commit "+sha[:12]) || !strings.Contains(stdout, "0123456789ab") {
		t.Errorf("the finding does not name the commit and the checkpoint:\n%s", stdout)
	}
	if got, want := coverageOf(t, doc)["summary"], "4 commits: 2 traced to 2 runs, 1 checkpoint missing, 1 with no agent evidence"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
}

// A malformed checkpoint id cannot be read either.
func TestMalformedCheckpointIDFails(t *testing.T) {
	r := entiretest.New(t)
	base := r.Git("rev-parse", "HEAD")
	r.Commit("agent\n\nEntire-Checkpoint: not-an-id", "a.go", "package a\n")
	code, _, stdout, _ := rangeCheck(t, r.Dir, "--commits", base+"..HEAD")
	if code != 1 || !strings.Contains(stdout, "is not a checkpoint id") {
		t.Fatalf("exit %d, want 1 naming the malformed id:\n%s", code, stdout)
	}
}

// A range nothing links to an agent, with no runs, passes without
// --allow-empty and says so.
func TestRangeWithoutAgentsPasses(t *testing.T) {
	r := entiretest.New(t)
	base := r.Git("rev-parse", "HEAD")
	r.Commit("one", "a.go", "package a\n")
	r.Commit("two", "b.go", "package b\n")
	code, doc, stdout, stderr := rangeCheck(t, r.Dir, "--commits", base+"..HEAD")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if got, want := coverageOf(t, doc)["summary"], "0 of 2 commits made by agents"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
	// Without a range, no runs is still an error.
	if code, _, _ := runIn(t, r.Dir, "check", "--no-config", "."); code != 2 {
		t.Errorf("no runs without a range: exit %d, want 2", code)
	}
}

// A transcript split as full.jsonl, .001, .002 is read as one file, line
// for line.
func TestSplitTranscript(t *testing.T) {
	r := entiretest.New(t)
	base := r.Git("rev-parse", "HEAD")
	r.Commit("agent\n\nEntire-Checkpoint: 5a5a5a5a5a5a", "a.go", "package a\n")
	tr := entiretest.Transcript(sessA, 40, "")
	r.BranchCheckpoint("5a5a5a5a5a5a", []entiretest.Session{{ID: sessA, Transcript: tr, Split: len(tr) / 3}})
	if n := strings.Count(r.Git("ls-tree", "-r", "--name-only", "entire/checkpoints/v1"), "full.jsonl"); n < 3 {
		t.Fatalf("the transcript is stored in %d parts, want 3 or more", n)
	}
	code, doc, stdout, stderr := rangeCheck(t, r.Dir, "--commits", base+"..HEAD")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	facts := doc["facts"].([]any)
	run := facts[0].(map[string]any)["run"].(map[string]any)
	if run["id"] != sessA || run["malformed"].(float64) != 0 {
		t.Errorf("run %v: want session %s read whole with no malformed line", run["id"], sessA)
	}
	if end := run["end"]; end != "2026-05-06T09:01:20Z" {
		t.Errorf("run ends at %v, want the last row of the last part (09:01:20)", end)
	}
}

// A session spread over three checkpoints is one run, read from the last
// checkpoint (its full.jsonl holds the whole session): no row counted twice.
func TestSessionOverThreeCheckpoints(t *testing.T) {
	t.Run("with starts", func(t *testing.T) { sessionOverThree(t, true, false) })
	// Older versions write no checkpoint_transcript_start: the checkpoints
	// are joined in the range's order.
	t.Run("without starts", func(t *testing.T) { sessionOverThree(t, false, false) })
	// Older versions also stored only the part of the session since the
	// previous checkpoint (entireio/cli's own checkpoints of January 2026):
	// the parts are joined, no row lost.
	t.Run("parts", func(t *testing.T) { sessionOverThree(t, false, true) })
}

func sessionOverThree(t *testing.T, withStarts, parts bool) {
	r := entiretest.New(t)
	base := r.Git("rev-parse", "HEAD")
	ids := []string{"c0c0c0c0c001", "c0c0c0c0c002", "c0c0c0c0c003"}
	full := entiretest.Transcript(sessA, 10, "") // 21 rows, 09:00:00 to 09:00:20
	lines := strings.SplitAfter(full, "\n")
	for i, id := range ids {
		r.Commit("agent step\n\nEntire-Checkpoint: "+id, "f.go", "package f // "+id+"\n")
		from, upTo := 0, 7*(i+1) // rows so far
		if parts {
			from = 7 * i
		}
		start := 7 * i
		if !withStarts {
			start = 0
		}
		// The session id as older versions wrote it: the day it started first.
		r.BranchCheckpoint(id, []entiretest.Session{{ID: "2026-05-06-" + sessA, Start: start, Transcript: strings.Join(lines[from:upTo], "")}})
	}
	code, doc, stdout, stderr := rangeCheck(t, r.Dir, "--commits", base+"..HEAD")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	runs := doc["runs"].([]any)
	if len(runs) != 1 {
		t.Fatalf("%d runs, want the one session", len(runs))
	}
	if p := runs[0].(map[string]any)["path"]; p != "entire/checkpoints/c0/c0c0c0c003/0/"+sessA+".jsonl" {
		t.Errorf("run read from %v, want the last checkpoint", p)
	}
	if got, want := coverageOf(t, doc)["summary"], "3 commits: 3 traced to 1 run"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
	if n := doc["inputs"].(map[string]any)["files"].(float64); n != 1 {
		t.Errorf("%v files read, want 1", n)
	}
	run := doc["facts"].([]any)[0].(map[string]any)["run"].(map[string]any)
	if run["start"] != "2026-05-06T09:00:00Z" || run["end"] != "2026-05-06T09:00:20Z" {
		t.Errorf("run from %v to %v, want every row once (09:00:00 to 09:00:20)", run["start"], run["end"])
	}
	if bad := run["malformed"].(float64); bad != 0 {
		t.Errorf("%v malformed lines", bad)
	}
}

// Checkpoints in a separate repository are read from its clone
// (--checkpoints); without it, the commit's checkpoint is missing.
func TestSeparateCheckpointRepository(t *testing.T) {
	r := entiretest.New(t)
	base := r.Git("rev-parse", "HEAD")
	r.Commit("agent\n\nEntire-Checkpoint: 7e7e7e7e7e7e", "a.go", "package a\n")
	cps := entiretest.New(t)
	cps.BranchCheckpoint("7e7e7e7e7e7e", []entiretest.Session{{ID: sessA, Transcript: entiretest.Transcript(sessA, 2, "")}})
	if code, _, stdout, _ := rangeCheck(t, r.Dir, "--commits", base+"..HEAD"); code != 1 || !strings.Contains(stdout, "checkpoint-missing") {
		t.Fatalf("without the checkpoint repository: exit %d, want 1 (checkpoint-missing)\n%s", code, stdout)
	}
	code, doc, stdout, stderr := rangeCheck(t, r.Dir, "--commits", base+"..HEAD", "--checkpoints", cps.Dir)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if got, want := coverageOf(t, doc)["summary"], "1 commit: 1 traced to 1 run"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
}

// A fork's checkpoints, fetched as the action fetches them (the branch as
// a remote-tracking branch, the refs as they are), are found.
func TestForkCheckpoints(t *testing.T) {
	fork, base := prRepo(t)
	up := entiretest.New(t)
	up.Git("fetch", "-q", fork.Dir, "feat:refs/remotes/pr/head",
		"+refs/heads/entire/checkpoints/v1:refs/remotes/fork/entire/checkpoints/v1",
		"+refs/entire/checkpoints/*:refs/entire/checkpoints/*")
	code, doc, stdout, stderr := rangeCheck(t, up.Dir, "--commits", base+"..refs/remotes/pr/head")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if got, want := coverageOf(t, doc)["summary"], "3 commits: 2 traced to 2 runs, 1 with no agent evidence"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
}

// A checkpoint whose transcript object is absent (a partial clone) is
// unreadable, not empty: the check fails and names it.
func TestAbsentTranscriptBlob(t *testing.T) {
	src := entiretest.New(t)
	base := src.Git("rev-parse", "HEAD")
	src.Commit("agent\n\nEntire-Checkpoint: 9f9f9f9f9f9f", "a.go", "package a\n")
	src.BranchCheckpoint("9f9f9f9f9f9f", []entiretest.Session{{ID: sessA, Transcript: entiretest.Transcript(sessA, 40, "")}})
	clone := filepath.Join(t.TempDir(), "partial")
	src.GitIn(src.Dir, nil, "", "clone", "-q", "--no-checkout", "--filter=blob:limit=2k", "file://"+src.Dir, clone)
	src.GitIn(clone, nil, "", "fetch", "-q", "--filter=blob:limit=2k", "origin", "+refs/heads/entire/checkpoints/v1:refs/remotes/origin/entire/checkpoints/v1")
	code, doc, stdout, stderr := rangeCheck(t, clone, "--commits", base+"..origin/main")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "absent from the repository") || !strings.Contains(stdout, "9f9f9f9f9f9f") {
		t.Errorf("the report does not name the absent transcript:\n%s", stdout)
	}
	if len(doc["runs"].([]any)) != 0 {
		t.Errorf("an absent transcript was read as a run")
	}
}

// Links from the runs' own evidence, for a run folder given as a path (the
// runner's ~/.claude/projects/<project>/ in CI): the commit line git
// printed, a gitOperation row, the Claude-Session trailer; a pr-link row
// names no commit. Each link records its evidence.
func TestLinksFromRunEvidence(t *testing.T) {
	r := entiretest.New(t)
	base := r.Git("rev-parse", "HEAD")
	x := r.Commit("by commit line", "x.go", "package x\n")
	y := r.Commit("by git operation", "y.go", "package y\n")
	z := r.Commit("by trailer\n\nClaude-Session: "+sessB, "z.go", "package z\n")
	r.Commit("human", "h.go", "package h\n")
	web := r.Commit("by a web session's trailer\n\nClaude-Session: https://claude.ai/code/session_01WebWebWeb", "w.go", "package w\n")
	orphan := r.Commit("agent, run not given\n\nClaude-Session: c3000000-0000-4000-8000-000000000003", "o.go", "package o\n")

	runs := t.TempDir()
	a := entiretest.Transcript(sessA, 2, "[feat "+x[:7]+"] by commit line")
	a += `{"type":"user","uuid":"00000000-0000-4000-8000-000000000099","parentUuid":"00000000-0000-4000-8000-000000000004","timestamp":"2026-05-06T09:00:10.000Z","sessionId":"` + sessA + `","message":{"role":"user","content":[{"tool_use_id":"toolu_9","type":"tool_result","content":"ok"}]},"toolUseResult":{"stdout":"ok","gitOperation":{"commit":{"sha":"` + y[:9] + `","kind":"commit","branch":"feat"}}}}` + "\n"
	a += `{"type":"pr-link","sessionId":"` + sessA + `","prNumber":12,"prUrl":"https://github.com/o/r/pull/12","prRepository":"o/r","timestamp":"2026-05-06T09:00:11.000Z"}` + "\n"
	writeFile(t, filepath.Join(runs, sessA+".jsonl"), []byte(a))
	writeFile(t, filepath.Join(runs, sessB+".jsonl"), []byte(entiretest.Transcript(sessB, 1, "")))
	const sessC = "c3000000-0000-4000-8000-0000000000cc"
	webRun := strings.Replace(entiretest.Transcript(sessC, 1, "[feat 0000000] x"), "git commit -am work", `git commit -m \"w\n\nClaude-Session: https://claude.ai/code/session_01WebWebWeb\"`, 1)
	writeFile(t, filepath.Join(runs, sessC+".jsonl"), []byte(webRun))

	code, doc, stdout, stderr := rangeCheck(t, r.Dir, "--commits", base+"..HEAD", runs)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	c := coverageOf(t, doc)
	if got, want := c["summary"], "6 commits: 4 traced to 3 runs, 1 made by an agent whose run is not in the input, 1 with no agent evidence"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
	by := map[string]string{}
	for _, x := range c["list"].([]any) {
		cc := x.(map[string]any)
		var links []string
		for _, l := range cc["links"].([]any) {
			lm := l.(map[string]any)
			links = append(links, lm["run"].(string)+" "+lm["by"].(string))
		}
		by[cc["sha"].(string)] = strings.Join(links, ", ")
	}
	for sha, want := range map[string]string{x: sessA + " commit-line", y: sessA + " git-operation", z: sessB + " claude-session", web: sessC + " claude-session", orphan: ""} {
		if by[sha] != want {
			t.Errorf("commit %s linked by %q, want %q", sha[:7], by[sha], want)
		}
	}
	page := filepath.Join(t.TempDir(), "r.html")
	if code, _, stderr := runIn(t, r.Dir, "check", "--no-config", "--commits", base+"..HEAD", "--format", "html="+page, runs); code != 0 {
		t.Fatalf("html: exit %d: %s", code, stderr)
	}
	if html, _ := os.ReadFile(page); !strings.Contains(string(html), "names pull request #12 of o/r (https://github.com/o/r/pull/12) (pr-link)</li>") {
		t.Errorf("the HTML page does not list the run's pull request")
	}
	if !strings.Contains(stdout, "run "+sessA+" names pull request #12 of o/r (https://github.com/o/r/pull/12) (pr-link at ") {
		t.Errorf("the run's pr-link row is not reported:\n%s", stdout)
	}
	if !strings.Contains(stdout, "warning agent-commit-without-run") || !strings.Contains(stdout, orphan[:12]) {
		t.Errorf("no agent-commit-without-run warning for %s:\n%s", orphan[:12], stdout)
	}
}

// Subagent transcripts stored under tasks/ are read with their session;
// one whose transcript is unavailable is an input problem naming why. A
// session of another agent is not read, and its commit is an agent commit
// without a run.
func TestCheckpointSubagentsAndOtherAgents(t *testing.T) {
	r := entiretest.New(t)
	base := r.Git("rev-parse", "HEAD")
	r.Commit("agent\n\nEntire-Checkpoint: 5b5b5b5b5b5b", "a.go", "package a\n")
	r.Commit("cursor\n\nEntire-Checkpoint: 6c6c6c6c6c6c", "b.go", "package b\n")
	agent := strings.ReplaceAll(entiretest.Transcript(sessA, 1, ""), `"isSidechain":false`, `"isSidechain":true,"agentId":"a77"`)
	r.BranchCheckpoint("5b5b5b5b5b5b", []entiretest.Session{{ID: sessA, Transcript: entiretest.Transcript(sessA, 2, ""), Tasks: []entiretest.Task{
		{ToolUseID: "toolu_01", AgentID: "a77", Transcript: agent},
		{ToolUseID: "toolu_02", AgentID: "a88", Unavailable: "subagent transcript exceeded the size limit"},
	}}})
	r.BranchCheckpoint("6c6c6c6c6c6c", []entiretest.Session{{ID: sessB, Agent: "Cursor", Transcript: "{}\n"}})
	code, doc, stdout, stderr := rangeCheck(t, r.Dir, "--commits", base+"..HEAD")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if n := doc["inputs"].(map[string]any)["files"].(float64); n != 2 {
		t.Errorf("%v files read, want the session and its subagent", n)
	}
	if !strings.Contains(stdout, "subagent transcript exceeded the size limit") || !strings.Contains(stdout, "toolu_02") {
		t.Errorf("the unavailable subagent transcript is not an input problem:\n%s", stdout)
	}
	if !strings.Contains(stdout, "made by \"Cursor\"") || !strings.Contains(stdout, "warning agent-commit-without-run") {
		t.Errorf("the other agent's session is not named:\n%s", stdout)
	}
}

// The range can come from .pmcheck.yaml; the config's base and head are
// then not joined on top of it.
func TestRangeFromConfig(t *testing.T) {
	r, base := prRepo(t)
	writeFile(t, filepath.Join(r.Dir, ".pmcheck.yaml"), []byte("version: 1\ngit:\n  repo: .\n  base: main\n  head: HEAD\n  commits: "+base+"..feat\n"))
	code, stdout, stderr := runIn(t, r.Dir, "check")
	if code != 0 || !strings.Contains(stdout, "3 commits: 2 traced to 2 runs") {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
}

// Bad ranges are usage errors with a one-line message.
func TestBadRanges(t *testing.T) {
	r, base := prRepo(t)
	for args, want := range map[string]string{
		"--commits " + base + "...feat":                           "write BASE..HEAD",
		"--commits nosuch..feat":                                  `"nosuch" is not a commit`,
		"--commits " + base + "..feat --git .":                    "--commits with --git",
		"--repo . " + base:                                        "--repo and --checkpoints go with --commits",
		"--commits " + base + "..feat --checkpoints /nonexistent": "--checkpoints /nonexistent",
	} {
		code, _, stderr := runIn(t, r.Dir, append([]string{"check", "--no-config"}, strings.Fields(args)...)...)
		if code != 2 || !strings.Contains(stderr, want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("%s: exit %d, stderr %q; want 2 and one line with %q", args, code, stderr, want)
		}
	}
}

// The v2 layout: metadata on refs/entire/checkpoints/v2/main, the raw
// transcript on refs/entire/checkpoints/v2/full/current.
func TestV2Checkpoints(t *testing.T) {
	r := entiretest.New(t)
	base := r.Git("rev-parse", "HEAD")
	r.Commit("agent\n\nEntire-Checkpoint: 2d2d2d2d2d2d", "a.go", "package a\n")
	r.V2Checkpoint("2d2d2d2d2d2d", []entiretest.Session{{ID: sessA, Agent: "Claude Code", Transcript: entiretest.Transcript(sessA, 3, "")}})
	code, doc, stdout, stderr := rangeCheck(t, r.Dir, "--commits", base+"..HEAD")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if got, want := coverageOf(t, doc)["summary"], "1 commit: 1 traced to 1 run"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
}

// Coverage is in every format, and `pmcheck render` of the saved JSON gives
// the bytes of a direct run.
func TestCoverageInEveryFormat(t *testing.T) {
	r, base := prRepo(t)
	r.Commit("agent work three\n\nEntire-Checkpoint: 0123456789ab", "four.go", "package four\n")
	out := t.TempDir()
	formats := map[string]string{"text": "coverage of ", "markdown": "### Coverage of", "html": `<section id="coverage">`,
		"json": `"coverage": {`, "sarif": `"pmcheck/coverage"`, "junit": `classname="commit"`}
	args := []string{"check", "--no-config", "--commits", base + "..feat"}
	for f := range formats {
		args = append(args, "--format", f+"="+filepath.Join(out, f))
	}
	if code, _, stderr := runIn(t, r.Dir, args...); code != 1 {
		t.Fatalf("exit %d, want 1: %s", code, stderr)
	}
	for f, want := range formats {
		data, err := os.ReadFile(filepath.Join(out, f))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), want) {
			t.Errorf("%s report lacks %q", f, want)
		}
		if !strings.Contains(string(data), "4 commits: 2 traced to 2 runs, 1 checkpoint missing, 1 with no agent evidence") {
			t.Errorf("%s report lacks the coverage sentence", f)
		}
		if f == "json" {
			continue
		}
		code, rendered, stderr := runIn(t, r.Dir, "render", "--format", f, filepath.Join(out, "json"))
		if code != 0 || rendered != string(data) {
			t.Errorf("render --format %s of the saved JSON differs from the direct run (exit %d, %s)", f, code, stderr)
		}
	}
	junit, _ := os.ReadFile(filepath.Join(out, "junit"))
	if n := strings.Count(string(junit), `classname="commit"`); n != 4 {
		t.Errorf("%d JUnit cases for commits, want one per commit (4)", n)
	}
	html, _ := os.ReadFile(filepath.Join(out, "html"))
	// Runs are sorted by path: the ref-backend checkpoint (01J9…) first.
	if !strings.Contains(string(html), `<a href="#run1"><code>`+sessA+`</code></a> (entire-checkpoint)`) || !strings.Contains(string(html), `<section class="run" id="run1">`) {
		t.Errorf("the HTML coverage table does not link the run to its timeline")
	}
}

// With a range, on_shipped_branch means "in the pull request's head": a
// killed subagent (read from a checkpoint's tasks/) whose file the range
// changes is an error; when the range does not carry its work, a warning.
func TestRangeIsTheShippedBranch(t *testing.T) {
	const (
		dir     = "../../fixtures/runs/rule-killed-subagent-not-shipped-unreviewed-bad/"
		session = "50000000-0000-4000-8000-000000000015"
	)
	main, err := os.ReadFile(dir + session + ".jsonl")
	if err != nil {
		t.Fatal(err)
	}
	agent, err := os.ReadFile(dir + session + "/subagents/agent-a5000000000000011.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		file string
		code int
		want string
	}{
		{"billing.go", 1, "error killed-subagent-shipped-unreviewed"},
		{"other.go", 0, "warning killed-subagent-not-shipped-unreviewed"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			r := entiretest.New(t)
			base := r.Git("rev-parse", "HEAD")
			r.Commit("refactor\n\nEntire-Checkpoint: 4e4e4e4e4e4e", tc.file, "package billing\n")
			r.BranchCheckpoint("4e4e4e4e4e4e", []entiretest.Session{{ID: session, Agent: "Claude Code", Transcript: string(main),
				Tasks: []entiretest.Task{{ToolUseID: "toolu_r0101", AgentID: "a5000000000000011", Transcript: string(agent)}}}})
			code, _, stdout, stderr := rangeCheck(t, r.Dir, "--commits", base+"..HEAD")
			if code != tc.code || !strings.Contains(stdout, tc.want) {
				t.Fatalf("exit %d, want %d with %q\n%s\n%s", code, tc.code, tc.want, stdout, stderr)
			}
		})
	}
}

// explain on a saved report names a commit finding without a crash (its
// fact is in the coverage, not among the runs').
func TestExplainCommitFinding(t *testing.T) {
	r, base := prRepo(t)
	r.Commit("agent work three\n\nEntire-Checkpoint: 0123456789ab", "four.go", "package four\n")
	saved := filepath.Join(t.TempDir(), "r.json")
	if code, _, stderr := runIn(t, r.Dir, "check", "--no-config", "--commits", base+"..feat", "--format", "json="+saved); code != 1 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	code, stdout, stderr := runIn(t, r.Dir, "explain", "checkpoint-missing", "--report", saved)
	if code != 2 || !strings.Contains(stderr, "is about a commit of the range") {
		t.Fatalf("explain: exit %d, want 2 saying the finding is about a commit\n%s\n%s", code, stdout, stderr)
	}
}

// A checkpoint whose Claude Code transcript is empty, or not a transcript,
// gives no run: it cannot vouch for the commit, which fails the check.
func TestEmptyCheckpointTranscriptFails(t *testing.T) {
	for name, transcript := range map[string]string{"empty": "", "not a transcript": "{\"hello\":1}\n"} {
		t.Run(name, func(t *testing.T) {
			r := entiretest.New(t)
			base := r.Git("rev-parse", "HEAD")
			r.Commit("agent\n\nEntire-Checkpoint: 3e3e3e3e3e3e", "a.go", "package a\n")
			r.BranchCheckpoint("3e3e3e3e3e3e", []entiretest.Session{{ID: sessA, Agent: "Claude Code", Transcript: transcript}})
			code, _, stdout, stderr := rangeCheck(t, r.Dir, "--commits", base+"..HEAD")
			if code != 1 || !strings.Contains(stdout, "gave no run") {
				t.Fatalf("exit %d, want 1 (checkpoint-missing: gave no run)\n%s\n%s", code, stdout, stderr)
			}
		})
	}
}

// A commit's finding keeps its fingerprint when the pull request's head
// moves: a baseline written for it still suppresses it.
func TestCommitFindingFingerprintSurvivesNewCommits(t *testing.T) {
	r, base := prRepo(t)
	// As the action gives it: base.sha..head.sha, the head a new id.
	head := r.Commit("agent work three\n\nEntire-Checkpoint: 0123456789ab", "four.go", "package four\n")
	bl := filepath.Join(t.TempDir(), "baseline.json")
	if code, _, stderr := runIn(t, r.Dir, "check", "--no-config", "--commits", base+".."+head, "--write-baseline", bl); code != 1 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	head = r.Commit("more work", "five.go", "package five\n")
	code, stdout, stderr := runIn(t, r.Dir, "check", "--no-config", "--commits", base+".."+head, "--baseline", bl)
	if code != 0 || !strings.Contains(stdout, "suppressed") {
		t.Fatalf("with the baseline, after a new commit: exit %d, want 0\n%s\n%s", code, stdout, stderr)
	}
}

// A killed subagent whose transcript the checkpoint did not store: its work
// is unknown (the facts say so), so on a range that changes files it counts
// as shipped and fails the check.
func TestUnstoredSubagentTranscriptIsUnknownWork(t *testing.T) {
	const (
		dir     = "../../fixtures/runs/rule-killed-subagent-not-shipped-unreviewed-bad/"
		session = "50000000-0000-4000-8000-000000000015"
	)
	main, err := os.ReadFile(dir + session + ".jsonl")
	if err != nil {
		t.Fatal(err)
	}
	r := entiretest.New(t)
	base := r.Git("rev-parse", "HEAD")
	r.Commit("refactor\n\nEntire-Checkpoint: 4f4f4f4f4f4f", "other.go", "package other\n")
	r.BranchCheckpoint("4f4f4f4f4f4f", []entiretest.Session{{ID: session, Agent: "Claude Code", Transcript: string(main),
		Tasks: []entiretest.Task{{ToolUseID: "toolu_r0101", AgentID: "a5000000000000011", Unavailable: "agent transcript too large"}}}})
	code, doc, stdout, stderr := rangeCheck(t, r.Dir, "--commits", base+"..HEAD")
	if code != 1 || !strings.Contains(stdout, "error killed-subagent-shipped-unreviewed") || !strings.Contains(stdout, "agent transcript too large") {
		t.Fatalf("exit %d, want 1 (killed-subagent-shipped-unreviewed) naming the unavailable transcript\n%s\n%s", code, stdout, stderr)
	}
	sub := doc["facts"].([]any)[0].(map[string]any)["subagents"].([]any)[0].(map[string]any)
	if sub["paths_partial"] != true || sub["commits_unknown"] != true {
		t.Errorf("the subagent's facts do not say its work is unknown: %v", sub)
	}
}

// A commit's subject and author are the pull request's: every format
// escapes them.
func TestHostileCommitTextIsEscaped(t *testing.T) {
	r := entiretest.New(t)
	base := r.Git("rev-parse", "HEAD")
	r.Commit("<img src=x onerror=alert(1)> | ::error::x\n\nEntire-Checkpoint: 0123456789ab", "a.go", "package a\n")
	out := t.TempDir()
	args := []string{"check", "--no-config", "--commits", base + "..HEAD"}
	for _, f := range []string{"html", "markdown", "text", "junit"} {
		args = append(args, "--format", f+"="+filepath.Join(out, f))
	}
	if code, _, stderr := runIn(t, r.Dir, args...); code != 1 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, f := range []string{"html", "markdown", "junit"} {
		data, _ := os.ReadFile(filepath.Join(out, f))
		if strings.Contains(string(data), "<img") {
			t.Errorf("%s report holds the subject's markup unescaped", f)
		}
	}
	text, _ := os.ReadFile(filepath.Join(out, "text"))
	for _, line := range strings.Split(string(text), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "::") {
			t.Errorf("text report line starts a workflow command: %q", line)
		}
	}
}

// A range's report is not merged with others (its coverage would be lost).
func TestRangeReportIsNotMerged(t *testing.T) {
	r, base := prRepo(t)
	saved := filepath.Join(t.TempDir(), "r.json")
	if code, _, stderr := runIn(t, r.Dir, "check", "--no-config", "--commits", base+"..feat", "--format", "json="+saved); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	code, _, stderr := runIn(t, r.Dir, "render", "--format", "text", saved, saved)
	if code != 2 || !strings.Contains(stderr, "is not merged") {
		t.Errorf("render of two range reports: exit %d, %q; want 2 saying it is not merged", code, stderr)
	}
}
