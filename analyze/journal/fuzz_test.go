package journal

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/internal/fuzzseed"
)

// FuzzReadAndAttempts feeds the journal reader arbitrary bytes, then runs the
// attempt state machine on what it read (docs/reliability.md; a longer run:
// go test ./analyze/journal -run '^$' -fuzz '^FuzzReadAndAttempts$' -fuzztime 10m).
// Whatever the input: no error from an in-memory stream, no panic, no hang;
// every non-blank line is a journal line or a malformed one, in order, with
// the running index watch gives it; and the attempts agree with the lines:
// one per started line, ordinals 1..n per key each superseded by the next,
// and every result/failed line closes exactly one earlier attempt or is an
// orphan. Reading one byte at a time gives the same journal, and so does a
// follower fed it in pieces, at the end of each, frozen and thawed or not.
func FuzzReadAndAttempts(f *testing.F) {
	seeds := fuzzseed.Literals(".", func(s string) bool { return strings.Contains(s, `"type"`) })
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Add([]byte(strings.Join(seeds, "\n")))
	f.Add([]byte("{\"type\":\"started\",\"key\":5,\"agentId\":6}\n{\"type\":\"result\",\"agentId\":[1]}\n\n[1]\n\x00\n{\"type\":\"started\""))
	f.Fuzz(func(t *testing.T, data []byte) {
		var j, slow *model.Journal
		var err, slowErr error
		done := make(chan struct{})
		go func() {
			defer close(done)
			j, err = Read(bytes.NewReader(data), "journal.jsonl")
			slow, slowErr = Read(iotest.OneByteReader(bytes.NewReader(data)), "journal.jsonl")
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("Read did not return within 10s (a hang)")
		}
		if err != nil || slowErr != nil {
			t.Fatalf("Read on an in-memory stream returned an error: %v / %v", err, slowErr)
		}
		if !reflect.DeepEqual(j, slow) {
			t.Fatalf("reading one byte at a time gives a different journal")
		}
		// A follower fed the bytes in pieces (a watch's reading) gives the
		// same journal at every piece's end, also frozen and thawed after
		// every other piece (the hook's kept readers).
		fl := NewFollower("journal.jsonl", Options{})
		for fed, step := 0, 1; fed < len(data); step = step%13 + 5 {
			n := min(step, len(data)-fed)
			fl.Write(data[fed : fed+n])
			fed += n
			if step%2 == 0 {
				fl = refrozen(t, fl)
			}
			got, gotErr := fl.Snapshot()
			want, wantErr := Read(bytes.NewReader(data[:fed]), "journal.jsonl")
			if !reflect.DeepEqual(got, want) || (gotErr == nil) != (wantErr == nil) {
				t.Fatalf("%d bytes: a follower gives %+v (%v), a full read %+v (%v)", fed, got, gotErr, want, wantErr)
			}
		}
		checkJournal(t, data, j)
		checkAttempts(t, j)
	})
}

func checkJournal(t *testing.T, data []byte, j *model.Journal) {
	t.Helper()
	physical := bytes.Count(data, []byte{'\n'})
	if len(data) > 0 && data[len(data)-1] != '\n' {
		physical++
	}
	lines := map[int]bool{}
	for _, m := range j.Malformed {
		if m.Line < 1 || m.Line > physical || lines[m.Line] || m.Reason == "" || strings.ContainsAny(m.Reason, "\r\n") {
			t.Fatalf("bad malformed entry %+v (%d lines)", m, physical)
		}
		lines[m.Line] = true
	}
	prevLine, prevIndex := 0, 0
	for _, l := range j.Lines {
		if l.Line <= prevLine || l.Line > physical || lines[l.Line] {
			t.Fatalf("journal line %d out of order, out of range or also malformed", l.Line)
		}
		if l.Index <= prevIndex || l.Index > l.Line || l.Index > len(j.Lines)+j.MalformedCount {
			t.Fatalf("line %d has index %d after %d (%d lines, %d malformed)", l.Line, l.Index, prevIndex, len(j.Lines), j.MalformedCount)
		}
		if l.HasKey && l.Key == "" {
			t.Fatalf("line %d: HasKey with an empty key", l.Line)
		}
		if l.Torn && l.Line != physical {
			t.Fatalf("line %d is torn but is not the last line (%d)", l.Line, physical)
		}
		prevLine, prevIndex = l.Line, l.Index
	}
	if len(j.Lines)+j.MalformedCount > physical {
		t.Fatalf("%d lines + %d malformed in an input of %d lines", len(j.Lines), j.MalformedCount, physical)
	}
	if j.MalformedCount < len(j.Malformed) || len(j.Malformed) > model.MalformedExamples+2 ||
		(j.MalformedCount <= model.MalformedExamples && len(j.Malformed) != j.MalformedCount) {
		t.Fatalf("%d malformed lines listed of %d counted", len(j.Malformed), j.MalformedCount)
	}
}

func checkAttempts(t *testing.T, j *model.Journal) {
	t.Helper()
	attempts, orphans := Attempts(j)
	started, closers := 0, 0
	for _, l := range j.Lines {
		switch l.Type {
		case "started":
			started++
		case "result", "failed":
			closers++
		}
	}
	if len(attempts) != started {
		t.Fatalf("%d attempts from %d started lines", len(attempts), started)
	}
	closed := 0
	byKey := map[string][]*model.Attempt{}
	for _, a := range attempts {
		byKey[a.Key] = append(byKey[a.Key], a)
		if (a.Closed != nil) != (a.ClosedBy != "") {
			t.Fatalf("attempt %+v: Closed and ClosedBy disagree", a)
		}
		if a.Closed != nil {
			closed++
			if a.Closed.Line <= a.Started.Line {
				t.Fatalf("attempt started at line %d closed at line %d", a.Started.Line, a.Closed.Line)
			}
			if a.ClosedBy != model.OutcomeCompleted && a.ClosedBy != model.OutcomeFailed {
				t.Fatalf("attempt closed by %q", a.ClosedBy)
			}
		}
	}
	if closed+len(orphans) != closers {
		t.Fatalf("%d closed attempts + %d orphans != %d result/failed lines", closed, len(orphans), closers)
	}
	for key, as := range byKey {
		for i, a := range as {
			next := 0
			if i+1 < len(as) {
				next = i + 2
			}
			if a.Ordinal != i+1 || a.SupersededBy != next {
				t.Fatalf("key %q attempt %d: ordinal %d superseded by %d, want %d and %d", key, i, a.Ordinal, a.SupersededBy, i+1, next)
			}
			if a.Last() != (i == len(as)-1) {
				t.Fatalf("key %q attempt %d of %d: Last() = %v", key, i+1, len(as), a.Last())
			}
		}
	}
	// What the detectors and stats count and flag without a map of keys.
	if n := model.AgentsOf(attempts); n != len(byKey) {
		t.Fatalf("AgentsOf = %d, want %d keys", n, len(byKey))
	}
	for _, o := range orphans {
		if o.Type != "result" && o.Type != "failed" {
			t.Fatalf("orphan of type %q", o.Type)
		}
	}
}
