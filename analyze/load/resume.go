package load

import (
	"slices"
	"sort"
	"time"

	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/analyze/transcript"
)

// maxOriginals bounds the earlier files a copy's rows are compared with: a
// chain of resumes has a few; a folder of identical files would otherwise
// make the comparison grow with the square of the files.
const maxOriginals = 8

// markResumeCopies finds session files into which an older CLI's resume
// copied the rows of an earlier file (CLI 2.0 and before: `--resume` wrote a
// new file with a new sessionId and replayed the earlier rows into it with
// their uuids), and reads each such file with those rows marked as copies.
// The earliest file keeps the rows: the copy's Agent/Task calls are marked
// Copied, so a subagent is one fact, in the file that launched it, while
// the later file's ship actions still see it as outstanding.
//
// A file may be a copy of another when its first row's uuid is one of the
// other file's (the resumed file starts with the replay); a row is a copy
// when an earlier file holds a row with its uuid and the same content but
// for the sessionId. The search costs one map lookup per row of the root's
// session files; the uuid hashes are gathered while the sessions stream by
// (loader.heads) and dropped afterwards.
//
// The sessions that start with another session's first uuid (sharedFirsts:
// the usual shape of a resume's copy) were read whole as they streamed by,
// as if none of their rows were copied, and held (loader.held, within
// holdBytes); that reading kept their rows' content hashes, and which of
// them contains which is decided from those hashes (contained). The rows
// of the files each contains are then marked on its reading
// (transcript.MarkCopied), and it is linked: no file is read again. A file
// is compared only with the files it may contain (mayContain), so a file
// that cannot be a copy is not read again to learn it. What is still read
// again: a likely copy past holdBytes, read for its heads as it streamed
// by, is read once more with its copied rows marked; an original a copy
// may contain whose first reading kept no hashes is read again for them
// (rowHashes); and any other copy's run, already handed on (a copy that
// does not start with its original's first row: no resume writes one), is
// read again with its copied rows marked, linked again, and replaces the
// first (onReadAgain is told of the last two). The files a unit reads are
// read ahead in parallel.
func (l *loader) markResumeCopies() {
	p := l.newCopyPass()
	pf := l.prefetch(len(p.units), p.unitFiles, p.read, false) // stream.go
	for u, j := range p.units {
		var ahead map[string]readAhead
		if pf != nil {
			ahead = pf.next()
		} else {
			rel := p.files[j].rel
			p.unitFiles(u)
			ahead = map[string]readAhead{rel: p.read(u, 0, rel)}
		}
		p.settle(u, ahead)
	}
	pf.stop()
}

// copyPass is markResumeCopies' state: the session files (loader.heads),
// the files each may have copied (resumeOriginals), and the files read for
// it (units), each with the row hashes of the files it is read against.
type copyPass struct {
	l         *loader
	files     []resumeFile
	originals map[int][]int
	// units are the files read in this pass, in order: the files that may
	// be copies, and the sessions whose linking waited.
	units []int
	// need counts, for each file, the units that still need its row
	// hashes; at 0 they are dropped. reread are the hashes of the files
	// whose first reading kept none, read again.
	need   map[int]int
	reread map[int]map[uint64]uint64
	// skips[u] are the row hashes unit u's file is read with; unitFiles
	// sets them, in order, on one goroutine, before the file is read.
	// skipFrom[u] are the files they are of.
	skips    [][]map[uint64]uint64
	skipFrom [][]int
}

func (l *loader) newCopyPass() *copyPass {
	p := &copyPass{l: l, files: l.heads, originals: resumeOriginals(l.heads), need: map[int]int{}, reread: map[int]map[uint64]uint64{}}
	for j, orig := range p.originals {
		var may []int
		for _, i := range orig {
			if p.mayContain(j, i) {
				may = append(may, i)
			}
		}
		if len(may) == 0 {
			delete(p.originals, j)
		} else {
			p.originals[j] = may
		}
	}
	for j := range p.files {
		if _, ok := p.originals[j]; ok || l.later[l.headIndex[j]] {
			p.units = append(p.units, j)
			p.need[j]++
			for _, i := range p.originals[j] {
				p.need[i]++
			}
		}
	}
	for j := range p.files {
		if p.need[j] == 0 {
			p.files[j].rows = nil // neither copy nor original
		}
	}
	p.skips = make([][]map[uint64]uint64, len(p.units))
	p.skipFrom = make([][]int, len(p.units))
	return p
}

// mayContain reports whether file j may contain file i (contained,
// containedOriginals) from what their first readings kept, so that a file
// that cannot is neither read again for its hashes nor read against: j
// must have more rows with a uuid than i, and hold i's first row's uuid
// (known when that uuid starts a file, as every session's first uuid of
// the first-row pass does: firstsOf kept it of j's uuids).
func (p *copyPass) mayContain(j, i int) bool {
	own, orig := &p.files[j], &p.files[i]
	if own.uuidRows <= orig.uuidRows {
		return false
	}
	if f := p.l.firsts; f != nil && !f[orig.firstUUID] {
		return true // not kept of j's uuids: cannot tell
	}
	_, found := slices.BinarySearch(own.uuids, orig.firstUUID)
	return found
}

// rowHashes are file i's row hashes: those its first reading kept, else
// read again, once (nil when it cannot be read).
func (p *copyPass) rowHashes(i int) map[uint64]uint64 {
	if h := p.files[i].rows; h != nil {
		return h
	}
	if h, ok := p.reread[i]; ok {
		return h
	}
	l, rel := p.l, p.files[i].rel
	if onReadAgain != nil {
		onReadAgain("row hashes", rel)
	}
	if onDecode != nil {
		onDecode(rel)
	}
	t, err := transcript.ReadFile(l.osPath(rel), l.show(rel), transcript.Options{LineCap: l.opts.LineCap, RowHashes: true, Shell: l.inertOnly()})
	if err != nil {
		p.reread[i] = nil
		return nil
	}
	p.reread[i] = t.RowHashes
	return t.RowHashes
}

// onReadAgain, when set (by tests), is told of each file the resume check
// reads beyond its one reading per unit, and why.
var onReadAgain func(why, rel string)

// used says a unit is done with file i's row hashes: the last drops them.
func (p *copyPass) used(i int) {
	if p.need[i]--; p.need[i] == 0 {
		p.files[i].rows = nil
		delete(p.reread, i)
	}
}

// unitFiles are the files unit u reads (prefetch), after setting the row
// hashes its file is read with: the originals' hashes as they are, a later
// original's winning (merging them into one set for every copy would cost
// each copy its originals' rows, however few rows the copy has: one large
// file and thousands of small copies of parts of it, quadratic). When the
// file's own hashes were kept, only the originals it contains are kept
// (contained), so its held reading is marked (or it is read once) with the
// right rows marked.
func (p *copyPass) unitFiles(u int) []string {
	j := p.units[u]
	own := p.files[j].rows
	for _, i := range p.originals[j] {
		if rh := p.rowHashes(i); rh != nil && (own == nil || contained(own, rh)) {
			p.skips[u] = append(p.skips[u], rh)
			p.skipFrom[u] = append(p.skipFrom[u], i)
		}
		p.used(i)
	}
	p.used(j)
	if k := p.l.headIndex[j]; p.l.later[k] {
		return p.l.runFiles(k) // stream.go; the session first
	}
	return []string{p.files[j].rel}
}

// contained reports whether a file whose rows hash to own holds every row
// of the file whose rows hash to orig, with the same content, and more rows
// besides: what containedOriginals reads off a reading made with orig's
// hashes, decided from the hashes both readings kept. It looks at orig's
// rows only when orig is the smaller file.
func contained(own, orig map[uint64]uint64) bool {
	if len(own) <= len(orig) {
		return false
	}
	for h, c := range orig {
		if w, ok := own[h]; !ok || w != c {
			return false
		}
	}
	return true
}

// read reads file i of unit u (prefetch): the unit's file with its copied
// rows marked (a held reading is marked, not read), the rest as the linker
// reads them.
func (p *copyPass) read(u, i int, rel string) readAhead {
	l := p.l
	if i > 0 {
		return l.readOne(rel)
	}
	if k := l.headIndex[p.units[u]]; l.held[k] != nil {
		// Read whole as the sessions streamed by: its copied rows are
		// marked on that reading (skips are the originals it contains).
		t := l.held[k]
		l.held[k] = nil
		transcript.MarkCopied(t, p.skips[u])
		return readAhead{t: t}
	}
	opts := l.readOptions(rel)
	opts.Copied = p.skips[u]
	// The bytes the first-row pass kept of a session whose linking
	// waited (readSessionFile) are read here, a last time.
	var data []byte
	if k := l.headIndex[p.units[u]]; l.firstData != nil && l.later[k] {
		data, l.firstData[k] = l.firstData[k], nil
	}
	return l.readFrom(rel, opts, data)
}

// settle links unit u from its reading (ahead): a session whose linking
// waited, for the first time; a copy already handed on, again in its place;
// a file that turned out no copy not at all (its first reading stands).
func (p *copyPass) settle(u int, ahead map[string]readAhead) {
	l, j := p.l, p.units[u]
	rel, k := p.files[j].rel, l.headIndex[j]
	a := ahead[rel]
	if a.panicked != nil {
		panic(a.panicked)
	}
	if a.t != nil && len(p.skips[u]) > 0 {
		// Only a file this one contains is its original: the rows it
		// copied stay with that file, and nothing else is marked.
		keep := containedOriginals(a.t, p.skips[u])
		if len(keep) == 0 && !l.later[k] {
			return // not a copy: keep the first reading
		}
		if len(keep) < len(p.skips[u]) {
			a = p.readContained(u, rel, keep)
			ahead[rel] = a
		}
		if a.t != nil && a.t.Copied > 0 {
			for _, x := range keep {
				a.t.CopyOf = append(a.t.CopyOf, l.show(p.files[p.skipFrom[u][x]].rel))
			}
		}
	}
	if a.t != nil {
		a.t.UUIDs = nil
	}
	if !l.later[k] && (a.err != nil || a.t.Copied == 0) {
		return // keep the first reading
	}
	l.relink(k, rel, ahead) // stream.go
}

// readContained reads unit u's file again with only the originals it
// contains (keep, positions in skips[u]) marked: a copy already handed on,
// whose first reading kept no hashes to decide that before its reading.
func (p *copyPass) readContained(u int, rel string, keep []int) readAhead {
	sub := make([]map[uint64]uint64, len(keep))
	for n, x := range keep {
		sub[n] = p.skips[u][x]
	}
	if onReadAgain != nil {
		onReadAgain("contained originals", rel)
	}
	opts := p.l.readOptions(rel)
	opts.Copied = sub
	a := p.l.readFrom(rel, opts, nil)
	if a.panicked != nil {
		panic(a.panicked)
	}
	return a
}

// containedOriginals returns the positions of the maps of Options.Copied
// (each an earlier file's row hashes) whose every row t holds, with the
// same content, while t holds more rows than that file: the files t may be
// a resume's copy of. A resume replays the whole earlier file and then
// writes on, so the copy contains its original and never the reverse. That
// is evidence a copy cannot forge against another file: a file that holds
// every row of R and more is R's copy, and loses R's rows, while R, which
// does not hold the added file's extra rows, loses nothing (issue 29).
func containedOriginals(t *model.Transcript, maps []map[uint64]uint64) []int {
	var keep []int
	for i, m := range maps {
		if i < len(t.CopiedFrom) && t.CopiedFrom[i] == len(m) && t.UUIDRows > len(m) {
			keep = append(keep, i)
		}
	}
	return keep
}

// sharedFirsts marks the sessions whose first row uuid (by session, 0 for
// none) starts another session too: a resume of an older CLI replays the
// earlier file from its first row, so these are likely copies, read as the
// sessions stream by but linked after markResumeCopies. Which files are
// copies is decided there alone; this only says when a session is linked.
func sharedFirsts(firsts []uint64) []bool {
	count := make(map[uint64]int, len(firsts))
	for _, h := range firsts {
		if h != 0 {
			count[h]++
		}
	}
	out := make([]bool, len(firsts))
	for k, h := range firsts {
		out[k] = h != 0 && count[h] > 1
	}
	return out
}

// resumeFile is what resumeOriginals needs of a session file.
type resumeFile struct {
	rel       string
	firstTime time.Time
	firstUUID uint64
	uuids     []uint64 // sorted, distinct (Transcript.UUIDs)
	uuidRows  int      // Transcript.UUIDRows
	// rows are the row hashes (Transcript.RowHashes) the first reading
	// kept: a likely copy's (sharedFirsts), held or read for its heads
	// only; nil for the others.
	rows map[uint64]uint64
}

// resumeEarlier orders files by their first timestamp, then by path.
func resumeEarlier(a, b *resumeFile) bool {
	if !a.firstTime.Equal(b.firstTime) {
		return a.firstTime.Before(b.firstTime)
	}
	return a.rel < b.rel
}

// resumeOriginals maps each file that may be a resume's copy to the files it
// may have copied from: the files not later than it by first timestamp (a copy
// starts with its original's first row, so both often start at the same
// instant, and which of the two is the copy is then decided by what each
// contains, not by its name) that hold its first row's uuid, the first
// maxOriginals of them in the files' order, never the file itself. Which of
// them it really copied is decided by containment (containedOriginals).
//
// Comparing every file with every file sharing that uuid grows with the
// square of the files when thousands share one (a folder of identical
// sessions). Instead, each group of files with one first uuid is walked once
// in time order together with the files holding that uuid, keeping the
// maxOriginals lowest-numbered holders seen so far: O(n log n + n ×
// maxOriginals) over the uuids of all files.
func resumeOriginals(files []resumeFile) map[int][]int {
	type group struct{ members, holders []int }
	groups := map[uint64]*group{}
	for j := range files {
		if h := files[j].firstUUID; h != 0 {
			g := groups[h]
			if g == nil {
				g = &group{}
				groups[h] = g
			}
			g.members = append(g.members, j)
		}
	}
	originals := map[int][]int{}
	if len(groups) == 0 {
		return originals
	}
	for i := range files {
		for _, h := range files[i].uuids {
			if g := groups[h]; g != nil {
				g.holders = append(g.holders, i)
			}
		}
	}
	// rank: the files' positions in time order, equal for files of the
	// same first instant (their names do not decide which is the copy).
	order := make([]int, len(files))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return resumeEarlier(&files[order[a]], &files[order[b]]) })
	rank := make([]int, len(files))
	for k, i := range order {
		if k > 0 && files[order[k-1]].firstTime.Equal(files[i].firstTime) {
			rank[i] = rank[order[k-1]]
		} else {
			rank[i] = k
		}
	}
	type event struct {
		rank, file int
		holder     bool
	}
	var events []event
	var lowest []int // the maxOriginals+1 lowest holders seen, ascending
	for _, g := range groups {
		if len(g.holders) == 0 {
			continue
		}
		events = events[:0]
		for _, j := range g.members {
			events = append(events, event{rank[j], j, false})
		}
		for _, i := range g.holders {
			events = append(events, event{rank[i], i, true})
		}
		// A member is answered after the holders of its rank are added:
		// files of the same instant are candidates both ways (a file is
		// never its own original).
		sort.Slice(events, func(a, b int) bool {
			x, y := events[a], events[b]
			if x.rank != y.rank {
				return x.rank < y.rank
			}
			if x.holder != y.holder {
				return x.holder
			}
			return x.file < y.file
		})
		lowest = lowest[:0]
		for _, e := range events {
			if !e.holder {
				var orig []int
				for _, i := range lowest {
					if i != e.file && len(orig) < maxOriginals {
						orig = append(orig, i)
					}
				}
				if len(orig) > 0 {
					originals[e.file] = orig
				}
				continue
			}
			// One more than maxOriginals: a member may be among them.
			if len(lowest) == maxOriginals+1 && e.file > lowest[maxOriginals] {
				continue
			}
			k := sort.SearchInts(lowest, e.file)
			if len(lowest) < maxOriginals+1 {
				lowest = append(lowest, 0)
			}
			copy(lowest[k+1:], lowest[k:])
			lowest[k] = e.file
		}
	}
	return originals
}
