package analyze

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
