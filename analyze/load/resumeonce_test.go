package load

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/pmcheck/pmcheck/analyze/layout"
	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/internal/testcorpus"
)

// resumeRoots are the folders the resume check is tried on: the fixtures
// (together, and each resume fixture alone), the corpus (whole, and each of
// its folders), and a generated folder of resume copies: a chain of three,
// a fan of two copies of one session, sessions that share only their first
// row, and a session over firstKeepMax.
func resumeRoots(t *testing.T) []string {
	t.Helper()
	fixtures := filepath.Join("..", "..", "fixtures", "runs")
	roots := []string{fixtures}
	resumes, err := filepath.Glob(filepath.Join(fixtures, "*resume*"))
	if err != nil || len(resumes) == 0 {
		t.Fatalf("no resume fixtures (%v)", err)
	}
	roots = append(roots, resumes...)
	if c := testcorpus.Dir(t); c != "" {
		roots = append(roots, c)
		ents, err := os.ReadDir(c)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			if e.IsDir() {
				roots = append(roots, filepath.Join(c, e.Name()))
			}
		}
	}
	return append(roots, resumeFolder(t))
}

func resumeFolder(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	row := func(sid, uuid string, n int, text string) string {
		return fmt.Sprintf(`{"type":"user","uuid":%q,"timestamp":"2026-05-09T12:00:%02d.000Z","sessionId":%q,"message":{"role":"user","content":%q}}`+"\n", uuid, n%60, sid, text)
	}
	call := func(sid, uuid string, n int, id string) string {
		return fmt.Sprintf(`{"type":"assistant","uuid":%q,"timestamp":"2026-05-09T12:00:%02d.000Z","sessionId":%q,"message":{"role":"assistant","content":[{"type":"tool_use","id":%q,"name":"Agent","input":{"description":"work","prompt":"do it"}}]}}`+"\n", uuid, n%60, sid, id)
	}
	files := map[string]string{}
	// A chain: o, then c1 replaying o and going on, then c2 replaying c1.
	var prev string
	for i, sid := range []string{"a0000000-0000-4000-8000-000000000001", "a0000000-0000-4000-8000-000000000002", "a0000000-0000-4000-8000-000000000003"} {
		var b strings.Builder
		b.WriteString(strings.ReplaceAll(prev, prevSID(prev), sid))
		b.WriteString(row(sid, fmt.Sprintf("chain-u%d", i), 2*i, fmt.Sprintf("prompt %d", i)))
		b.WriteString(call(sid, fmt.Sprintf("chain-c%d", i), 2*i+1, fmt.Sprintf("toolu_chain%d", i)))
		prev = b.String()
		files[sid] = prev
	}
	// A fan: two copies of one session, each with a turn of its own.
	orig := "b0000000-0000-4000-8000-000000000001"
	files[orig] = row(orig, "fan-u0", 0, "first") + call(orig, "fan-c0", 1, "toolu_fan0")
	for i, sid := range []string{"b0000000-0000-4000-8000-000000000002", "b0000000-0000-4000-8000-000000000003"} {
		files[sid] = strings.ReplaceAll(files[orig], orig, sid) + row(sid, fmt.Sprintf("fan-u%d", i+1), 10+i, "more") + call(sid, fmt.Sprintf("fan-c%d", i+1), 20+i, fmt.Sprintf("toolu_fan%d", i+1))
	}
	// Sessions that share their first row and nothing else, one large.
	for i, sid := range []string{"c0000000-0000-4000-8000-000000000001", "c0000000-0000-4000-8000-000000000002"} {
		rows := row(sid, "shared-first", 0, "hello") + row(sid, fmt.Sprintf("own-%d", i), 1, "own")
		if i == 1 {
			rows += row(sid, "own-big", 2, strings.Repeat("x", int(firstKeepMax)))
		}
		files[sid] = rows
	}
	for sid, data := range files {
		if err := os.WriteFile(filepath.Join(dir, sid+".jsonl"), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// prevSID is the sessionId of a file's first row ("" for none).
func prevSID(data string) string {
	_, after, ok := strings.Cut(data, `"sessionId":"`)
	if !ok {
		return "\x00"
	}
	sid, _, _ := strings.Cut(after, `"`)
	return sid
}

// TestResumeCheckReadsEachSessionOnce (issue 30): over the fixtures, the
// corpus and generated resume copies, with one job and two, the loader
// decodes every session file once, the resume check included: the likely
// copies are read whole as the sessions stream by and their copied rows
// marked on that reading, and no original is read again for its hashes
// (onReadAgain never fires). Copies are found (the test is not vacuous).
func TestResumeCheckReadsEachSessionOnce(t *testing.T) {
	defer func() { onReadAgain, onDecode = nil, nil }()
	copies := 0
	for _, root := range resumeRoots(t) {
		for _, jobs := range []int{1, 2} {
			var mu sync.Mutex
			decoded := map[string]int{}
			var again []string
			onDecode = func(rel string) {
				mu.Lock()
				decoded[rel]++
				mu.Unlock()
			}
			onReadAgain = func(why, rel string) {
				mu.Lock()
				again = append(again, why+": "+rel)
				mu.Unlock()
			}
			res, err := Load([]string{root}, Options{Jobs: jobs})
			if err != nil {
				t.Fatal(err)
			}
			if len(again) > 0 {
				t.Errorf("%s, %d jobs: the resume check read files again: %q", root, jobs, again)
			}
			for rel, n := range decoded {
				if n == 2 && sdkStreamJSONL(root, rel) {
					continue // read by the stream reader too (TestLoaderDecodesEachFileOnce)
				}
				if layout.AgentIDFromName(path.Base(rel)) == "" && n != 1 {
					t.Errorf("%s, %d jobs: session file %s decoded %d times, want once", root, jobs, rel, n)
				}
			}
			for _, r := range res.Runs {
				if r.Main != nil && r.Main.Copied > 0 {
					copies++
				}
			}
		}
	}
	if copies == 0 {
		t.Fatal("no resume copy found: the test reads no copy")
	}
}

// TestHeldSuspectsChangeNothing (issue 30): marking the copied rows of the
// likely copies' one reading (hold) gives what reading them again with
// their copied rows marked gave (holdBytes 0, the way past the budget): the
// same runs, stats, facts and problems, and the same copies, titles and
// marks on every call, result and notification; with every suspect held,
// and with a budget that holds a few of them.
func TestHeldSuspectsChangeNothing(t *testing.T) {
	roots := resumeRoots(t)
	on := holdBytes
	defer func() { holdBytes = on }()
	marks := func(root string, jobs int, budget int64) []string {
		holdBytes = budget
		defer func() { holdBytes = on }()
		res, err := Load([]string{root}, Options{Jobs: jobs})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range res.Runs {
			out = append(out, copyMarks(r))
		}
		return out
	}
	marked := 0
	for _, budget := range []int64{on, 5 * holdOverhead} {
		holdBytes = budget
		loadsAgree(t, &holdBytes, "suspects are held", roots, func(string, *Result) {})
		for _, root := range roots {
			for _, jobs := range []int{1, 2} {
				got, want := marks(root, jobs, budget), marks(root, jobs, 0)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%s, %d jobs, budget %d: marks differ when suspects are held:\n%q\nwant\n%q", root, jobs, budget, got, want)
				}
				for _, m := range got {
					if strings.Contains(m, "copied") {
						marked++
					}
				}
			}
		}
	}
	if marked == 0 {
		t.Fatal("no copied item: the test compares no mark")
	}
}

// copyMarks spells out what the resume check sets on a run: its main
// transcript's copied rows, originals and title, and which of its items
// are marked copied.
func copyMarks(r *model.Run) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", r.Kind, r.Path)
	t := r.Main
	if t == nil {
		return b.String()
	}
	fmt.Fprintf(&b, " rows %d copied %d of %q title %q", t.Rows, t.Copied, t.CopyOf, t.Title)
	mark := func(kind string, line int, copied bool) {
		if copied {
			fmt.Fprintf(&b, " %s@%d copied", kind, line)
		}
	}
	for _, c := range t.ToolCalls {
		mark("call", c.At().Line, c.Copied())
	}
	for _, res := range t.ToolResults {
		mark("result", res.Line(), res.Copied())
	}
	for _, n := range t.Notifications {
		mark("note", n.At.Line, n.Copied)
	}
	for _, q := range t.QueueOps {
		if q.Notification != nil {
			mark("queue", q.At.Line, q.Notification.Copied)
		}
	}
	return b.String()
}

// resumeChain writes a chain of n resumes of one session, as an older CLI
// wrote them: file i replays file i-1 (rows rows each turn, with a Bash
// call and its result) and adds a turn of its own, all starting with the
// same row.
func resumeChain(b testing.TB, n, rows int) string {
	b.Helper()
	dir := b.TempDir()
	var prev []string // the rows so far, with %[1]s for the sessionId
	for i := range n {
		sid := fmt.Sprintf("d0000000-0000-4000-8000-%012d", i)
		for r := range rows {
			u := fmt.Sprintf("t%d-r%d", i, r)
			prev = append(prev,
				fmt.Sprintf(`{"type":"user","uuid":"%s-u","sessionId":"%%[1]s","timestamp":"2026-05-09T12:%02d:%02d.000Z","message":{"role":"user","content":"step %d of turn %d: %s"}}`, u, i%60, r%60, r, i, strings.Repeat("words ", 20)),
				fmt.Sprintf(`{"type":"assistant","uuid":"%s-a","sessionId":"%%[1]s","timestamp":"2026-05-09T12:%02d:%02d.500Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_%s","name":"Bash","input":{"command":"go test ./... -run Step%d"}}]}}`, u, i%60, r%60, strings.ReplaceAll(u, "-", "_"), r),
				fmt.Sprintf(`{"type":"user","uuid":"%s-r","sessionId":"%%[1]s","timestamp":"2026-05-09T12:%02d:%02d.900Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_%s","content":"ok  \tpkg\t0.01s %s"}]}}`, u, i%60, r%60, strings.ReplaceAll(u, "-", "_"), strings.Repeat("output ", 30)))
		}
		var file strings.Builder
		for _, row := range prev {
			fmt.Fprintf(&file, row, sid)
			file.WriteByte('\n')
		}
		if err := os.WriteFile(filepath.Join(dir, sid+".jsonl"), []byte(file.String()), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

// BenchmarkLoadResumeChain (issue 30): a chain of 8 resumes of one session
// (75 to 600 rows, 0.06 to 0.5 MB each; 8 is maxOriginals): every file is a
// likely copy, read for its heads and then again with its copied rows
// marked before; read once, and marked on that reading, now.
func BenchmarkLoadResumeChain(b *testing.B) {
	dir := resumeChain(b, 8, 25)
	for b.Loop() {
		res, err := Load([]string{dir}, Options{})
		if err != nil || len(res.Runs) != 8 {
			b.Fatalf("%v: %d runs, want 8", err, len(res.Runs))
		}
		if c := res.Runs[7].Main.Copied; c != 7*25*3 {
			b.Fatalf("the last file has %d copied rows, want %d", c, 7*25*3)
		}
	}
}
