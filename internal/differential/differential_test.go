package differential_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pmcheck/pmcheck/analyze"
	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/hook"
	"github.com/pmcheck/pmcheck/internal/testcorpus"
)

const fixtures = "../../fixtures/runs"

// roots are every fixture folder and, when PMCHECK_CORPUS is set, every
// corpus folder.
func roots(t *testing.T) []string {
	t.Helper()
	var out []string
	entries, err := os.ReadDir(fixtures)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, filepath.Join(fixtures, e.Name()))
		}
	}
	if dir := testcorpus.Dir(t); dir != "" {
		cs, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range cs {
			if e.IsDir() {
				out = append(out, filepath.Join(dir, e.Name()))
			}
		}
	}
	return out
}

// shipRow is one row of a session transcript whose tool call check reads as
// one or more ship actions, with what check found outstanding there.
type shipRow struct {
	file    string // the session transcript (an OS path)
	line    int
	tool    string
	command string
	// outstanding are the names check's ship facts list at the row (the
	// rule ship-while-killed-outstanding reports the row when any).
	outstanding []string
}

// shipRows runs check's engine over root and lists the ship rows of its
// session transcripts.
func shipRows(t *testing.T, root string) []shipRow {
	t.Helper()
	res, err := analyze.Load([]string{root}, analyze.Options{})
	if err != nil {
		return nil // inputs that fail to load are other tests' business
	}
	facts := analyze.Facts(res.Runs, analyze.FactsOptions{})
	var out []shipRow
	for i, run := range res.Runs {
		// The hooks read Claude Code's own transcripts (JSON lines); an
		// Agent SDK stream or another input check reads has no hook.
		if run.Kind != model.KindSession || run.Main == nil || !strings.HasSuffix(run.Main.File, ".jsonl") {
			continue
		}
		byLine := map[int]*shipRow{}
		for _, f := range facts[i].Ships {
			if f.At.File != run.Main.File {
				continue
			}
			r := byLine[f.At.Line]
			if r == nil {
				r = &shipRow{file: f.At.File, line: f.At.Line, tool: f.Tool}
				for _, c := range run.Main.ToolCalls {
					if c.At().Line == f.At.Line && c.Name() == f.Tool {
						r.command = c.Command()
						break
					}
				}
				byLine[f.At.Line] = r
			}
			for _, n := range f.OutstandingKilled {
				if !slices.Contains(r.outstanding, n) {
					r.outstanding = append(r.outstanding, n)
				}
			}
		}
		for _, r := range byLine {
			out = append(out, *r)
		}
	}
	slices.SortFunc(out, func(a, b shipRow) int {
		if a.file != b.file {
			return strings.Compare(a.file, b.file)
		}
		return a.line - b.line
	})
	return out
}

// prefix copies the session transcript's rows above line (what the file
// held when the call on that line was about to run) into a new folder,
// beside a copy of the session's own folder (its subagents and Workflow
// runs), and returns the copy's path.
func prefix(t *testing.T, file string, line int) string {
	t.Helper()
	dir := t.TempDir()
	base := filepath.Base(file)
	src, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var b bytes.Buffer
	r := bufio.NewReader(src)
	for n := 1; n < line; n++ {
		l, err := r.ReadBytes('\n')
		b.Write(l)
		if err != nil {
			break
		}
	}
	dst := filepath.Join(dir, base)
	if err := os.WriteFile(dst, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	session := strings.TrimSuffix(file, ".jsonl")
	if st, err := os.Stat(session); err == nil && st.IsDir() {
		copyTree(t, session, filepath.Join(dir, filepath.Base(session)))
	}
	return dst
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		target := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// askReason is the permissionDecisionReason's list: "…outstanding: A; B. They were…".
const (
	reasonHead = "unreviewed subagent work outstanding: "
	reasonTail = ". They were terminated early"
)

// preToolUse runs the hook on the transcript at path with the call, and
// returns whether it asks and the subagents it names.
func preToolUse(t *testing.T, path, tool, command string) (bool, []string) {
	t.Helper()
	in := map[string]any{"transcript_path": path, "cwd": "", "hook_event_name": "PreToolUse", "tool_name": tool,
		"tool_input": map[string]any{"command": command}}
	payload, _ := json.Marshal(in)
	res := hook.PreToolUse(bytes.NewReader(payload), hook.Config{})
	if res.Exit != hook.ExitOK {
		t.Fatalf("%s: hook pre-tool-use exit %d: %s", path, res.Exit, res.Stderr)
	}
	if len(res.Stdout) == 0 {
		return false, nil
	}
	var out struct {
		Hook struct {
			Decision string `json:"permissionDecision"`
			Reason   string `json:"permissionDecisionReason"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal(res.Stdout, &out); err != nil {
		t.Fatalf("%s: hook output %q: %v", path, res.Stdout, err)
	}
	if out.Hook.Decision != "ask" {
		return false, nil
	}
	reason := out.Hook.Reason
	i, j := strings.Index(reason, reasonHead), strings.Index(reason, reasonTail)
	if i < 0 || j < i {
		t.Fatalf("%s: reason %q does not list the items", path, reason)
	}
	return true, strings.Split(reason[i+len(reasonHead):j], "; ")
}

// sessionStart runs the resume hook on the transcript at path and returns
// the subagents its warning names (none when it only writes a mark or is
// silent).
func sessionStart(t *testing.T, path string) []string {
	t.Helper()
	payload, _ := json.Marshal(map[string]any{"transcript_path": path, "cwd": "", "hook_event_name": "SessionStart", "source": "resume"})
	res := hook.SessionStart(bytes.NewReader(payload), hook.Config{})
	if res.Exit != hook.ExitOK {
		t.Fatalf("%s: hook session-start exit %d: %s", path, res.Exit, res.Stderr)
	}
	if len(res.Stdout) == 0 {
		return nil
	}
	var out struct {
		Hook struct {
			Context string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal(res.Stdout, &out); err != nil {
		t.Fatalf("%s: hook output %q: %v", path, res.Stdout, err)
	}
	var items []string
	for l := range strings.SplitSeq(out.Hook.Context, "\n") {
		if strings.HasPrefix(l, "Work that exists") || strings.HasPrefix(l, "Treat that output") {
			break
		}
		if s, ok := strings.CutPrefix(l, "  - "); ok {
			items = append(items, s)
		}
	}
	return items
}

// capped is how the hook lists names: at most 20, each cut to 200 bytes.
func capped(names []string) []string {
	out := []string{}
	for i, n := range names {
		if i == 20 {
			break
		}
		n = strings.Join(strings.Fields(n), " ")
		if len(n) > 200 {
			cut := 200
			for cut > 0 && n[cut]&0xC0 == 0x80 {
				cut--
			}
			n = n[:cut] + "…"
		}
		out = append(out, n)
	}
	return out
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(slices.Compact(a), slices.Compact(b))
}

// TestHookAsksExactlyWhenCheckReports: for every ship action check finds in
// a session transcript, `hook pre-tool-use` given the transcript as it
// stood before that row and the row's command asks exactly when check's
// ship fact has killed subagents outstanding (the rule
// ship-while-killed-outstanding), naming the same subagents; and `hook
// session-start` on the same rows warns about the same subagents. One
// notion of "killed and outstanding" and of review (docs/architecture.md).
func TestHookAsksExactlyWhenCheckReports(t *testing.T) {
	rows, asks := 0, 0
	for _, root := range roots(t) {
		for _, r := range shipRows(t, root) {
			rows++
			p := prefix(t, r.file, r.line)
			ask, names := preToolUse(t, p, r.tool, r.command)
			want := capped(withMarkOnly(t, p, r.outstanding))
			if ask {
				asks++
			}
			if ask != (len(r.outstanding) > 0) || ask && !sameSet(names, want) {
				t.Errorf("%s:%d %q: check has outstanding %q, the hook asks=%v naming %q", r.file, r.line, r.command, want, ask, names)
				continue
			}
			if warned := sessionStart(t, p); !sameSet(warned, capped(withoutMarkOnly(t, p, r.outstanding))) {
				t.Errorf("%s:%d: the hook asks about %q, its resume warning names %q", r.file, r.line, want, warned)
			}
		}
	}
	t.Logf("compared %d ship rows, %d asks", rows, asks)
	if rows < 20 || asks < 5 {
		t.Fatalf("compared %d ship rows and %d asks: the test is not looking at the fixtures", rows, asks)
	}
}

// withMarkOnly is what check lists at a row plus the one deliberate
// difference of the hook's ask (docs/architecture.md): the items of a newest
// mark that decodes which the rows do not show at all.
func withMarkOnly(t *testing.T, path string, names []string) []string {
	t.Helper()
	g, err := analyze.ReadGate(path, analyze.GateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := slices.Clone(names)
	for _, it := range g.MarkOnly() {
		if !slices.Contains(out, it) {
			out = append(out, it)
		}
	}
	return out
}

// withoutMarkOnly is names without the mark-only items (the resume warning
// names what the rows show; its empty mark retracts the rest).
func withoutMarkOnly(t *testing.T, path string, names []string) []string {
	t.Helper()
	g, err := analyze.ReadGate(path, analyze.GateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, n := range names {
		if !slices.Contains(g.MarkOnly(), n) {
			out = append(out, n)
		}
	}
	return out
}
