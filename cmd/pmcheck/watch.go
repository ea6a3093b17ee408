package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/pmcheck/pmcheck/analyze"
)

// WatchCmd follows a Workflow run while it is written and prints what
// agent-postmortem watch prints, as it happens: the replay engine on a real
// clock over files that grow (docs/watch.md).
type WatchCmd struct {
	Run_ string `arg:"" name:"run" help:"Workflow run directory (it may not exist yet), its journal.jsonl, the session transcript that launches it, or a run-id prefix under --root."`

	WatchTiming

	Timestamps bool   `help:"Prefix every line with the time it was printed (RFC 3339, UTC); in --json, add a time field."`
	JSON       bool   `name:"json" help:"Print watch's --json objects, one per line."`
	Watchdogs  bool   `help:"Print the ProgressWatch, executor-harness and Workflow-runtime watchdogs' events live, as the files show them, and when the watch ends their replay over the finished files (as replay --watchdogs prints it)."`
	Root       string `help:"Where a run-id prefix is looked up (default ~/.claude/projects)."`
	AsWatch    bool   `name:"as-watch" help:"Keep watch's own follow-up commands (agent-postmortem rescue plan, run, scan) instead of pmcheck's, as replay --as-watch does."`

	// clock is the real clock unless a test injects one.
	clock watchClock `kong:"-"`
	// readers, when a test injects them, are the run's readers (kept to
	// measure what they decoded).
	readers *analyze.Followers `kong:"-"`
	// fullReload makes every poll that sees a change load the run afresh,
	// as watch did before it kept its readers (the benchmark's baseline).
	fullReload bool `kong:"-"`
}

// watchClock is the watch's time: Now, and Sleep between polls. A test
// injects one whose Sleep advances a simulated instant and writes the next
// rows of a recorded run into the files.
type watchClock interface {
	Now() time.Time
	Sleep(time.Duration)
}

type realClock struct{}

func (realClock) Now() time.Time        { return time.Now().UTC() }
func (realClock) Sleep(d time.Duration) { time.Sleep(d) }

// journalWait is how long watch waits, printing nothing, for the run
// directory and its journal.jsonl to appear: a launch hook starts watch
// before the Workflow tool has created either.
const journalWait = 60 * time.Second

// Run follows the run and returns watch's exit code.
func (c *WatchCmd) Run(env *Env) error {
	defer guardStdout(env)()
	opt := c.WatchTiming.options()
	if err := opt.Validate(); err != nil {
		return usageError("watch: %v", err)
	}
	clk := c.clock
	if clk == nil {
		clk = realClock{}
	}
	longLived.Store(true) // memlimit.go: a smaller heap room
	defer longLived.Store(false)
	start := clk.Now()
	dir, err := c.waitForJournal(env, opt, clk, start)
	if err != nil {
		return err
	}
	opt.NextCommand = c.followUp(dir)
	w := &watchLoop{c: c, env: env, clk: clk, opt: opt, start: start, dir: dir,
		f: &follower{dir: dir, readers: c.readers}, live: analyze.NewLiveReplay(start, opt)}
	if w.f.readers == nil && !c.fullReload {
		w.f.readers = &analyze.Followers{}
	}
	if w.f.readers != nil {
		defer w.f.readers.Close()
	}
	defer w.f.close()
	if c.Watchdogs {
		w.dogs = analyze.NewLiveWatchdogs(start)
	}
	return w.run()
}

// waitForJournal waits, printing nothing, up to journalWait for RUN's
// directory and its journal.jsonl, and returns the directory; when none
// appears it prints watch's message (and with --watchdogs replay's
// section over what the run holds) and returns exit 2.
func (c *WatchCmd) waitForJournal(env *Env, opt analyze.ReplayOptions, clk watchClock, start time.Time) (string, error) {
	root := c.Root
	if root == "" {
		if home, err := os.UserHomeDir(); err == nil {
			root = filepath.Join(home, ".claude", "projects")
		}
	}
	for {
		dir := c.find(root)
		if dir != "" {
			if st, err := os.Stat(filepath.Join(dir, analyze.JournalName)); err == nil && st.Mode().IsRegular() {
				return dir, nil
			}
		}
		remaining := journalWait - clk.Now().Sub(start)
		if remaining <= 0 {
			fmt.Fprintln(env.Stderr, noJournalMessage(c.AsWatch))
			fmt.Fprintf(env.Stderr, "pmcheck: watch: %s\n", c.notFound(root, dir))
			if c.Watchdogs {
				// As replay does: the watchdogs of whatever the run holds.
				var events []analyze.WatchdogEvent
				if dir != "" {
					if run, err := loadWorkflow(dir); err == nil {
						events = analyze.ReplayWorkflow(run, analyze.ReplayConfig{Watch: opt, Start: start}).Watchdogs
					}
				}
				writeWatchdogs(env.Stdout, events, c.JSON)
			}
			return "", &ExitError{Code: analyze.ReplayExitNoJournal}
		}
		clk.Sleep(min(opt.Interval, remaining))
	}
}

// watchLoop is the watch once the journal was found: one poll per
// interval until the watcher ends.
type watchLoop struct {
	c     *WatchCmd
	env   *Env
	clk   watchClock
	opt   analyze.ReplayOptions
	start time.Time
	dir   string
	f     *follower
	live  *analyze.LiveReplay
	dogs  *analyze.LiveWatchdogs // nil without --watchdogs
	last  *analyze.Run
	// stale: a load failed after last was loaded, and may have fed the
	// readers last shares its transcripts with (analyze.Options.Follow).
	stale bool
}

func (w *watchLoop) run() error {
	for {
		now := w.clk.Now()
		changed, err := w.load(now)
		if err != nil {
			return err
		}
		events, done, code := w.live.Poll(now)
		writeLines(w.env.Stdout, analyze.ReplayLines(events, w.c.JSON, w.c.Timestamps))
		if done {
			return w.finish(code)
		}
		w.printWatchdogs(now, changed)
		w.clk.Sleep(min(w.opt.Interval, w.live.Remaining(now)))
	}
}

// load reads the run's files when they changed and updates the watcher;
// changed says a new load was taken. A failed load keeps the previous one
// (it is retried at the next poll), but fails the watch at the first.
func (w *watchLoop) load(now time.Time) (changed bool, err error) {
	run, truncated, changed, err := w.f.read()
	switch {
	case err != nil && w.last == nil:
		return false, usageError("watch: %v", err)
	case err != nil:
		w.stale = w.stale || w.f.readers != nil
		return false, nil
	case changed:
		w.live.Update(now, run, truncated)
		w.last, w.stale = run, false
	}
	return changed, nil
}

// printWatchdogs prints, with --watchdogs, the events that fire at now.
// (The last poll prints none: the section finish prints lists every event,
// and they would stand between the watch's last line and the section.)
func (w *watchLoop) printWatchdogs(now time.Time, changed bool) {
	if w.dogs == nil {
		return
	}
	for _, e := range w.dogs.Poll(now, w.last, changed) {
		line := watchdogLine(e, w.c.JSON)
		if w.c.Timestamps && !w.c.JSON {
			// As every line watch prints: the poll's time first (the
			// line's own time follows).
			line = analyze.FormatTime(now) + " " + line
		}
		fmt.Fprintln(w.env.Stdout, line)
	}
}

// finish prints, with --watchdogs, replay's section over the files as they
// stand, and returns the watch's exit code.
func (w *watchLoop) finish(code int) error {
	if w.c.Watchdogs {
		if w.stale {
			if run, err := analyze.LoadWorkflowRun(w.dir); err == nil {
				w.last = run
			}
		}
		cfg := analyze.ReplayConfig{Watch: w.opt, Start: w.start}
		writeWatchdogs(w.env.Stdout, analyze.ReplayWorkflow(w.last, cfg).Watchdogs, w.c.JSON)
	}
	if code != 0 {
		return &ExitError{Code: code}
	}
	return nil
}

func writeLines(w io.Writer, lines []string) {
	if len(lines) == 0 {
		return
	}
	io.WriteString(w, strings.Join(lines, "\n")+"\n")
}

// find resolves RUN to a run directory, "" while nothing (or more than one
// run for a prefix) matches yet: watch keeps waiting then. The mapping is
// replay's (analyze.WatchRunDir).
func (c *WatchCmd) find(root string) string { return analyze.WatchRunDir(c.Run_, root) }

func (c *WatchCmd) notFound(root, dir string) string {
	if dir != "" {
		return fmt.Sprintf("%s: no journal.jsonl appeared there", filepath.ToSlash(dir))
	}
	return fmt.Sprintf("no Workflow run under %s has an id starting with %q, or several do", root, c.Run_)
}

// follower reads a run's files when they change: it compares the size and
// modification time of every file in the run directory and of the parent
// transcript with the previous poll, and loads the run again only when one
// differs, through readers kept from the previous load, so that each file
// is decoded only from where the last poll stopped (a file truncated,
// replaced or rewritten is read again from its start). The journal
// shrinking is a truncation (RESET).
//
// The check costs a stat per file the run is known to have: the directory
// is listed again only when its own modification time changed (a file was
// created, removed or renamed in it), as file watchers do without inotify.
//
// The loads are told what the check found, so that a poll does each thing
// once: the stats are handed over (the readers do not stat the files again),
// and a load after no new listing takes the last load's inventory of the
// project folder rather than walking it again (analyze.Followers).
type follower struct {
	dir         string
	sig         []fileSig
	journalSize int64
	readers     *analyze.Followers // nil: each load reads every file whole

	dirMtime time.Time
	listed   bool
	names    []string // the regular files of dir at the last listing, sorted
	// entries are dir's entries at the last listing (name and type), and
	// relisted says a listing found them changed since the last load that
	// walked the root (the next load walks it too).
	entries  []string
	relisted bool
	// stats are this poll's stats of the files, by OS path, and probed
	// the files probed instead (probe).
	stats  map[string]os.FileInfo
	probed map[string]probedFile
	// open are the run directory's files kept open, by name (statIn).
	open map[string]keptFile
	// paths are the run directory's files' paths, by name (pathOf); the
	// directory and the parent transcript's are made once too.
	paths               map[string]filePath
	cleanDir            string
	parent, cleanParent string
	// raw is the run directory's entries at the last full listing as the
	// kernel gives them (rawListing; nil where it cannot), rawNext the
	// buffer of the listings made again.
	raw, rawNext []byte
	// spare is the slice of the signature before last, which the next is
	// made in (read keeps the last one in sig).
	spare []fileSig
}

// racyListing is how long after a directory's last change its listing is
// trusted to have seen the change (file systems with a coarse clock give a
// creation the same time as the listing made just before it).
const racyListing = 2 * time.Second

// fileSig is what the change check compares of one file.
type fileSig struct {
	name  string
	size  int64
	mtime time.Time
}

// signature is the sizes and modification times of the run's files and the
// parent transcript, and the journal's size (-1 when missing). It is made
// in the slice the signature before last was (a poll allocates nothing
// here: the paths are kept with the names, the map of stats is reused).
func (f *follower) signature() ([]fileSig, int64) {
	if f.stats == nil {
		f.stats = map[string]os.FileInfo{}
		f.cleanDir = filepath.Clean(f.dir)
		f.parent = analyze.ParentOfRunOnDisk(f.dir)
		f.cleanParent = filepath.Clean(f.parent)
	}
	clear(f.stats)
	clear(f.probed)
	if f.readers != nil {
		f.readers.ResetProbes()
	}
	trusted := !f.list()
	sig := f.spare[:0]
	journal := int64(-1)
	for _, name := range f.names {
		// A name listed whose file is gone, or no longer regular, is part
		// of the signature as missing: its disappearance is a change.
		s := fileSig{name: name, size: -1}
		if size, ok := f.probe(name, trusted); ok {
			// Its size as read (no modification time: the next poll's
			// probe finds the same, and a stat's differs, a change).
			s.size = size
			if name == analyze.JournalName {
				journal = size
			}
		} else if info := f.statIn(name, trusted); info != nil && info.Mode().IsRegular() {
			s.size, s.mtime = info.Size(), info.ModTime()
			if name == analyze.JournalName {
				journal = info.Size()
			}
		}
		sig = append(sig, s)
	}
	if info := f.stat(f.parent, f.cleanParent); info != nil {
		sig = append(sig, fileSig{name: "\x00parent", size: info.Size(), mtime: info.ModTime()})
	}
	f.spare = sig
	return sig, journal
}

// list lists the run directory again when its modification time moved
// since the last listing, or that listing was made too soon after it to be
// trusted, and says whether it did.
func (f *follower) list() bool {
	st, err := os.Stat(f.dir)
	if err == nil {
		f.stats[f.cleanDir] = st
	}
	if err == nil && f.listed && st.ModTime().Equal(f.dirMtime) {
		return false
	}
	// A listing made within racyListing of the directory's last change
	// may miss a file created in the same tick of the file system's clock
	// (which can be coarse): it is made again at the next poll, until one
	// is made well after the change.
	listedAt := time.Now()
	trusted := err == nil && st.ModTime().Before(listedAt.Add(-racyListing))
	// Made again with the directory's time unchanged, a listing whose
	// entries are the same bytes as the last one's (names, types and
	// inodes: rawListing) says that nothing was created, removed or
	// renamed since: the names still name the files kept open for them,
	// which the last full listing's poll checked by path. The poll then
	// stats them through those files, as when the listing is not made
	// again (a watch's first seconds after its run directory changed used
	// to list it in full and stat every file by path at every poll).
	if err == nil && f.raw != nil && st.ModTime().Equal(f.dirMtime) {
		raw, rerr := rawListing(f.dir, f.rawNext[:0])
		f.rawNext = raw
		if rerr == nil && bytes.Equal(raw, f.raw) {
			f.listed = trusted
			return false
		}
	}
	f.names, f.listed = f.names[:0], trusted
	if err == nil {
		f.dirMtime = st.ModTime()
	}
	// The raw listing first: a change between the two makes the next
	// poll's differ from it, and list in full again.
	raw, rerr := rawListing(f.dir, f.raw[:0])
	f.raw = nil
	if rerr == nil {
		f.raw = raw
	}
	entries, _ := os.ReadDir(f.dir)
	all := make([]string, 0, len(entries))
	for _, e := range entries {
		if e.Type().IsRegular() {
			f.names = append(f.names, e.Name())
		}
		all = append(all, e.Name()+"\x00"+e.Type().String())
	}
	// The same entries as at the last listing: the last load's inventory
	// still holds.
	f.relisted = f.relisted || f.entries == nil || !slices.Equal(all, f.entries)
	f.entries = all
	return true
}

// statIn stats the run directory's file name. While the directory is
// trusted (not listed again at this poll: nothing was created, removed or
// renamed in it since the last poll, which checked each name by its path),
// a name still names the file kept open for it, and an fstat of that file
// answers (a stat by path walks every component of the path again, twice
// the cost or more); otherwise the path is stat-ed and the file kept for
// the name is opened again when the path now names another.
func (f *follower) statIn(name string, trusted bool) os.FileInfo {
	p := f.pathOf(name)
	if kept := f.open[name]; trusted && kept.f != nil {
		if info, err := kept.f.Stat(); err == nil {
			f.stats[p.clean] = info
			return info
		}
	}
	info := f.stat(p.path, p.clean)
	kept := f.open[name]
	switch {
	case info == nil || !info.Mode().IsRegular():
		f.forget(name)
	case kept.f != nil:
		// The file kept is the one it was when opened (its stat then):
		// the path still names it when the identities match.
		if !os.SameFile(kept.st, info) {
			f.forget(name)
			f.keep(name, p.path, info)
		}
	default:
		f.keep(name, p.path, info)
	}
	return info
}

// probe reads, while the directory is trusted, what was appended to the
// run directory's file name through the readers' file kept open for it
// (analyze.Followers.Probe: one pread, the windows compared, where an
// fstat was made and then, for a file that changed, the load's pread),
// when the file kept for name here is the one the readers keep: the path
// named it at the last listing's stat. ok is false where the readers keep
// no file for it (the file is stat-ed then).
func (f *follower) probe(name string, trusted bool) (int64, bool) {
	kept := f.open[name]
	if !trusted || f.readers == nil || kept.f == nil {
		return 0, false
	}
	p := f.pathOf(name)
	size, ok := f.readers.Probe(p.clean, kept.st)
	if ok {
		if f.probed == nil {
			f.probed = map[string]probedFile{}
		}
		f.probed[p.clean] = probedFile{kept.st, size}
	}
	return size, ok
}

// probedFile is a file probed at this poll: what a load's stat of it is
// answered with (its stat when kept, with the size read).
type probedFile struct {
	os.FileInfo
	size int64
}

func (p probedFile) Size() int64 { return p.size }

// filePath is a run directory file's path, and the same cleaned (the key
// of the poll's stats).
type filePath struct{ path, clean string }

// pathOf is the path of the run directory's file name, made once per name.
func (f *follower) pathOf(name string) filePath {
	if p, ok := f.paths[name]; ok {
		return p
	}
	if f.paths == nil {
		f.paths = map[string]filePath{}
	}
	path := filepath.Join(f.dir, name)
	p := filePath{path, filepath.Clean(path)}
	f.paths[name] = p
	return p
}

// keptFile is a file of the run directory kept open, and its stat when it
// was opened (which says what file it is: an open file stays the same).
type keptFile struct {
	f  *os.File
	st os.FileInfo
}

// keptFiles bounds the run directory's files the change check keeps open;
// beyond, the others are stat-ed by path.
const keptFiles = 64

// keep opens path for name, when it is still the file info describes and
// fewer than keptFiles are open.
func (f *follower) keep(name, path string, info os.FileInfo) {
	if len(f.open) >= keptFiles {
		return
	}
	kept, err := openKept(path)
	if err != nil {
		return
	}
	kst, err := kept.Stat()
	if err != nil || !os.SameFile(kst, info) {
		kept.Close()
		return
	}
	if f.open == nil {
		f.open = map[string]keptFile{}
	}
	f.open[name] = keptFile{kept, kst}
}

func (f *follower) forget(name string) {
	if kept := f.open[name]; kept.f != nil {
		kept.f.Close()
		delete(f.open, name)
	}
}

// close closes the files the change check keeps open.
func (f *follower) close() {
	for name := range f.open {
		f.forget(name)
	}
}

// stat stats a file and keeps the answer for this poll's load under its
// cleaned path (nil: it cannot be stat-ed).
func (f *follower) stat(path, clean string) os.FileInfo {
	info, err := os.Stat(path)
	if err != nil {
		return nil
	}
	f.stats[clean] = info
	return info
}

// statOf answers a load's stat of path from this poll's check when it made
// one, else stats it.
func (f *follower) statOf(path string) (os.FileInfo, error) {
	clean := filepath.Clean(path)
	if info, ok := f.stats[clean]; ok {
		return info, nil
	}
	if p, ok := f.probed[clean]; ok {
		return p, nil
	}
	return os.Stat(path)
}

func (f *follower) read() (run *analyze.Run, truncated, changed bool, err error) {
	sig, journal := f.signature()
	if f.sig != nil && slices.EqualFunc(sig, f.sig, func(a, b fileSig) bool {
		return a.name == b.name && a.size == b.size && a.mtime.Equal(b.mtime)
	}) {
		return nil, false, false, nil
	}
	if f.readers != nil {
		if !f.relisted {
			f.readers.ListingUnchanged()
		}
		f.readers.SetStat(f.statOf)
		run, err = analyze.FollowWorkflowRun(f.dir, f.readers)
		f.readers.SetStat(nil)
		f.relisted = f.relisted && err != nil
	} else {
		run, err = analyze.LoadWorkflowRun(f.dir)
	}
	if err != nil {
		return nil, false, false, usageError("replay: %v", err)
	}
	truncated = journal >= 0 && journal < f.journalSize
	f.sig, f.spare, f.journalSize = sig, f.sig, journal
	return run, truncated, true, nil
}

// followUp is the follow-up KILL and DONE lines name: replay's, pmcheck's
// check of the run, or with --as-watch watch's own ("").
func (c *WatchCmd) followUp(dir string) string {
	if c.AsWatch {
		return ""
	}
	return nextCommand(dir)
}
