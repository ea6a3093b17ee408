package load

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// naiveResumeOriginals is the pairwise search resumeOriginals replaced: for
// each file, every other file not later than it whose first uuid it holds
// (n² when thousands of files share their uuids). Kept as the reference.
func naiveResumeOriginals(files []resumeFile) map[int][]int {
	byFirst := map[uint64][]int{}
	for j, f := range files {
		if f.firstUUID != 0 {
			byFirst[f.firstUUID] = append(byFirst[f.firstUUID], j)
		}
	}
	originals := map[int][]int{}
	for i := range files {
		for _, h := range files[i].uuids {
			for _, j := range byFirst[h] {
				if j != i && !files[j].firstTime.Before(files[i].firstTime) && len(originals[j]) < maxOriginals {
					originals[j] = append(originals[j], i)
				}
			}
		}
	}
	return originals
}

// TestResumeOriginalsMatchesPairwise: on random folders (shared first uuids,
// equal and zero first timestamps, equal paths, groups larger than
// maxOriginals, files that hold a uuid without starting with it) the grouped
// walk picks the same originals, in the same order, as the pairwise search.
func TestResumeOriginalsMatchesPairwise(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 4))
	base := time.Date(2026, 5, 7, 9, 0, 0, 0, time.UTC)
	saturated := 0
	for iter := range 3000 {
		n := rng.IntN(40)
		nu := 1 + rng.IntN(12)
		files := make([]resumeFile, n)
		for i := range files {
			f := &files[i]
			f.rel = fmt.Sprintf("s%02d.jsonl", rng.IntN(n+1)) // paths may repeat
			if k := rng.IntN(6); k > 0 {
				f.firstTime = base.Add(time.Duration(k) * time.Second)
			}
			set := map[uint64]bool{}
			for range rng.IntN(5) {
				set[uint64(1+rng.IntN(nu))] = true
			}
			for u := range set {
				f.uuids = append(f.uuids, u)
			}
			slices.Sort(f.uuids)
			if len(f.uuids) > 0 && rng.IntN(8) > 0 {
				f.firstUUID = f.uuids[rng.IntN(len(f.uuids))]
			}
		}
		want := naiveResumeOriginals(files)
		got := resumeOriginals(files)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("iteration %d: %+v\ngot  %v\nwant %v", iter, files, got, want)
		}
		for _, o := range want {
			if len(o) == maxOriginals {
				saturated++
			}
		}
	}
	if saturated == 0 {
		t.Fatal("no copy reached maxOriginals: the test does not exercise the bound")
	}
}

// sharedUUIDFolder writes n sessions that all carry the same row uuids (each
// looks like a resumed copy of every earlier one), each with its own id.
func sharedUUIDFolder(b *testing.B, n int) string {
	b.Helper()
	dir := b.TempDir()
	for i := range n {
		sid := fmt.Sprintf("00000000-0000-4000-8000-%012d", i)
		rows := fmt.Sprintf(`{"type":"user","uuid":"u1","sessionId":%q,"timestamp":"2026-05-07T09:00:00Z","message":{"role":"user","content":"hi"}}`+"\n", sid) +
			fmt.Sprintf(`{"type":"assistant","uuid":"u2","parentUuid":"u1","sessionId":%q,"timestamp":"2026-05-07T09:00:01Z","message":{"role":"assistant","content":[{"type":"text","text":"ok"}]}}`+"\n", sid)
		if err := os.WriteFile(filepath.Join(dir, sid+".jsonl"), []byte(rows), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

// BenchmarkLoadSharedUUIDs (issue 12, item 12): n sessions sharing their row
// uuids. Each file used to be compared with every file starting with one of
// its uuids (O(n²): 20k files took 7.6 s); the files of one first uuid are
// now walked once in time order. ns/op grows about 4x from 2k to 8k, not 16x.
func BenchmarkLoadSharedUUIDs(b *testing.B) {
	for _, n := range []int{2000, 8000} {
		dir := sharedUUIDFolder(b, n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				res, err := Load([]string{dir}, Options{})
				if err != nil || len(res.Runs) != n {
					b.Fatalf("%v: %d runs, want %d", err, len(res.Runs), n)
				}
			}
		})
	}
}

// oneOriginalManyCopies writes a session of n rows and n later sessions,
// copy m holding only row m of the first (its resumed replay, another
// sessionId): each copy names the large file as its original.
func oneOriginalManyCopies(b *testing.B, n int) string {
	b.Helper()
	dir := b.TempDir()
	row := func(sid string, m int, ts string) string {
		return fmt.Sprintf(`{"type":"user","uuid":"u%d","sessionId":%q,"timestamp":%q,"message":{"role":"user","content":"step %d"}}`+"\n", m, sid, ts, m)
	}
	var big []byte
	first := "00000000-0000-4000-8000-000000000000"
	for m := range n {
		big = append(big, row(first, m, "2026-05-07T09:00:00Z")...)
	}
	if err := os.WriteFile(filepath.Join(dir, first+".jsonl"), big, 0o644); err != nil {
		b.Fatal(err)
	}
	for m := range n {
		sid := fmt.Sprintf("00000000-0000-4000-8000-%012d", m+1)
		if err := os.WriteFile(filepath.Join(dir, sid+".jsonl"), []byte(row(sid, m, "2026-05-07T09:00:00Z")), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

// BenchmarkLoadOneOriginalManyCopies (issue 12, item 12): one session of n
// rows and n small sessions, each a resume's copy of one of its rows. A
// copy's originals' row hashes used to be merged into one set per copy (n
// copies × n rows); the reader now looks them up in place.
func BenchmarkLoadOneOriginalManyCopies(b *testing.B) {
	for _, n := range []int{2000, 8000} {
		dir := oneOriginalManyCopies(b, n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				res, err := Load([]string{dir}, Options{})
				if err != nil || len(res.Runs) != n+1 {
					b.Fatalf("%v: %d runs, want %d", err, len(res.Runs), n+1)
				}
				// A copy holds every row of its original and more (issue
				// 29): one row of the large file is no copy of it.
				if c := res.Runs[n].Main.Copied; c != 0 {
					b.Fatalf("the last file has %d copied rows, want none", c)
				}
			}
		})
	}
}

// TestResumeChainsMarkOnlyContainedFiles: a chain of resumes (o, then c1
// replaying o and going on, then c2 replaying c1 and going on) starts at one
// instant in all three files, so each is a candidate original of the others;
// only the files a file contains are its originals. c1 holds o but not c2
// (its candidates are read again without c2), c2 holds both, and o, which
// holds neither, keeps every row. Whatever the names' order.
func TestResumeChainsMarkOnlyContainedFiles(t *testing.T) {
	row := func(sid string, n int) string {
		return fmt.Sprintf(`{"type":"user","uuid":"00000000-0000-4000-8000-%012d","timestamp":"2026-05-09T12:00:%02d.000Z","sessionId":%q,"message":{"role":"user","content":"step %d"}}`+"\n", n, n, sid, n)
	}
	for _, names := range [][3]string{{"a", "b", "c"}, {"c", "b", "a"}, {"b", "c", "a"}} {
		dir := t.TempDir()
		files := map[string]string{}
		for i, name := range names {
			sid := name + "0000000-0000-4000-8000-000000000001"
			rows := ""
			for n := 1; n <= 2+2*i; n++ {
				rows += row(sid, n)
			}
			files[sid+".jsonl"] = rows
		}
		for name, data := range files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		res := loadOne(t, dir)
		copied := map[int]int{} // rows of the file -> rows marked copied
		notes := 0
		for _, r := range res.Runs {
			copied[r.Main.Rows] = r.Main.Copied
			for _, p := range r.Problems {
				if strings.Contains(p.Message, "resume's copies of") {
					notes++
				}
			}
		}
		if want := map[int]int{2: 0, 4: 2, 6: 4}; !reflect.DeepEqual(copied, want) {
			t.Errorf("names %v: copied rows by file size %v, want %v", names, copied, want)
		}
		if notes != 2 {
			t.Errorf("names %v: %d copy decisions reported, want 2", names, notes)
		}
	}
}

// loadOne loads path and fails on an input error.
func loadOne(t *testing.T, path string) *Result {
	t.Helper()
	res, err := Load([]string{path}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Errors) > 0 {
		t.Fatalf("errors: %v", res.Errors)
	}
	return res
}

// TestResumeCheckReadsNoFileAgain (issue 30): a chain of resumes starting
// with one row (o, c1 replaying o, c2 replaying c1) shares its first uuid, so
// each file is read whole as the sessions stream by and held; that reading
// keeps the rows' content hashes, which file contains which is decided from
// them, and the copied rows are marked on it (transcript.MarkCopied): every
// file is read once — with one job or two, and with the first-row pass
// keeping no bytes. Past the holding budget (holdBytes 0) each is read for
// its heads and once more with its copied rows marked, and none is read
// again for its hashes or a third time to take back rows marked against a
// file it does not contain. The files are large enough to be read from disk
// each time. The copies are marked as before.
func TestResumeCheckReadsNoFileAgain(t *testing.T) {
	row := func(sid string, n int) string {
		return fmt.Sprintf(`{"type":"user","uuid":"00000000-0000-4000-8000-%012d","timestamp":"2026-05-09T12:00:%02d.000Z","sessionId":%q,"message":{"role":"user","content":"step %d %s"}}`+"\n", n, n, sid, n, strings.Repeat("x", 2000))
	}
	dir := t.TempDir()
	for i, name := range []string{"c", "a", "b"} {
		sid := name + "0000000-0000-4000-8000-000000000001"
		rows := ""
		for n := 1; n <= 2+2*i; n++ {
			rows += row(sid, n)
		}
		if err := os.WriteFile(filepath.Join(dir, sid+".jsonl"), []byte(rows), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	keepMax, hold := firstKeepMax, holdBytes
	defer func() { firstKeepMax, holdBytes, onReadAgain, onDecode = keepMax, hold, nil, nil }()
	for _, held := range []int64{hold, 0} {
		holdBytes = held
		for _, keep := range []int64{0, keepMax} {
			firstKeepMax = keep
			for _, jobs := range []int{1, 2} {
				var again []string
				onReadAgain = func(why, rel string) { again = append(again, why+": "+rel) }
				decoded := recordDecodes()
				res, err := Load([]string{dir}, Options{Jobs: jobs})
				if err != nil {
					t.Fatal(err)
				}
				if len(again) > 0 {
					t.Errorf("hold %d, keep %d, %d jobs: the resume check read files again: %q", held, keep, jobs, again)
				}
				// Held, each file is read once; past the budget, once for
				// its heads and once with its copied rows marked.
				want := 1
				if held == 0 {
					want = 2
				}
				for rel, n := range decoded {
					if n != want {
						t.Errorf("hold %d, keep %d, %d jobs: %s read %d times, want %d", held, keep, jobs, rel, n, want)
					}
				}
				copied := map[int]int{}
				for _, r := range res.Runs {
					copied[r.Main.Rows] = r.Main.Copied
				}
				if want := map[int]int{2: 0, 4: 2, 6: 4}; !reflect.DeepEqual(copied, want) {
					t.Errorf("hold %d, keep %d, %d jobs: copied rows by file size %v, want %v", held, keep, jobs, copied, want)
				}
			}
		}
	}
}

// TestResumeFanReadsNoFileAgain: the shape of an older CLI resuming one
// session twice (anthropics/claude-code#4926: each `--resume` of the same
// session wrote a new file replaying it, then its own turn): two copies of
// one original, each with rows the other lacks, and a file that holds the
// original's rows and no more. Both copies contain the original (and that
// file) and lose its rows; neither contains the other, and the original and
// the file of its rows lose nothing to each other; no file is read again.
func TestResumeFanReadsNoFileAgain(t *testing.T) {
	row := func(sid string, n int, turn string) string {
		return fmt.Sprintf(`{"type":"user","uuid":"00000000-0000-4000-8000-%012d","timestamp":"2026-05-09T12:00:%02d.000Z","sessionId":%q,"message":{"role":"user","content":"%s %d"}}`+"\n", n, n%60, sid, turn, n)
	}
	dir := t.TempDir()
	orig := "adc10fa5-61dc-47fd-a1af-47fdd6d2007c"
	// dup holds the original's rows and nothing more: no copy of it, nor
	// it of the original (a copy holds more than its original).
	dup := "00000000-dddd-4000-8000-000000000001"
	files := map[string]string{orig: row(orig, 1, "what is 4 + 4 * 4?") + row(orig, 2, "20"), dup: row(dup, 1, "what is 4 + 4 * 4?") + row(dup, 2, "20")}
	for i, sid := range []string{"57f6f27a-f714-44de-a160-29f6de7bfd73", "68b66e66-63a7-4385-a6ea-13158d97e1cb"} {
		files[sid] = row(sid, 1, "what is 4 + 4 * 4?") + row(sid, 2, "20") + row(sid, 10+10*i, "turn") + row(sid, 11+10*i, "answer")
	}
	for sid, data := range files {
		if err := os.WriteFile(filepath.Join(dir, sid+".jsonl"), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	defer func() { onReadAgain = nil }()
	for _, jobs := range []int{1, 2} {
		var again []string
		onReadAgain = func(why, rel string) { again = append(again, why+": "+rel) }
		res, err := Load([]string{dir}, Options{Jobs: jobs})
		if err != nil {
			t.Fatal(err)
		}
		if len(again) > 0 {
			t.Errorf("%d jobs: the resume check read files again: %q", jobs, again)
		}
		for _, r := range res.Runs {
			want, of := 2, []string{path.Join(filepath.ToSlash(dir), dup+".jsonl"), path.Join(filepath.ToSlash(dir), orig+".jsonl")}
			if r.Main.SessionID == orig || r.Main.SessionID == dup {
				want, of = 0, nil
			}
			if r.Main.Copied != want || !reflect.DeepEqual(r.Main.CopyOf, of) {
				t.Errorf("%d jobs: %s: %d rows copied of %q, want %d of %q", jobs, r.Path, r.Main.Copied, r.Main.CopyOf, want, of)
			}
		}
	}
}
