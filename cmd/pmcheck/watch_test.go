package main

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/pmcheck/pmcheck/analyze"
	"github.com/pmcheck/pmcheck/analyze/layout"
	"github.com/pmcheck/pmcheck/analyze/transcript"
	"github.com/pmcheck/pmcheck/internal/testcorpus"
)

// write is one piece of a recorded run written into the live copy at an
// instant: a line (with its newline, unless the file ends without one) or a
// whole small file.
type write struct {
	at   time.Time
	file string // relative to the copy's root
	data []byte
	seq  int // file order among writes at one instant
	// truncate empties the file before writing data.
	truncate bool
}

// recording is a finished run laid out as the writes that produce it, at the
// times replay assigns: journal lines at replay's inferred times, transcript
// rows at their write times (the running maximum of their timestamps), other
// files when the first row of their transcript is written.
type recording struct {
	src    string // root of the files copied (the session directory's parent)
	runDir string // the run directory, relative to src
	start  time.Time
	writes []write
}

func record(t testing.TB, runDir string, tornWrites bool) *recording {
	t.Helper()
	run, err := loadWorkflow(runDir)
	if err != nil {
		t.Fatal(err)
	}
	rep := analyze.ReplayWorkflow(run, analyze.ReplayConfig{})
	sessionFile := layout.ParentOfRunOnDisk(runDir)
	session := layout.Stem(sessionFile)
	src := filepath.Dir(session)
	rel, _ := filepath.Rel(src, runDir)
	r := &recording{src: src, runDir: rel, start: rep.Start.At}
	seq := 0
	add := func(at time.Time, file string, data []byte) {
		seq++
		r.writes = append(r.writes, write{at: at, file: file, data: data, seq: seq})
	}
	lineTimes := map[int]time.Time{}
	for _, l := range rep.World.Lines {
		lineTimes[l.Where.Line] = l.At
	}
	firstWrite := map[string]time.Time{} // transcript path (no .jsonl) -> first write
	var files []string
	if _, err := os.Stat(sessionFile); err == nil {
		files = append(files, sessionFile)
	}
	filepath.WalkDir(session, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			files = append(files, p)
		}
		return nil
	})
	sort.Strings(files)
	var later []string
	for _, p := range files {
		relp, _ := filepath.Rel(src, p)
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case filepath.Base(p) == "journal.jsonl" && filepath.Dir(p) == filepath.Clean(runDir):
			at := r.start
			for i, line := range splitLines(data) {
				prev := at
				if lt, ok := lineTimes[i+1]; ok {
					at = lt
				}
				if tornWrites && i > 0 && len(line) > 2 && line[len(line)-1] == '\n' {
					// The writer's first half lands with the line before: a
					// poll in between sees an unterminated line.
					add(prev, relp, line[:len(line)/2])
					add(at, relp, line[len(line)/2:])
					continue
				}
				add(at, relp, line)
			}
			if len(data) == 0 {
				add(r.start, relp, nil)
			}
		case strings.HasSuffix(p, ".jsonl"):
			tr, err := transcript.ReadFile(p, relp, transcript.Options{})
			if err != nil {
				t.Fatal(err)
			}
			first := tr.FirstTime
			if tr.Steps.Len() > 0 {
				first = tr.Steps.First().At()
			}
			if first.IsZero() {
				first = r.start
			}
			firstWrite[strings.TrimSuffix(p, ".jsonl")] = first
			for i, line := range splitLines(data) {
				at := tr.WriteTimeAt(i + 1)
				if at.IsZero() {
					at = first
				}
				add(at.UTC(), relp, line)
			}
		default:
			later = append(later, p)
		}
	}
	for _, p := range later {
		relp, _ := filepath.Rel(src, p)
		data, _ := os.ReadFile(p)
		at := r.start
		if fw, ok := firstWrite[strings.TrimSuffix(p, ".meta.json")]; ok {
			at = fw
		}
		add(at, relp, data)
	}
	sort.SliceStable(r.writes, func(i, j int) bool {
		if !r.writes[i].at.Equal(r.writes[j].at) {
			return r.writes[i].at.Before(r.writes[j].at)
		}
		return r.writes[i].seq < r.writes[j].seq
	})
	return r
}

// splitLines splits data after every newline; a last line without one stays
// without one (a torn final line).
func splitLines(data []byte) [][]byte {
	var out [][]byte
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			out = append(out, data)
			break
		}
		out = append(out, data[:i+1])
		data = data[i+1:]
	}
	return out
}

// scriptedClock is the injected clock: Sleep advances the instant and writes
// every piece of the recording due by then, before watch's next poll reads.
type scriptedClock struct {
	t    testing.TB
	now  time.Time
	dst  string
	rec  *recording
	next int
	naps int
	// cpu, when set, is the process's CPU time so far: Sleep adds what its
	// writing took to wrote (the benchmark takes it off the watch's).
	cpu   func() time.Duration
	wrote time.Duration
	// settled, when set, dates a directory that gained a file back by
	// an hour after the writes that created it (each time a different
	// instant). The benchmark plays six hours in seconds, so a real
	// directory change would stay under watch's racyListing for half
	// of its polls, where a watch polling every 5 s lists again at most
	// at the next poll after a file appears.
	settled bool
	made    map[string]bool // the files written so far (settled)
}

func (c *scriptedClock) Now() time.Time { return c.now }

func (c *scriptedClock) Sleep(d time.Duration) {
	c.naps++
	if c.naps > 100000 {
		c.t.Fatal("watch did not end")
	}
	c.now = c.now.Add(d)
	if c.cpu == nil {
		c.flush()
		return
	}
	c0 := c.cpu()
	c.flush()
	c.wrote += c.cpu() - c0
}

func (c *scriptedClock) flush() {
	for c.next < len(c.rec.writes) && !c.rec.writes[c.next].at.After(c.now) {
		w := c.rec.writes[c.next]
		c.next++
		p := filepath.Join(c.dst, w.file)
		os.MkdirAll(filepath.Dir(p), 0o755)
		flags := os.O_CREATE | os.O_APPEND | os.O_WRONLY
		if w.truncate {
			flags |= os.O_TRUNC
		}
		// The copy starts empty: a file's first write creates it.
		created := c.settled && !c.made[w.file]
		if created {
			if c.made == nil {
				c.made = map[string]bool{}
			}
			c.made[w.file] = true
		}
		f, err := os.OpenFile(p, flags, 0o644)
		if err != nil {
			c.t.Fatal(err)
		}
		f.Write(w.data)
		f.Close()
		if created {
			settled := time.Now().Add(-time.Hour)
			if err := os.Chtimes(filepath.Dir(p), settled, settled); err != nil {
				c.t.Fatal(err)
			}
		}
	}
}

// runWatchArgs plays the recording into a fresh directory on the scripted
// clock and runs `pmcheck watch` over it with watch's default flags.
func runWatchArgs(t testing.TB, rec *recording, mode ...string) (string, string, int) {
	return runWatchOn(t, rec, func(dst string) string { return filepath.Join(dst, rec.runDir) }, mode...)
}

// runWatchOn is runWatchArgs with RUN given by target from the copy's root.
func runWatchOn(t testing.TB, rec *recording, target func(dst string) string, mode ...string) (string, string, int) {
	t.Helper()
	dst := t.TempDir()
	clk := &scriptedClock{t: t, now: rec.start, dst: dst, rec: rec}
	clk.flush()
	cmd := &WatchCmd{Run_: target(dst), WatchTiming: WatchTiming{Interval: Seconds(5 * time.Second), QuietAfter: Seconds(300 * time.Second),
		DoneGrace: Seconds(30 * time.Second), MaxHours: 6}, clock: clk}
	for _, m := range mode {
		switch m {
		case "--timestamps":
			cmd.Timestamps = true
		case "--json":
			cmd.JSON = true
		case "--watchdogs":
			cmd.Watchdogs = true
		case "--as-watch":
			cmd.AsWatch = true
		default:
			name, val, _ := strings.Cut(m, "=")
			var sec Seconds
			if err := sec.UnmarshalText([]byte(val)); err != nil {
				t.Fatalf("flag %s: %v", m, err)
			}
			switch name {
			case "--interval":
				cmd.Interval = sec
			case "--quiet-after":
				cmd.QuietAfter = sec
			case "--done-grace":
				cmd.DoneGrace = sec
			default:
				t.Fatalf("flag %s", m)
			}
		}
	}
	cmd.readers = watchReaders
	watchCopy = dst
	var out, errs bytes.Buffer
	err := cmd.Run(&Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errs})
	code := 0
	if ee, ok := err.(*ExitError); ok {
		code = ee.Code
		if ee.Err != nil {
			errs.WriteString("pmcheck: " + ee.Err.Error() + "\n")
		}
	} else if err != nil {
		t.Fatalf("watch: %v", err)
	}
	// The live copy lies outside the working directory, so its evidence
	// paths are absolute; name them from the copy's root, as replay's are.
	return strings.ReplaceAll(out.String(), filepath.ToSlash(dst)+"/", ""), errs.String(), code
}

// TestWatchEqualsReplayOnEveryRecordedRun is the equivalence proof: each
// fixture's Workflow run and both corpus Workflow runs, written into files
// row by row at the times replay assigns them, followed by `pmcheck watch`
// on an injected clock, print exactly what `pmcheck replay --timestamps`
// prints for the finished files, with the same exit code, in text and JSON.
func TestWatchEqualsReplayOnEveryRecordedRun(t *testing.T) {
	var dirs []string
	filepath.WalkDir("../../fixtures/runs", func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == "journal.jsonl" {
			dirs = append(dirs, filepath.Dir(p))
		}
		return nil
	})
	if corpus := testcorpus.Dir(t); corpus != "" {
		dirs = append(dirs,
			filepath.Join(corpus, "handgemacht-ai__claude-code-log/test/test_data/workflow_basic/11110000-0000-4000-8000-000000000001/subagents/workflows/wf_demo01"),
			filepath.Join(corpus, "furkankly__zoetrope/assets/demo/subagents/workflows/wf_demo01"))
	}
	if len(dirs) < 15 {
		t.Fatalf("only %d recorded runs found", len(dirs))
	}
	// The live watchdog lines of every run: some must be printed, and some
	// say what was known when they fired (an attempt still open).
	liveLines, liveOpen := 0, 0
	defer func() {
		if !t.Failed() && (liveLines == 0 || liveOpen == 0) {
			t.Errorf("%d live watchdog lines, %d of them with an open attempt: the live watchdogs print nothing", liveLines, liveOpen)
		}
	}()
	for _, dir := range dirs {
		name := filepath.Base(filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(dir))))) + "/" + filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			rec, torn := record(t, dir, false), record(t, dir, true)
			for _, mode := range [][]string{{"--timestamps"}, {"--timestamps", "--json"}, {"--timestamps", "--watchdogs"},
				{"--timestamps", "--json", "--watchdogs"}, {"--timestamps", "--interval=7", "--quiet-after=100", "--done-grace=12"},
				{"--timestamps", "torn"}} {
				r, flags := rec, mode
				if mode[len(mode)-1] == "torn" {
					r, flags = torn, mode[:len(mode)-1] // journal lines written in two halves, a poll apart
				}
				want, wantErr, wantCode := runReplay(t, append(append([]string{"--as-watch"}, flags...), dir)...)
				// Evidence in the watchdog section names files from where
				// each command read them: the source tree, or its live copy.
				want = strings.ReplaceAll(want, filepath.ToSlash(rec.src)+"/", "")
				got, gotErr, gotCode := runWatchArgs(t, r, append([]string{"--as-watch"}, flags...)...)
				if slices.Contains(flags, "--watchdogs") {
					var live []string
					live, got = splitLive(t, got, slices.Contains(flags, "--json"))
					checkLive(t, live, want, slices.Contains(flags, "--json"))
					liveLines += len(live)
					for _, l := range live {
						if strings.Contains(l, "observed open") || strings.Contains(l, `"observed":"open"`) {
							liveOpen++
						}
					}
				}
				if got != want || gotCode != wantCode {
					t.Errorf("%v: watch (exit %d):\n%s\nreplay (exit %d):\n%s", mode, gotCode, got, wantCode, want)
				}
				if (gotErr == "") != (wantErr == "") {
					t.Errorf("%v: watch stderr %q, replay stderr %q", mode, gotErr, wantErr)
				}
			}
		})
	}
}

// splitLive separates the watchdog lines watch printed live from the rest
// of its output: the watch lines and the section printed when it ends
// (which begins with its header in text, and right after the last watch
// object in JSON: the last poll prints no live lines).
func splitLive(t testing.TB, out string, jsonMode bool) (live []string, rest string) {
	t.Helper()
	lines := strings.SplitAfter(out, "\n")
	section := len(lines)
	for i := len(lines) - 1; i >= 0; i-- {
		l := lines[i]
		if jsonMode && l != "" && !strings.HasPrefix(l, `{"event":"WATCHDOG"`) {
			break
		}
		section = i
		if !jsonMode && strings.HasPrefix(l, "# watchdogs: ") {
			break
		}
	}
	var b strings.Builder
	for i, l := range lines {
		if i < section && isLiveLine(l, jsonMode) {
			live = append(live, strings.TrimSuffix(l, "\n"))
			continue
		}
		b.WriteString(l)
	}
	return live, b.String()
}

// isLiveLine: a watchdog line printed live, with --timestamps after the
// time of the poll that printed it.
func isLiveLine(l string, jsonMode bool) bool {
	if isWatchdogLine(l, jsonMode) {
		return true
	}
	_, rest, ok := strings.Cut(l, " ")
	return ok && !jsonMode && isWatchdogLine(rest, false)
}

func isWatchdogLine(l string, jsonMode bool) bool {
	if jsonMode {
		return strings.HasPrefix(l, `{"event":"WATCHDOG"`)
	}
	f := strings.Fields(l)
	return len(f) > 2 && (f[1] == "progresswatch" || f[1] == "harness" || f[1] == "workflow-runtime")
}

// checkLive: each live line is, once, one of the lines of the section replay
// prints for the finished run (want), but for the observed outcome, which
// is the one known when the line was printed.
func checkLive(t testing.TB, live []string, want string, jsonMode bool) {
	t.Helper()
	observed := regexp.MustCompile(`, observed [^\]]*\]$|,"observed":"[^"]*"`)
	final := map[string]bool{}
	for _, l := range strings.Split(want, "\n") {
		if isWatchdogLine(l, jsonMode) {
			final[observed.ReplaceAllString(l, "")] = true
		}
	}
	seen := map[string]bool{}
	for _, l := range live {
		if !isWatchdogLine(l, jsonMode) {
			// With --timestamps: printed at a poll no earlier than the
			// event's own time.
			poll, rest, _ := strings.Cut(l, " ")
			at, _, _ := strings.Cut(rest, " ")
			p, err1 := time.Parse(time.RFC3339, poll)
			a, err2 := time.Parse(time.RFC3339, at)
			if err1 != nil || err2 != nil || p.Before(a) {
				t.Errorf("live watchdog line printed before its time (or unreadable): %s", l)
			}
			l = rest
		}
		k := observed.ReplaceAllString(l, "")
		if !final[k] {
			t.Errorf("live watchdog line not in replay's section:\n%s\nreplay:\n%s", l, want)
		}
		if seen[k] {
			t.Errorf("live watchdog line printed twice: %s", l)
		}
		seen[k] = true
	}
}

// watchReaders, when set, are the readers the next runWatchOn's watch
// uses; watchCopy is the directory that watch followed.
var (
	watchReaders *analyze.Followers
	watchCopy    string
)

// TestWatchDecodesEachByteOnce: following every recorded run written row by
// row (journal lines in two halves a poll apart too), watch's polls decode
// each byte of each journal and transcript once: every file is read from
// its start once, and the bytes decoded in all are the files' sizes, not
// the sum of their sizes at every poll.
func TestWatchDecodesEachByteOnce(t *testing.T) {
	var dirs []string
	filepath.WalkDir("../../fixtures/runs", func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == "journal.jsonl" {
			dirs = append(dirs, filepath.Dir(p))
		}
		return nil
	})
	defer func() { watchReaders = nil }()
	var total int64
	for _, dir := range dirs {
		for _, torn := range []bool{false, true} {
			rec := record(t, dir, torn)
			watchReaders = &analyze.Followers{}
			runWatchArgs(t, rec)
			var files, size int64
			filepath.WalkDir(watchCopy, func(p string, d fs.DirEntry, err error) error {
				if err == nil && d.Type().IsRegular() && strings.HasSuffix(p, ".jsonl") {
					if info, err := d.Info(); err == nil && info.Size() > 0 {
						files++
						size += info.Size()
					}
				}
				return nil
			})
			fresh, decoded := watchReaders.FollowStats()
			if decoded > size || fresh > files {
				t.Errorf("%s (torn %v): decoded %d bytes in %d fresh reads; the files hold %d bytes in %d files", dir, torn, decoded, fresh, size, files)
			}
			total += decoded
		}
	}
	if total == 0 {
		t.Fatal("the watches decoded nothing through their readers")
	}
}

// TestFollowedLoadIsAFreshLoad: for every recorded run (the fixtures', and
// with PMCHECK_CORPUS the corpus's two Workflow runs), written piece by
// piece (journal lines in two halves too), a load through readers kept
// since the first piece gives at every step the run and the facts (every
// detector's and the replay's) a fresh load of the same files gives.
func TestFollowedLoadIsAFreshLoad(t *testing.T) {
	var dirs []string
	filepath.WalkDir("../../fixtures/runs", func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == "journal.jsonl" {
			dirs = append(dirs, filepath.Dir(p))
		}
		return nil
	})
	if corpus := testcorpus.Dir(t); corpus != "" {
		dirs = append(dirs,
			filepath.Join(corpus, "handgemacht-ai__claude-code-log/test/test_data/workflow_basic/11110000-0000-4000-8000-000000000001/subagents/workflows/wf_demo01"),
			filepath.Join(corpus, "furkankly__zoetrope/assets/demo/subagents/workflows/wf_demo01"))
	}
	steps := 0
	for _, dir := range dirs {
		for _, torn := range []bool{false, true} {
			rec := record(t, dir, torn)
			dst := t.TempDir()
			// Another session of the project, with its subagents'
			// sidecars and a Workflow run of its own: a followed load
			// reads none of it (analyze.runInventory).
			copyTree(t, decoySession, dst)
			clk := &scriptedClock{t: t, now: rec.start, dst: dst, rec: rec}
			runDir := filepath.Join(dst, rec.runDir)
			readers := &analyze.Followers{}
			written := map[string]bool{}
			for clk.next < len(rec.writes) {
				clk.now = rec.writes[clk.next].at
				created := false
				for _, w := range rec.writes[clk.next:] {
					if w.at.After(clk.now) {
						break
					}
					created = created || !written[w.file]
					written[w.file] = true
				}
				clk.flush()
				if !created {
					// As watch says it: no file was created since the
					// last load, which may take its inventory.
					readers.ListingUnchanged()
				}
				fresh, errFresh := analyze.LoadWorkflowRun(runDir)
				followed, errFollowed := analyze.FollowWorkflowRun(runDir, readers)
				if (errFresh == nil) != (errFollowed == nil) {
					t.Fatalf("%s at %s: fresh load error %v, followed %v", dir, clk.now, errFresh, errFollowed)
				}
				if errFresh != nil {
					continue
				}
				steps++
				a, b := runJSON(t, fresh), runJSON(t, followed)
				if a != b {
					t.Fatalf("%s at %s: the followed load differs from a fresh load:\nfresh:    %s\nfollowed: %s", dir, clk.now, a, b)
				}
			}
		}
	}
	if steps == 0 {
		t.Fatal("no step compared")
	}
}

// decoySession is a fixture's project folder with sessions, subagents with
// sidecars and Workflow runs, copied beside a recorded run.
const decoySession = "../../fixtures/runs/replay-superseded-not-killed"

// runJSON is a run and every fact derived from it, as JSON.
func runJSON(t *testing.T, run *analyze.Run) string {
	t.Helper()
	facts := analyze.Facts([]*analyze.Run{run}, analyze.FactsOptions{Jobs: 1})
	b, err := json.Marshal(struct {
		Run   *analyze.Run
		Facts any
	}{run, facts})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

const killRetryDir = "../../fixtures/runs/replay-kill-retry/30000000-0000-4000-8000-000000000001/subagents/workflows/wf_kill0001"

// TestWatchResetsOnATruncatedJournal: a journal found smaller than at the
// previous poll (truncated or replaced by a new run at the same path) prints
// RESET once, clears the state, and the watch follows the new content.
func TestWatchResetsOnATruncatedJournal(t *testing.T) {
	rec := record(t, killRetryDir, false)
	// A poll after the recording's second journal line, the journal is
	// truncated and only its first line written again; the recording then
	// goes on appending.
	var journal string
	var idx []int
	for i, w := range rec.writes {
		if filepath.Base(w.file) == "journal.jsonl" {
			journal = w.file
			idx = append(idx, i)
		}
	}
	if len(idx) < 3 {
		t.Fatalf("kill-retry journal has %d lines", len(idx))
	}
	second := rec.writes[idx[1]]
	at := second.at.Add(7 * time.Second)
	var rewrite []write
	rewrite = append(rewrite, write{at: at, file: journal, truncate: true})
	rewrite = append(rewrite, write{at: at, file: journal, data: rec.writes[idx[0]].data})
	var writes []write
	for i, w := range rec.writes {
		writes = append(writes, w)
		if i == idx[1] {
			writes = append(writes, rewrite...)
		}
	}
	for i := range writes {
		if writes[i].at.Before(writes[max(i-1, 0)].at) {
			writes[i].at = writes[i-1].at
		}
	}
	rec.writes = writes
	out, errs, code := runWatchArgs(t, rec)
	if strings.Count(out, "RESET  journal was truncated or replaced; state cleared.\n") != 1 {
		t.Fatalf("no single RESET line (exit %d, stderr %q):\n%s", code, errs, out)
	}
	if !strings.HasPrefix(out, "START ") || !strings.Contains(out, "\nDONE ") {
		t.Fatalf("watch did not start and finish around the reset:\n%s", out)
	}
}

// TestWatchWaitsForTheJournalThenGivesUp: a run directory that never gets a
// journal ends after 60 s with watch's exit 2 and its message, having slept
// in steps capped by what is left of the wait.
func TestWatchWaitsForTheJournalThenGivesUp(t *testing.T) {
	dst := t.TempDir()
	clk := &scriptedClock{t: t, now: time.Date(2026, 5, 7, 10, 0, 0, 0, time.UTC), dst: dst, rec: &recording{}}
	cmd := &WatchCmd{Run_: filepath.Join(dst, "sess", "subagents", "workflows", "wf_never01"), WatchTiming: WatchTiming{Interval: Seconds(25 * time.Second),
		QuietAfter: Seconds(300 * time.Second), DoneGrace: Seconds(30 * time.Second), MaxHours: 6}, clock: clk}
	cmd.readers = watchReaders
	watchCopy = dst
	var out, errs bytes.Buffer
	err := cmd.Run(&Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errs})
	ee, ok := err.(*ExitError)
	if !ok || ee.Code != 2 || out.Len() != 0 || !strings.HasPrefix(errs.String(), noJournalMessage(false)+"\n") || !strings.Contains(errs.String(), "pmcheck scan lists past runs") {
		t.Fatalf("err %v stdout %q stderr %q", err, out.String(), errs.String())
	}
	if got := clk.now.Sub(time.Date(2026, 5, 7, 10, 0, 0, 0, time.UTC)); got != 60*time.Second || clk.naps != 3 {
		t.Fatalf("gave up after %s in %d sleeps, want 60s in 3 (25+25+10)", got, clk.naps)
	}
}

// TestWatchRealTimeSmoke follows a run written at 100x speed on the real
// clock: the timestamps of every row are moved to now and their gaps divided
// by 100, watch's intervals likewise, and the watch must print the run's
// lines in order and end within a few seconds.
func TestWatchRealTimeSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("runs for about two seconds")
	}
	const speed = 100
	rec := record(t, killRetryDir, false)
	dst := t.TempDir()
	t0 := time.Now().UTC().Add(200 * time.Millisecond)
	scale := func(at time.Time) time.Time { return t0.Add(at.Sub(rec.start) / speed) }
	stampRE := regexp.MustCompile(`"timestamp":"([^"]+)"`)
	type timed struct {
		at   time.Time
		file string
		data []byte
	}
	var plan []timed
	for _, w := range rec.writes {
		data := stampRE.ReplaceAllFunc(w.data, func(m []byte) []byte {
			ts, err := time.Parse(time.RFC3339Nano, string(stampRE.FindSubmatch(m)[1]))
			if err != nil {
				return m
			}
			return []byte(`"timestamp":"` + scale(ts).Format("2006-01-02T15:04:05.000Z") + `"`)
		})
		plan = append(plan, timed{scale(w.at), w.file, data})
	}
	writerDone := make(chan struct{})
	go func() {
		defer close(writerDone)
		for _, p := range plan {
			time.Sleep(time.Until(p.at))
			f := filepath.Join(dst, p.file)
			os.MkdirAll(filepath.Dir(f), 0o755)
			fh, err := os.OpenFile(f, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
			if err != nil {
				return
			}
			fh.Write(p.data)
			fh.Close()
		}
	}()
	cmd := &WatchCmd{Run_: filepath.Join(dst, rec.runDir), WatchTiming: WatchTiming{Interval: Seconds(5 * time.Second / speed),
		QuietAfter: Seconds(300 * time.Second / speed), DoneGrace: Seconds(30 * time.Second / speed), MaxHours: 10.0 / 3600}}
	var out, errs bytes.Buffer
	begin := time.Now()
	err := cmd.Run(&Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errs})
	<-writerDone
	if err != nil {
		t.Fatalf("watch: %v (stderr %q)\n%s", err, errs.String(), out.String())
	}
	var words []string
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		words = append(words, strings.Fields(l)[0])
	}
	if got := strings.Join(words, " "); got != "START OK KILL attempt OK DONE" {
		t.Fatalf("lines %q:\n%s", got, out.String())
	}
	if !strings.Contains(out.String(), "KILL   a:ak00000000000001 attempt 1 after 2s of silence; restarted as attempt 2.") {
		t.Fatalf("KILL line:\n%s", out.String())
	}
	if d := time.Since(begin); d > 10*time.Second {
		t.Fatalf("took %s", d)
	}
}

// TestWatchFollowsASessionTranscript: RUN may be the session transcript that
// launches the run, as for replay; watch waits for the launch and follows the
// one run it names.
func TestWatchFollowsASessionTranscript(t *testing.T) {
	rec := record(t, killRetryDir, false)
	session := layout.ParentOfRunOnDisk(killRetryDir)
	want, _, wantCode := runReplay(t, "--as-watch", "--timestamps", session)
	rel, _ := filepath.Rel(rec.src, session)
	got, errs, code := runWatchOn(t, rec, func(dst string) string { return filepath.Join(dst, rel) }, "--timestamps", "--as-watch")
	if got != want || code != wantCode || want == "" {
		t.Fatalf("watch (exit %d, stderr %q):\n%s\nreplay (exit %d):\n%s", code, errs, got, wantCode, want)
	}
}

// TestWatchStartedAfterTheRunPrintsReplaysWatchdogs: watch started after the
// run finished prints no live watchdog line (every event happened before
// anyone watched) and, when it ends, the section replay --watchdogs prints
// for the finished files from the same start, byte for byte.
func TestWatchStartedAfterTheRunPrintsReplaysWatchdogs(t *testing.T) {
	var dirs []string
	filepath.WalkDir("../../fixtures/runs", func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == "journal.jsonl" {
			dirs = append(dirs, filepath.Dir(p))
		}
		return nil
	})
	events := 0
	for _, dir := range dirs {
		rec := record(t, dir, false)
		end := rec.start
		for _, w := range rec.writes {
			if w.at.After(end) {
				end = w.at
			}
		}
		rec.start = end.Add(time.Hour)
		for _, jsonMode := range []bool{false, true} {
			flags := []string{"--watchdogs"}
			if jsonMode {
				flags = append(flags, "--json")
			}
			got, _, _ := runWatchArgs(t, rec, flags...)
			want, _, _ := runReplay(t, append(flags, "--as-watch", "--start="+rec.start.Format(time.RFC3339), dir)...)
			want = strings.ReplaceAll(want, filepath.ToSlash(rec.src)+"/", "")
			live, gotRest := splitLive(t, got, jsonMode)
			if len(live) > 0 {
				t.Errorf("%s: watch started after the run printed live watchdog lines:\n%s", dir, strings.Join(live, "\n"))
			}
			_, wantSection := splitSection(want, jsonMode)
			_, gotSection := splitSection(gotRest, jsonMode)
			if gotSection != wantSection {
				t.Errorf("%s %v: watch's watchdogs:\n%s\nreplay's:\n%s", dir, flags, gotSection, wantSection)
			}
			events += strings.Count(wantSection, "\n")
		}
	}
	if events < 10 {
		t.Fatalf("only %d watchdog lines in all: the comparison proves little", events)
	}
}

// splitSection cuts an output of replay or watch with --watchdogs where its
// watchdog section begins.
func splitSection(out string, jsonMode bool) (head, section string) {
	if !jsonMode {
		if i := strings.Index(out, "# watchdogs: "); i >= 0 {
			return out[:i], out[i:]
		}
		return out, ""
	}
	lines := strings.SplitAfter(out, "\n")
	i := len(lines)
	for i > 0 && (lines[i-1] == "" || strings.HasPrefix(lines[i-1], `{"event":"WATCHDOG"`)) {
		i--
	}
	return strings.Join(lines[:i], ""), strings.Join(lines[i:], "")
}

// TestWatchListsTheRunDirectoryOnlyWhenItChanged: the change check lists
// the run directory again only when the directory's modification time
// changed (or the last listing was too close to it to be trusted), and
// sees a file created since.
func TestWatchListsTheRunDirectoryOnlyWhenItChanged(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "journal.jsonl"), []byte("{}\n"), 0o644)
	old := time.Now().Add(-time.Hour)
	os.Chtimes(dir, old, old)
	f := &follower{dir: dir}
	names := func() []string {
		sig, _ := f.signature()
		var n []string
		for _, s := range sig {
			n = append(n, s.name)
		}
		return n
	}
	if got := names(); !slices.Equal(got, []string{"journal.jsonl"}) || !f.listed {
		t.Fatalf("first listing %v (trusted %v)", got, f.listed)
	}
	// A file appears without the directory's time changing (as on a file
	// system whose clock did not tick): the trusted listing is kept...
	os.WriteFile(filepath.Join(dir, "agent-a1.jsonl"), []byte("{}\n"), 0o644)
	os.Chtimes(dir, old, old)
	if got := names(); len(got) != 1 {
		t.Fatalf("the directory was listed again though its time did not change: %v", got)
	}
	// ...and once the directory's time moves, the file is seen, and the
	// listing, too close to the change, is made again at the next check.
	now := time.Now()
	os.Chtimes(dir, now, now)
	if got := names(); !slices.Equal(got, []string{"agent-a1.jsonl", "journal.jsonl"}) || f.listed {
		t.Fatalf("after the directory changed: %v (trusted %v)", got, f.listed)
	}
	os.WriteFile(filepath.Join(dir, "agent-a2.jsonl"), []byte("{}\n"), 0o644)
	os.Chtimes(dir, now, now)
	if got := names(); len(got) != 3 {
		t.Fatalf("a file created in the same tick as a recent listing was missed: %v", got)
	}
}

// TestWatchHintsAgreeWithReplay (issue 31, item 6): watch's KILL and DONE
// hints name the pmcheck command replay names, not agent-postmortem's;
// --as-watch keeps watch's wording in both.
func TestWatchHintsAgreeWithReplay(t *testing.T) {
	rec := record(t, killRetryDir, false)
	hint := regexp.MustCompile(`-> pmcheck check \S+`)
	got, _, _ := runWatchArgs(t, rec, "--timestamps")
	want, _, _ := runReplay(t, "--timestamps", killRetryDir)
	if strings.Contains(got, "agent-postmortem") || !hint.MatchString(got) {
		t.Errorf("watch's hints are not pmcheck's:\n%s", got)
	}
	norm := func(s string) string { return hint.ReplaceAllString(s, "-> pmcheck check RUN") }
	if norm(got) != norm(want) {
		t.Errorf("watch and replay disagree:\nwatch:\n%s\nreplay:\n%s", got, want)
	}
	old, _, _ := runWatchArgs(t, rec, "--timestamps", "--as-watch")
	if !strings.Contains(old, "-> agent-postmortem run ") {
		t.Errorf("--as-watch lost watch's wording:\n%s", old)
	}
}

// TestChangeCheckFollowsReplacedFiles: while the run directory is unchanged
// the change check stats the files it keeps open; a file replaced by a
// rename (which moves the directory's time) is stat-ed by path again and
// its new size seen, and a grown file's size is seen either way.
func TestChangeCheckFollowsReplacedFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "s", "subagents", "workflows", "wf_x")
	os.MkdirAll(dir, 0o755)
	agent := filepath.Join(dir, "agent-a1.jsonl")
	os.WriteFile(filepath.Join(dir, "journal.jsonl"), []byte("{}\n"), 0o644)
	os.WriteFile(agent, []byte("{}\n"), 0o644)
	old := time.Now().Add(-time.Hour)
	os.Chtimes(dir, old, old) // a listing well after the last change: trusted
	f := &follower{dir: dir}
	defer f.close()
	size := func() int64 {
		t.Helper()
		sig, _ := f.signature()
		for _, s := range sig {
			if s.name == "agent-a1.jsonl" {
				return s.size
			}
		}
		t.Fatal("agent-a1.jsonl not listed")
		return 0
	}
	if got := size(); got != 3 {
		t.Fatalf("first check: size %d, want 3", got)
	}
	if f.open["agent-a1.jsonl"].f == nil {
		t.Skip("this platform keeps no file open")
	}
	w, _ := os.OpenFile(agent, os.O_APPEND|os.O_WRONLY, 0)
	w.WriteString("{\"a\":1}\n")
	w.Close()
	if got := size(); got != 11 {
		t.Fatalf("after an append: size %d, want 11", got)
	}
	tmp := filepath.Join(dir, "tmp")
	os.WriteFile(tmp, []byte("{}\n{}\n{}\n{}\n{}\n"), 0o644)
	os.Rename(tmp, agent)
	if got := size(); got != 15 {
		t.Fatalf("after a replacement: size %d, want 15 (the kept file's is 11)", got)
	}
	os.Chtimes(dir, old, old)
	size() // listed again (the time moved back), then trusted
	w, _ = os.OpenFile(agent, os.O_APPEND|os.O_WRONLY, 0)
	w.WriteString("{}\n")
	w.Close()
	if got := size(); got != 18 {
		t.Fatalf("the replacement's append: size %d, want 18", got)
	}
}

// TestChangeCheckListsAgainByInode: within the racy window after the run
// directory changed, a listing made again whose entries are the same bytes
// (names, types, inodes) stats the files through the ones kept open; a file
// replaced under the same name, even with the directory's time put back,
// lists differently and is stat-ed by path (its new size seen).
func TestChangeCheckListsAgainByInode(t *testing.T) {
	if _, err := rawListing(t.TempDir(), nil); err != nil {
		t.Skip("no raw listing here")
	}
	dir := filepath.Join(t.TempDir(), "s", "subagents", "workflows", "wf_x")
	os.MkdirAll(dir, 0o755)
	agent := filepath.Join(dir, "agent-a1.jsonl")
	os.WriteFile(filepath.Join(dir, "journal.jsonl"), []byte("{}\n"), 0o644)
	os.WriteFile(agent, []byte("{}\n"), 0o644)
	f := &follower{dir: dir}
	defer f.close()
	size := func() int64 {
		t.Helper()
		sig, _ := f.signature()
		for _, s := range sig {
			if s.name == "agent-a1.jsonl" {
				return s.size
			}
		}
		t.Fatal("agent-a1.jsonl not listed")
		return 0
	}
	a, _ := rawListing(dir, nil)
	b, _ := rawListing(dir, nil)
	if !bytes.Equal(a, b) {
		t.Skip("this file system lists an unchanged directory differently")
	}
	if got := size(); got != 3 || f.listed {
		t.Fatalf("first check: size %d, listing trusted %v (the directory just changed)", got, f.listed)
	}
	if f.open["agent-a1.jsonl"].f == nil {
		t.Fatal("the agent file is not kept open")
	}
	if f.list() {
		t.Fatal("an unchanged directory, listed again, was taken as changed")
	}
	mtime := f.dirMtime
	tmp := filepath.Join(dir, "tmp")
	os.WriteFile(tmp, []byte("{}\n{}\n{}\n"), 0o644)
	os.Rename(tmp, agent)
	os.Chtimes(dir, mtime, mtime) // the same time: only the inode tells
	if got := size(); got != 9 {
		t.Fatalf("after a replacement under the same name: size %d, want 9", got)
	}
}

// TestProbeFollowsAReplacementOfTheSameSize: a poll reads a kept file
// through the readers' descriptor (a probe) only while it is the file the
// path named at the last listing: an agent file replaced by a rename with
// another of the same size and modification time (the directory's time set
// back too) is not probed through the old descriptor, and its appended
// rows are read from the new file's start.
func TestProbeFollowsAReplacementOfTheSameSize(t *testing.T) {
	if _, err := rawListing(t.TempDir(), nil); err != nil {
		t.Skip("no raw listing here")
	}
	dir := filepath.Join(t.TempDir(), "s", "subagents", "workflows", "wf_x")
	os.MkdirAll(dir, 0o755)
	agent := filepath.Join(dir, "agent-a1.jsonl")
	row := func(tag string) string {
		return `{"type":"user","uuid":"` + tag + `","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"` + tag + `"}}` + "\n"
	}
	os.WriteFile(filepath.Join(dir, "journal.jsonl"), []byte("{}\n"), 0o644)
	os.WriteFile(agent, []byte(row("a1")), 0o644)
	readers := &analyze.Followers{}
	defer readers.Close()
	f := &follower{dir: dir, readers: readers}
	defer f.close()
	appendTo := func(s string) {
		w, _ := os.OpenFile(agent, os.O_APPEND|os.O_WRONLY, 0)
		w.WriteString(s)
		w.Close()
	}
	poll := func() {
		t.Helper()
		if _, _, _, err := f.read(); err != nil {
			t.Fatal(err)
		}
	}
	poll() // the files stat-ed by path, read
	fresh, _ := readers.FollowStats()
	st, _ := os.Stat(agent)
	tmp := filepath.Join(dir, "tmp")
	os.WriteFile(tmp, []byte(row("b1")), 0o644)
	os.Chtimes(tmp, st.ModTime(), st.ModTime())
	os.Rename(tmp, agent)
	os.Chtimes(dir, f.dirMtime, f.dirMtime)
	poll() // listed again (another inode): the same sizes and times
	poll() // the directory trusted: the kept file is not the readers'
	appendTo(row("b3"))
	poll()
	if again, _ := readers.FollowStats(); again != fresh+1 {
		t.Fatalf("the replaced file: %d reads from the start, want 1", again-fresh)
	}
	// Read from the start once, it is probed again.
	appendTo(row("b4"))
	poll()
	if _, ok := f.probed[filepath.Clean(agent)]; !ok {
		t.Fatal("the new agent file was not probed")
	}
	run, err := analyze.LoadWorkflowRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got, want bytes.Buffer
	json.NewEncoder(&want).Encode(run)
	f.sig = nil
	r, _, _, _ := f.read()
	json.NewEncoder(&got).Encode(r)
	if got.String() != want.String() {
		t.Fatalf("the followed run differs from a fresh load:\n%s\n%s", got.String(), want.String())
	}
}
