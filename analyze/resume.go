package analyze

import (
	"path/filepath"
	"sort"

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
// their uuids), and re-reads each such file with those rows marked as
// copies. The earliest file keeps the rows: the copy's Agent/Task calls are
// marked Copied, so a subagent is one fact, in the file that launched it,
// while the later file's ship actions still see it as outstanding.
//
// A file may be a copy of another when its first row's uuid is one of the
// other file's (the resumed file starts with the replay); a row is a copy
// when an earlier file holds a row with its uuid and the same content but
// for the sessionId. The search costs one map lookup per row of the root's
// session files; the uuid hashes are dropped afterwards.
func (l *loader) markResumeCopies() {
	type file struct {
		rel string
		t   *model.Transcript
	}
	var files []file
	byFirst := map[uint64][]int{}
	for _, rel := range l.inv.Sessions {
		t := l.transcript(rel)
		if t == nil {
			continue
		}
		if t.FirstUUID != 0 {
			byFirst[t.FirstUUID] = append(byFirst[t.FirstUUID], len(files))
		}
		files = append(files, file{rel, t})
	}
	earlier := func(a, b file) bool {
		if !a.t.FirstTime.Equal(b.t.FirstTime) {
			return a.t.FirstTime.Before(b.t.FirstTime)
		}
		return a.rel < b.rel
	}
	originals := map[int][]int{} // copy -> the files it copied from
	for i, f := range files {
		for _, h := range f.t.UUIDs {
			for _, j := range byFirst[h] {
				if j != i && earlier(f, files[j]) && len(originals[j]) < maxOriginals {
					originals[j] = append(originals[j], i)
				}
			}
		}
	}
	copies := make([]int, 0, len(originals))
	for j := range originals {
		copies = append(copies, j)
	}
	sort.Ints(copies)
	// The rows' contents are compared too: a file that merely borrows
	// another's uuids (a forged decoy) marks nothing, so an added file can
	// never make another file's calls disappear. Only the files involved are
	// read again, once each.
	hashes := map[int]map[uint64]uint64{}
	rowHashes := func(i int) map[uint64]uint64 {
		if h, ok := hashes[i]; ok {
			return h
		}
		rel := files[i].rel
		t, err := transcript.ReadFile(filepath.Join(l.root, filepath.FromSlash(rel)), l.show(rel), transcript.Options{LineCap: l.opts.LineCap, RowHashes: true})
		if err != nil {
			hashes[i] = nil
			return nil
		}
		hashes[i] = t.RowHashes
		return t.RowHashes
	}
	for _, j := range copies {
		skip := map[uint64]uint64{}
		for _, i := range originals[j] {
			for h, c := range rowHashes(i) {
				skip[h] = c
			}
		}
		rel := files[j].rel
		t, err := transcript.ReadFile(filepath.Join(l.root, filepath.FromSlash(rel)), l.show(rel), transcript.Options{LineCap: l.opts.LineCap, Copied: skip})
		if err != nil || t.Copied == 0 {
			continue // keep the first reading
		}
		t.UUIDs = nil
		l.transcripts[rel] = t
	}
	for _, f := range files {
		f.t.UUIDs = nil
	}
}
