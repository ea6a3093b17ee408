package analyze

import (
	"bytes"
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/pmcheck/pmcheck/analyze/load"
	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/internal/testcorpus"
)

// A run that exists both as a session folder and as an Agent SDK message
// stream has the same facts, findings and replay whichever is given. The
// stream is generated from each corpus (and fixture) session with
// subagents, the way the SDK writes one: every user and assistant row
// becomes a message with session_id, tool_use_result and, for a
// subagent's rows, parent_tool_use_id naming the call that ran it; the
// rows a stream does not carry (queue operations, progress, summaries,
// snapshots) are left out of both, so that the mapping is exact. The
// facts are compared with their file and line masked (the two point into
// different files) and the stream's own run fields left out.
func TestStreamAndSessionFolderAgree(t *testing.T) {
	roots := []string{filepath.Join("..", "fixtures", "runs")}
	if dir := testcorpus.Dir(t); dir != "" {
		roots = append(roots, dir)
	}
	compared, withAgents := 0, 0
	var skipped []string
	for _, root := range roots {
		res, err := Load([]string{root}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, run := range res.Runs {
			if run.Kind != model.KindSession || run.Runtime != nil || len(run.Subagents) == 0 || run.Main == nil {
				continue
			}
			if len(run.Launches) > 0 || hasCopies(run) {
				continue // Workflow runs and resume copies live in other files than the stream
			}
			if !oneCwd(run) || !besideMain(run) || hasMarks(run) {
				// A subagent in its own worktree: its rows name their
				// directory, a stream's messages do not (only the init
				// message does), so its relative paths differ. Or an
				// agent file found elsewhere under the root, which a
				// copy of the session's folder does not hold. Or the
				// resume gate's segment marks: they are read only from
				// the SessionStart hook's rows, with the row's CLI
				// version, which a stream does not carry.
				skipped = append(skipped, run.Path)
				continue
			}
			dir := t.TempDir()
			folder, stream := writeBoth(t, root, run, dir)
			a := loadOnly(t, folder)
			b := loadOnly(t, stream)
			if a == nil || b == nil {
				t.Fatalf("%s: session folder gave %v, stream %v", run.Path, a != nil, b != nil)
			}
			if b.Runtime == nil || b.Runtime.Format != "jsonl" {
				t.Fatalf("%s: the generated stream was not read as a stream", run.Path)
			}
			fa := Facts([]*model.Run{a}, FactsOptions{})[0]
			fb := Facts([]*model.Run{b}, FactsOptions{})[0]
			branch := fa.Run.Branch
			fa, fb = maskFacts(fa, branch), maskFacts(fb, branch)
			if !reflect.DeepEqual(fa, fb) {
				ja, _ := json.MarshalIndent(fa, "", " ")
				jb, _ := json.MarshalIndent(fb, "", " ")
				t.Fatalf("%s: facts differ between the session folder and the stream:\n%s", run.Path, firstDiff(string(ja), string(jb)))
			}
			compared++
			if len(b.Agents) > 0 {
				withAgents++
			}
		}
	}
	t.Logf("%d sessions compared, %d with subagent transcripts; not exact (a subagent in another directory, segment marks): %v", compared, withAgents, skipped)
	if withAgents == 0 {
		t.Fatal("no session with subagent transcripts was compared: the test checks nothing")
	}
}

func hasMarks(run *model.Run) bool {
	for _, t := range append([]*model.Transcript{run.Main}, run.Agents...) {
		if len(t.Marks) > 0 {
			return true
		}
	}
	return false
}

func besideMain(run *model.Run) bool {
	dir := path.Dir(run.Main.File)
	for _, a := range run.Agents {
		if !strings.HasPrefix(a.File, dir+"/") {
			return false
		}
	}
	return true
}

func oneCwd(run *model.Run) bool {
	for _, a := range run.Agents {
		if a.Cwd != run.Main.Cwd {
			return false
		}
	}
	return true
}

func hasCopies(run *model.Run) bool {
	for _, sc := range run.Subagents {
		if sc.Call != nil && sc.Call.Copied() {
			return true
		}
	}
	return run.Main.Copied > 0
}

func loadOnly(t *testing.T, path string) *model.Run {
	t.Helper()
	res, err := Load([]string{path}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Runs) != 1 {
		t.Fatalf("%s: %d runs, want 1 (%v %v)", path, len(res.Runs), res.Errors, res.Untrusted)
	}
	return res.Runs[0]
}

// streamRow is a session row as the SDK would stream it, or nil for a row
// a stream does not carry.
func streamRow(line []byte, parent string) []byte {
	var r map[string]json.RawMessage
	if json.Unmarshal(line, &r) != nil {
		return nil
	}
	var typ string
	json.Unmarshal(r["type"], &typ)
	if typ != "user" && typ != "assistant" {
		return nil
	}
	out := map[string]json.RawMessage{"type": r["type"], "message": r["message"]}
	for _, k := range []string{"uuid", "timestamp", "isApiErrorMessage", "error", "isMeta", "origin"} {
		if v, ok := r[k]; ok {
			out[k] = v
		}
	}
	out["session_id"] = r["sessionId"]
	if v, ok := r["toolUseResult"]; ok {
		out["tool_use_result"] = v
	}
	p := json.RawMessage("null")
	if parent != "" {
		p, _ = json.Marshal(parent)
	}
	out["parent_tool_use_id"] = p
	b, _ := json.Marshal(out)
	return b
}

// sessionRow keeps a session row the stream carries too.
func sessionRow(line []byte) []byte {
	if streamRow(line, "") == nil {
		return nil
	}
	return line
}

// writeBoth writes run as a session folder (its message rows only) and as
// a stream, and returns the two paths.
func writeBoth(t *testing.T, root string, run *model.Run, dir string) (folder, stream string) {
	t.Helper()
	parentOf := map[string]string{} // child file -> tool use id
	for _, sc := range run.Subagents {
		if sc.Child != nil {
			parentOf[sc.Child.File] = sc.ToolUseID
		}
	}
	files := append([]*model.Transcript{run.Main}, run.Agents...)
	folder = filepath.Join(dir, "session")
	type msg struct {
		ts   string
		file int
		n    int
		data []byte
	}
	var msgs []msg
	for fi, tr := range files {
		parent := ""
		if fi > 0 {
			p, ok := parentOf[tr.File]
			if !ok {
				continue // an agent no call ran: not in a stream
			}
			parent = p
		}
		src := filepath.Join(root, strings.TrimPrefix(tr.File, load.DisplayRoot(root)+"/"))
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		var kept [][]byte
		for i, line := range bytes.Split(data, []byte("\n")) {
			line = bytes.TrimSpace(line)
			if len(line) == 0 {
				continue
			}
			if s := sessionRow(line); s != nil {
				kept = append(kept, s)
				var r struct {
					Timestamp string `json:"timestamp"`
				}
				json.Unmarshal(line, &r)
				msgs = append(msgs, msg{r.Timestamp, fi, i, streamRow(line, parent)})
			}
		}
		rel, err := filepath.Rel(filepath.Dir(filepath.Join(root, strings.TrimPrefix(run.Main.File, load.DisplayRoot(root)+"/"))), src)
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(folder, rel)
		os.MkdirAll(filepath.Dir(out), 0o755)
		if err := os.WriteFile(out, append(bytes.Join(kept, []byte("\n")), '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The stream interleaves the files by time, each file's rows in order:
	// the head with the earliest timestamp goes next (the parent's first).
	byFile := map[int][]msg{}
	for _, m := range msgs {
		byFile[m.file] = append(byFile[m.file], m)
	}
	// The init message says what session rows repeat: the working
	// directory and the CLI version.
	var b bytes.Buffer
	init, _ := json.Marshal(map[string]string{"type": "system", "subtype": "init", "cwd": run.Main.Cwd, "session_id": run.Main.SessionID,
		"claude_code_version": run.Main.Version, "uuid": "init-" + run.Main.SessionID})
	b.Write(init)
	b.WriteByte('\n')
	for {
		best := -1
		for fi := range files {
			q := byFile[fi]
			if len(q) == 0 {
				continue
			}
			if best < 0 || q[0].ts != "" && byFile[best][0].ts != "" && q[0].ts < byFile[best][0].ts {
				best = fi
			}
		}
		if best < 0 {
			break
		}
		b.Write(byFile[best][0].data)
		b.WriteByte('\n')
		byFile[best] = byFile[best][1:]
	}
	stream = filepath.Join(dir, "run.jsonl")
	if err := os.WriteFile(stream, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return folder, stream
}

// maskFacts drops what differs by construction: files and lines, the run's
// path, the branch (session rows carry gitBranch, stream messages do not:
// the run's, and a push's that names none),
// and the stream's own run fields.
func maskFacts(f model.Facts, branch string) model.Facts {
	ev := func(e *model.Evidence) { e.File, e.Line = "", 0 }
	rs := func(rs []model.Reason) {
		for i := range rs {
			ev(&rs[i].At)
		}
	}
	r := f.Run
	f.Run = model.RunFact{Kind: r.Kind, ID: r.ID, Agents: r.Agents, Attempts: r.Attempts, Verdict: r.Verdict, Start: r.Start, End: r.End,
		Segments: r.Segments, Malformed: r.Malformed, Shipped: r.Shipped, At: r.At} // no gitBranch in a stream
	ev(&f.Run.At)
	f.Subagents = slices.Clone(f.Subagents)
	for i := range f.Subagents {
		ev(&f.Subagents[i].At)
		f.Subagents[i].ReviewEvidence = slices.Clone(f.Subagents[i].ReviewEvidence)
		for j, e := range f.Subagents[i].ReviewEvidence {
			f.Subagents[i].ReviewEvidence[j] = evidenceAt.ReplaceAllString(e, " at FILE:LINE")
		}
		f.Subagents[i].Reasons = slices.Clone(f.Subagents[i].Reasons)
		rs(f.Subagents[i].Reasons)
	}
	f.Ships = slices.Clone(f.Ships)
	for i := range f.Ships {
		ev(&f.Ships[i].At)
		if f.Ships[i].Branch == branch {
			f.Ships[i].Branch = "" // a push that names none pushed the row's gitBranch
		}
	}
	f.Watchdogs = slices.Clone(f.Watchdogs)
	for i := range f.Watchdogs {
		ev(&f.Watchdogs[i].At)
	}
	return f
}

// evidenceAt is a file:line a fact's text names.
var evidenceAt = regexp.MustCompile(` at \S+:\d+`)

func firstDiff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			lo := max(0, i-8)
			return "session folder:\n" + strings.Join(la[lo:min(len(la), i+4)], "\n") + "\nstream:\n" + strings.Join(lb[lo:min(len(lb), i+4)], "\n")
		}
	}
	return "lengths differ"
}
