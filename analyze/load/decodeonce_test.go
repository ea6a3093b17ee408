package load

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/pmcheck/pmcheck/analyze/layout"
	"github.com/pmcheck/pmcheck/analyze/transcript"
	"github.com/pmcheck/pmcheck/internal/testcorpus"
)

// onceRoots are the folders every file is counted over: the fixtures
// together and each fixture folder alone, the corpus whole and each of its
// folders, the generated resume copies (resumeFolder) and legacy agent files
// (legacyFolder), and a folder whose legacy agent files include a junk one
// (not grouped before the sessions stream by: sessionsBeside).
func onceRoots(t *testing.T) []string {
	t.Helper()
	fixtures := filepath.Join("..", "..", "fixtures", "runs")
	roots := []string{fixtures}
	subdirs := func(dir string) {
		ents, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			if e.IsDir() {
				roots = append(roots, filepath.Join(dir, e.Name()))
			}
		}
	}
	subdirs(fixtures)
	if c := testcorpus.Dir(t); c != "" {
		roots = append(roots, c)
		subdirs(c)
	}
	return append(roots, resumeFolder(t), legacyFolder(t), junkBesideFolder(t), streamFolder(t))
}

// streamFolder writes Agent SDK streams saved as .jsonl beside session
// files: one alone, one joined to a session file linked after it (its
// reading is kept for that run) and one to a session file linked before
// it (decided from that run's reading), and a mixed file (mixedStream)
// whose first row spells session_id and most rows sessionId.
func streamFolder(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	fixtures := filepath.Join("..", "..", "fixtures", "runs")
	copyFile := func(from, to string) {
		data, err := os.ReadFile(filepath.Join(fixtures, from, "run.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, to), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	session := func(sid string) {
		row := fmt.Sprintf(`{"type":"user","uuid":"%s-u1","sessionId":%q,"timestamp":"2026-05-07T09:00:01Z","message":{"role":"user","content":"hi"}}`+"\n", sid[len(sid)-4:], sid)
		if err := os.WriteFile(filepath.Join(dir, sid+".jsonl"), []byte(row), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// An older CLI's stream-json (1.0: no uuid in any message), small and
	// past the first-row pass's 1 MiB: read by the stream reader alone.
	oldCLI := func(name string, rows int) {
		sid := "9d3ac8dd-5572-4bdc-ae86-ff1071e369e7"
		var b strings.Builder
		fmt.Fprintf(&b, `{"type":"system","subtype":"init","cwd":"/tmp/w","session_id":%q,"tools":["Task","Bash"],"mcp_servers":[],"model":"claude-sonnet-4-20250514","permissionMode":"default","apiKeySource":"none"}`+"\n", sid)
		for i := range rows {
			fmt.Fprintf(&b, `{"type":"assistant","message":{"id":"msg_%d","type":"message","role":"assistant","model":"claude-sonnet-4-20250514","content":[{"type":"text","text":%q}],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":4,"output_tokens":10,"service_tier":"standard"}},"parent_tool_use_id":null,"session_id":%q}`+"\n", i, strings.Repeat("work ", 200), sid)
		}
		fmt.Fprintf(&b, `{"type":"result","subtype":"success","is_error":false,"duration_ms":100,"num_turns":1,"result":"Done.","session_id":%q,"total_cost_usd":0.001,"permission_denials":[]}`+"\n", sid)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	oldCLI("old-cli.jsonl", 3)
	oldCLI("old-cli-large.jsonl", 1500)
	copyFile("stream-cancelled", "plain.jsonl")
	copyFile("stream-killed-subagent", "0-joined-later.jsonl") // session ...0002
	session("60000000-0000-4000-8000-000000000002")
	copyFile("stream-completed-jsonl", "z-joined-earlier.jsonl") // session ...0001
	session("60000000-0000-4000-8000-000000000001")
	var b strings.Builder
	b.WriteString(`{"type":"system","subtype":"init","session_id":"70000000-0000-4000-8000-000000000001","uuid":"m0"}` + "\n")
	for i := range 3 {
		fmt.Fprintf(&b, `{"type":"user","uuid":"m%d","sessionId":"70000000-0000-4000-8000-000000000001","message":{"role":"user","content":"work"}}`+"\n", i+1)
	}
	if err := os.WriteFile(filepath.Join(dir, mixedStream), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// mixedStream is streamFolder's file that starts as a stream and is a
// session by most of its rows: read by both readers.
const mixedStream = "mixed.jsonl"

// legacyFolder writes sessions with legacy agent files beside them, as the
// corpus has them: a session with a small agent file and one over 64 KiB
// (the corpus's agent-ea02459f is 190 KB), one with an agent file that has
// a sidecar, small and large agent files whose session is not there
// (orphans), and an agent file beside no session's id that carries none.
func legacyFolder(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	row := func(sid, uuid, text string) string {
		return fmt.Sprintf(`{"type":"user","uuid":%q,"sessionId":%q,"isSidechain":true,"timestamp":"2026-05-07T09:00:01Z","message":{"role":"user","content":%q}}`+"\n", uuid, sid, text)
	}
	write := func(name, data string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	big := func(sid, uuid string) string {
		var b strings.Builder
		for i := range 40 {
			b.WriteString(row(sid, fmt.Sprintf("%s-%d", uuid, i), strings.Repeat("output ", 300)))
		}
		return b.String()
	}
	s1, s2 := "e0000000-0000-4000-8000-000000000001", "e0000000-0000-4000-8000-000000000002"
	gone := "e0000000-0000-4000-8000-00000000dead"
	write(s1+".jsonl", strings.ReplaceAll(row(s1, "s1", "hi"), `"isSidechain":true,`, ""))
	write(s2+".jsonl", strings.ReplaceAll(row(s2, "s2", "hi"), `"isSidechain":true,`, ""))
	write("agent-e0000001.jsonl", row(s1, "a1", "small"))
	write("agent-e0000002.jsonl", big(s1, "a2"))
	write("agent-e0000003.jsonl", row(s2, "a3", "with a sidecar"))
	write("agent-e0000003.meta.json", `{"agentType":"general-purpose","description":"work"}`)
	write("agent-e0000004.jsonl", row(gone, "a4", "orphan"))
	write("agent-e0000005.jsonl", row(gone, "a5", "orphan too"))
	write("agent-e0000006.jsonl", big(gone, "a6"))
	write("agent-e0000007.jsonl", `{"type":"user","uuid":"a7","isSidechain":true,"message":{"role":"user","content":"no id"}}`+"\n")
	return dir
}

// junkBesideFolder is a folder of sessions with legacy agent files beside
// them, one of which is mostly not JSON: the folder is grouped when its
// first session is linked (sessionsBeside), so that the junk file's problem
// is reported where it always was.
func junkBesideFolder(t *testing.T) string {
	t.Helper()
	dir := flatFolder(t, 20)
	row := `{"type":"user","uuid":"w7","sessionId":"00000000-0000-4000-8000-000000000007","isSidechain":true,"message":{"role":"user","content":"work"}}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "agent-a00000007.jsonl"), []byte(row+"not json\nnot json\nnot json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// recordDecodes sets onDecode to count each file's decodes (from any
// goroutine) into the map it returns; the caller sets onDecode back to nil.
func recordDecodes() map[string]int {
	var mu sync.Mutex
	decoded := map[string]int{}
	onDecode = func(rel string) {
		mu.Lock()
		decoded[rel]++
		mu.Unlock()
	}
	return decoded
}

// countDecodes loads root with jobs and returns how many times each file
// was decoded (onDecode).
func countDecodes(t *testing.T, root string, jobs int) map[string]int {
	t.Helper()
	decoded := recordDecodes()
	defer func() { onDecode = nil }()
	if _, err := Load([]string{root}, Options{Jobs: jobs}); err != nil {
		t.Fatal(err)
	}
	return decoded
}

// sdkStreamJSONL says whether rel under root is an Agent SDK message stream
// saved as .jsonl (most of its rows the SDK's: isStreamTranscript).
func sdkStreamJSONL(root, rel string) bool {
	if !strings.HasSuffix(rel, ".jsonl") || layout.AgentIDFromName(path.Base(rel)) != "" {
		return false
	}
	tr, err := transcript.ReadFile(filepath.Join(root, filepath.FromSlash(rel)), rel, transcript.Options{})
	return err == nil && isStreamTranscript(tr)
}

// TestLoaderDecodesEachFileOnce (issue 30): over the fixtures (together and
// each folder), the corpus (whole and each folder) and generated folders of
// resume copies and legacy agent files, with one job and two, the loader
// decodes every file it reads once: session files, their subagent
// transcripts, the legacy agent-*.jsonl files beside them (grouped by
// session id before the sessions stream by, and their session's run or the
// orphan runs take that reading: small or large, with a sidecar or not, in
// a folder grouped ahead or when its first session is linked) and Agent SDK
// streams, journals, and Agent SDK streams saved as .jsonl (read with the
// stream reader alone, joined to a session file or not). The one exception
// is a file that starts as a stream and is a session by most of its rows
// (mixedStream): decoded by both readers, twice, never more.
func TestLoaderDecodesEachFileOnce(t *testing.T) {
	files, legacy, streams, journals := 0, 0, 0, 0
	for _, root := range onceRoots(t) {
		for _, jobs := range []int{1, 2} {
			decoded := countDecodes(t, root, jobs)
			var twice []string
			for rel, n := range decoded {
				if n == 2 && path.Base(rel) == mixedStream {
					continue
				}
				if sdkStreamJSONL(root, rel) {
					streams++
				}
				if n != 1 {
					twice = append(twice, fmt.Sprintf("%s (%d)", rel, n))
				}
				if strings.HasPrefix(path.Base(rel), "agent-") && !strings.Contains(rel, "/subagents/") && !layout.InWorkflowRun(rel) {
					legacy++
				}
				if path.Base(rel) == layout.Journal {
					journals++
				}
			}
			sort.Strings(twice)
			if len(twice) > 0 {
				t.Errorf("%s, %d jobs: %d of %d files decoded more than once: %q", root, jobs, len(twice), len(decoded), twice)
			}
			files += len(decoded)
		}
	}
	if files == 0 || legacy == 0 || streams == 0 || journals == 0 {
		t.Fatalf("%d files, %d legacy agent files, %d .jsonl streams, %d journals decoded: the test counts too little", files, legacy, streams, journals)
	}
	t.Logf("%d files counted over the loads: %d legacy agent files, %d journals, %d .jsonl streams", files, legacy, journals, streams)
}

// TestLegacyPastBudgetReadTwice (issue 30): the one case where a legacy
// agent file is decoded twice is past the budget of kept readings
// (keepBytes): with none kept, each agent file beside a session is decoded
// by the grouping and again by its session's run or the orphan runs, and
// every other file once; the outputs are the same
// (TestKeptReadingsChangeNothing).
func TestLegacyPastBudgetReadTwice(t *testing.T) {
	on := keepBytes
	defer func() { keepBytes = on }()
	keepBytes = 0
	root := legacyFolder(t)
	for _, jobs := range []int{1, 2} {
		decoded := countDecodes(t, root, jobs)
		for rel, n := range decoded {
			want := 1
			if strings.HasPrefix(rel, "agent-") {
				want = 2
			}
			if n != want {
				t.Errorf("%d jobs, no budget: %s decoded %d times, want %d", jobs, rel, n, want)
			}
		}
		if len(decoded) != 9 {
			t.Errorf("%d jobs: %d files decoded, want 9: %v", jobs, len(decoded), decoded)
		}
	}
}

// TestSessionTargetDecodesEachFileOnce (issue 30): a session file given
// alone is read with the legacy agent files beside it (willRead), and its
// linking groups them by session id (sessionsBeside) from those readings:
// each file is decoded once, in the generated legacy folders and the
// corpus's folders of legacy agent files.
func TestSessionTargetDecodesEachFileOnce(t *testing.T) {
	dirs := []string{legacyFolder(t), junkBesideFolder(t)}
	if c := testcorpus.Dir(t); c != "" {
		err := filepath.WalkDir(c, func(p string, d os.DirEntry, err error) error {
			if err != nil || !d.IsDir() {
				return err
			}
			if agents, _ := filepath.Glob(filepath.Join(p, "agent-*.jsonl")); len(agents) > 0 {
				dirs = append(dirs, p)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	sessions := 0
	for _, dir := range dirs {
		files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if strings.HasPrefix(filepath.Base(f), "agent-") {
				continue
			}
			sessions++
			for _, jobs := range []int{1, 2} {
				for rel, n := range countDecodes(t, f, jobs) {
					if n != 1 {
						t.Errorf("%s, %d jobs: %s decoded %d times, want once", f, jobs, rel, n)
					}
				}
			}
		}
	}
	if sessions < 4 {
		t.Fatalf("%d sessions beside legacy agent files given: the test counts too little", sessions)
	}
}

// BenchmarkLoadLargeLegacyAgentsBeside (issue 30): 100 sessions, each with
// a legacy agent file of about 190 KB beside it (the corpus's
// agent-ea02459f), and 100 small agent files whose session is not there
// (orphans). The grouping by session id read every agent file, and the
// sessions' runs read the large ones again and the orphan runs the small
// ones; each is decoded once now.
func BenchmarkLoadLargeLegacyAgentsBeside(b *testing.B) {
	dir := b.TempDir()
	row := func(sid, uuid, text string, side bool) string {
		s := ""
		if side {
			s = `"isSidechain":true,`
		}
		return fmt.Sprintf(`{"type":"user","uuid":%q,"sessionId":%q,%s"timestamp":"2026-05-07T09:00:01Z","message":{"role":"user","content":%q}}`+"\n", uuid, sid, s, text)
	}
	write := func(name, data string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	for i := range 100 {
		sid := fmt.Sprintf("f0000000-0000-4000-8000-%012d", i)
		write(sid+".jsonl", row(sid, fmt.Sprintf("s%d", i), "hi", false))
		var big strings.Builder
		for r := range 90 {
			big.WriteString(row(sid, fmt.Sprintf("a%d-%d", i, r), strings.Repeat("output ", 300), true))
		}
		write(fmt.Sprintf("agent-f%07d.jsonl", i), big.String())
		write(fmt.Sprintf("agent-o%07d.jsonl", i), row("f0000000-0000-4000-8000-00000000dead", fmt.Sprintf("o%d", i), "orphan", true))
	}
	for b.Loop() {
		res, err := Load([]string{dir}, Options{})
		if err != nil || len(res.Runs) != 101 {
			b.Fatalf("%v: %d runs, want 101", err, len(res.Runs))
		}
	}
}
