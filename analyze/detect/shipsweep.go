package detect

import (
	"slices"
	"sort"
	"time"

	"github.com/pmcheck/pmcheck/analyze/model"
)

// outstanding is what one ship action finds outstanding: how many killed
// items, and the first model.ListLimit of their names in the items' order.
type outstanding struct {
	count int
	names []string
}

// outstandingAt answers, for each ship action at acts[i], which items at
// risk were outstanding when it ran (killed before it, before(known, act,
// true), and neither timeless nor reviewed before it, before(reviewedAt,
// act, false)), and which items were killed before some action (shipped,
// one per item; nil when there are no items or no actions).
//
// Comparing every item with every action costs k × m (40,000 killed × 4,000
// pushes: 160 million comparisons). Instead the actions are swept in time
// order while a Fenwick tree over the items' positions holds which items are
// outstanding by time alone (each item turns on at its kill and off at its
// review: two updates); an action compares by line with the items killed or
// reviewed in its own file, so each file with actions keeps a second tree of
// corrections over those items, moved on by line as its actions are reached.
// An action's count is the sum of both trees, and its first names are found
// by searching the summed prefix counts: O((k + m) log k + m × ListLimit ×
// log² k) in all. Actions without a time see every item of another file as
// killed and none as reviewed (before's unknown direction): they are swept on
// their own, by line. The sweep needs the actions of one file in line order
// to be in time order, which the running maximum of a file's timestamps
// gives; should it not hold, the pairwise comparison answers.
func outstandingAt(r risk, acts []model.Evidence) ([]outstanding, []bool) {
	out := make([]outstanding, len(acts))
	if r.len() == 0 || len(acts) == 0 {
		return out, nil
	}
	shipped := make([]bool, r.len())
	markShipped(r, acts, shipped)
	var zero, timed []int
	for i, e := range acts {
		if e.Time.IsZero() {
			zero = append(zero, i)
		} else {
			timed = append(timed, i)
		}
	}
	s := shipSweep{risk: r, acts: acts, out: out}
	if !s.run(zero, true) || !s.run(timed, false) {
		return outstandingPairwise(r, acts)
	}
	return out, shipped
}

// outstandingPairwise is outstandingAt by comparing every item with every
// action (the definition; used when the sweep's precondition fails).
func outstandingPairwise(r risk, acts []model.Evidence) ([]outstanding, []bool) {
	out := make([]outstanding, len(acts))
	shipped := make([]bool, r.len())
	for i, at := range acts {
		for k := range r.items {
			if !before(r.known(k), at, true) {
				continue
			}
			shipped[k] = true
			if rv := r.review(k); rv.timeless || (rv.reviewedAt != nil && before(*rv.reviewedAt, at, false)) {
				continue
			}
			out[i].count++
			if len(out[i].names) < model.ListLimit {
				out[i].names = append(out[i].names, r.name(k))
			}
		}
	}
	return out, shipped
}

// markShipped sets shipped[k] when some action comes after item k's kill:
// an action of the kill's file at a later line, or an action of another file
// when either time is unknown or the action's is not earlier.
func markShipped(r risk, acts []model.Evidence, shipped []bool) {
	type agg struct {
		n, zero int
		maxLine int
		maxTime time.Time
	}
	files := map[string]*agg{}
	var all agg
	for _, e := range acts {
		a := files[e.File]
		if a == nil {
			a = &agg{}
			files[e.File] = a
		}
		for _, x := range []*agg{a, &all} {
			x.n++
			x.maxLine = max(x.maxLine, e.Line)
			if e.Time.IsZero() {
				x.zero++
			} else if e.Time.After(x.maxTime) {
				x.maxTime = e.Time
			}
		}
	}
	// The latest time of another file's actions: the latest file's, or the
	// second latest's for the latest file itself.
	var first, second *agg
	var firstFile string
	for f, a := range files {
		switch {
		case first == nil || a.maxTime.After(first.maxTime):
			first, second, firstFile = a, first, f
		case second == nil || a.maxTime.After(second.maxTime):
			second = a
		}
	}
	for k := range r.items {
		known := r.known(k)
		f := known.File
		same := (*agg)(nil)
		if f != "" {
			same = files[f]
		}
		if same != nil && same.maxLine > known.Line {
			shipped[k] = true
			continue
		}
		n, zero, latest := all.n, all.zero, all.maxTime
		if same != nil {
			n, zero = n-same.n, zero-same.zero
			if f == firstFile {
				latest = time.Time{}
				if second != nil {
					latest = second.maxTime
				}
			}
		}
		if n == 0 {
			continue
		}
		if zero > 0 || known.Time.IsZero() || (!latest.IsZero() && !known.Time.After(latest)) {
			shipped[k] = true
		}
	}
}

// shipSweep is one run of outstandingAt's sweep.
type shipSweep struct {
	risk risk
	acts []model.Evidence
	out  []outstanding
	// per pass:
	g      fenwick // items outstanding by time alone
	gTotal int
	onT    []bool // killed, by time
	offT   []bool // reviewed, by time
	gAct   []bool
	refs   [][2]sweepRef // the items' places in their files' trees
	files  map[string]*sweepFile
}

type sweepRef struct {
	f *sweepFile
	i int32
}

// sweepFile holds the corrections of one file's actions: for the items
// killed or reviewed in it, outstanding at its current line minus
// outstanding by time alone.
type sweepFile struct {
	members []sweepMember // by item position
	c       fenwick
	total   int
	events  []lineEvent // by line
	next    int
}

type sweepMember struct {
	k                 int32
	killHere, revHere bool
	onL, offL         bool // killed, reviewed by line in this file
	delta             int8
}

type lineEvent struct {
	line   int
	member int32
	review bool
}

type timeEvent struct {
	at     time.Time
	k      int32
	review bool
}

// run sweeps the actions idx (all without a time when untimed, all with one
// otherwise); it reports false when a file's actions are not in the same
// order by time as by line.
func (s *shipSweep) run(idx []int, untimed bool) bool {
	if len(idx) == 0 {
		return true
	}
	if !s.orderActions(idx, untimed) {
		return false
	}
	events := s.placeItems(idx, untimed)
	next := 0
	for _, i := range idx {
		at := s.acts[i]
		// Items killed (reviewed) at or before the action's time are killed
		// (reviewed) before it, as far as another file can tell.
		for ; next < len(events) && !events[next].at.After(at.Time); next++ {
			e := events[next]
			if e.review {
				s.offT[e.k] = true
			} else {
				s.onT[e.k] = true
			}
			s.update(int(e.k))
		}
		f := s.files[at.File]
		if at.File == "" {
			f = nil
		}
		if f != nil {
			s.advanceFile(f, at.Line)
		}
		s.out[i] = s.answer(f)
	}
	return true
}

// orderActions sorts idx as the sweep visits the actions: by file and line
// when untimed, else by time (then file and line). It reports false when
// the actions of one file are not in the same order by time as by line.
func (s *shipSweep) orderActions(idx []int, untimed bool) bool {
	acts := s.acts
	if untimed {
		sort.SliceStable(idx, func(a, b int) bool {
			x, y := acts[idx[a]], acts[idx[b]]
			if x.File != y.File {
				return x.File < y.File
			}
			return x.Line < y.Line
		})
		return true
	}
	sort.SliceStable(idx, func(a, b int) bool {
		x, y := acts[idx[a]], acts[idx[b]]
		if c := x.Time.Compare(y.Time); c != 0 {
			return c < 0
		}
		if x.File != y.File {
			return x.File < y.File
		}
		return x.Line < y.Line
	})
	lastLine := map[string]int{}
	for _, i := range idx {
		e := acts[i]
		if e.File == "" {
			continue // never compared by line
		}
		if l, ok := lastLine[e.File]; ok && e.Line < l {
			return false
		}
		lastLine[e.File] = e.Line
	}
	return true
}

// placeItems starts a pass over the actions idx: it makes the trees, puts
// each item that can be outstanding into the files of its kill and its
// review (their line events) and into the time tree, and returns the items'
// kills and reviews in time order (none when untimed: another file's kill
// is then always before, and its review never).
func (s *shipSweep) placeItems(idx []int, untimed bool) []timeEvent {
	n := s.risk.len()
	s.g, s.gTotal = newFenwick(n), 0
	s.onT, s.offT, s.gAct = make([]bool, n), make([]bool, n), make([]bool, n)
	s.refs = make([][2]sweepRef, n)
	s.files = map[string]*sweepFile{}
	for _, i := range idx {
		if f := s.acts[i].File; f != "" && s.files[f] == nil {
			s.files[f] = &sweepFile{}
		}
	}
	var events []timeEvent
	for k := range n {
		rv := s.risk.review(k)
		if rv.timeless {
			continue // never outstanding
		}
		known := s.risk.known(k)
		s.placeInFiles(k, known, rv.reviewedAt)
		if untimed || known.Time.IsZero() {
			s.onT[k] = true // another file's action cannot be ordered: killed before it
		} else {
			events = append(events, timeEvent{at: known.Time, k: int32(k)})
		}
		if !untimed && rv.reviewedAt != nil && !rv.reviewedAt.Time.IsZero() {
			events = append(events, timeEvent{at: rv.reviewedAt.Time, k: int32(k), review: true})
		}
	}
	for _, f := range s.files {
		f.c = newFenwick(len(f.members))
		slices.SortStableFunc(f.events, func(a, b lineEvent) int { return a.line - b.line })
	}
	for k := range n {
		if !s.risk.review(k).timeless {
			s.update(k)
		}
	}
	slices.SortStableFunc(events, func(a, b timeEvent) int { return a.at.Compare(b.at) })
	return events
}

// placeInFiles makes item k a member of the file (with actions) of its kill
// and of its review, with the line events that turn it on and off there.
func (s *shipSweep) placeInFiles(k int, known model.Evidence, reviewedAt *model.Evidence) {
	var kf, rf *sweepFile
	if known.File != "" {
		kf = s.files[known.File]
	}
	if reviewedAt != nil && reviewedAt.File != "" {
		rf = s.files[reviewedAt.File]
	}
	add := func(f *sweepFile) *sweepMember {
		f.members = append(f.members, sweepMember{k: int32(k)})
		m := int32(len(f.members) - 1)
		if s.refs[k][0].f == nil {
			s.refs[k][0] = sweepRef{f, m}
		} else {
			s.refs[k][1] = sweepRef{f, m}
		}
		return &f.members[m]
	}
	if kf != nil {
		m := add(kf)
		m.killHere = true
		kf.events = append(kf.events, lineEvent{known.Line, int32(len(kf.members) - 1), false})
		if rf == kf {
			m.revHere = true
			kf.events = append(kf.events, lineEvent{reviewedAt.Line, int32(len(kf.members) - 1), true})
		}
	}
	if rf != nil && rf != kf {
		m := add(rf)
		m.revHere = true
		rf.events = append(rf.events, lineEvent{reviewedAt.Line, int32(len(rf.members) - 1), true})
	}
}

// advanceFile moves file f's corrections on to the items killed (reviewed)
// in it on a line before line.
func (s *shipSweep) advanceFile(f *sweepFile, line int) {
	for ; f.next < len(f.events) && f.events[f.next].line < line; f.next++ {
		e := f.events[f.next]
		m := &f.members[e.member]
		if e.review {
			m.offL = true
		} else {
			m.onL = true
		}
		s.update(int(m.k))
	}
}

// update recomputes item k's place in the time tree and in its files'.
func (s *shipSweep) update(k int) {
	act := s.onT[k] && !s.offT[k]
	if act != s.gAct[k] {
		s.gAct[k] = act
		d := int32(1)
		if !act {
			d = -1
		}
		s.g.add(k, d)
		s.gTotal += int(d)
	}
	for _, r := range s.refs[k] {
		if r.f == nil {
			continue
		}
		m := &r.f.members[r.i]
		on, off := s.onT[k], s.offT[k]
		if m.killHere {
			on = m.onL
		}
		if m.revHere {
			off = m.offL
		}
		d := b2i(on && !off) - b2i(act)
		if d != m.delta {
			r.f.c.add(int(r.i), int32(d-m.delta))
			r.f.total += int(d - m.delta)
			m.delta = d
		}
	}
}

func b2i(b bool) int8 {
	if b {
		return 1
	}
	return 0
}

// answer is the outstanding set of an action of file f (nil: a file without
// items of its own) in the current state.
func (s *shipSweep) answer(f *sweepFile) outstanding {
	o := outstanding{count: s.gTotal}
	if f != nil {
		o.count += f.total
	}
	want := min(o.count, model.ListLimit)
	if want == 0 {
		return o
	}
	o.names = make([]string, 0, want)
	if f == nil || len(f.members) == 0 {
		for m := 1; m <= want; m++ {
			o.names = append(o.names, s.risk.name(s.g.find(int32(m))))
		}
		return o
	}
	// prefix(x): outstanding items at positions 0..x.
	prefix := func(x int) int {
		r := sort.Search(len(f.members), func(j int) bool { return int(f.members[j].k) > x })
		p := int(s.g.prefix(x))
		if r > 0 {
			p += int(f.c.prefix(r - 1))
		}
		return p
	}
	lo := 0
	for m := 1; m <= want; m++ {
		x := lo + sort.Search(s.risk.len()-lo, func(j int) bool { return prefix(lo+j) >= m })
		o.names = append(o.names, s.risk.name(x))
		lo = x + 1
	}
	return o
}

// fenwick is a binary indexed tree of counts over positions 0..n-1.
type fenwick []int32

func newFenwick(n int) fenwick { return make(fenwick, n+1) }

func (f fenwick) add(i int, d int32) {
	for i++; i < len(f); i += i & -i {
		f[i] += d
	}
}

// prefix is the sum over positions 0..i.
func (f fenwick) prefix(i int) int32 {
	var s int32
	for i++; i > 0; i -= i & -i {
		s += f[i]
	}
	return s
}

// find is the smallest position whose prefix sum reaches m (m >= 1, counts
// not negative, m at most the total).
func (f fenwick) find(m int32) int {
	pos := 0
	step := 1
	for step*2 < len(f) {
		step *= 2
	}
	for ; step > 0; step /= 2 {
		if pos+step < len(f) && f[pos+step] < m {
			pos += step
			m -= f[pos]
		}
	}
	return pos // 1-based pos+1, as a 0-based position
}
