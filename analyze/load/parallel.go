package load

import (
	"fmt"
	"github.com/pmcheck/pmcheck/analyze/layout"
	"hash/fnv"
	"os"
	"path"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/pmcheck/pmcheck/analyze/discover"
	"github.com/pmcheck/pmcheck/analyze/jsonl"
	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/analyze/transcript"
)

// Reading dominates the cost of a load, and transcripts are independent of
// each other until they are linked, so they are read ahead in parallel;
// linking then runs as before, in one goroutine and in inventory order, and
// takes each transcript from the read-ahead. The result is the same for any
// number of jobs.

// readAhead is one transcript read before linking.
type readAhead struct {
	t    *model.Transcript
	err  error
	meta *model.Meta // an agent transcript's sidecar, when it has one
	// size is the file's size when readAhead stat'ed it (0: not stat'ed).
	size int64
	// panicked holds a panic raised while reading, re-raised on the loading
	// goroutine so that it reaches the command's recover (exit 3, internal
	// error) instead of ending the process from a worker.
	panicked any
}

// willRead lists the transcripts a load of tgt reads for sure.
func (l *loader) willRead(tgt Target) []string {
	var files []string
	switch {
	case tgt.Workflow != "":
		for _, fs := range l.inv.AgentFiles {
			for _, f := range fs {
				if inDir(f, tgt.Workflow) {
					files = append(files, f)
				}
			}
		}
		if parent, ok := layout.ParentOfRun(tgt.Workflow); ok {
			files = append(files, parent)
		}
	case tgt.Session != "":
		files = append(files, tgt.Session)
		for _, fs := range l.inv.AgentFiles {
			for _, f := range fs {
				if layout.OwnSubagent(tgt.Session, f) || layout.Beside(tgt.Session, f) {
					files = append(files, f)
				}
			}
		}
	default:
		files = append(files, l.inv.Sessions...)
		for _, fs := range l.inv.AgentFiles {
			files = append(files, fs...)
		}
	}
	return files
}

// inDir reports whether path.Dir(f) is dir, without cleaning f when it is
// dir joined with a name (a walk's paths: a watch asks it of every agent
// file at every poll that saw a change).
func inDir(f, dir string) bool {
	if i := strings.LastIndexByte(f, '/'); i > 0 && f[:i] == dir && path.Clean(dir) == dir {
		return true
	}
	return path.Dir(f) == dir
}

// readAhead reads files with opts.Jobs workers, largest first so one big
// file does not start last. Files that cannot be stat'ed are left to the
// linking pass, which reports them as before.
func (l *loader) readAhead(files []string) {
	type job struct {
		rel  string
		size int64
	}
	jobs := make([]job, 0, len(files))
	if l.opts.Follow != nil {
		// A followed load (watch, at every poll that saw a change) reads
		// what was appended: the sizes would only order reads of a few
		// rows each, and a file that cannot be read gives here the error
		// the linking pass would read it with. In the order of their
		// names, each once (as the sort below orders them when no size
		// is known), without a map of those seen: a few files, at every
		// poll.
		rels := slices.Compact(slices.Sorted(slices.Values(files)))
		for _, f := range rels {
			jobs = append(jobs, job{f, 0})
		}
	} else {
		seen := map[string]bool{}
		for _, f := range files {
			if seen[f] {
				continue
			}
			seen[f] = true
			st, err := os.Stat(l.osPath(f))
			if err != nil || !st.Mode().IsRegular() {
				continue
			}
			jobs = append(jobs, job{f, st.Size()})
		}
		sort.Slice(jobs, func(i, j int) bool {
			if jobs[i].size != jobs[j].size {
				return jobs[i].size > jobs[j].size
			}
			return jobs[i].rel < jobs[j].rel
		})
	}
	workers := l.opts.Jobs
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, len(jobs))
	results := make([]readAhead, len(jobs))
	var next atomic.Int64
	var mu sync.Mutex
	done := 0
	work := func() {
		for {
			i := int(next.Add(1) - 1)
			if i >= len(jobs) {
				return
			}
			rel := jobs[i].rel
			results[i] = l.readOne(rel)
			if l.opts.Progress != nil {
				mu.Lock()
				done++
				l.opts.Progress(done, len(jobs))
				mu.Unlock()
			}
		}
	}
	if workers == 1 {
		// One job (a followed load reads a few rows per file at every
		// poll): on this goroutine, not on one started (and its stack
		// grown) for the purpose.
		work()
	} else {
		var wg sync.WaitGroup
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				work()
			}()
		}
		wg.Wait()
	}
	if l.ahead == nil {
		l.ahead = make(map[string]readAhead, len(jobs))
	}
	for i, j := range jobs {
		results[i].size = j.size
		l.ahead[j.rel] = results[i]
	}
}

// Shard selects part of a root for one of several CI jobs.
type Shard struct {
	Index, Count int
}

// ParseShard reads "i/n" (1-based i, as CI matrices count).
func ParseShard(s string) (Shard, error) {
	var i, n int
	if _, err := fmt.Sscanf(s, "%d/%d", &i, &n); err != nil || n < 1 || i < 1 || i > n || fmt.Sprintf("%d/%d", i, n) != s {
		return Shard{}, fmt.Errorf("--shard %q: want i/n with 1 <= i <= n, e.g. 1/4", s)
	}
	return Shard{Index: i - 1, Count: n}, nil
}

// Key is what decides a path's shard: its first component, without
// ".jsonl", so a session file and its side directory (<id>.jsonl, <id>/)
// go together, and under ~/.claude/projects a whole project folder does.
func (Shard) Key(rel string) string { return layout.ShardKey(rel) }

// Has reports whether a root-relative path belongs to the shard. The
// assignment is a hash of the key: stable across runs, machines and fleet
// growth (adding a project moves no other project).
func (s Shard) Has(rel string) bool {
	if s.Count <= 1 {
		return true
	}
	h := fnv.New32a()
	h.Write([]byte(s.Key(rel)))
	return int(h.Sum32()%uint32(s.Count)) == s.Index
}

// filter keeps the shard's part of an inventory.
func (s Shard) filter(inv *discover.Inventory) *discover.Inventory {
	out := &discover.Inventory{AgentFiles: map[string][]string{}, Metas: map[string]bool{}}
	for _, f := range inv.Sessions {
		if s.Has(f) {
			out.Sessions = append(out.Sessions, f)
		}
	}
	for _, d := range inv.WorkflowDirs {
		if s.Has(d) {
			out.WorkflowDirs = append(out.WorkflowDirs, d)
		}
	}
	for _, f := range inv.Streams {
		if s.Has(f) {
			out.Streams = append(out.Streams, f)
		}
	}
	for id, fs := range inv.AgentFiles {
		for _, f := range fs {
			if s.Has(f) {
				out.AgentFiles[id] = append(out.AgentFiles[id], f)
			}
		}
	}
	for f, m := range inv.Metas {
		if s.Has(f) {
			out.Metas[f] = m
		}
	}
	for _, r := range inv.Refused {
		if s.Has(r.Path) {
			out.Refused = append(out.Refused, r)
		}
	}
	return out
}

// agentEntry is one agent transcript in the order linking visits them.
type agentEntry struct {
	id, file string
	order    int
}

// agentIndex finds a session's or run directory's agent transcripts without
// walking every agent file of the root for each (which made a fleet of
// sessions quadratic). Built once per root.
type agentIndex struct {
	all    []agentEntry
	byStem map[string][]int // "<session>" of each "<session>/subagents/" prefix
	byDir  map[string][]int
	// bySession maps a folder to its agent files grouped by the sessionId
	// their rows carry, built on first use (sessionsBeside).
	bySession map[string]map[string][]int
}

func (l *loader) agentIndex() *agentIndex {
	if l.agents != nil {
		return l.agents
	}
	// A followed load that took the last one's inventory takes its index
	// too (made from the inventory alone, and not changed once made); the
	// groups by session id read files, and are made afresh.
	if kept := l.opts.Follow.agentIndexOf(l.inv); kept != nil {
		l.agents = &agentIndex{all: kept.all, byStem: kept.byStem, byDir: kept.byDir, bySession: map[string]map[string][]int{}}
		return l.agents
	}
	ix := &agentIndex{byStem: map[string][]int{}, byDir: map[string][]int{}, bySession: map[string]map[string][]int{}}
	defer l.opts.Follow.keepAgentIndex(l.inv, ix)
	for _, id := range sortedIDs(l.inv.AgentFiles) {
		for _, f := range l.inv.AgentFiles[id] {
			k := len(ix.all)
			ix.all = append(ix.all, agentEntry{id: id, file: f, order: k})
			ix.byDir[path.Dir(f)] = append(ix.byDir[path.Dir(f)], k)
			layout.SubagentStems(f, func(stem string) {
				if n := len(ix.byStem[stem]); n == 0 || ix.byStem[stem][n-1] != k {
					ix.byStem[stem] = append(ix.byStem[stem], k)
				}
			})
		}
	}
	l.agents = ix
	return ix
}

// candidates returns, in visiting order, the agent files under
// "<stem>/subagents/" (none when stem is "") and those directly in dir.
func (ix *agentIndex) candidates(stem, dir string) []agentEntry {
	var a []int
	if stem != "" {
		a = ix.byStem[stem]
	}
	return ix.merge(a, ix.byDir[dir])
}

// sessionCandidates returns, in visiting order, a session's own subagent
// files under "<stem>/subagents/" and the legacy agent files in dir whose
// rows carry its sessionId (none when the id is ""). A folder with 20,000
// sessions and 20,000 legacy agent files beside them made each session walk
// every agent file of the folder (74 s); grouping the folder's agent files by
// session id once makes each session's share a lookup.
func (l *loader) sessionCandidates(stem, dir, sessionID string) []agentEntry {
	ix := l.agentIndex()
	var own, beside []int
	if stem != "" {
		own = ix.byStem[stem]
	}
	if sessionID != "" {
		beside = l.sessionsBeside(dir)[sessionID]
	}
	return ix.merge(own, beside)
}

// sessionsBeside groups the agent files directly in dir by the sessionId of
// their rows, reading each once, in visiting order.
func (l *loader) sessionsBeside(dir string) map[string][]int {
	if m, ok := l.beside[dir]; ok {
		return m
	}
	ix := l.agentIndex()
	if m, ok := ix.bySession[dir]; ok {
		return m
	}
	m := map[string][]int{}
	// The folder's agent files are read in parallel, a batch at a time, and
	// their readings kept for the linker (loader.kept) within the budget
	// groupBeside keeps them in (reserve), so that a session or the orphan
	// runs take them instead of reading them again; past the budget only
	// their session ids are kept, and a session reads its own again.
	ks := ix.byDir[dir]
	for len(ks) > 0 {
		batch := ks[:min(len(ks), 256)]
		ks = ks[len(batch):]
		var files []string
		for _, k := range batch {
			f := ix.all[k].file
			_, read := l.transcripts[f]
			_, ahead := l.ahead[f] // a session target's, read with it (willRead)
			if _, kept := l.kept[f]; !read && !ahead && !kept && !l.failed[f] {
				files = append(files, f)
			}
		}
		l.readAhead(files)
		for _, k := range batch {
			f := ix.all[k].file
			_, cached := l.transcripts[f]
			a, wasKept := l.kept[f] // groupBeside's reading: its budget is taken
			if !wasKept {
				a = l.ahead[f]
			}
			t := l.transcript(f)
			if t != nil && t.SessionID != "" {
				m[t.SessionID] = append(m[t.SessionID], k)
			}
			if !cached {
				delete(l.transcripts, f)
				if t != nil && l.kept == nil {
					// One session given (load): what willRead read ahead
					// waits for its run there.
					if l.ahead == nil {
						l.ahead = map[string]readAhead{}
					}
					l.ahead[f] = readAhead{t: t, meta: t.Meta}
				} else if t != nil && l.opts.Follow == nil && (wasKept || a.size > 0 && l.reserve(a.size)) {
					// Taken by transcript as a reading is: its problems
					// were reported (flagged), its sidecar's meta read.
					l.kept[f] = readAhead{t: t, meta: t.Meta, size: a.size}
				}
			}
		}
	}
	ix.bySession[dir] = m
	return m
}

// groupBeside groups the legacy agent files of every folder that holds a
// session by the sessionId of their rows before the sessions stream by,
// reading them in parallel, so that a session's own are read ahead with it
// (besideFiles) instead of on the linking goroutine. The grouping is the
// one sessionsBeside makes when the folder's first session is linked; a
// folder with a file whose reading the linker reports (it cannot be read,
// gives up or is mostly not JSON) is left to sessionsBeside, so that the
// report comes where it always did. Set once; read by the read-ahead.
//
// The readings are kept for the linker (loader.kept), within the budget
// (reserve), so that each file is decoded once: the session that carries
// its id takes its reading, and the orphan runs those of the files no
// session claimed. A folder of thousands of tiny agent files costs mostly
// their opening, a large file its decoding; past the budget a file is read
// again by its session's read-ahead or the orphan runs. A file with a
// sidecar is kept with the sidecar's meta (sidecarMeta, which takes the
// bytes the sidecar index kept).
func (l *loader) groupBeside() {
	ix := l.agentIndex()
	var dirs []string
	seen := map[string]bool{}
	for _, s := range l.inv.Sessions {
		if d := path.Dir(s); !seen[d] && len(ix.byDir[d]) > 0 {
			seen[d] = true
			dirs = append(dirs, d)
		}
	}
	l.beside = map[string]map[string][]int{}
	for _, d := range dirs {
		m := map[string][]int{}
		kept := map[string]besideRead{}
		clean := true
		for ks := ix.byDir[d]; len(ks) > 0 && clean; {
			batch := ks[:min(len(ks), 256)]
			ks = ks[len(batch):]
			res := make([]besideRead, len(batch))
			l.parallel(len(batch), func(i int) {
				res[i] = l.readBeside(ix.all[batch[i]].file)
			})
			for i, k := range batch {
				r := res[i]
				if (r.t != nil || r.err != nil) && l.reserve(r.size) {
					kept[ix.all[k].file] = r
				}
				if !r.ok {
					clean = false
				} else if id := r.t.SessionID; id != "" {
					m[id] = append(m[id], k)
				}
			}
		}
		if clean {
			l.beside[d] = m
		}
		// Kept in a folder left to sessionsBeside too: it takes them, and
		// reports a file's reading where it always did.
		for f, r := range kept {
			a := readAhead{t: r.t, err: r.err, size: r.size}
			if _, ok := l.inv.Metas[f]; ok && r.err == nil {
				a.meta = l.sidecarMeta(f)
			}
			l.kept[f] = a
			l.keptSet[f] = true
		}
	}
}

// keepBytes bounds the size of the files whose readings groupBeside keeps
// for the linker: a small file's model is about its size, a large one's
// smaller (most of its bytes are output the model does not keep).
// (A variable so that a test can turn keeping off.)
var keepBytes int64 = 48 << 20

// reserve takes n bytes of the budget for kept readings (a negative n gives
// them back); false when they are not left. Safe for concurrent use.
func (l *loader) reserve(n int64) bool {
	if l.keepLeft.Add(-n) < 0 {
		l.keepLeft.Add(n)
		return false
	}
	return true
}

// besideRead is groupBeside's reading of one agent file: ok is false when
// the linker would report the file's reading (err, or t mostly not JSON;
// neither t nor err when the reading panicked: the linker reads it again
// and raises it).
type besideRead struct {
	t    *model.Transcript
	err  error
	size int64
	ok   bool
}

func (l *loader) readBeside(rel string) (r besideRead) {
	defer func() {
		if recover() != nil {
			r = besideRead{} // the linker reads it again and reports
		}
	}()
	if onDecode != nil {
		onDecode(rel)
	}
	t, size, err := transcript.ReadFileSize(l.osPath(rel), l.show(rel), l.readOptions(rel))
	if err != nil {
		return besideRead{err: err, size: size}
	}
	return besideRead{t: t, size: size, ok: !(t.ClaudeCodeRows > 0 && jsonl.MostlyNotJSON(t.MalformedSkipped, t.Rows))}
}

// besideFiles are the legacy agent files beside session k that carry the
// session id its file name gives (almost always its sessionId), when its
// folder was grouped before the sessions streamed by (groupBeside): read
// ahead with the session, they are what its linking reads.
func (l *loader) besideFiles(k int) []string {
	s := l.inv.Sessions[k]
	var files []string
	for _, i := range l.beside[path.Dir(s)][layout.SessionIDOf(s)] {
		if f := l.agents.all[i].file; !l.keptSet[f] {
			files = append(files, f)
		}
	}
	return files
}

// parallel calls fn(0..n-1) with the loader's jobs.
func (l *loader) parallel(n int, fn func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(l.jobs(), n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				fn(i)
			}
		}()
	}
	wg.Wait()
}

// merge returns the entries of two ascending index lists, in order, each
// file once.
func (ix *agentIndex) merge(a, b []int) []agentEntry {
	out := make([]agentEntry, 0, len(a)+len(b))
	for len(a) > 0 || len(b) > 0 {
		switch {
		case len(b) == 0 || (len(a) > 0 && a[0] < b[0]):
			out = append(out, ix.all[a[0]])
			a = a[1:]
		case len(a) == 0 || b[0] < a[0]:
			out = append(out, ix.all[b[0]])
			b = b[1:]
		default: // the same file through both
			out = append(out, ix.all[a[0]])
			a, b = a[1:], b[1:]
		}
	}
	return out
}

// onDecode, when set (by tests), is told of each file the loader reads
// whole: transcripts (the first-row pass's too, when it reads a file
// whole; not its reading up to a file's first row with a uuid), journals
// and streams. It may be called from several goroutines at once.
var onDecode func(rel string)

// readOne reads one transcript, catching a panic so that it can be re-raised
// where Run's recover sees it.
func (l *loader) readOne(rel string) (r readAhead) {
	return l.readWith(rel, l.readOptions(rel))
}

// readWith is readOne with the reader's options given.
func (l *loader) readWith(rel string, opts transcript.Options) readAhead {
	return l.readFrom(rel, opts, nil)
}

// readFrom is readWith that reads data, the file's bytes, when not nil.
func (l *loader) readFrom(rel string, opts transcript.Options, data []byte) (r readAhead) {
	defer func() {
		if p := recover(); p != nil {
			r = readAhead{panicked: fmt.Sprintf("reading %s: %v", l.show(rel), p)}
		}
	}()
	if onDecode != nil {
		onDecode(rel)
	}
	var t *model.Transcript
	var err error
	if data != nil {
		t, err = transcript.ReadBytes(data, l.show(rel), opts)
	} else {
		t, err = transcript.ReadFile(l.osPath(rel), l.show(rel), opts)
	}
	r = readAhead{t: t, err: err}
	if err == nil && l.firsts != nil && layout.AgentIDFromName(path.Base(rel)) == "" {
		t.UUIDs = l.firstsOf(t) // stream.go
	}
	if _, ok := l.inv.Metas[rel]; ok && err == nil && layout.AgentIDFromName(path.Base(rel)) != "" {
		r.meta = l.sidecarMeta(rel) // its sidecar, read here rather than on the linking goroutine
	}
	return r
}
