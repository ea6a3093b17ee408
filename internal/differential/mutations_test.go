package differential_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pmcheck/pmcheck/analyze"
	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/analyze/replay"
)

// sessionFiles are the main transcripts of root's session runs (OS paths).
func sessionFiles(t *testing.T, root string) []string {
	t.Helper()
	res, err := analyze.Load([]string{root}, analyze.Options{})
	if err != nil {
		return nil
	}
	var out []string
	for _, run := range res.Runs {
		// The hooks read Claude Code's own transcripts (JSON lines); an
		// Agent SDK stream or another input check reads has no hook.
		if run.Kind == model.KindSession && run.Main != nil && run.Main.Rows > 0 && strings.HasSuffix(run.Main.File, ".jsonl") {
			out = append(out, run.Main.File)
		}
	}
	return out
}

// lines splits a file into its lines, each with its newline.
func lines(t *testing.T, file string) [][]byte {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			out = append(out, append(data[:len(data):len(data)], '\n'))
			break
		}
		out = append(out, data[:i+1])
		data = data[i+1:]
	}
	return out
}

// session writes a session transcript made of rows beside a copy of the
// original's session folder, in a new folder, and returns its path.
func session(t *testing.T, original string, rows [][]byte) string {
	t.Helper()
	dir := t.TempDir()
	p := filepath.Join(dir, filepath.Base(original))
	if err := os.WriteFile(p, bytes.Join(rows, nil), 0o644); err != nil {
		t.Fatal(err)
	}
	folder := strings.TrimSuffix(original, ".jsonl")
	if st, err := os.Stat(folder); err == nil && st.IsDir() {
		copyTree(t, folder, filepath.Join(dir, filepath.Base(folder)))
	}
	return p
}

var timestampRE = regexp.MustCompile(`"timestamp":"([^"]+)"`)

const probeCommand = "git push origin HEAD"

// probe is a push row appended after rows: the ship action check judges
// where the hook would be asked.
func probe(rows [][]byte, sessionID string) []byte {
	ts := ""
	for i := len(rows) - 1; i >= 0 && ts == ""; i-- {
		if m := timestampRE.FindAllSubmatch(rows[i], -1); len(m) > 0 {
			ts = string(m[len(m)-1][1])
		}
	}
	row := `{"type":"assistant","uuid":"d1ff0000-0000-4000-8000-000000000001","parentUuid":null,"sessionId":` + strconv.Quote(sessionID)
	if ts != "" {
		row += `,"timestamp":` + strconv.Quote(ts)
	}
	row += `,"message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_differential_probe","name":"Bash","input":{"command":` +
		strconv.Quote(probeCommand) + `}}]}}` + "\n"
	return []byte(row)
}

// checkAtProbe runs check's engine over the session at path and returns
// the names outstanding at its last row's push (ok false: no ship fact
// there).
func checkAtProbe(t *testing.T, path string, line int) ([]string, bool) {
	t.Helper()
	res, err := analyze.Load([]string{path}, analyze.Options{})
	if err != nil {
		t.Fatal(err)
	}
	facts := analyze.Facts(res.Runs, analyze.FactsOptions{})
	for i, run := range res.Runs {
		if run.Kind != model.KindSession || run.Main == nil {
			continue
		}
		for _, f := range facts[i].Ships {
			if f.At.File == run.Main.File && f.At.Line == line {
				return f.OutstandingKilled, true
			}
		}
	}
	return nil, false
}

// cuts are the prefixes of a transcript of n rows the test looks at:
// every one for a short transcript, about max evenly spread for a long one,
// always the whole file.
func cuts(n, max int) []int {
	var out []int
	step := 1
	if n > max {
		step = (n + max - 1) / max
	}
	for k := 1; k < n; k += step {
		out = append(out, k)
	}
	return append(out, n)
}

// TestHookAgreesOnEveryPrefix is the state a hook sees mid-run: for each
// prefix of every session transcript (every one in the fixtures, about 12
// of each corpus session), check's ship fact for a push appended after the
// prefix lists exactly what `hook pre-tool-use` asks about for that push
// given the prefix, and `hook session-start` on the prefix warns about the
// same subagents.
func TestHookAgreesOnEveryPrefix(t *testing.T) {
	compared, asked := 0, 0
	for _, root := range roots(t) {
		max := 1 << 30
		if !strings.HasPrefix(root, fixtures) {
			max = 12
		}
		for _, file := range sessionFiles(t, root) {
			rows := lines(t, file)
			sid := strings.TrimSuffix(filepath.Base(file), ".jsonl")
			for _, k := range cuts(len(rows), max) {
				withProbe := session(t, file, append(append([][]byte(nil), rows[:k]...), probe(rows[:k], sid)))
				want, ok := checkAtProbe(t, withProbe, k+1)
				if !ok {
					t.Errorf("%s: check finds no push in the probe row after row %d", file, k)
					continue
				}
				p := session(t, file, rows[:k])
				ask, names := preToolUse(t, p, "Bash", probeCommand)
				compared++
				if ask {
					asked++
				}
				want = capped(withMarkOnly(t, p, want))
				if ask != (len(want) > 0) || ask && !sameSet(names, want) {
					t.Errorf("%s after row %d: check has outstanding %q, the hook asks=%v naming %q", file, k, want, ask, names)
					continue
				}
				if warned := sessionStart(t, p); !sameSet(warned, capped(withoutMarkOnly(t, p, want))) {
					t.Errorf("%s after row %d: the hook asks about %q, its resume warning names %q", file, k, want, warned)
				}
			}
		}
	}
	t.Logf("compared %d prefixes, %d asks", compared, asked)
	if compared < 500 || asked < 20 {
		t.Fatalf("compared %d prefixes and %d asks: the test is not looking at the fixtures", compared, asked)
	}
}

// TestHookAgreesOnMutatedRows: every fixture session with a row dropped,
// and with a row duplicated (a resume's copy, a retried write), still has
// the hook and check agree at every ship row.
func TestHookAgreesOnMutatedRows(t *testing.T) {
	compared := 0
	entries, err := os.ReadDir(fixtures)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		root := filepath.Join(fixtures, e.Name())
		for _, file := range sessionFiles(t, root) {
			rows := lines(t, file)
			if len(shipRowsOf(t, file)) == 0 {
				continue // nothing to ask about, whatever a row says
			}
			for i := range rows {
				for _, m := range []struct {
					name string
					rows [][]byte
				}{
					{"dropped", append(append([][]byte(nil), rows[:i]...), rows[i+1:]...)},
					{"duplicated", append(append(append([][]byte(nil), rows[:i+1]...), rows[i]), rows[i+1:]...)},
				} {
					p := session(t, file, m.rows)
					for _, r := range shipRowsOf(t, p) {
						compared++
						pre := prefix(t, r.file, r.line)
						ask, names := preToolUse(t, pre, r.tool, r.command)
						want := capped(withMarkOnly(t, pre, r.outstanding))
						if ask != (len(want) > 0) || ask && !sameSet(names, want) {
							t.Errorf("%s with row %d %s, ship row %d: check has outstanding %q, the hook asks=%v naming %q",
								file, i+1, m.name, r.line, want, ask, names)
						}
					}
				}
			}
		}
	}
	t.Logf("compared %d ship rows of mutated sessions", compared)
	if compared < 100 {
		t.Fatalf("compared %d ship rows: the test is not looking at the fixtures", compared)
	}
}

// shipRowsOf is shipRows for one session transcript.
func shipRowsOf(t *testing.T, file string) []shipRow { return shipRows(t, file) }

// TestReplayEndsEachAttemptAsCheckDoes: for every Workflow run of the
// fixtures and the corpus, and for each journal with one line moved one
// place down, replay's terminal event for each attempt (KILL, FAILED, OK)
// is check's attempt outcome (killed, failed, completed; none for open).
// The deliberate differences (docs/architecture.md) are skipped: watch's
// fallback KILL for an attempt whose transcript never appeared, and a KILL
// printed before a journal line read later closed the attempt (a live
// watch cannot see the future; check reads the whole journal).
func TestReplayEndsEachAttemptAsCheckDoes(t *testing.T) {
	attempts := 0
	for _, root := range roots(t) {
		for _, dir := range workflowDirs(t, root) {
			journal := filepath.Join(dir, "journal.jsonl")
			jl := lines(t, journal)
			variants := [][][]byte{jl}
			if strings.HasPrefix(root, fixtures) {
				for i := 0; i+1 < len(jl); i++ {
					v := append([][]byte(nil), jl...)
					v[i], v[i+1] = v[i+1], v[i]
					variants = append(variants, v)
				}
			}
			for vi, v := range variants {
				runDir := dir
				if vi > 0 {
					runDir = t.TempDir()
					copyTree(t, dir, runDir)
					if err := os.WriteFile(filepath.Join(runDir, "journal.jsonl"), bytes.Join(v, nil), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				attempts += compareAttempts(t, runDir, fmt.Sprintf("%s (variant %d)", dir, vi))
			}
		}
	}
	t.Logf("compared %d attempts", attempts)
	if attempts < 100 {
		t.Fatalf("compared %d attempts: the test is not looking at the fixtures", attempts)
	}
}

func workflowDirs(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == "journal.jsonl" {
			out = append(out, filepath.Dir(p))
		}
		return nil
	})
	return out
}

func compareAttempts(t *testing.T, runDir, name string) int {
	t.Helper()
	res, err := analyze.Load([]string{runDir}, analyze.Options{})
	if err != nil {
		return 0
	}
	facts := analyze.Facts(res.Runs, analyze.FactsOptions{})
	n := 0
	for i, run := range res.Runs {
		if run.Kind != model.KindWorkflow || run.Journal == nil {
			continue
		}
		rep := analyze.ReplayWorkflow(run, analyze.ReplayConfig{})
		terminal := map[string][]string{}
		for _, e := range rep.Outcome.Events {
			switch e.Kind {
			case replay.KindKill, replay.KindFailed, replay.KindOK:
				id := e.Key + "#" + strconv.Itoa(e.Attempt)
				terminal[id] = append(terminal[id], e.Kind)
			}
		}
		if rep.Outcome.Verdict == "" || strings.Contains(strings.Join(eventKinds(rep.Outcome.Events), " "), replay.KindLimit) {
			continue // the watch stopped before the journal's end
		}
		// watch exits at DONE (or LIMIT): a journal line written after it
		// was never read, and the attempt it decides is not compared.
		endAt := rep.Outcome.Events[len(rep.Outcome.Events)-1].At
		lineAt := map[int]time.Time{}
		for _, l := range rep.World.Lines {
			lineAt[l.Where.Line] = l.At
		}
		byKey := map[string]*model.Attempt{}
		for _, a := range run.Attempts {
			byKey[a.Key+"#"+strconv.Itoa(a.Ordinal)] = a
		}
		decidedBy := func(a *model.Attempt) int {
			switch {
			case a.Closed != nil:
				return a.Closed.Line
			case a.SupersededBy > 0 && byKey[a.Key+"#"+strconv.Itoa(a.SupersededBy)] != nil:
				return byKey[a.Key+"#"+strconv.Itoa(a.SupersededBy)].Started.Line
			}
			return a.Started.Line
		}
		byAttempt := map[string]model.AttemptFact{}
		for _, f := range facts[i].Attempts {
			byAttempt[f.Key+"#"+strconv.Itoa(f.Ordinal)] = f
		}
		for _, a := range run.Attempts {
			id := a.Key + "#" + strconv.Itoa(a.Ordinal)
			if lineAt[decidedBy(a)].After(endAt) {
				continue
			}
			f := byAttempt[id]
			want := map[string]string{model.OutcomeKilled: replay.KindKill, model.OutcomeFailed: replay.KindFailed, model.OutcomeCompleted: replay.KindOK}[f.Outcome]
			got := terminal[id]
			if a.Transcript == nil && len(got) > 0 && got[0] == replay.KindKill {
				got = got[1:] // watch's fallback KILL
			}
			if len(got) == 2 && got[0] == replay.KindKill && a.Closed != nil {
				got = got[1:] // killed as watch saw it, closed by a line read later
			}
			n++
			if (want == "") != (len(got) == 0) || want != "" && (len(got) != 1 || got[0] != want) {
				t.Errorf("%s: attempt %s: check says %q, replay prints %q", name, id, f.Outcome, got)
			}
		}
	}
	return n
}

func eventKinds(es []replay.Event) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Kind)
	}
	return out
}
