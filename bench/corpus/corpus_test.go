package corpus

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// files reads every file under dir, by relative path.
func files(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestFleetIsDeterministic: the same arguments write the same bytes.
func TestFleetIsDeterministic(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	for _, d := range []string{a, b} {
		if err := WriteFleet(d, 12); err != nil {
			t.Fatal(err)
		}
	}
	fa, fb := files(t, a), files(t, b)
	if len(fa) == 0 || len(fa) != len(fb) {
		t.Fatalf("%d files vs %d", len(fa), len(fb))
	}
	for p, data := range fa {
		if !bytes.Equal(data, fb[p]) {
			t.Fatalf("%s differs between two runs", p)
		}
	}
}

// TestRowsAreValidJSONWithTheCorpusMix: every row decodes, and the row mix
// stays near the corpus's (tool calls and results ≈ 14 % of rows each).
func TestRowsAreValidJSONWithTheCorpusMix(t *testing.T) {
	dir := t.TempDir()
	if err := WriteFleet(dir, 30); err != nil {
		t.Fatal(err)
	}
	types := map[string]int{}
	rows, sessions, agents := 0, 0, 0
	for p, data := range files(t, dir) {
		switch {
		case strings.HasSuffix(p, ".meta.json"):
			continue
		case strings.Contains(p, "/subagents/"):
			agents++
		default:
			sessions++
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var row struct {
				Type    string `json:"type"`
				Message struct {
					Content json.RawMessage `json:"content"`
				} `json:"message"`
			}
			if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			rows++
			typ := row.Type
			if bytes.Contains(row.Message.Content, []byte(`"type":"tool_result"`)) {
				typ = "tool_result"
			}
			types[typ]++
		}
	}
	if sessions != 30 || agents == 0 {
		t.Fatalf("%d sessions, %d subagent transcripts; want 30 and some", sessions, agents)
	}
	if share := float64(types["tool_result"]) / float64(rows); share < 0.08 || share > 0.25 {
		t.Errorf("tool_result rows are %.0f%% of %d rows; the corpus has 14%%", 100*share, rows)
	}
	if types["progress"] == 0 || types["attachment"] == 0 || types["queue-operation"] == 0 {
		t.Errorf("row mix lacks progress, attachment or queue-operation rows: %v", types)
	}
}

// TestWorkflowSpansScaleTimeOnly: the six-hour and six-minute runs hold the
// same rows apart from their timestamps.
func TestWorkflowSpansScaleTimeOnly(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	if err := WriteWorkflow(a, 6*time.Hour, 2, 20); err != nil {
		t.Fatal(err)
	}
	if err := WriteWorkflow(b, 6*time.Minute, 2, 20); err != nil {
		t.Fatal(err)
	}
	fa, fb := files(t, a), files(t, b)
	if len(fa) != len(fb) {
		t.Fatalf("%d files vs %d", len(fa), len(fb))
	}
	same, differ := 0, 0
	for p := range fa {
		if bytes.Equal(fa[p], fb[p]) {
			same++
		} else if len(fa[p]) == len(fb[p]) {
			differ++ // only timestamps (same width) differ
		} else {
			t.Errorf("%s: sizes differ (%d vs %d)", p, len(fa[p]), len(fb[p]))
		}
	}
	if differ == 0 {
		t.Error("no file differs: the span had no effect")
	}
}

// fleetDigest is the SHA-256 of a 12-session fleet (paths and bytes, in path
// order), as written on linux/amd64. The generator uses only correctly
// rounded arithmetic (dexp, dlog, dcos), so every machine must write the
// same; a different digest on another OS or CPU is a determinism bug, not a
// reason to update the constant.
const fleetDigest = "c653a0b03a32ab0580bbff5360f4f7167660e42a08aacf96d7bc748dcdd94a89"

func TestFleetIsTheSameOnEveryMachine(t *testing.T) {
	dir := t.TempDir()
	if err := WriteFleet(dir, 12); err != nil {
		t.Fatal(err)
	}
	fs := files(t, dir)
	paths := make([]string, 0, len(fs))
	for p := range fs {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	h := sha256.New()
	for _, p := range paths {
		fmt.Fprintf(h, "%s\x00%d\x00", p, len(fs[p]))
		h.Write(fs[p])
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != fleetDigest {
		t.Errorf("fleet digest %s, want %s: the generator is not byte-identical across machines", got, fleetDigest)
	}
}
