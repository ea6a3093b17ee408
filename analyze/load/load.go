// Package load is the loader behind the analyze façade: it resolves the
// paths given on the command line to roots (Resolve), discovers the runs
// under them, reads every transcript and journal once, links parents to
// children and marks the rows an older CLI's resume copied. Detectors and
// the replay work on what Load returns; they are not its business.
package load

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/pmcheck/pmcheck/analyze/discover"
	"github.com/pmcheck/pmcheck/analyze/journal"
	"github.com/pmcheck/pmcheck/analyze/jsonl"
	"github.com/pmcheck/pmcheck/analyze/layout"
	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/analyze/transcript"
)

// Options tune loading.
type Options struct {
	// LineCap is the longest transcript line read (jsonl.DefaultLineCap when 0).
	LineCap int64
	// Jobs is how many transcripts are read at once (GOMAXPROCS when 0).
	// The result does not depend on it: files are read ahead in parallel,
	// then linked in the same order as by one reader.
	Jobs int
	// Progress, when set, is called after each transcript read ahead, with
	// the number done and the total; calls never overlap.
	Progress func(done, total int)
	// GiveUpOnJunk stops reading a transcript or journal at the line where
	// it is clearly mostly not JSON (jsonl.GiveUp) and lists it in
	// Untrusted: check and scan fail closed on it whatever follows, so
	// they need not read fifty million junk lines to say so. A replay
	// reads such a file whole, as watch would.
	GiveUpOnJunk bool
	// Shard, when Count > 1, keeps only the part of each root that falls into
	// shard Index (0-based) of Count.
	Shard Shard
	// SessionOnly, for a session transcript given as the path, walks only
	// that session's files (discover.WalkSession) instead of its whole
	// folder: the resume gate's reading (ReadGate).
	SessionOnly bool
	// Shell is what the reader is given of the shell classifier's policy:
	// its Inert (the commands whose output need not be kept; the façade
	// always sets it), and, when Classify is set, the classifier itself,
	// so that the Bash commands of every transcript are classified while it
	// is read and the detectors reuse the analyses (the façade's
	// ClassifyWhileReading builds it). The loader imports no detection.
	Shell transcript.ShellOptions
	// Follow, when set, keeps the readers of the transcripts and journals
	// read, so that the next load with the same Follow decodes only what
	// was appended to each since (a live watch polling a run). What is
	// loaded is what a load without it gives. A run loaded this way shares
	// its transcripts' calls, results and events with the readers: it is
	// what the files held until the next load through the same Follow,
	// which may change them (watch uses each run before it loads again).
	Follow *Followers
	// ShowAs names folders given as paths by another name in evidence
	// paths: the checkpoints of a range are written to a temporary folder
	// and shown as where they come from (CheckpointsShown), never as a host
	// path.
	ShowAs map[string]string
	// Rows, when set, is asked for a function per transcript, journal and
	// message stream read (by the name its evidence carries), which is
	// given each of the file's lines as the reader applies it
	// (transcript.Options.Rows): explain keeps its excerpts in the one
	// reading instead of opening the cited files again.
	Rows func(file string) func(line int, data []byte)
}

// Followers are the readers a load keeps for the next (Options.Follow).
type Followers struct {
	transcripts transcript.Followers
	journals    journal.Followers
	listing     listing // follow.go
}

// FollowStats says how much the followers read: files read from their
// start, and bytes decoded in all.
func (f *Followers) FollowStats() (fresh, bytes int64) {
	return f.transcripts.Fresh + f.journals.Fresh, f.transcripts.Appended + f.journals.Appended
}

// Close closes the files the followers keep open between loads; they can
// still be used (a file is opened again by its next read).
func (f *Followers) Close() {
	f.transcripts.Close()
	f.journals.Close()
}

// Transcripts are the followers of the transcripts read (the hook seeds
// them with the readers an earlier process froze, and freezes them again).
func (f *Followers) Transcripts() *transcript.Followers { return &f.transcripts }

// Journals are the followers of the journals read (as Transcripts).
func (f *Followers) Journals() *journal.Followers { return &f.journals }

func (f *Followers) forTranscripts() *transcript.Followers {
	if f == nil {
		return nil
	}
	return &f.transcripts
}

func (f *Followers) forJournals() *journal.Followers {
	if f == nil {
		return nil
	}
	return &f.journals
}

// Result is everything Load found.
type Result struct {
	// Inputs are the paths as given, each with the root it resolved to.
	Inputs []Input
	// Runs are sorted by (kind, path).
	Runs []*model.Run
	// Errors are inputs that could not be read at all (the check fails closed
	// on them); each is one line with where and how to fix.
	Errors []string
	// Untrusted are inputs that were read but cannot be judged: a transcript
	// or journal that is mostly not JSON lines. A check fails closed on them
	// as on Errors (see CheckErrors); a replay shows what watch would have.
	Untrusted []string
	// Skipped are entries that were deliberately not used (symbolic links
	// leaving the root, files that hold no transcript rows), with the reason.
	Skipped []model.Problem
	// errorsAt and untrustedAt are where each of Errors and Untrusted is
	// (its message starts with that file and line).
	errorsAt, untrustedAt []model.Evidence
}

// CheckErrors are the problems a check or a scan must fail on: Errors, then
// Untrusted.
func (r *Result) CheckErrors() []string {
	return append(append([]string(nil), r.Errors...), r.Untrusted...)
}

// CheckProblems are CheckErrors with the file and line each is about (the
// message is the whole line CheckErrors gives).
func (r *Result) CheckProblems() []model.Problem {
	out := make([]model.Problem, 0, len(r.Errors)+len(r.Untrusted))
	for i, m := range r.Errors {
		out = append(out, model.Problem{At: at(r.errorsAt, i, m), Message: m})
	}
	for i, m := range r.Untrusted {
		out = append(out, model.Problem{At: at(r.untrustedAt, i, m), Message: m})
	}
	return out
}

// at is where problem i is: as recorded, else the file (and line) its
// message starts with, when that names a file on disk ("path:12: …",
// "path: …"; a message is one line, file first).
func at(list []model.Evidence, i int, msg string) model.Evidence {
	if i < len(list) && list[i].File != "" {
		return list[i]
	}
	head, _, ok := strings.Cut(msg, ": ")
	if !ok {
		return model.Evidence{}
	}
	file, line := head, 0
	if k := strings.LastIndexByte(head, ':'); k > 0 {
		if n, err := strconv.Atoi(head[k+1:]); err == nil && n > 0 {
			file, line = head[:k], n
		}
	}
	file = strings.TrimSuffix(file, "/")
	if _, err := os.Stat(filepath.FromSlash(file)); err != nil {
		return model.Evidence{}
	}
	return model.Evidence{File: file, Line: line}
}

// Input is one path from the command line.
type Input struct {
	Path string `json:"path"`
	// Root is the directory evidence paths are relative to (as a display
	// prefix: the root as given, or "" when it was absolute).
	Root string `json:"root"`
	// Dir is the directory on disk that root-relative evidence paths (with
	// Root taken off) are relative to; `rules test` uses it to place
	// evidence relative to an expectations file. Never reported.
	Dir string `json:"-"`
}

// Load reads every run under the given paths. An error is returned only for
// paths that do not exist or are not readable; problems inside the inputs are
// reported on the runs. It keeps every run's model; callers that need only
// what they derive from each run use Each, which keeps memory bounded.
func Load(paths []string, opts Options) (*Result, error) {
	res, runs, err := Each(paths, opts, func(run *model.Run, _ int) *model.Run { return run })
	if err != nil {
		return nil, err
	}
	res.Runs = runs
	return res, nil
}

// input is one path given, walked and ready to load (prepareInput): every
// input is walked before any is loaded, so that a stream in one and its
// session's files in another are one run (joinAcross).
type input struct {
	l   *loader
	tgt Target
	// all is the walk before the shard's part was taken (opts.Shard).
	all *discover.Inventory
}

func prepareInput(res *Result, given string, opts Options, out *sink, idx int) (*input, error) {
	st, err := opts.Follow.stat(given) // follow.go
	if err != nil {
		if os.IsNotExist(err) {
			return nil, fmt.Errorf("%s: no such file or directory (give a session transcript, a Workflow run directory, or a folder to search)", given)
		}
		return nil, fmt.Errorf("%s: cannot be read: %v", given, err)
	}
	tgt, err := resolveWith(given, st.IsDir(), opts.Follow.stat)
	if err != nil {
		return nil, err
	}
	root := tgt.Root
	display := opts.Follow.displayRoot(root)
	if shown, ok := opts.ShowAs[given]; ok && st.IsDir() {
		display = shown
	}
	res.Inputs = append(res.Inputs, Input{Path: given, Root: display, Dir: root})
	inv, err := inventoryOf(root, tgt, opts) // follow.go
	if err != nil {
		return nil, fmt.Errorf("%s: cannot be listed: %v", given, err)
	}
	l := &loader{res: res, root: root, display: display, inv: inv, opts: opts, shell: opts.Shell,
		transcripts: map[string]*model.Transcript{}, claimed: map[string]bool{},
		out: out, input: idx, replace: -1, failed: map[string]bool{}, flagged: map[string]bool{}}
	in := &input{l: l, tgt: tgt, all: inv}
	if tgt.Folder() {
		// Before the shard's part is taken: a stream goes with its
		// session's files whichever shard its own path falls in.
		l.findJoins() // sdkjoin.go
	}
	if opts.Shard.Count > 1 {
		l.inv = opts.Shard.filter(inv)
	}
	return in, nil
}

// load links the input's runs.
func (in *input) load() {
	l := in.l
	for _, r := range l.inv.Refused {
		if strings.HasPrefix(r.Reason, "cannot be read") {
			// A folder or file the walk could not read may hold runs: the
			// check cannot claim it looked at everything, so it fails closed.
			l.res.Errors = append(l.res.Errors, fmt.Sprintf("%s: %s; fix its permissions or remove it from the input", l.show(r.Path), r.Reason))
			l.res.errorsAt = append(l.res.errorsAt, model.Evidence{File: l.show(r.Path)})
			continue
		}
		l.res.Skipped = append(l.res.Skipped, model.Problem{At: model.Evidence{File: l.show(r.Path)}, Message: r.Reason})
	}
	l.load(in.tgt)
	l.flushErrors()
	in.all = nil
}

type loader struct {
	res         *Result
	shell       transcript.ShellOptions // opts.Shell, as the reader takes it
	root        string
	display     string
	inv         *discover.Inventory
	opts        Options
	transcripts map[string]*model.Transcript // by rel path; nil value: unreadable
	// ahead holds the transcripts read in parallel before linking, agents
	// the agent files indexed for linking (parallel.go).
	ahead   map[string]readAhead
	agents  *agentIndex
	claimed map[string]bool // agent files that belong to a run
	// metaByToolUse is filled on first use by sidecarIndex, and sidecars
	// with the sidecars it read (readers take them from other goroutines).
	metaByToolUse map[string][]string
	sidecars      atomic.Pointer[sidecarStore]
	// notes indexes each transcript's notifications once (link.go).
	notes map[*model.Transcript]*notificationIndex
	// joins are the streams read with their session's files (sdkjoin.go).
	joins *streamJoin

	// Streaming (stream.go): runs go to out as they are linked, and the
	// transcripts read for one run are dropped once it is linked, so a
	// file may be read again for a later run. failed and flagged make sure
	// each file's problem is reported once all the same.
	out     *sink
	input   int  // index of the path given, passed on with each run
	replace int  // slot the next run replaces (-1: a new run)
	last    int  // slot of the last run handed on
	quiet   bool // linking again: problems were reported the first time
	failed  map[string]bool
	flagged map[string]bool
	// parents are the Workflow runs' parent transcripts, kept from their
	// session's run until the Workflow runs are linked.
	parents map[string]*model.Transcript
	// firsts are the session files' first row uuids (firstUUIDs).
	firsts map[uint64]bool
	// firstData are the bytes of the small session files the first-row
	// pass read whole, by session, until their reading takes them (a
	// likely resume copy's, until markResumeCopies reads it);
	// firstLeft is what is left of their budget (firstKeepBytes).
	firstData [][]byte
	firstLeft atomic.Int64
	// firstSize are the session files' sizes as the first-row pass
	// opened them (0: not opened).
	firstSize []int64
	// firstStream says, by session, that its first rows name their
	// session as an Agent SDK stream does (spellsStream): read with the
	// stream reader first (streamRoute).
	firstStream []bool
	// heads are the session files' first rows and uuids, gathered while
	// the sessions stream by, for markResumeCopies; slots the run of each.
	heads     []resumeFile
	headIndex []int
	slots     []int
	// rowHashesLeft is what is left of the budget of row hashes the
	// heads keep (rowHashesKeep).
	rowHashesLeft int64
	// suspects are the sessions that start with another session's first
	// row uuid (sharedFirsts): they are read as the sessions stream by but
	// linked after markResumeCopies (later), which are all of them but
	// the files that are not transcripts or cannot be read.
	suspects, later []bool
	// hold are the suspects read whole, once, as the sessions stream by,
	// with what marking their copied rows afterwards needs
	// (transcript.Options.MarkLater), within a budget (holdBytes); held
	// are those readings of the sessions whose linking waits, kept until
	// markResumeCopies marks and links them.
	hold []bool
	held []*model.Transcript
	// beside are the folders' legacy agent files grouped by session id
	// before the sessions streamed by (groupBeside).
	beside map[string]map[string][]int
	// kept are readings of legacy agent files that groupBeside (or
	// sessionsBeside) kept for the linker, taken (and dropped) by the first
	// run that reads each, a session's or the orphan runs; keptSet lists
	// groupBeside's, unchanged, for the read-ahead; keepLeft is what is
	// left of their budget (keepBytes).
	kept     map[string]readAhead
	keptSet  map[string]bool
	keepLeft atomic.Int64
	// parentSet are the parent transcripts of Workflow runs.
	parentSet map[string]bool
	// errors and untrusted are ordered by the phase and unit that found
	// them, as a load that read every session first ordered them.
	errors, untrusted []keyedProblem
	key               problemKey
	seq               int
}

// osPath is the OS path of rel, a path under the root.
func (l *loader) osPath(rel string) string {
	return l.opts.Follow.joined(joinOS, l.root, rel, func(root, rel string) string { return filepath.Join(root, filepath.FromSlash(rel)) })
}

// show turns a root-relative path into the path evidence carries.
func (l *loader) show(rel string) string {
	if l.display == "" {
		return rel
	}
	if rel == "." {
		return l.display
	}
	return l.opts.Follow.joined(joinShown, l.display, rel, func(display, rel string) string { return path.Join(display, rel) })
}

// transcript reads a file, once per run that uses it (a file that cannot be
// read is tried once).
func (l *loader) transcript(rel string) *model.Transcript {
	if t, ok := l.transcripts[rel]; ok {
		return t
	}
	if t, ok := l.parents[rel]; ok {
		return t
	}
	if l.failed[rel] {
		return nil
	}
	var t *model.Transcript
	var err error
	var meta *model.Meta
	a, ok := l.ahead[rel]
	if ok {
		delete(l.ahead, rel)
	} else if a, ok = l.kept[rel]; ok {
		delete(l.kept, rel)
	}
	if ok {
		if a.panicked != nil {
			panic(a.panicked)
		}
		t, err, meta = a.t, a.err, a.meta
	} else {
		if onDecode != nil {
			onDecode(rel)
		}
		t, err = transcript.ReadFile(l.osPath(rel), l.show(rel), l.readOptions(rel))
	}
	var gaveUp *jsonl.GaveUpError
	if errors.As(err, &gaveUp) {
		l.addUntrustedAt(l.show(rel), gaveUp.First, fmt.Sprintf("%s; a transcript that is mostly not JSON cannot be checked; repair it or remove it from the input", gaveUp))
		l.failed[rel] = true
		return nil
	}
	if err != nil {
		l.addErrorAt(l.show(rel), 0, fmt.Sprintf("%s: cannot be read (%s); fix its permissions or remove it from the input", l.show(rel), readReason(err)))
		l.failed[rel] = true
		return nil
	}
	if t.OverCap > 0 && !l.flagged[rel] {
		// The reader skips a line over the cap to bound its memory, and
		// what the line held is unknown (a row may be as long as its
		// content): a check that passed would claim rows it never read.
		l.flagged[rel] = true
		l.addUntrustedAt(l.show(rel), int(t.FirstOverCap), fmt.Sprintf("%s:%d: a line of %d bytes is over the line cap (%d bytes) and was not read; a transcript with unread lines cannot be checked; pass --line-cap %d or more to read it, or remove the file from the input",
			l.show(rel), t.FirstOverCap, t.FirstOverCapLen, l.lineCap(), t.FirstOverCapLen))
	}
	if t.ClaudeCodeRows > 0 && jsonl.MostlyNotJSON(t.MalformedSkipped, t.Rows) && !l.flagged[rel] {
		// A transcript whose lines are mostly not JSON rows was damaged or
		// padded; what the junk hid cannot be known, so the check fails
		// closed on it instead of judging the few rows it could read.
		l.flagged[rel] = true
		l.addUntrustedAt(l.show(rel), t.Malformed[0].Line, fmt.Sprintf("%s: %d of %d lines are not JSON rows (first at line %d); a transcript that is mostly not JSON cannot be checked; repair it or remove it from the input",
			l.show(rel), t.MalformedSkipped, t.Lines, t.Malformed[0].Line))
	}
	if !l.flagged[rel] && l.undecodable(t) {
		l.flagged[rel] = true
	}
	if id := layout.AgentIDFromName(path.Base(rel)); id != "" {
		t.UUIDs = nil // only session files are compared (markResumeCopies)
		t.AgentID = id
		t.Helper = discover.IsHelperAgent(id)
		if _, ok := l.inv.Metas[rel]; ok {
			if meta == nil {
				meta = l.sidecarMeta(rel)
			}
			t.Meta = meta
		}
	}
	l.transcripts[rel] = t
	return t
}

// readOptions are the reader's options for one file. (A likely resume copy
// is read once and its rows marked on that reading by markResumeCopies, or,
// past holdBytes, read with its rows marked there; its run is linked from
// that reading, and a Workflow run's parent is kept.)
func (l *loader) readOptions(rel string) transcript.Options {
	return transcript.Options{LineCap: l.opts.LineCap, GiveUp: l.opts.GiveUpOnJunk, Shell: l.shell, Follow: l.opts.Follow.forTranscripts(),
		// Only session files' uuids are compared (markResumeCopies): an
		// agent transcript's list is dropped after the read.
		NoUUIDList: layout.AgentIDFromName(path.Base(rel)) != "", Rows: l.rowsOf(rel)}
}

// rowsOf is Options.Rows's function for the file at rel, or nil.
func (l *loader) rowsOf(rel string) func(line int, data []byte) {
	if l.opts.Rows == nil {
		return nil
	}
	return l.opts.Rows(l.show(rel))
}

// inertOnly is the reader's shell options for a reading that classifies
// nothing (a first row, a file's row hashes): the inert commands alone.
func (l *loader) inertOnly() transcript.ShellOptions {
	return transcript.ShellOptions{Inert: l.opts.Shell.Inert}
}

// lineCap is the line cap transcripts are read with.
func (l *loader) lineCap() int64 {
	if l.opts.LineCap > 0 {
		return l.opts.LineCap
	}
	return jsonl.DefaultLineCap
}

func readReason(err error) string {
	switch {
	case errors.Is(err, os.ErrPermission):
		return "permission denied"
	case errors.Is(err, os.ErrNotExist):
		return "does not exist"
	}
	return err.Error()
}

func (l *loader) load(tgt Target) {
	if tgt.Stream != "" {
		if !l.joinedElsewhere(tgt.Stream) {
			l.streamRun(tgt.Stream, tgt.Array) // sdkrun.go
		}
		return
	}
	if tgt.Workflow == "" && tgt.Session == "" {
		l.stream() // stream.go
		l.streamCandidates()
		return
	}
	l.sidecarsFirst()
	l.readAhead(l.willRead(tgt))
	if tgt.Workflow != "" {
		l.workflowRun(tgt.Workflow)
		return
	}
	l.sessionRun(tgt.Session)
}

// sidecarMeta reads the sidecar of an agent transcript (it has one: rel is
// a key of inv.Metas). Safe for concurrent use.
func (l *loader) sidecarMeta(rel string) *model.Meta {
	meta := layout.MetaOf(rel)
	if data := l.sidecars.Load().take(rel); data != nil {
		return parseMeta(data, "", l.show(meta))
	}
	return readMeta(l.abs(meta), l.show(meta))
}

// DisplayRoot is the prefix evidence paths carry: the root as given when it is
// relative; an absolute root inside the working directory becomes relative to
// it (so SARIF and annotations land on repository paths in CI); any other
// absolute root is kept whole, so a report says where the files are (a root
// given as a relative path keeps reports free of host paths).
func DisplayRoot(root string) string {
	if filepath.IsAbs(root) {
		wd, err := os.Getwd()
		if err != nil {
			return ""
		}
		rel, err := filepath.Rel(wd, root)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return filepath.ToSlash(filepath.Clean(root))
		}
		root = rel
	}
	display := filepath.ToSlash(filepath.Clean(root))
	if display == "." {
		return ""
	}
	return display
}
