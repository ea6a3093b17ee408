package load

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/pmcheck/pmcheck/analyze/detect"
	"github.com/pmcheck/pmcheck/analyze/discover"
	"github.com/pmcheck/pmcheck/analyze/layout"
	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/analyze/replay"
	"github.com/pmcheck/pmcheck/analyze/transcript"
	"github.com/pmcheck/pmcheck/fixtures/gen/fleet"
	"github.com/pmcheck/pmcheck/internal/testcorpus"
)

// TestFirstUUIDIsTheReadersFirstUUID: reading a session file up to its first
// row with a uuid gives the first uuid a reading of the whole file gives, on
// every session file of the fixtures and the corpus and on shapes made to
// mislead a reader that looks for the key: junk and rows without a uuid
// first, a key written with escapes, "uuid" only nested, a first line
// longer than the read buffer, a line over the line cap, no uuid at all,
// no newline at the end.
func TestFirstUUIDIsTheReadersFirstUUID(t *testing.T) {
	dir := t.TempDir()
	row := func(uuid string) string {
		return `{"type":"user","uuid":"` + uuid + `","timestamp":"2026-05-09T12:00:00.000Z","sessionId":"s","message":{"role":"user","content":"hi"}}`
	}
	long := strings.Repeat("x", 300<<10)
	shapes := map[string]string{
		"plain":     row("u1") + "\n" + row("u2") + "\n",
		"junkfirst": "not json\n{\"type\":\"summary\",\"summary\":\"s\"}\n" + row("u1") + "\n",
		"escaped":   `{"type":"user","\u0075uid":"esc","sessionId":"s"}` + "\n" + row("u1") + "\n",
		"nested":    `{"type":"user","sessionId":"s","toolUseResult":{"uuid":"nested"}}` + "\n" + row("u1") + "\n",
		"nestedx5":  strings.Repeat(`{"type":"user","sessionId":"s","toolUseResult":{"uuid":"nested"}}`+"\n", 5) + row("u1") + "\n",
		"longfirst": `{"type":"user","sessionId":"s","message":{"role":"user","content":"` + long + `"}}` + "\n" + row("u1") + "\n",
		"longuuid":  `{"type":"user","uuid":"u0","sessionId":"s","message":{"role":"user","content":"` + long + `"}}` + "\n",
		"none":      `{"type":"user","sessionId":"s"}` + "\n",
		"torn":      row("u1"),
		"dup":       row("u1") + "\n" + row("u1") + "\n",
		"badrow":    `{"type":"user","uuid":7,"sessionId":"s"}` + "\n" + row("u1") + "\n",
		"empty":     "",
	}
	for name, content := range shapes {
		if err := os.WriteFile(filepath.Join(dir, name+".jsonl"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	roots := []string{dir, filepath.Join("..", "..", "fixtures", "runs")}
	if c := testcorpus.Dir(t); c != "" {
		roots = append(roots, c)
	}
	n := 0
	for _, root := range roots {
		inv, err := discover.Walk(root)
		if err != nil {
			t.Fatal(err)
		}
		for _, caps := range []int64{0, 100 << 10} {
			l := &loader{root: root, inv: inv, opts: Options{LineCap: caps}}
			for _, rel := range inv.Sessions {
				got, ok := l.firstUUID(rel)
				whole, err := transcript.ReadFile(filepath.Join(root, rel), rel, transcript.Options{LineCap: caps})
				if err != nil || !ok {
					t.Fatalf("%s: %v, ok %v", rel, err, ok)
				}
				if got != whole.FirstUUID {
					t.Errorf("%s (cap %d): first uuid %x; the whole file's is %x", rel, caps, got, whole.FirstUUID)
				}
				n++
			}
		}
	}
	if n < 2*len(shapes) {
		t.Fatalf("compared %d files", n)
	}
}

// TestPermute: permute puts xs[order[i]] at i, for every permutation of
// up to five elements.
func TestPermute(t *testing.T) {
	var perms func(n int) [][]int
	perms = func(n int) [][]int {
		if n == 0 {
			return [][]int{{}}
		}
		var out [][]int
		for _, p := range perms(n - 1) {
			for i := 0; i <= len(p); i++ {
				q := append(append(append([]int{}, p[:i]...), n-1), p[i:]...)
				out = append(out, q)
			}
		}
		return out
	}
	for n := 0; n <= 5; n++ {
		for _, order := range perms(n) {
			xs := make([]string, n)
			for i := range xs {
				xs[i] = string(rune('a' + i))
			}
			want := make([]string, n)
			for i, k := range order {
				want[i] = xs[k]
			}
			permute(xs, append([]int(nil), order...))
			if strings.Join(xs, "") != strings.Join(want, "") {
				t.Fatalf("permute(%v) = %v; want %v", order, xs, want)
			}
		}
	}
}

// TestKeptReadingsChangeNothing: a load that keeps the readings of legacy
// agent files for the linker (groupBeside, sessionsBeside) gives the runs,
// facts and problems of one that reads every file again: on the fixtures, a
// folder of sessions with legacy agent files beside them, one where one of
// those files is mostly junk (its folder is not grouped ahead), one with
// large, orphaned and sidecar'd agent files (legacyFolder), and the corpus;
// with every reading kept and with a budget that keeps a few.
func TestKeptReadingsChangeNothing(t *testing.T) {
	flat := flatFolder(t, 300)
	bad := flatFolder(t, 50)
	row := `{"type":"user","uuid":"w7","sessionId":"00000000-0000-4000-8000-000000000007","isSidechain":true,"message":{"role":"user","content":"work"}}` + "\n"
	if err := os.WriteFile(filepath.Join(bad, "agent-a00000007.jsonl"), []byte(row+"not json\nnot json\nnot json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	roots := []string{filepath.Join("..", "..", "fixtures", "runs"), flat, bad, legacyFolder(t)}
	if c := testcorpus.Dir(t); c != "" {
		roots = append(roots, c)
	}
	// With every reading kept, and with a budget that keeps a few (past
	// it, the others are read again).
	on := keepBytes
	defer func() { keepBytes = on }()
	for _, budget := range []int64{on, 4 << 10} {
		keepBytes = budget
		loadsAgree(t, &keepBytes, "readings are kept", roots, func(root string, res *Result) {
			if root == bad && len(res.Untrusted) != 1 {
				t.Fatalf("the junk agent file is not reported: %q", res.Untrusted)
			}
		})
	}
}

// TestKeptFirstBytesChangeNothing: a load that keeps the bytes of small
// session files from the first-row pass (firstUUIDKeep) gives the runs,
// facts and problems of one that opens every file again: on the fixtures,
// the corpus, a folder of sessions with legacy agent files beside them, one
// of resume copies (every session starts with the same row) with a session
// over firstKeepMax, and one with a session that is mostly junk.
func TestKeptFirstBytesChangeNothing(t *testing.T) {
	flat := flatFolder(t, 120)
	copies := t.TempDir()
	first := `{"type":"user","uuid":"same","sessionId":"%s","timestamp":"2026-05-07T09:00:00Z","message":{"role":"user","content":"hi"}}` + "\n"
	for i := range 40 {
		sid := fmt.Sprintf("00000000-0000-4000-8000-%012d", i)
		rows := fmt.Sprintf(first, sid) + fmt.Sprintf(`{"type":"assistant","uuid":"a%d","sessionId":"%s","timestamp":"2026-05-07T09:00:0%dZ","message":{"role":"assistant","content":[{"type":"text","text":"ok"}]}}`+"\n", i, sid, i%10)
		if i == 7 { // over firstKeepMax
			for j := range 30 {
				rows += fmt.Sprintf(`{"type":"user","uuid":"big%d","sessionId":"%s","message":{"role":"user","content":"%s"}}`+"\n", j, sid, strings.Repeat("x", 900))
			}
		}
		if err := os.WriteFile(filepath.Join(copies, sid+".jsonl"), []byte(rows), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	junk := flatFolder(t, 20)
	if err := os.WriteFile(filepath.Join(junk, "00000000-0000-4000-8000-000000000003.jsonl"), []byte(`{"type":"user","uuid":"j"}`+"\nnot json\nnot json\nnot json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	roots := []string{filepath.Join("..", "..", "fixtures", "runs"), flat, copies, junk}
	if c := testcorpus.Dir(t); c != "" {
		roots = append(roots, c)
	}
	// The resume check's row hashes, kept from the heads readings (all, or
	// the first few files' and read again for the rest), change nothing
	// either.
	keep := rowHashesKeep
	for _, k := range []int64{keep, 10} {
		rowHashesKeep = k
		loadsAgree(t, &rowHashesKeep, "row hashes are kept", roots, func(string, *Result) {})
	}
	rowHashesKeep = keep
	loadsAgree(t, &firstKeepBytes, "first bytes are kept", roots, func(root string, res *Result) {
		if root == junk && len(res.Untrusted)+len(res.Errors) == 0 {
			t.Fatalf("the junk session is not reported")
		}
	})
}

// loadsAgree loads each root with one and two jobs, with *keep as it is and
// with it 0 (nothing kept), and fails unless the runs, their stats and
// facts, and the problems are the same; check sees the result without
// keeping.
func loadsAgree(t *testing.T, keep *int64, what string, roots []string, check func(root string, res *Result)) {
	t.Helper()
	on := *keep
	load := func(root string, k int64, jobs int) ([]loadedRun, *Result) {
		defer func() { *keep = on }()
		*keep = k
		return loadRuns(t, root, jobs)
	}
	for _, root := range roots {
		for _, jobs := range []int{1, 2} {
			want, wantRes := load(root, 0, jobs)
			got, gotRes := load(root, on, jobs)
			if len(want) == 0 || !reflect.DeepEqual(got, want) {
				t.Fatalf("%s, %d jobs: runs differ when %s (%d runs, want %d)", root, jobs, what, len(got), len(want))
			}
			check(root, wantRes)
			if !reflect.DeepEqual(gotRes, wantRes) {
				t.Fatalf("%s, %d jobs: problems differ when %s:\n%q\n%q", root, jobs, what, gotRes.CheckErrors(), wantRes.CheckErrors())
			}
		}
	}
}

// loadedRun is what the load tests compare of each run.
type loadedRun struct {
	Path  string
	Stats Stats
	Facts model.Facts
}

// runFacts is what the detectors and the replay make of a run (the façade's
// Facts but the runtime's own counts): two readings that give the same
// facts are, for everything downstream, the same reading.
func runFacts(r *model.Run) model.Facts {
	f := detect.Analyze(r, detect.Options{})
	if r.Kind == model.KindWorkflow {
		rep := replay.Workflow(r, replay.Config{FactsOnly: true})
		f.Watchdogs, f.Run.Verdict = append(f.Watchdogs, rep.Facts...), rep.Outcome.Verdict
	} else {
		f.Watchdogs = append(f.Watchdogs, replay.Session(r, replay.Config{})...)
	}
	return f
}

// loadRuns loads root with Each and the given jobs.
func loadRuns(t *testing.T, root string, jobs int) ([]loadedRun, *Result) {
	t.Helper()
	res, runs, err := Each([]string{root}, Options{Jobs: jobs}, func(r *model.Run, _ int) loadedRun {
		return loadedRun{r.Path, RunStats(r), runFacts(r)}
	})
	if err != nil {
		t.Fatal(err)
	}
	return runs, res
}

// TestSmallSessionsAreOpenedOnce (issue 12): the first-row pass keeps the
// bytes of small session files, and their readings read those: with the
// files gone after the pass, every small session still reads as its file
// did; the one over firstKeepMax is read from its file again.
func TestSmallSessionsAreOpenedOnce(t *testing.T) {
	root := flatFolder(t, 50)
	big := filepath.Join(root, "00000000-0000-4000-8000-000000000009.jsonl")
	row := `{"type":"user","uuid":"b%d","sessionId":"00000000-0000-4000-8000-000000000009","message":{"role":"user","content":"` + strings.Repeat("y", 1000) + `"}}` + "\n"
	var rows strings.Builder
	for i := range 20 {
		fmt.Fprintf(&rows, row, i)
	}
	if err := os.WriteFile(big, []byte(rows.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	inv, err := discover.Walk(root)
	if err != nil {
		t.Fatal(err)
	}
	l := &loader{root: root, inv: inv, opts: Options{Jobs: 2}}
	want := make([]readAhead, len(inv.Sessions))
	var firsts []uint64
	l.firsts, firsts = l.firstUUIDs()
	l.suspects = sharedFirsts(firsts)
	l.hold = l.holdSuspects()
	for k, rel := range inv.Sessions {
		want[k] = l.readOne(rel)
		if want[k].err != nil {
			t.Fatal(want[k].err)
		}
	}
	for _, rel := range inv.Sessions {
		if filepath.Join(root, rel) != big {
			if err := os.Remove(filepath.Join(root, rel)); err != nil {
				t.Fatal(err)
			}
		}
	}
	kept := 0
	for k, rel := range inv.Sessions {
		if l.firstData[k] != nil {
			kept++
		}
		got := l.readSessionFile(k, 0, rel)
		if got.err != nil || !reflect.DeepEqual(got.t, want[k].t) {
			t.Fatalf("%s: read %v from the kept bytes, want the file's reading", rel, got.err)
		}
	}
	if kept != len(inv.Sessions)-1 {
		t.Fatalf("%d sessions' bytes kept, want %d", kept, len(inv.Sessions)-1)
	}
}

// TestKeptSidecarsChangeNothing: a load that keeps the sidecars the
// toolUseId index read, for their agent transcripts' readings, gives the
// runs, facts and problems of one that reads each sidecar again: on the
// fixtures, the corpus, a generated fleet, and one whose sidecars include a
// broken one, an empty one and one over the size cap.
func TestKeptSidecarsChangeNothing(t *testing.T) {
	fleetDir := t.TempDir()
	if err := fleet.WriteFleet(fleetDir, 40); err != nil {
		t.Fatal(err)
	}
	bad := t.TempDir()
	if err := fleet.WriteFleet(bad, 8); err != nil {
		t.Fatal(err)
	}
	metas := sidecarsUnder(t, bad)
	if len(metas) < 3 {
		t.Fatalf("%d sidecars in the generated fleet; want 3 or more", len(metas))
	}
	for i, content := range []string{"{not json", "", strings.Repeat(" ", maxSidecar+1)} {
		if err := os.WriteFile(metas[i], []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	roots := testcorpus.With(t, filepath.Join("..", "..", "fixtures", "runs"), fleetDir, bad)
	loadsAgree(t, &sidecarKeepBytes, "sidecars are kept", roots, func(root string, res *Result) {})
}

// TestSidecarsAreReadOnce: the sidecars the toolUseId index read are
// handed to their agent transcripts' readings, once each: with the files
// gone after the index was built, each reads as its file did, and a second
// reading finds the file gone. Past sidecarKeepBytes, the rest are read
// from their files.
func TestSidecarsAreReadOnce(t *testing.T) {
	root := t.TempDir()
	if err := fleet.WriteFleet(root, 30); err != nil {
		t.Fatal(err)
	}
	inv, err := discover.Walk(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(inv.Metas) < 10 {
		t.Fatalf("%d sidecars; want 10 or more", len(inv.Metas))
	}
	var agents []string
	for rel := range inv.Metas {
		agents = append(agents, rel)
	}
	slices.Sort(agents)
	l := &loader{root: root, inv: inv, opts: Options{Jobs: 2}}
	want := map[string]*model.Meta{}
	for _, rel := range agents {
		want[rel] = l.sidecarMeta(rel) // nothing kept yet: read from the file
	}
	sidecars := sidecarsUnder(t, root)
	st, err := os.Stat(sidecars[0])
	if err != nil {
		t.Fatal(err)
	}
	on := sidecarKeepBytes
	defer func() { sidecarKeepBytes = on }()
	sidecarKeepBytes = st.Size() * 5 // about five kept (the fleet's sidecars are much alike)
	l.sidecarIndex()
	for _, p := range sidecars {
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
	kept := 0
	for _, rel := range agents {
		got := l.sidecarMeta(rel)
		if got.Problem == "" {
			kept++
			if !reflect.DeepEqual(got, want[rel]) {
				t.Fatalf("%s: kept sidecar %+v; want %+v", rel, got, want[rel])
			}
		}
		if again := l.sidecarMeta(rel); again.Problem == "" {
			t.Fatalf("%s: a sidecar was handed out twice", rel)
		}
	}
	if kept < 4 || kept > 5 {
		t.Fatalf("%d sidecars kept within the budget of five; want 4 or 5", kept)
	}
}

// sidecarsUnder lists the .meta.json files under root, sorted.
func sidecarsUnder(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".meta.json") {
			out = append(out, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// TestKeptBytesAreReadWhateverJobs: with one job as with two, a session
// file whose bytes the first-row pass kept, and a sidecar whose bytes the
// sidecar index kept, are read from those bytes and not opened again: with
// those files gone after the two passes, a generated fleet loads as it did
// with them. (One job opened the session files again, and held their bytes
// unread until every session was linked; the index, built at the first
// spawn linked, came after the readers had read the first sidecars.)
func TestKeptBytesAreReadWhateverJobs(t *testing.T) {
	defer func(max int64) { firstKeepMax = max }(firstKeepMax)
	firstKeepMax = 1 << 20 // every generated session kept, not the few under 16 KiB
	for _, jobs := range []int{1, 2} {
		root := t.TempDir()
		if err := fleet.WriteFleet(root, 30); err != nil {
			t.Fatal(err)
		}
		want, wantRes := loadRuns(t, root, jobs)
		sessions, sidecars := 0, 0
		afterFirstPasses = func(l *loader) {
			for k, rel := range l.inv.Sessions {
				if l.firstData[k] != nil {
					if err := os.Remove(filepath.Join(root, rel)); err != nil {
						t.Fatal(err)
					}
					sessions++
				}
			}
			store := l.sidecars.Load()
			if store == nil {
				t.Fatalf("%d jobs: no sidecar index before the transcripts are read", jobs)
			}
			for i, rel := range store.files {
				if store.data[i] != nil {
					if err := os.Remove(filepath.Join(root, layout.MetaOf(rel))); err != nil {
						t.Fatal(err)
					}
					sidecars++
				}
			}
		}
		got, gotRes := loadRuns(t, root, jobs)
		afterFirstPasses = nil
		if sessions < 20 || sidecars < 10 {
			t.Fatalf("%d jobs: %d session files and %d sidecars kept; want 20 and 10 or more", jobs, sessions, sidecars)
		}
		if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotRes, wantRes) {
			t.Fatalf("%d jobs: with the kept files gone, the load differs: %q", jobs, gotRes.CheckErrors())
		}
	}
}
