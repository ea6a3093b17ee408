//go:build unix

package main

// Reliability tests (issue 8, docs/reliability.md): fail-closed exits,
// byte-identical reports whatever the scheduling, inputs never written, and
// report files replaced atomically. The adversarial inputs have their own
// file, adversarial_test.go. Tests that need a real process (GOMAXPROCS, a
// user without privileges) run the binary TestMain builds once.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"
)

// pmcheckBin is the binary TestMain built; "" when the build failed
// (buildErr says why).
var (
	pmcheckBin string
	buildErr   error
)

func TestMain(m *testing.M) {
	// Reports must not depend on where the suite runs: under GitHub Actions
	// pmcheck would wrap standard output in a random ::stop-commands:: token.
	// The tests that check that wrapping set the variable themselves.
	os.Unsetenv("GITHUB_ACTIONS")
	dir, err := os.MkdirTemp("", "pmcheck-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	// The hooks remember scans in the user's cache directory: the
	// suite's (and the binaries it starts) go to one of its own.
	os.Setenv("PMCHECK_CACHE_DIR", filepath.Join(dir, "cache"))
	// World-readable and executable, so the binary can run as an
	// unprivileged user (the permission tests, when the suite runs as root).
	_ = os.Chmod(dir, 0o755)
	bin := filepath.Join(dir, "pmcheck")
	// The go command that runs this test (go test sets GOROOT in the
	// environment of the test binary), else the one on PATH.
	gocmd := "go"
	if root := os.Getenv("GOROOT"); root != "" {
		if p := filepath.Join(root, "bin", "go"); fileExists(p) {
			gocmd = p
		}
	}
	out, err := exec.Command(gocmd, "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		buildErr = fmt.Errorf("go build: %v\n%s", err, out)
	} else {
		pmcheckBin = bin
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// cmdTimeout bounds every command a test runs: pmcheck must never hang.
const cmdTimeout = 2 * time.Minute

// result is what one pmcheck invocation produced.
type result struct {
	code           int
	stdout, stderr string
}

// runPM runs pmcheck in-process with a deadline; a command that does not
// return in time fails the test as a hang.
func runPM(t *testing.T, args ...string) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	done := make(chan int, 1)
	go func() { done <- Run(args, strings.NewReader(""), &stdout, &stderr) }()
	select {
	case code := <-done:
		return result{code, stdout.String(), stderr.String()}
	case <-time.After(cmdTimeout):
		t.Fatalf("pmcheck %s did not return within %s (a hang)", strings.Join(args, " "), cmdTimeout)
		return result{}
	}
}

// runBin runs the built binary with extra environment variables; as, when
// not nil, runs it as that user.
func runBin(t *testing.T, dir string, env []string, as *syscall.Credential, args ...string) (result, *os.ProcessState) {
	t.Helper()
	if pmcheckBin == "" {
		t.Fatalf("pmcheck binary not built: %v", buildErr)
	}
	ctx, cancel := context.WithTimeout(context.Background(), cmdTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, pmcheckBin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	if as != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: as}
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("pmcheck %s did not return within %s (a hang)", strings.Join(args, " "), cmdTimeout)
	}
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("running pmcheck: %v", err)
	}
	return result{code, stdout.String(), stderr.String()}, cmd.ProcessState
}

// oneLineError asserts the failure contract: the exit code, and exactly one
// line on standard error that starts with "pmcheck: " and holds every want.
func oneLineError(t *testing.T, r result, code int, want ...string) {
	t.Helper()
	if r.code != code {
		t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", r.code, code, r.stdout, r.stderr)
	}
	lines := strings.Split(strings.TrimRight(r.stderr, "\n"), "\n")
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "pmcheck: ") {
		t.Fatalf("want one error line starting with 'pmcheck: ', got %q", r.stderr)
	}
	for _, w := range want {
		if !strings.Contains(lines[0], w) {
			t.Errorf("error %q does not mention %q", lines[0], w)
		}
	}
	if strings.Contains(r.stderr, "internal error") || strings.Contains(r.stderr, "goroutine ") {
		t.Fatalf("a crash, not a clear error: %s", r.stderr)
	}
}

// jsonReport is the part of the canonical JSON Document these tests read.
type jsonReport struct {
	Findings []struct {
		RuleID      string `json:"rule_id"`
		Message     string `json:"message"`
		Fingerprint string `json:"fingerprint"`
		Suppressed  bool   `json:"suppressed"`
		Evidence    []struct {
			File string `json:"file"`
			Line int    `json:"line"`
		} `json:"evidence"`
	} `json:"findings"`
	Runs []struct {
		Kind      string `json:"kind"`
		ID        string `json:"id"`
		Path      string `json:"path"`
		Agents    int    `json:"agents"`
		Attempts  int    `json:"attempts"`
		Malformed int    `json:"malformed"`
	} `json:"runs"`
	Inputs struct {
		Files     int `json:"files"`
		Malformed int `json:"malformed"`
		Problems  []struct {
			File    string `json:"file"`
			Line    int    `json:"line"`
			Message string `json:"message"`
		} `json:"problems"`
	} `json:"inputs"`
	Outcome struct {
		Failed bool `json:"failed"`
	} `json:"outcome"`
}

func parseReport(t *testing.T, data string) jsonReport {
	t.Helper()
	var r jsonReport
	if err := json.Unmarshal([]byte(data), &r); err != nil {
		t.Fatalf("the JSON report does not parse: %v\n%s", err, data)
	}
	return r
}

// checkJSON runs check with a JSON report on standard output and fails on
// anything but a completed evaluation (exit 0 or 1, nothing on stderr).
func checkJSON(t *testing.T, args ...string) (jsonReport, result) {
	t.Helper()
	r := runPM(t, append([]string{"check", "--format", "json"}, args...)...)
	if r.code != ExitOK && r.code != ExitFindings {
		t.Fatalf("check exited %d: %s", r.code, r.stderr)
	}
	if r.stderr != "" {
		t.Fatalf("check wrote to stderr: %s", r.stderr)
	}
	return parseReport(t, r.stdout), r
}

// problemsWith returns the report's input problems whose message holds s.
func (r jsonReport) problemsWith(s string) []string {
	var out []string
	for _, p := range r.Inputs.Problems {
		if strings.Contains(p.Message, s) {
			out = append(out, fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.Message))
		}
	}
	return out
}

// sessionFile is a well-formed session transcript from the fixtures.
func sessionFile(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile(fixture("session-sync-and-async/10000000-0000-4000-8000-000000000001.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// unprivileged returns the credential to run the binary with so that file
// permissions apply (nil when the tests do not run as root), and makes the
// path to dir traversable for that user.
func unprivileged(t *testing.T, dir string) *syscall.Credential {
	t.Helper()
	if os.Geteuid() != 0 {
		return nil
	}
	// t.TempDir's parents are private to the owner; open them to the
	// unprivileged user (they only hold this test's files).
	for d := dir; d != "/" && d != "." && strings.HasPrefix(d, os.TempDir()) && d != filepath.Clean(os.TempDir()); d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return &syscall.Credential{Uid: 65534, Gid: 65534}
}

// TestFailClosedExits enumerates how check fails closed: every way of having
// evaluated nothing, or having read less than it was given, exits 2 with one
// clear line; only --allow-empty turns "no runs" into a pass.
func TestFailClosedExits(t *testing.T) {
	tmp := t.TempDir()
	empty := filepath.Join(tmp, "empty")
	os.MkdirAll(empty, 0o755)
	zero := filepath.Join(tmp, "zero")
	writeFile(t, filepath.Join(zero, "s.jsonl"), nil)
	junk := filepath.Join(tmp, "junk")
	writeFile(t, filepath.Join(junk, "s.jsonl"), []byte("not json\n[1,2]\n\x00\x01\n"))
	notes := filepath.Join(tmp, "notes.txt")
	writeFile(t, notes, []byte("hello\n"))
	badBaseline := filepath.Join(tmp, "baseline.yaml")
	writeFile(t, badBaseline, []byte("version: 1\nfindings:\n  - fingerprint: nothex\n"))
	good := fixture("session-sync-and-async")
	cases := []struct {
		name string
		args []string
		want []string
	}{
		{"no runs in an empty folder", []string{empty}, []string{"no runs found", "--allow-empty"}},
		{"no runs: only an empty transcript", []string{zero}, []string{"no runs found"}},
		{"only lines that do not decode", []string{junk}, []string{"s.jsonl:1:", "does not decode as JSON Lines"}},
		{"path does not exist", []string{filepath.Join(tmp, "missing")}, []string{"no such file or directory"}},
		{"path is not a transcript", []string{notes}, []string{"notes.txt", "not a .jsonl transcript"}},
		{"a subagent transcript given alone", []string{fixture("session-sync-and-async/10000000-0000-4000-8000-000000000001/subagents/agent-a1111111111111111.jsonl")}, []string{"subagent transcript"}},
		{"rule file is not YAML", []string{"--rules", fixture("adv-rules-not-yaml/junk.yaml"), good}, []string{"junk.yaml"}},
		{"rule file does not exist", []string{"--rules", filepath.Join(tmp, "none.yaml"), good}, []string{"none.yaml"}},
		{"every rule disabled", disableAll(t, good), []string{"a check that evaluates nothing"}},
		{"baseline is invalid", []string{"--baseline", badBaseline, good}, []string{"baseline.yaml"}},
		{"unknown report format", []string{"--format", "pdf", good}, []string{"unknown format"}},
		{"report directory does not exist", []string{"--format", "json=" + filepath.Join(tmp, "nodir", "r.json"), good}, []string{"r.json"}},
		{"git join half given", []string{"--git", tmp, good}, []string{"--git, --base and --head go together"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := runPM(t, append([]string{"check"}, tc.args...)...)
			oneLineError(t, r, ExitUsage, tc.want...)
			// An unreadable input is reported (issue 31, item 2): the
			// report lists it first, and fails; no other error prints one.
			if r.stdout != "" && !strings.HasPrefix(r.stdout, "error input-problem: ") {
				t.Errorf("a failed check printed a report: %q", r.stdout)
			}
		})
	}
	t.Run("allow-empty passes an empty folder and says so", func(t *testing.T) {
		r := runPM(t, "check", "--allow-empty", empty)
		if r.code != ExitOK || !strings.Contains(r.stdout, "0 runs") {
			t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
		}
	})
	t.Run("an unreadable transcript", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "root")
		writeFile(t, filepath.Join(dir, "a.jsonl"), sessionFile(t))
		writeFile(t, filepath.Join(dir, "b.jsonl"), sessionFile(t))
		os.Chmod(filepath.Join(dir, "b.jsonl"), 0)
		r, _ := runBin(t, dir, nil, unprivileged(t, dir), "check", ".")
		oneLineError(t, r, ExitUsage, "b.jsonl", "cannot be read", "permission denied")
	})
	t.Run("an unreadable journal", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "root")
		copyTree(t, fixture("workflow-clean"), dir)
		j := filepath.Join(dir, "10000000-0000-4000-8000-000000000003/subagents/workflows/wf_clean0001/journal.jsonl")
		os.Chmod(j, 0)
		r, _ := runBin(t, dir, nil, unprivileged(t, dir), "check", ".")
		oneLineError(t, r, ExitUsage, "journal.jsonl", "cannot be read", "permission denied")
	})
}

func disableAll(t *testing.T, path string) []string {
	t.Helper()
	r := runPM(t, "rules", "list", "--json")
	var meta []struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &meta); err != nil || len(meta) == 0 {
		t.Fatalf("rules list --json: %v %q", err, r.stdout)
	}
	args := []string{}
	for _, m := range meta {
		args = append(args, "--disable", m.ID)
	}
	return append(args, path)
}

// allFormats writes every report format to a file in dir, as one check.
func allFormats(dir string) []string {
	var args []string
	for _, f := range []string{"text", "json", "sarif", "junit", "github", "markdown"} {
		args = append(args, "--format", f+"="+filepath.Join(dir, "report."+f))
	}
	return args
}

// TestReportsAreByteIdentical runs the built binary over every fixture 20
// times, spread over GOMAXPROCS=1, 2 and 8, writing every format, and
// requires byte-identical reports each time (Go randomises map iteration
// per run, so any map order reaching the output shows up here); scan's JSON
// must not depend on --jobs either. Reports name inputs as given, never by a
// host path.
func TestReportsAreByteIdentical(t *testing.T) {
	runs := 20
	if testing.Short() {
		runs = 3
	}
	abs, _ := filepath.Abs(fixtureRuns)
	fixtures := reportFixtures(t, "../..")
	var first map[string][]byte
	for i := 0; i < runs; i++ {
		procs := []string{"1", "2", "8"}[i%3]
		out := t.TempDir()
		r, _ := runBin(t, ".", []string{"GOMAXPROCS=" + procs}, nil, append(append([]string{"check", "--fail-level", "none"}, allFormats(out)...), fixtures...)...)
		if r.code != ExitOK {
			t.Fatalf("run %d (GOMAXPROCS=%s): exit %d: %s", i, procs, r.code, r.stderr)
		}
		got := map[string][]byte{}
		entries, _ := os.ReadDir(out)
		for _, e := range entries {
			data, err := os.ReadFile(filepath.Join(out, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(data, []byte(abs)) || bytes.Contains(data, []byte(out)) {
				t.Errorf("%s holds a host path", e.Name())
			}
			got[e.Name()] = data
		}
		if len(got) != 6 {
			t.Fatalf("run %d wrote %d reports, want 6", i, len(got))
		}
		if first == nil {
			first = got
			continue
		}
		for name, data := range got {
			if !bytes.Equal(data, first[name]) {
				t.Fatalf("run %d (GOMAXPROCS=%s): %s differs from run 0:\n%s", i, procs, name, firstDiff(first[name], data))
			}
		}
	}
	var scans []string
	for _, jobs := range []string{"1", "2", "8"} {
		r, _ := runBin(t, ".", []string{"GOMAXPROCS=" + jobs}, nil, "scan", "--json", "--jobs", jobs, fixtureRuns)
		// fixtures/runs holds inputs check refuses on purpose (a launched
		// Workflow run without its directory): scan lists everything and
		// exits 2 for them.
		if r.code != ExitUsage {
			t.Fatalf("scan exit %d: %s", r.code, r.stderr)
		}
		scans = append(scans, r.stdout)
	}
	if scans[0] != scans[1] || scans[0] != scans[2] {
		t.Fatalf("scan --json depends on --jobs / GOMAXPROCS")
	}
}

// firstDiff shows where two outputs first differ.
func firstDiff(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	lo := max(i-200, 0)
	return fmt.Sprintf("at byte %d:\nwant …%s…\ngot  …%s…", i, a[lo:min(i+200, len(a))], b[lo:min(i+200, len(b))])
}

// entry is what a snapshot records of one path.
type entry struct {
	mode  fs.FileMode
	size  int64
	mtime time.Time
	sum   [32]byte
}

// snapshot records every path under root with its mode, size, mtime and
// content hash. Comparing two snapshots catches a write even when the tree's
// permissions could not stop it (the suite may run as root).
func snapshot(t *testing.T, root string) map[string]entry {
	t.Helper()
	out := map[string]entry{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		e := entry{mode: info.Mode(), size: info.Size(), mtime: info.ModTime()}
		if info.Mode().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			e.sum = sha256.Sum256(data)
		}
		rel, _ := filepath.Rel(root, p)
		out[rel] = e
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func diffSnapshots(before, after map[string]entry) []string {
	var out []string
	for p, b := range before {
		a, ok := after[p]
		switch {
		case !ok:
			out = append(out, "removed "+p)
		case a != b:
			out = append(out, fmt.Sprintf("changed %s (%v %d %v -> %v %d %v)", p, b.mode, b.size, b.mtime, a.mode, a.size, a.mtime))
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			out = append(out, "created "+p)
		}
	}
	sort.Strings(out)
	return out
}

// setWritable adds or removes write permission on every path under root.
func setWritable(t *testing.T, root string, writable bool) {
	t.Helper()
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		mode := info.Mode().Perm()
		if writable {
			mode |= 0o200
		} else {
			mode &^= 0o222
		}
		os.Chmod(p, mode)
		return nil
	})
}

// TestNeverWritesIntoInputs copies fixtures (sessions, a Workflow run, saved
// reports, rule files) into a tree, makes it read-only, runs every command on
// it, and compares a full snapshot (content, size, mode, mtime, the set of
// paths) before and after each command.
func TestNeverWritesIntoInputs(t *testing.T) {
	in := filepath.Join(t.TempDir(), "in")
	for _, name := range []string{"session-sync-and-async", "workflow-clean", "replay-kill-retry", "detect-ship-after-kill", "adv-rules-not-yaml", "adv-torn-final-line"} {
		copyTree(t, fixture(name), filepath.Join(in, name))
	}
	rulesFile := filepath.Join(in, "rules.yaml")
	defaults, err := os.ReadFile("../../rules/defaults.yaml")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, rulesFile, defaults)
	saved := filepath.Join(in, "saved.json")
	if r := runPM(t, "check", "--fail-level", "none", "--format", "json="+saved, in); r.code != ExitOK {
		t.Fatalf("setup check: exit %d: %s", r.code, r.stderr)
	}
	setWritable(t, in, false)
	t.Cleanup(func() { setWritable(t, in, true) })
	out := t.TempDir()
	wf := filepath.Join(in, "workflow-clean/10000000-0000-4000-8000-000000000003/subagents/workflows/wf_clean0001")
	commands := [][]string{
		append([]string{"check", in}, allFormats(out)...),
		{"check", "--format", "sarif", "--format", "junit", in},
		{"check", "--rules", rulesFile, "--write-baseline", filepath.Join(out, "baseline.yaml"), in},
		{"check", "--rules", filepath.Join(in, "adv-rules-not-yaml/junk.yaml"), in},
		{"scan", in},
		{"scan", "--json", in},
		{"replay", wf},
		{"replay", "--json", "--watchdogs", wf},
		{"render", saved},
		{"render", "--format", "sarif", saved},
		{"rules", "validate", rulesFile, filepath.Join(in, "adv-rules-not-yaml/unbalanced.yaml")},
		{"rules", "list", "--rules", rulesFile},
	}
	before := snapshot(t, in)
	for _, args := range commands {
		r := runPM(t, args...)
		if r.code == ExitInternal {
			t.Errorf("pmcheck %s: internal error: %s", strings.Join(args, " "), r.stderr)
		}
		if d := diffSnapshots(before, snapshot(t, in)); len(d) > 0 {
			t.Fatalf("pmcheck %s changed its input tree:\n%s", strings.Join(args, " "), strings.Join(d, "\n"))
		}
	}
	// The same through the binary, as a user the read-only tree really stops.
	if cred := unprivileged(t, filepath.Dir(in)); cred != nil {
		outU := filepath.Join(t.TempDir(), "out")
		os.MkdirAll(outU, 0o777)
		unprivileged(t, outU)
		os.Chmod(outU, 0o777)
		r, _ := runBin(t, ".", nil, cred, append([]string{"check", in}, allFormats(outU)...)...)
		if r.code != ExitFindings && r.code != ExitOK {
			t.Fatalf("check as an unprivileged user on a read-only tree: exit %d: %s", r.code, r.stderr)
		}
		if d := diffSnapshots(before, snapshot(t, in)); len(d) > 0 {
			t.Fatalf("check as an unprivileged user changed its input tree:\n%s", strings.Join(d, "\n"))
		}
	}
}

// TestReportFilesAreReplacedAtomically: a report file is replaced by a rename,
// never rewritten in place (a hard link to the old file keeps the old bytes),
// no temporary file is left behind, and a write that cannot happen leaves the
// directory as it was.
func TestReportFilesAreReplacedAtomically(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "pmcheck.sarif")
	writeFile(t, target, []byte("old report\n"))
	if err := os.Link(target, filepath.Join(dir, "old.sarif")); err != nil {
		t.Fatal(err)
	}
	r := runPM(t, "check", "--format", "sarif="+target, "--format", "text", fixture("detect-ship-after-kill"))
	if r.code != ExitFindings && r.code != ExitOK {
		t.Fatalf("check exit %d: %s", r.code, r.stderr)
	}
	data, err := os.ReadFile(target)
	if err != nil {
		t.Fatal(err)
	}
	var sarif struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(data, &sarif); err != nil || sarif.Version != "2.1.0" {
		t.Fatalf("the target is not a whole SARIF report: %v %q", err, data[:min(len(data), 200)])
	}
	if old, _ := os.ReadFile(filepath.Join(dir, "old.sarif")); string(old) != "old report\n" {
		t.Fatalf("the old file was rewritten in place, not replaced: %q", old)
	}
	names := func() []string {
		entries, _ := os.ReadDir(dir)
		var n []string
		for _, e := range entries {
			n = append(n, e.Name())
		}
		return n
	}
	if got := strings.Join(names(), " "); got != "old.sarif pmcheck.sarif" {
		t.Fatalf("directory holds %q after the write, want only the report and the link", got)
	}
	// A write into a missing directory fails closed and leaves no debris.
	r = runPM(t, "check", "--format", "sarif="+filepath.Join(dir, "missing", "x.sarif"), fixture("detect-ship-after-kill"))
	oneLineError(t, r, ExitUsage, "x.sarif")
	if got := strings.Join(names(), " "); got != "old.sarif pmcheck.sarif" {
		t.Fatalf("a failed write left %q", got)
	}
	// Several files in one run: each whole, none left as a temporary.
	r = runPM(t, append([]string{"check", "--fail-level", "none", fixture("detect-ship-after-kill")}, allFormats(dir)...)...)
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, n := range names() {
		if strings.Contains(n, ".tmp") || strings.HasPrefix(n, ".") {
			t.Errorf("temporary file %s left behind", n)
		}
	}
}
