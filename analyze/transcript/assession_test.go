package transcript

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pmcheck/pmcheck/internal/testcorpus"
)

// TestStreamCountsRowsAsTheSessionReaderDoes (issue 30): whether a .jsonl
// file in a folder is a session or an Agent SDK stream is decided from how
// its rows name their session (load's majority rule), and the loader reads
// a file that starts like a stream with the stream reader only. So the
// stream reader's counts (Stream.AsSession) must be the session reader's
// (Transcript.SDKRows, ClaudeCodeRows) on every file: the fixtures' and
// the corpus's .jsonl files, streams or not, and mixed files that spell
// their session both ways.
func TestStreamCountsRowsAsTheSessionReaderDoes(t *testing.T) {
	var files []string
	add := func(root string) {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
				files = append(files, p)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	add(filepath.Join("..", "..", "fixtures", "runs"))
	if c := testcorpus.Dir(t); c != "" {
		add(c)
	}
	dir := t.TempDir()
	sdk := `{"type":"assistant","session_id":"s1","uuid":"u%d","message":{"role":"assistant","content":[{"type":"text","text":"x"}]}}`
	cc := `{"type":"user","sessionId":"s1","uuid":"c%d","message":{"role":"user","content":"y"}}`
	both := `{"type":"user","sessionId":"s1","session_id":"s1","uuid":"b%d","message":{"role":"user","content":"z"}}`
	for name, rows := range map[string][]string{
		"mostly-sdk.jsonl":       {sdk, sdk, cc, sdk},
		"mostly-cc.jsonl":        {sdk, cc, cc, cc, both},
		"junk-between.jsonl":     {sdk, "not json", cc, `{"type":"system","subtype":"init","session_id":"s1"}`, "[1,2]"},
		"sub-messages.jsonl":     {sdk, strings.Replace(sdk, `"session_id"`, `"parent_tool_use_id":"toolu_1","session_id"`, 1), cc},
		"no-session-named.jsonl": {`{"type":"user","message":{"role":"user","content":"q"}}`, `{"type":"queue-operation","operation":"enqueue"}`},
	} {
		var b strings.Builder
		for i, r := range rows {
			b.WriteString(strings.ReplaceAll(r, "%d", string(rune('0'+i))))
			b.WriteString("\n")
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	streams := 0
	for _, p := range files {
		tr, err := ReadFile(p, p, Options{})
		if err != nil {
			continue // a file the session reader gives up on: the stream reader's own test
		}
		st, err := ReadStreamFile(p, p, false, Options{})
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		want := Spelling{SDKRows: tr.SDKRows, ClaudeCodeRows: tr.ClaudeCodeRows}
		if st.AsSession != want {
			t.Errorf("%s: the stream reader counts %+v, the session reader %+v", p, st.AsSession, want)
		}
		if tr.SDKRows > 0 {
			streams++
		}
	}
	if streams < 7 {
		t.Errorf("%d files with SDK rows among %d; want the fixtures' seven streams at least", streams, len(files))
	}
}
