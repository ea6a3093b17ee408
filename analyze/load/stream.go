package load

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"io"
	"path"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/pmcheck/pmcheck/analyze/jsonl"
	"github.com/pmcheck/pmcheck/analyze/layout"
	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/analyze/transcript"
)

// A fleet is not held whole: runs stream through the analysis. The loader
// links one run at a time, in the order a load of everything linked them,
// while the files of the next runs are read ahead in parallel (a bounded
// window); each run is handed to the caller's function as soon as it is
// linked (Jobs of them at once) and only what that function returns is
// kept. Memory then grows with what callers keep per run, not with the
// transcripts.
//
// What needs more than one run is kept apart and small: the uuids of the
// session files (markResumeCopies, after the sessions), the likely resume
// copies' readings, held until then within a budget (holdBytes), the agent
// files claimed (orphanRuns), the index of agent files and sidecars. A
// resume copy found among the runs already handed on is linked and handed
// on again with its copied rows marked, replacing the first. Problems are reported once per file and sorted back into
// the order of a load that read every session file before linking.

// Each loads like Load, but hands every run to fn as soon as it is linked,
// with the index of the path it was found under, and drops the run when fn
// returns. fn may be called from several goroutines at once (up to
// opts.Jobs) and may be called twice for one run (a resume copy found
// later); the results are in Load's run order whatever opts.Jobs is.
// Result.Runs is nil.
func Each[T any](paths []string, opts Options, fn func(run *model.Run, input int) T) (*Result, []T, error) {
	var mu sync.Mutex
	var out []T
	s := newSink(opts.Jobs, func(run *model.Run, input, slot int) {
		v := fn(run, input)
		mu.Lock()
		for len(out) <= slot {
			var zero T
			out = append(out, zero)
		}
		out[slot] = v
		mu.Unlock()
	})
	s.grow = func(n int) { // room for the runs a walk found, grown once
		mu.Lock()
		out = slices.Grow(out, n)
		mu.Unlock()
	}
	res := &Result{}
	inputs := make([]*input, 0, len(paths))
	for i, p := range paths {
		in, err := prepareInput(res, p, opts, s, i)
		if err != nil {
			s.close()
			return nil, nil, err
		}
		inputs = append(inputs, in)
	}
	joinAcross(inputs) // sdkjoin.go
	for _, in := range inputs {
		in.load()
	}
	s.close()
	// The loader's indexes (tens of MB for a fleet: every path, the agent
	// files, the sidecars) are garbage now. Collected before the caller
	// renders its report, they do not add to what rendering allocates: the
	// collector reuses their memory, and a fleet's peak memory stays the
	// streaming's. It is not given back to the OS (debug.FreeOSMemory, as
	// before): that lowered no peak, and on a paravirtualised machine the
	// release (every page unmapped, the other core's TLB flushed) and the
	// faults of rendering into the same memory again cost 0.1 s of a
	// 20,000-session check (docs/performance.md). A few runs' indexes are
	// small and their report too, and the forced collection costs a few
	// milliseconds: only fleets pay it.
	if len(s.keys) >= freeAfterRuns {
		runtime.GC()
	}
	for len(out) < len(s.keys) {
		var zero T
		out = append(out, zero)
	}
	// Runs are sorted by (path, kind); runs of one path and kind (orphan
	// groups of one folder, a root given twice) keep the order they were
	// linked in. They were linked almost in that order; the results are
	// put in place without a second list (a fleet's can be tens of MB).
	order := make([]int, len(s.keys))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		x, y := s.keys[a], s.keys[b]
		return cmp.Or(cmp.Compare(x.path, y.path), cmp.Compare(x.kind, y.kind))
	})
	permute(out, order)
	return res, out, nil
}

// freeAfterRuns is how many runs make Each give the loader's memory back
// before returning (see Each).
const freeAfterRuns = 256

// permute puts xs[order[i]] at i for every i, in place, following the
// permutation's cycles; order is used up.
func permute[T any](xs []T, order []int) {
	for i := range order {
		if order[i] < 0 {
			continue
		}
		tmp, j := xs[i], i
		for {
			k := order[j]
			order[j] = -1
			if k == i {
				xs[j] = tmp
				break
			}
			xs[j] = xs[k]
			j = k
		}
	}
}

// sink runs the caller's function over linked runs, jobs at once.
type sink struct {
	jobs  int
	fn    func(run *model.Run, input, slot int)
	keys  []runKey // by slot
	tasks chan sinkTask
	busy  sync.WaitGroup // runs handed on and not yet done
	done  sync.WaitGroup // workers
	mu    sync.Mutex
	// grow makes room for n more runs (a hint).
	grow func(n int)
	// panicked is the first panic of a worker, raised again on the loading
	// goroutine (drain) so that the command's recover sees it.
	panicked any
}

type runKey struct{ path, kind string }

type sinkTask struct {
	run         *model.Run
	input, slot int
}

func newSink(jobs int, fn func(run *model.Run, input, slot int)) *sink {
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	s := &sink{jobs: jobs, fn: fn}
	if jobs > 1 {
		s.tasks = make(chan sinkTask, jobs)
		for range jobs {
			s.done.Add(1)
			go func() {
				defer s.done.Done()
				for t := range s.tasks {
					s.call(t)
				}
			}()
		}
	}
	return s
}

// emit hands a run on; replace is the slot of a run it replaces (-1: a new
// run). It returns the run's slot.
func (s *sink) emit(run *model.Run, input, replace int) int {
	slot := replace
	if slot < 0 {
		slot = len(s.keys)
		s.keys = append(s.keys, runKey{run.Path, run.Kind})
	}
	if s.tasks == nil {
		s.fn(run, input, slot)
		return slot
	}
	s.busy.Add(1)
	s.tasks <- sinkTask{run, input, slot}
	return slot
}

func (s *sink) call(t sinkTask) {
	defer s.busy.Done()
	defer func() {
		if p := recover(); p != nil {
			s.mu.Lock()
			if s.panicked == nil {
				s.panicked = p
			}
			s.mu.Unlock()
		}
	}()
	s.fn(t.run, t.input, t.slot)
}

// drain waits until every run handed on is done.
func (s *sink) drain() {
	s.busy.Wait()
	s.mu.Lock()
	p := s.panicked
	s.mu.Unlock()
	if p != nil {
		panic(p)
	}
}

// close drains the sink and stops its workers.
func (s *sink) close() {
	if s.tasks != nil {
		close(s.tasks)
		s.done.Wait()
		s.tasks = nil
	}
	s.drain()
}

// emit hands a linked run on.
func (l *loader) emit(run *model.Run) {
	l.last = l.out.emit(run, l.input, l.replace)
}

// evict drops the transcripts read for the run just linked.
func (l *loader) evict() {
	clear(l.transcripts)
	l.notes = nil
	l.ahead = nil
}

// problemKey orders problems as a load that read every session file first
// and then linked the sessions, the workflow runs and the orphans in turn
// found them: phase 0 is the reading of the session files, 1 the sessions,
// 2 the workflow runs, 3 the orphans; unit is the session's or run's index.
type problemKey struct{ phase, unit int }

type keyedProblem struct {
	key problemKey
	seq int
	at  model.Evidence // the file (and line) the message starts with
	msg string
}

// addError and addUntrusted record a problem whose message starts with
// its file; addErrorAt and addUntrustedAt also say which file and line, for
// the reports that place it (Result.CheckProblems).
func (l *loader) addError(msg string) { l.addErrorAt("", 0, msg) }

func (l *loader) addUntrusted(msg string) { l.addUntrustedAt("", 0, msg) }

func (l *loader) addErrorAt(file string, line int, msg string) {
	if !l.quiet {
		l.errors = append(l.errors, keyedProblem{l.key, l.seq, model.Evidence{File: file, Line: line}, msg})
		l.seq++
	}
}

func (l *loader) addUntrustedAt(file string, line int, msg string) {
	if !l.quiet {
		l.untrusted = append(l.untrusted, keyedProblem{l.key, l.seq, model.Evidence{File: file, Line: line}, msg})
		l.seq++
	}
}

func (l *loader) addSkipped(p model.Problem) {
	if !l.quiet {
		l.res.Skipped = append(l.res.Skipped, p)
	}
}

// flushErrors moves the problems found into the result, in order.
func (l *loader) flushErrors() {
	for _, ps := range []*[]keyedProblem{&l.errors, &l.untrusted} {
		slices.SortFunc(*ps, func(a, b keyedProblem) int {
			return cmp.Or(cmp.Compare(a.key.phase, b.key.phase), cmp.Compare(a.key.unit, b.key.unit), cmp.Compare(a.seq, b.seq))
		})
	}
	for _, p := range l.errors {
		l.res.Errors = append(l.res.Errors, p.msg)
		l.res.errorsAt = append(l.res.errorsAt, p.at)
	}
	for _, p := range l.untrusted {
		l.res.Untrusted = append(l.res.Untrusted, p.msg)
		l.res.untrustedAt = append(l.res.untrustedAt, p.at)
	}
	l.errors, l.untrusted = nil, nil
}

// stream links every run of a root, one at a time.
func (l *loader) stream() {
	l.agentIndex()
	if n := len(l.inv.Sessions) + len(l.inv.WorkflowDirs); l.out.grow != nil {
		l.out.keys = slices.Grow(l.out.keys, n)
		l.out.grow(n)
	}
	// The parent transcripts of Workflow runs are kept from their session
	// until the runs are linked: one reading, one transcript for both runs.
	parents := map[string]bool{}
	for _, d := range l.inv.WorkflowDirs {
		if p, ok := layout.ParentOfRun(d); ok {
			parents[p] = true
		}
	}
	l.parents = map[string]*model.Transcript{}
	l.parentSet = parents
	sessions := l.inv.Sessions
	var firsts []uint64
	l.kept, l.keptSet = map[string]readAhead{}, map[string]bool{}
	l.keepLeft.Store(keepBytes)
	l.rowHashesLeft = rowHashesKeep
	l.firsts, firsts = l.firstUUIDs()
	l.suspects = sharedFirsts(firsts) // resume.go
	l.hold = l.holdSuspects()
	l.later = make([]bool, len(sessions))
	l.held = make([]*model.Transcript, len(sessions))
	l.sidecarsFirst() // link.go
	if afterFirstPasses != nil {
		afterFirstPasses(l)
	}
	l.groupBeside() // parallel.go
	l.slots = make([]int, len(sessions))
	pf := l.prefetch(len(sessions), l.sessionFiles, l.readSessionFile, true)
	for k, s := range sessions {
		l.ahead = pf.next()
		if pf == nil {
			l.ahead = l.readKept(k, s)
		}
		if l.streamRoute(k) {
			l.key = problemKey{1, k}
			l.last = -1
			if l.streamFirst(k, s) { // sdkrun.go
				l.slots[k] = l.last
				l.evict()
				continue
			}
		}
		l.key = problemKey{0, k}
		t := l.transcript(s)
		if t != nil {
			rows := t.RowHashes // a held reading's (hold): needed to mark its copies
			if t.CopyRows == nil {
				rows = l.keepRowHashes(t)
				t.RowHashes = nil
			}
			l.heads = append(l.heads, resumeFile{s, t.FirstTime, t.FirstUUID, l.firstsOf(t), t.UUIDRows, rows})
			l.headIndex = append(l.headIndex, k)
			t.UUIDs = nil
		}
		l.key = problemKey{1, k}
		l.last = -1
		if l.suspects[k] && t != nil && notTranscript(t) != "" {
			if t.CopyRows == nil {
				delete(l.transcripts, s) // read for its heads only: its run reads it whole
			} else {
				t.CopyRows, t.RowHashes = nil, nil // read whole (hold): its run reads this reading
			}
		}
		if l.suspects[k] && t != nil && notTranscript(t) == "" {
			// A likely resume copy is linked once, after the copies are
			// known (markResumeCopies), instead of linked, analysed and
			// then linked and analysed again with its copied rows marked.
			// Its folder's legacy agent files are grouped here all the
			// same, where its linking would have grouped them, so that
			// their problems are reported in the same place.
			l.later[k] = true
			if t.CopyRows != nil {
				l.held[k] = t
			}
			if t.SessionID != "" {
				l.sessionsBeside(path.Dir(s))
			}
		} else {
			l.sessionRun(s)
			if parents[s] {
				l.parents[s] = l.transcripts[s]
			}
		}
		l.slots[k] = l.last
		l.evict()
	}
	pf.stop()
	// A resume copy's run replaces the one handed on: wait until that one is
	// done.
	l.out.drain()
	l.markResumeCopies()
	l.firstData = nil
	l.heads, l.headIndex, l.slots, l.suspects, l.later = nil, nil, nil, nil, nil
	l.hold, l.held, l.firstSize, l.firstStream = nil, nil, nil, nil

	dirs := l.inv.WorkflowDirs
	pf = l.prefetch(len(dirs), l.workflowFiles, nil, true)
	for k, d := range dirs {
		l.ahead = pf.next()
		l.key = problemKey{2, k}
		l.workflowRun(d)
		l.evict()
	}
	pf.stop()
	l.parents = nil

	l.key = problemKey{3, 0}
	var orphans []string
	for _, e := range l.agentIndex().all {
		if _, kept := l.kept[e.file]; !kept && !l.claimed[e.file] && !layout.InWorkflowRun(e.file) {
			orphans = append(orphans, e.file) // a kept reading is what the orphan runs take
		}
	}
	l.readAhead(orphans)
	l.orphanRuns()
	l.evict()
	l.kept = nil
}

// relink links a session from the files read for it (ahead): again, in
// place of the run handed on (a resume copy, with its rows marked), or for
// the first time (a session whose linking waited for markResumeCopies).
func (l *loader) relink(k int, rel string, ahead map[string]readAhead) {
	l.ahead = ahead
	l.key = problemKey{1, k}
	first := l.later[k]
	if !first {
		l.quiet, l.replace = true, l.slots[k]
	}
	l.sessionRun(rel)
	if l.parentSet[rel] {
		l.parents[rel] = l.transcripts[rel]
	}
	l.quiet, l.replace = false, -1
	l.evict()
}

// sessionFiles are the files read ahead for a session's run (runFiles). A
// session whose linking waits (markResumeCopies) is only read.
func (l *loader) sessionFiles(k int) []string {
	if l.streamRoute(k) {
		return nil // read as a stream, on the linker's goroutine (streamFirst)
	}
	if l.suspects[k] {
		return []string{l.inv.Sessions[k]}
	}
	return l.runFiles(k)
}

// readSessionFile reads file i of session k's files (sessionFiles): a
// session whose linking waits is read whole with what marking its copied
// rows afterwards needs (hold), or past that budget for its heads only
// (resumeFile); the rest whole.
func (l *loader) readSessionFile(k, i int, rel string) readAhead {
	opts := l.readOptions(rel)
	if i != 0 {
		return l.readWith(rel, opts)
	}
	// The bytes the first-row pass kept (firstUUIDs) are read once, but
	// for a session whose linking waits: markResumeCopies reads them again.
	var data []byte
	if l.firstData != nil {
		data = l.firstData[k]
		if !l.suspects[k] || l.hold[k] {
			l.firstData[k] = nil
		}
	}
	switch {
	case l.hold[k]:
		// Whole, once: with the rows' content hashes the resume check
		// compares and what marking its copied rows needs, so that
		// markResumeCopies marks and links this reading (MarkCopied).
		opts.MarkLater = true
	case l.suspects[k]:
		// Past the budget: its heads and its rows' content hashes, and
		// markResumeCopies reads it again, with its copied rows marked.
		opts.HeadsOnly, opts.RowHashes = true, true
	}
	return l.readFrom(rel, opts, data)
}

// holdBytes bounds the memory of the suspects (sharedFirsts) read whole as
// the sessions stream by and held until markResumeCopies links them
// (hold), each counted as its file's size and holdOverhead: a held reading
// is the file's model, smaller than a large file (most of its bytes are
// output the model does not keep) and a few KiB more than a small one.
// Past it a suspect is read for its heads and read again once the copies
// are known. (A variable so that a test can turn holding off.)
var holdBytes int64 = 64 << 20

// holdOverhead is what a held reading is counted beyond its file's size: a
// transcript's model of a few rows measured about 3.6 KiB more than its
// file (a folder of 20,000 likely copies of 2.3 KB each).
const holdOverhead = 4 << 10

// holdSuspects says which suspects are read whole and held (holdBytes), in
// session order.
func (l *loader) holdSuspects() []bool {
	hold := make([]bool, len(l.suspects))
	left := holdBytes
	for k, suspect := range l.suspects {
		if n := l.firstSize[k] + holdOverhead; suspect && !l.firstStream[k] && l.firstSize[k] > 0 && n <= left {
			hold[k] = true
			left -= n
		}
	}
	return hold
}

// rowHashesKeep bounds the row hashes the heads readings keep for the
// resume check, in rows (about 40 bytes each): a folder of many large
// likely copies keeps them for the first files only, and the resume check
// reads the others again for theirs. (A variable so that a test can turn
// keeping off.)
var rowHashesKeep int64 = 1 << 20

// keepRowHashes is the row hashes of a session's heads reading
// (readSessionFile) while the budget lasts (rowHashesKeep), nil otherwise.
func (l *loader) keepRowHashes(t *model.Transcript) map[uint64]uint64 {
	if t.RowHashes == nil || int64(len(t.RowHashes)) > l.rowHashesLeft {
		return nil
	}
	l.rowHashesLeft -= int64(len(t.RowHashes))
	return t.RowHashes
}

// readKept is what the linker reads ahead of session k when nothing is
// read ahead (one job): its session file, when the first-row pass kept its
// bytes or its linking waits, read as a reader ahead would
// (readSessionFile); nil otherwise. Before, one job opened and read the file again and the kept
// bytes stayed unread until every session was linked: 32 MiB held through
// a fleet's whole check, for nothing.
func (l *loader) readKept(k int, rel string) map[string]readAhead {
	if l.streamRoute(k) {
		return nil
	}
	if !l.suspects[k] && (l.firstData == nil || l.firstData[k] == nil) {
		return nil
	}
	return map[string]readAhead{rel: l.readSessionFile(k, 0, rel)}
}

// streamRoute says whether session file k is read with the stream reader
// first (streamFirst): its first rows name their session as an Agent SDK
// stream does (firstUUIDs), and it is not the parent of a Workflow run
// (read as a session). Which it is stays the whole file's rows' decision
// (isStreamSpelling). A stream so read takes no part in the resume check:
// a resume's copy repeats its original's rows byte for byte but the
// sessionId (contained), and no session file's row is a stream message,
// so a stream can be neither a session's copy nor its original, and its
// run was never linked from a session reading (sessionRun hands it to the
// stream reader), so no copy mark would reach it.
func (l *loader) streamRoute(k int) bool {
	return l.firstStream != nil && l.firstStream[k] && !l.parentSet[l.inv.Sessions[k]]
}

// afterFirstPasses, when set (by tests), runs once the first-row pass and
// the sidecar index are done, before any transcript is read whole.
var afterFirstPasses func(l *loader)

// runFiles are the files a session's run reads: the session, its own
// subagent transcripts and the legacy agent files beside it that carry its
// id (besideFiles; its sessionId, when read, decides).
func (l *loader) runFiles(k int) []string {
	s := l.inv.Sessions[k]
	files := []string{s}
	if stem := layout.Stem(s); stem != "" {
		for _, i := range l.agents.byStem[stem] {
			if f := l.agents.all[i].file; layout.OwnSubagent(s, f) {
				files = append(files, f)
			}
		}
	}
	return append(files, l.besideFiles(k)...)
}

// workflowFiles are the files a Workflow run reads: its agents and the
// parent transcript.
func (l *loader) workflowFiles(k int) []string {
	d := l.inv.WorkflowDirs[k]
	var files []string
	for _, i := range l.agents.byDir[d] {
		files = append(files, l.agents.all[i].file)
	}
	if parent, ok := layout.ParentOfRun(d); ok {
		if _, kept := l.parents[parent]; !kept {
			files = append(files, parent)
		}
	}
	return files
}

// prefetcher reads the files of the next units (runs) while the current one
// is linked: at most a window of units ahead, with Jobs readers.
type prefetcher struct {
	ready chan *unitRead
	quit  chan struct{}
}

type unitRead struct {
	k     int
	files []string
	res   []readAhead
	left  atomic.Int32
	done  chan struct{}
}

type fileTask struct {
	u *unitRead
	i int
}

// jobs is how many goroutines read or analyse at once.
func (l *loader) jobs() int {
	if l.opts.Jobs > 0 {
		return l.opts.Jobs
	}
	return runtime.GOMAXPROCS(0)
}

// prefetch starts reading the files of units 0..n-1 (files(k) lists unit
// k's) in order; files is called in order, on one goroutine. read, when
// set, reads file i of unit k instead of readOne; progress says whether the
// files count in Options.Progress. With one job nothing is read ahead: the
// linker reads.
func (l *loader) prefetch(n int, files func(k int) []string, read func(k, i int, rel string) readAhead, progress bool) *prefetcher {
	jobs := l.jobs()
	if jobs == 1 || n == 0 {
		return nil
	}
	p := &prefetcher{ready: make(chan *unitRead, 4*jobs), quit: make(chan struct{})}
	total := 0
	report := l.opts.Progress
	if !progress {
		report = nil
	}
	if report != nil {
		for k := range n {
			total += len(files(k))
		}
	}
	var mu sync.Mutex
	done := 0
	tasks := make(chan fileTask, jobs)
	for range jobs {
		go func() {
			for t := range tasks {
				if read != nil {
					t.u.res[t.i] = read(t.u.k, t.i, t.u.files[t.i])
				} else {
					t.u.res[t.i] = l.readOne(t.u.files[t.i])
				}
				if report != nil {
					mu.Lock()
					done++
					report(done, total)
					mu.Unlock()
				}
				if t.u.left.Add(-1) == 0 {
					close(t.u.done)
				}
			}
		}()
	}
	go func() {
		defer close(tasks)
		for k := range n {
			// A file that cannot be read is read ahead all the same: the
			// reader refuses what is not a regular file without blocking,
			// and the linker reports the error as if it had read it.
			fs := files(k)
			u := &unitRead{k: k, files: fs, res: make([]readAhead, len(fs)), done: make(chan struct{})}
			u.left.Store(int32(len(fs)))
			if len(fs) == 0 {
				close(u.done)
			}
			select {
			case p.ready <- u:
			case <-p.quit:
				return
			}
			for i := range fs {
				select {
				case tasks <- fileTask{u, i}:
				case <-p.quit:
					return
				}
			}
		}
	}()
	return p
}

// next waits for the next unit's files.
func (p *prefetcher) next() map[string]readAhead {
	if p == nil {
		return nil
	}
	u := <-p.ready
	<-u.done
	m := make(map[string]readAhead, len(u.files))
	for i, f := range u.files {
		m[f] = u.res[i]
	}
	return m
}

// stop ends the reading ahead (all units consumed, or a panic on the way).
func (p *prefetcher) stop() {
	if p != nil {
		close(p.quit)
	}
}

// firstsOf returns the uuids of a session file that start some session
// file: only those can make it a holder (resumeOriginals), so only those are
// kept of its uuids. The readers call it (a map lookup per row) so that the
// linker has little left to do; it is safe for concurrent use.
// Filtering a filtered list gives it back.
func (l *loader) firstsOf(t *model.Transcript) []uint64 {
	var uuids []uint64
	for _, u := range t.UUIDs {
		if l.firsts == nil || l.firsts[u] {
			uuids = append(uuids, u)
		}
	}
	return uuids
}

// firstUUIDs returns the hashes of the session files' first row uuids
// (Transcript.FirstUUID) as a set, so that only those need be kept of the
// files' uuids until the resume copies are looked for (nil, keep them all,
// when a file could not be read), and by session (0: none or unread). Each file is read only up to its first row with
// a uuid, in parallel.
func (l *loader) firstUUIDs() (map[uint64]bool, []uint64) {
	sessions := l.inv.Sessions
	hs := make([]uint64, len(sessions))
	l.firstData = make([][]byte, len(sessions))
	l.firstSize = make([]int64, len(sessions))
	l.firstStream = make([]bool, len(sessions))
	l.firstLeft.Store(firstKeepBytes)
	var failed atomic.Bool
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(l.jobs(), len(sessions)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1)) - 1; i < len(sessions); i = int(next.Add(1)) - 1 {
				h, data, size, ok, sdk := l.firstUUIDKeep(sessions[i], true)
				l.firstData[i], l.firstSize[i], l.firstStream[i] = data, size, sdk
				if !ok {
					failed.Store(true)
				}
				hs[i] = h
			}
		}()
	}
	wg.Wait()
	if failed.Load() {
		return nil, hs
	}
	set := make(map[uint64]bool, len(hs))
	for _, h := range hs {
		set[h] = true
	}
	return set, hs
}

// maxFirstRows bounds the bytes read before a session file's first row
// with a uuid; past it the file is read whole.
const maxFirstRows = 1 << 20

var uuidKey = []byte(`"uuid"`)

// firstUUID reads a session file up to its first row with a uuid and
// returns the uuid's hash (0 when it has none); ok is false when the file
// could not be read. The lines up to and including the first line that
// holds "uuid" are read as a transcript: the reader sees the same lines in
// the same order as when it reads the whole file, so the first uuid it
// finds there is the file's (a row's uuid key written with escapes is on an
// earlier line, which is read too). When that line's row has none, the
// next such line is added, up to maxFirstRows and four readings; then the
// whole file is read.
func (l *loader) firstUUID(rel string) (h uint64, ok bool) {
	h, _, _, ok, _ = l.firstUUIDKeep(rel, false)
	return h, ok
}

// firstKeepMax and firstKeepBytes bound the session files whose bytes the
// first-row pass keeps (firstData): at most firstKeepMax each, and
// firstKeepBytes in all. A folder of tens of thousands of small sessions
// otherwise opened, stat'ed, read and closed each one twice, and those
// system calls were a sixth of checking such a folder.
// (Variables so that a test can turn keeping off.)
var (
	firstKeepMax   int64 = 16 << 10
	firstKeepBytes int64 = 32 << 20
)

// firstUUIDKeep is firstUUID that, when keep is set and the file is small
// (firstKeepMax, firstKeepBytes), reads the file whole, once, and returns
// its bytes as well: the session's reading then reads them (readFrom)
// instead of the file. They are the file as it was when first read. size
// is the file's size when it was opened (0 when it could not be).
func (l *loader) firstUUIDKeep(rel string, keep bool) (h uint64, data []byte, size int64, ok, sdk bool) {
	defer func() {
		if recover() != nil {
			h, data, size, ok, sdk = 0, nil, 0, false, false // the linker reads the file again and reports
		}
	}()
	name := l.osPath(rel)
	f, size, err := jsonl.OpenRead(name)
	if err != nil {
		return 0, nil, 0, false, false
	}
	defer f.Close()
	var src io.Reader = f
	if keep && size > 0 && size <= firstKeepMax {
		if l.firstLeft.Add(-size) < 0 {
			l.firstLeft.Add(size)
		} else {
			buf := make([]byte, size)
			n, err := io.ReadFull(f, buf)
			if err != nil && err != io.ErrUnexpectedEOF {
				return 0, nil, size, false, false
			}
			data = buf[:n]
			src = bytes.NewReader(data)
		}
	}
	br := firstReaders.Get().(*bufio.Reader)
	br.Reset(src)
	defer func() {
		br.Reset(nil)
		firstReaders.Put(br)
	}()
	opts := transcript.Options{LineCap: l.opts.LineCap, GiveUp: l.opts.GiveUpOnJunk, Shell: l.inertOnly()}
	read := func(prefix []byte) (*model.Transcript, error) {
		if opts.LineCap > 0 && opts.LineCap+1 < 256<<10 {
			return transcript.Read(bytes.NewReader(prefix), l.show(rel), opts) // a buffer sized to the cap
		}
		// A reader big enough that the line reader uses it as it is
		// (a new 256 KiB buffer per file would be most of the cost).
		dr := decodeReaders.Get().(*bufio.Reader)
		dr.Reset(bytes.NewReader(prefix))
		defer func() {
			dr.Reset(nil)
			decodeReaders.Put(dr)
		}()
		return transcript.Read(dr, l.show(rel), opts)
	}
	// The lines are gathered in a pooled buffer: only the uuid's hash is
	// kept of them.
	pb := firstPrefixes.Get().(*[]byte)
	prefix := (*pb)[:0]
	defer func() {
		if cap(prefix) <= 64<<10 {
			*pb = prefix[:0]
			firstPrefixes.Put(pb)
		}
	}()
	for tries := 0; len(prefix) <= maxFirstRows && tries < 4; {
		line, err := br.ReadSlice('\n')
		for err == bufio.ErrBufferFull && len(prefix)+len(line) <= maxFirstRows {
			prefix = append(prefix, line...)
			line, err = br.ReadSlice('\n')
		}
		if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
			return 0, nil, size, false, false
		}
		prefix = append(prefix, line...)
		if err == bufio.ErrBufferFull {
			break // a line longer than the bound
		}
		if bytes.Contains(line, uuidKey) || err == io.EOF {
			tries++
			t, rerr := read(prefix)
			var gaveUp *jsonl.GaveUpError
			if errors.As(rerr, &gaveUp) {
				return 0, data, size, true, false // the linker reports it; it holds no session
			}
			if rerr != nil {
				return 0, nil, size, false, false
			}
			if t.FirstUUID != 0 || err == io.EOF {
				return t.FirstUUID, data, size, true, spellsStream(t)
			}
		}
	}
	return l.firstUUIDPast(rel, name, prefix, data, size, opts, read)
}

// firstUUIDPast is firstUUIDKeep past the first rows (prefix) without a
// row holding a uuid: a stream an older CLI wrote (1.0's stream-json
// carries none) is read by the stream reader alone, which needs no first
// uuid (streamRoute), so it is not read whole here; any other file is
// (data, its bytes, when kept).
func (l *loader) firstUUIDPast(rel, name string, prefix, data []byte, size int64, opts transcript.Options,
	read func([]byte) (*model.Transcript, error)) (uint64, []byte, int64, bool, bool) {
	if len(prefix) > 0 {
		if t, err := read(prefix); err == nil && spellsStream(t) {
			return 0, data, size, true, true
		}
	}
	var t *model.Transcript
	var err error
	if onDecode != nil {
		onDecode(rel) // the whole file: counted as a reading
	}
	if data != nil {
		t, err = transcript.ReadBytes(data, l.show(rel), opts)
	} else {
		t, err = transcript.ReadFile(name, l.show(rel), opts)
	}
	var gaveUp *jsonl.GaveUpError
	if errors.As(err, &gaveUp) {
		return 0, data, size, true, false
	}
	if err != nil {
		return 0, nil, size, false, false
	}
	return t.FirstUUID, data, size, true, spellsStream(t)
}

// spellsStream says whether the first rows of a file, read as a session
// (firstUUIDKeep), name their session as a stream does: some spell
// session_id, none sessionId. It only says which reader reads the file
// first (streamRoute); the whole file's rows decide what it is.
func spellsStream(t *model.Transcript) bool {
	return t.SDKRows > 0 && t.SessionID == ""
}

var (
	firstReaders  = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 16<<10) }}
	decodeReaders = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 256<<10) }}
	firstPrefixes = sync.Pool{New: func() any { return new([]byte) }}
)
