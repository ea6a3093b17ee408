package transcript

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
	"time"
	"unicode/utf8"

	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/internal/fuzzseed"
)

// Fuzz targets of the transcript reader (docs/reliability.md). Short runs:
// .ci/fuzz.sh; longer ones:
//
//	go test ./analyze/transcript -run '^$' -fuzz '^FuzzRead$' -fuzztime 10m
//	go test ./analyze/transcript -run '^$' -fuzz '^FuzzParseNotification$' -fuzztime 10m

// fuzzDeadline bounds one input: the reader is linear in its input, so a
// fuzz input (a few KiB) that takes seconds is a hang, not a slow machine.
const fuzzDeadline = 10 * time.Second

// withDeadline runs fn and fails the fuzz input if it does not return in time
// (go test -fuzz has no per-input timeout of its own).
func withDeadline(t *testing.T, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	select {
	case <-done:
	case <-time.After(fuzzDeadline):
		t.Fatalf("%s did not return within %s (a hang)", what, fuzzDeadline)
	}
}

// transcriptSeeds are the rows of the package's table tests plus a few
// documents of several lines.
func transcriptSeeds() [][]byte {
	var out [][]byte
	rows := fuzzseed.Literals(".", func(s string) bool { return strings.HasPrefix(strings.TrimSpace(s), "{") })
	for _, r := range rows {
		out = append(out, []byte(r+"\n"))
	}
	// All rows as one file, and the same cut mid-line (a torn final line).
	all := []byte(strings.Join(rows, "\n"))
	out = append(out, all, all[:len(all)/2])
	out = append(out, []byte("\n\n\r\n{}\x00\n[1]\n\xff\xfe\n{\"type\":\"user\""))
	return out
}

// FuzzRead feeds the reader arbitrary bytes under several line caps. Whatever
// the input: no error (the stream cannot fail), no panic, no hang, and the
// counts agree with each other: every non-blank line is either a row or a
// skipped malformed line, malformed lines are listed once each in order,
// row types add up to the rows, every piece of evidence points at a row,
// write times only rise, and reading one byte at a time gives the same result.
func FuzzRead(f *testing.F) {
	for _, s := range transcriptSeeds() {
		f.Add(s, uint8(0))
		f.Add(s, uint8(3))
	}
	f.Fuzz(func(t *testing.T, data []byte, capSel uint8) {
		var lineCap int64 // 0: the default cap
		if capSel%4 != 0 {
			lineCap = int64(capSel) * 8 // 8..2040 bytes: exercises over-cap lines and resynchronisation
		}
		opts := Options{LineCap: lineCap}
		var tr, slow *model.Transcript
		var err, slowErr error
		withDeadline(t, "Read", func() {
			tr, err = Read(bytes.NewReader(data), "f.jsonl", opts)
			slow, slowErr = Read(iotest.OneByteReader(bytes.NewReader(data)), "f.jsonl", opts)
		})
		if err != nil || slowErr != nil {
			t.Fatalf("Read on an in-memory stream returned an error: %v / %v", err, slowErr)
		}
		checkTranscriptCounts(t, data, lineCap, tr)
		if !reflect.DeepEqual(tr, slow) {
			t.Fatalf("reading one byte at a time gives a different transcript:\nwhole: %+v\nbytes: %+v", tr, slow)
		}
	})
}

func checkTranscriptCounts(t *testing.T, data []byte, lineCap int64, tr *model.Transcript) {
	t.Helper()
	physical := bytes.Count(data, []byte{'\n'})
	if len(data) > 0 && data[len(data)-1] != '\n' {
		physical++ // a torn final line
	}
	skipped, overCap := 0, 0
	prev := 0
	for _, m := range tr.Malformed {
		if m.Line <= prev || m.Line > physical {
			t.Fatalf("malformed line %d out of order or out of range (previous %d, %d lines): %+v", m.Line, prev, physical, tr.Malformed)
		}
		prev = m.Line
		if m.Reason == "" || strings.ContainsAny(m.Reason, "\n\r") {
			t.Fatalf("malformed line %d has no one-line reason: %q", m.Line, m.Reason)
		}
		if m.Skipped {
			skipped++
		}
		if m.Length > 0 {
			overCap++
			if lineCap > 0 && m.Length <= lineCap {
				t.Fatalf("line %d of %d bytes counted over a cap of %d", m.Line, m.Length, lineCap)
			}
		}
	}
	if len(tr.Malformed) > model.MalformedExamples || tr.MalformedCount < len(tr.Malformed) ||
		(tr.MalformedCount <= model.MalformedExamples && tr.MalformedCount != len(tr.Malformed)) {
		t.Fatalf("%d malformed lines listed of %d counted (examples cap %d)", len(tr.Malformed), tr.MalformedCount, model.MalformedExamples)
	}
	if tr.MalformedCount <= model.MalformedExamples && skipped != tr.MalformedSkipped {
		t.Fatalf("%d skipped lines listed, %d counted", skipped, tr.MalformedSkipped)
	}
	skipped = tr.MalformedSkipped
	if tr.MalformedCount <= model.MalformedExamples && overCap != tr.OverCap {
		t.Fatalf("OverCap = %d but %d malformed lines carry a length", tr.OverCap, overCap)
	}
	if tr.Lines != tr.Rows+skipped {
		t.Fatalf("lines %d != rows %d + skipped malformed %d", tr.Lines, tr.Rows, skipped)
	}
	if tr.Lines > physical {
		t.Fatalf("counted %d lines in an input of %d", tr.Lines, physical)
	}
	types := 0
	for _, n := range tr.Types {
		types += n
	}
	if types != tr.Rows {
		t.Fatalf("row types add up to %d, rows = %d", types, tr.Rows)
	}
	if (tr.Rows == 0) != (tr.FirstRowLine == 0) || tr.FirstRowLine > tr.LastRowLine {
		t.Fatalf("rows %d but first/last row lines %d/%d", tr.Rows, tr.FirstRowLine, tr.LastRowLine)
	}
	inRows := func(what string, e model.Evidence) {
		if e.Line < tr.FirstRowLine || e.Line > tr.LastRowLine || e.File != "f.jsonl" {
			t.Fatalf("%s evidence %s:%d lies outside the rows %d..%d", what, e.File, e.Line, tr.FirstRowLine, tr.LastRowLine)
		}
	}
	for _, c := range tr.ToolCalls {
		inRows("tool call", c.At())
		if len(c.Command()) > model.CommandLimit || len(c.Prompt()) > model.PromptLimit {
			t.Fatalf("tool call keeps more than its cap: command %d prompt %d", len(c.Command()), len(c.Prompt()))
		}
	}
	for i, r := range tr.ToolResults {
		inRows("tool result", r.At())
		if i > 0 && tr.ToolResults[i-1].Line() > r.At().Line {
			t.Fatalf("tool results out of line order")
		}
		if len(r.Text) > model.AgentResultLimit {
			t.Fatalf("tool result keeps %d bytes", len(r.Text))
		}
	}
	for _, n := range tr.Notifications {
		inRows("notification", n.At)
	}
	for _, q := range tr.QueueOps {
		inRows("queue operation", q.At)
	}
	for _, m := range tr.Marks {
		inRows("segment mark", m.At)
	}
	var last model.Step
	for i, s := range tr.Steps.All() {
		if s.At().Location() != time.UTC {
			t.Fatalf("step %d time %v is not UTC", i, s.At())
		}
		if i > 0 && (!s.At().After(last.At()) || s.Line() <= last.Line()) {
			t.Fatalf("write times do not only rise: step %d (line %d, %v) after line %d, %v", i, s.Line(), s.At(), last.Line(), last.At())
		}
		if got := tr.Steps.At(i); got != s {
			t.Fatalf("step %d read at random is %v, in order %v", i, got, s)
		}
		last = s
	}
	if n := tr.Steps.Len(); n > 0 && !tr.LastTime.Equal(tr.Steps.Last().At()) {
		t.Fatalf("last time %v is not the last step %v", tr.LastTime, tr.Steps.Last().At())
	}
}

// notificationSeeds are the notification bodies of the table tests.
func notificationSeeds() []string {
	seeds := fuzzseed.Literals(".", func(s string) bool { return strings.Contains(s, "<task-notification>") })
	return append(seeds,
		"<task-notification>\n<task-id>a1</task-id>\n<status>completed</status>\n<result>x</result></task-notification>",
		"<task-notification><status>", "<task-notification><result></result></result>", "  \t<task-notification><failures>a\n\nb\n</failures>")
}

// FuzzParseNotification feeds the task-notification parser arbitrary text and
// a well-formed body built from fuzzed values. No panic; every field trimmed;
// HasStatus exactly when a non-empty status was found; the result capped
// without splitting a character; valid UTF-8 in, valid UTF-8 out; and values
// without markup survive a round trip through a body.
func FuzzParseNotification(f *testing.F) {
	for _, s := range notificationSeeds() {
		f.Add(s, "a1234567", "completed", "Agent \"x\" completed")
	}
	f.Fuzz(func(t *testing.T, text, taskID, status, summary string) {
		at := model.Evidence{File: "n.jsonl", Line: 3}
		_ = IsNotification(text)
		n := ParseNotification(text, at, "user-row")
		if n.At != at || n.Source != "user-row" {
			t.Fatalf("evidence or source changed: %+v", n)
		}
		for name, v := range map[string]string{"task-id": n.TaskID, "tool-use-id": n.ToolUseID, "status": n.Status, "summary": n.Summary, "output-file": n.OutputFile, "result": n.Result} {
			if v != strings.TrimSpace(v) {
				t.Fatalf("%s %q is not trimmed", name, v)
			}
			if utf8.ValidString(text) && !utf8.ValidString(v) {
				t.Fatalf("%s %q is not valid UTF-8 though the input was", name, v)
			}
		}
		if n.HasStatus != (n.Status != "") {
			t.Fatalf("HasStatus %v with status %q", n.HasStatus, n.Status)
		}
		if len(n.Result) > model.AgentResultLimit {
			t.Fatalf("result keeps %d bytes", len(n.Result))
		}
		for _, l := range n.Failures {
			if l == "" || l != strings.TrimSpace(l) {
				t.Fatalf("failure line %q", l)
			}
		}
		// Round trip: plain values (no markup, no line breaks) come back.
		plain := func(s string) bool {
			return s != "" && s == strings.TrimSpace(s) && !strings.ContainsAny(s, "<>\r\n") && utf8.ValidString(s)
		}
		if !plain(taskID) || !plain(status) || !plain(summary) {
			return
		}
		body := "<task-notification>\n<task-id>" + taskID + "</task-id>\n<status>" + status + "</status>\n<summary>" + summary + "</summary>\n</task-notification>"
		if !IsNotification(body) {
			t.Fatalf("IsNotification(%q) = false", body)
		}
		rt := ParseNotification(body, at, "queue-enqueue")
		if rt.TaskID != taskID || rt.Status != status || !rt.HasStatus || rt.Summary != summary {
			t.Fatalf("round trip of (%q, %q, %q) gave %+v", taskID, status, summary, rt)
		}
	})
}
