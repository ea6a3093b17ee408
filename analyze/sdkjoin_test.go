package analyze

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pmcheck/pmcheck/analyze/model"
)

// A stream given with its session's files is one run, not two: the
// session files' run with the stream's runtime account; a row in one and
// not the other is named.
func TestStreamJoinsItsSessionFiles(t *testing.T) {
	root := filepath.Join("..", "fixtures", "runs", "session-sync-and-async")
	run := loadOnly(t, root)
	dir := t.TempDir()
	folder, stream := writeBoth(t, root, run, dir)
	_ = folder

	res, err := Load([]string{dir}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Runs) != 1 {
		t.Fatalf("%d runs from the session folder and its stream, want 1", len(res.Runs))
	}
	joined := res.Runs[0]
	if joined.Runtime == nil || len(joined.Runtime.SessionFiles) == 0 || !strings.HasSuffix(joined.Path, ".jsonl") || strings.HasSuffix(joined.Path, "run.jsonl") {
		t.Fatalf("run %s: runtime %+v; want the session file's run with the stream's runtime", joined.Path, joined.Runtime)
	}
	if len(joined.Runtime.Disagreements) != 0 {
		t.Errorf("the same rows both ways, yet: %+v", joined.Runtime.Disagreements)
	}
	f := Facts(res.Runs, FactsOptions{})[0]
	if f.Run.Source != "sdk-stream+session-files" {
		t.Errorf("source %q", f.Run.Source)
	}

	// One message fewer in the stream: named.
	data, err := os.ReadFile(stream)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSpace(data), []byte("\n"))
	if err := os.WriteFile(stream, append(bytes.Join(lines[:len(lines)-1], []byte("\n")), '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err = Load([]string{dir}, Options{})
	if err != nil || len(res.Runs) != 1 {
		t.Fatalf("%v, %d runs", err, len(res.Runs))
	}
	d := res.Runs[0].Runtime.Disagreements
	if len(d) != 1 || !strings.Contains(d[0].Message, "is not in the stream") || d[0].At.Line == 0 || !strings.HasSuffix(d[0].At.File, ".jsonl") || strings.HasSuffix(d[0].At.File, "run.jsonl") {
		t.Fatalf("disagreements %+v; want the session file's row the stream lost, by file and line", d)
	}
	if len(res.Runs[0].Problems) == 0 {
		t.Errorf("the disagreement is not among the run's problems, which the report lists")
	}
}

// Given as different inputs (the execution file by name and the runner's
// projects folder, or the session file by name), or falling in different
// shards of one root, a stream and its session's files are still one run.
func TestStreamJoinsAcrossInputsAndShards(t *testing.T) {
	root := filepath.Join("..", "fixtures", "runs", "session-sync-and-async")
	run := loadOnly(t, root)
	dir := t.TempDir()
	folder, stream := writeBoth(t, root, run, dir)
	session := filepath.Join(folder, filepath.Base(run.Main.File))
	oneJoined := func(what string, runs []*model.Run) {
		t.Helper()
		if len(runs) != 1 {
			t.Fatalf("%s: %d runs, want the one joined run", what, len(runs))
		}
		r := runs[0]
		if r.Runtime == nil || len(r.Runtime.SessionFiles) == 0 || strings.HasSuffix(r.Path, "run.jsonl") {
			t.Fatalf("%s: run %s, runtime %+v; want the session file's run with the stream's runtime", what, r.Path, r.Runtime)
		}
		if f := Facts(runs, FactsOptions{})[0]; f.Run.Source != "sdk-stream+session-files" {
			t.Errorf("%s: source %q", what, f.Run.Source)
		}
	}
	for _, paths := range [][]string{{stream, folder}, {folder, stream}, {stream, session}, {session, stream}, {dir, stream}} {
		res, err := Load(paths, Options{})
		if err != nil {
			t.Fatal(err)
		}
		oneJoined(strings.Join(paths, " "), res.Runs)
	}
	// Sharded: run.jsonl and session/ have different shard keys; find a
	// count that puts them in different shards.
	n := 0
	for c := 2; c < 16 && n == 0; c++ {
		for i := range c {
			sh := Shard{Index: i, Count: c}
			if sh.Has("run.jsonl") != sh.Has("session/x.jsonl") {
				n = c
				break
			}
		}
	}
	if n == 0 {
		t.Fatal("no shard count separates the stream from its session")
	}
	var runs []*model.Run
	for i := range n {
		res, err := Load([]string{dir}, Options{Shard: Shard{Index: i, Count: n}})
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, res.Runs...)
	}
	oneJoined(fmt.Sprintf("%d shards", n), runs)
}
