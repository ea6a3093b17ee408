package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/pmcheck/pmcheck/analyze/model"
)

// sessionAndStream makes about size bytes of session rows (the synthetic
// mix without progress rows, which streams do not carry) and the same
// rows as an SDK stream: as stream-json lines and as an execution file
// (a JSON array indented two spaces). A third of the rows belong to a
// subagent (parent_tool_use_id), as in a run that delegates.
func sessionAndStream(tb testing.TB, size int64) (session, lines, array []byte) {
	src := &synthetic{size: size}
	var sb, lb, ab bytes.Buffer
	ab.WriteString("[")
	n := 0
	for src.written < src.size {
		row := src.row()
		src.written += int64(len(row))
		var r map[string]json.RawMessage
		if err := json.Unmarshal([]byte(row), &r); err != nil {
			tb.Fatal(err)
		}
		if string(r["type"]) == `"progress"` {
			continue
		}
		sb.WriteString(row)
		out := map[string]json.RawMessage{"type": r["type"], "message": r["message"], "session_id": r["sessionId"],
			"uuid": r["uuid"], "timestamp": r["timestamp"], "parent_tool_use_id": json.RawMessage("null")}
		if n%3 == 2 {
			out["parent_tool_use_id"] = json.RawMessage(`"toolu_parent"`)
		}
		if v, ok := r["toolUseResult"]; ok {
			out["tool_use_result"] = v
		}
		b, _ := json.Marshal(out)
		lb.Write(b)
		lb.WriteByte('\n')
		if n > 0 {
			ab.WriteString(",")
		}
		ab.Write(b)
		n++
	}
	ab.WriteString("]")
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, ab.Bytes(), "", "  "); err != nil {
		tb.Fatal(err)
	}
	return sb.Bytes(), lb.Bytes(), pretty.Bytes()
}

// BenchmarkStreamVsSession reads the same rows as a session file (the
// serial reader), as stream-json lines and as an execution file. Each
// reports MB/s of the session file's size, so the three compare time for
// the same rows (docs/performance.md has the ratio):
//
//	go test ./analyze/transcript -run '^$' -bench StreamVsSession -count 5
func BenchmarkStreamVsSession(b *testing.B) {
	session, lines, array := sessionAndStream(b, 32<<20)
	read := func(b *testing.B, f func() error) {
		b.SetBytes(int64(len(session)))
		for b.Loop() {
			if err := f(); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("session", func(b *testing.B) {
		read(b, func() error { _, err := readPooled(bytes.NewReader(session), "s.jsonl", Options{}); return err })
	})
	b.Run("stream-jsonl", func(b *testing.B) {
		read(b, func() error { _, err := ReadStream(bytes.NewReader(lines), "run.jsonl", false, Options{}); return err })
	})
	b.Run("stream-array", func(b *testing.B) {
		read(b, func() error { _, err := ReadStream(bytes.NewReader(array), "exec.json", true, Options{}); return err })
	})
}

// The stream's transcripts hold what the session file's does: the same
// calls and results, split between the parent and its subagent.
func TestStreamReadsWhatTheSessionFileHolds(t *testing.T) {
	session, lines, array := sessionAndStream(t, 1<<20)
	s, err := Read(bytes.NewReader(session), "s.jsonl", Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		data  []byte
		array bool
	}{{lines, false}, {array, true}} {
		st, err := ReadStream(bytes.NewReader(c.data), "run", c.array, Options{})
		if err != nil || st.Broken != nil || st.FirstInvalid != 0 || len(st.Agents) != 1 {
			t.Fatalf("array %v: %v %v %d, %d agents", c.array, err, st.Broken, st.FirstInvalid, len(st.Agents))
		}
		calls := len(st.Main.ToolCalls) + len(st.Agents[0].T.ToolCalls)
		rows := st.Main.Rows + st.Agents[0].T.Rows
		if calls != len(s.ToolCalls) || rows != s.Rows || st.Runtime.Messages != s.Rows {
			t.Errorf("array %v: %d calls in %d rows (%d messages), want %d in %d", c.array, calls, rows, st.Runtime.Messages, len(s.ToolCalls), s.Rows)
		}
	}
}

// Messages that name no call before them cannot make a transcript each:
// they are read as one, however many parent ids they name.
func TestStreamOrphanMessagesShareOneTranscript(t *testing.T) {
	var b bytes.Buffer
	for i := range 1000 {
		fmt.Fprintf(&b, `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"x"}]},"parent_tool_use_id":"toolu_%d","session_id":"s","uuid":"u%d"}`+"\n", i, i)
	}
	st, err := ReadStream(&b, "run.jsonl", false, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Agents) != 1 || st.Agents[0].ToolUseID != "" || st.Agents[0].T.Rows != 1000 {
		t.Fatalf("%d transcripts; want the 1000 orphan messages in one", len(st.Agents))
	}
}

// arrayStream produces an execution file of about size bytes without
// holding it: indented Read calls and their big outputs, which the model
// does not keep (only their uuids, counts and the write-time steps), so
// what memory a read holds is mostly the reader's own.
type arrayStream struct {
	size, written int64
	i             int
	pending       []byte
}

func (a *arrayStream) Read(p []byte) (int, error) {
	if len(a.pending) == 0 {
		switch {
		case a.i < 0:
			return 0, io.EOF
		case a.written >= a.size:
			a.pending, a.i = []byte("\n]\n"), -1
		default:
			sep := ",\n  "
			if a.i == 0 {
				sep = "[\n  "
			}
			a.i++
			id := fmt.Sprintf("toolu_%08d", a.i)
			a.pending = []byte(sep + `{
    "type": "assistant",
    "message": {
      "role": "assistant",
      "content": [
        {
          "type": "tool_use",
          "id": "` + id + `",
          "name": "Read",
          "input": {
            "file_path": "/r/a.go"
          }
        }
      ]
    },
    "parent_tool_use_id": null,
    "session_id": "s",
    "uuid": "a` + id + `",
    "timestamp": "2026-09-30T08:28:19.727Z"
  },
  {
    "type": "user",
    "message": {
      "role": "user",
      "content": [
        {
          "tool_use_id": "` + id + `",
          "type": "tool_result",
          "content": "` + bigOutput + `"
        }
      ]
    },
    "parent_tool_use_id": null,
    "session_id": "s",
    "uuid": "` + id + `",
    "timestamp": "2026-09-30T08:28:19.727Z"
  }`)
		}
	}
	n := copy(p, a.pending)
	a.pending = a.pending[n:]
	a.written += int64(n)
	return n, nil
}

// An execution file is read element by element and nothing of an element
// is kept but its summary: what a read leaves behind grows with the
// messages by a few dozen bytes each (their uuids, counts), not with the
// bytes read (each message here is 6.6 KB).
func TestStreamArrayKeepsNoMessageBytes(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 72 MB")
	}
	retained := func(size int64) (uint64, int) {
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		before := ms.HeapAlloc
		st, err := ReadStream(&arrayStream{size: size}, "exec.json", true, Options{})
		if err != nil || st.Broken != nil || st.FirstInvalid != 0 {
			t.Fatalf("%v %v %d", err, st.Broken, st.FirstInvalid)
		}
		runtime.GC()
		runtime.ReadMemStats(&ms)
		n := st.Runtime.Messages
		runtime.KeepAlive(st)
		return ms.HeapAlloc - min(before, ms.HeapAlloc), n
	}
	small, ns := retained(8 << 20)
	large, nl := retained(64 << 20)
	per := float64(large-min(small, large)) / float64(nl-ns)
	t.Logf("kept %d KiB for %d messages, %d KiB for %d: %.0f bytes a message", small>>10, ns, large>>10, nl, per)
	if per > 200 {
		t.Errorf("a read keeps %.0f bytes per message of 6.6 KB: message bytes are kept", per)
	}
}

// Whatever a stream holds, reading it neither panics nor makes more
// transcripts than the Agent/Task calls it holds (plus one for messages
// that name none), as JSON Lines and as an array.
func FuzzReadStream(f *testing.F) {
	_, lines, array := sessionAndStream(f, 16<<10)
	f.Add(lines)
	f.Add(array)
	f.Add([]byte(`[{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Task","input":{}}]},"session_id":"s","uuid":"a"},{"type":"user","parent_tool_use_id":"t1","message":{"content":"x"},"session_id":"s","uuid":"b"},{"type":"system","subtype":"task_notification","task_id":"x","tool_use_id":"t1","status":"stopped"},{"type":"result","subtype":"success","subagent_stats":{"spawned":1,"by_type":{"a":1}}}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, array := range []bool{false, true} {
			st, err := ReadStream(bytes.NewReader(data), "run", array, Options{})
			if err != nil {
				t.Fatal(err) // only I/O errors, and a bytes.Reader has none
			}
			calls := 0
			for _, tr := range append([]*model.Transcript{st.Main}, agentsOf(st)...) {
				calls += tr.ToolCounts["Agent"] + tr.ToolCounts["Task"] + tr.ToolCounts["Workflow"]
			}
			if len(st.Agents) > calls+1 {
				t.Fatalf("%d subagent transcripts for %d calls", len(st.Agents), calls)
			}
		}
	})
}

func agentsOf(st *Stream) []*model.Transcript {
	var out []*model.Transcript
	for _, a := range st.Agents {
		out = append(out, a.T)
	}
	return out
}

// A subagent's API error is spelled is_api_error_message in a stream (as
// public SDK parsers' tests show it); it ends the subagent's transcript
// as the session files' isApiErrorMessage does.
func TestStreamAPIErrorSpelling(t *testing.T) {
	in := `{"type":"assistant","message":{"content":[{"type":"tool_use","id":"toolu_1","name":"Task","input":{"description":"d","prompt":"p"}}]},"parent_tool_use_id":null,"session_id":"s","uuid":"a"}
{"type":"assistant","message":{"model":"<synthetic>","content":[{"type":"text","text":"API Error: Overloaded"}]},"parent_tool_use_id":"toolu_1","error":"overloaded","is_api_error_message":true,"session_id":"s","uuid":"b"}
`
	st, err := ReadStream(strings.NewReader(in), "run.jsonl", false, Options{})
	if err != nil || len(st.Agents) != 1 {
		t.Fatalf("%v, %d agents", err, len(st.Agents))
	}
	sub := st.Agents[0].T
	if len(sub.APIErrors) != 1 || sub.Tail.LastAssistant == nil || sub.Tail.LastAssistant.APIError != "overloaded" {
		t.Fatalf("the subagent's API error row was not read as one: %d api errors, last %+v", len(sub.APIErrors), sub.Tail.LastAssistant)
	}
}
