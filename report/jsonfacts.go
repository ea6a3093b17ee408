package report

import (
	"io"
	"math"
	"strconv"
	"time"

	"github.com/pmcheck/pmcheck/analyze/model"
)

// objWriter appends one JSON object as encoding/json writes it indented by
// two spaces (no HTML escaping), its lines after the first prefixed by the
// indent it was opened at. A run's facts and summary are written with it
// instead of encoding/json: a fleet of 20,000 runs spent a seventh of its
// CPU in encoding/json's reflection and second indenting pass over them,
// on one goroutine at the end (TestAppendRunFactsIsEncodingJSON).
type objWriter struct {
	b      []byte
	indent []byte // of the current object's keys
	first  bool
	ok     bool // false once a value encoding/json refuses was met
	// spill, when set, takes what b holds whenever it passes spillSize, so
	// that a large object is not held whole.
	spill io.Writer
}

// spillSize is how much an objWriter with a spill holds before it writes.
const spillSize = 64 << 10

func (w *objWriter) open() {
	w.b = append(w.b, '{')
	w.indent = append(w.indent, "  "...)
	w.first = true
}

func (w *objWriter) close() {
	w.indent = w.indent[:len(w.indent)-2]
	if !w.first {
		w.b = append(w.b, '\n')
		w.b = append(w.b, w.indent...)
	}
	w.b = append(w.b, '}')
	w.first = false
}

func (w *objWriter) key(k string) {
	// Between two values: what b holds is final.
	if w.spill != nil && len(w.b) >= spillSize {
		w.spill.Write(w.b)
		w.b = w.b[:0]
	}
	if !w.first {
		w.b = append(w.b, ',')
	}
	w.first = false
	w.b = append(w.b, '\n')
	w.b = append(w.b, w.indent...)
	w.b = append(w.b, '"')
	w.b = append(w.b, k...)
	w.b = append(w.b, "\": "...)
}

func (w *objWriter) str(k, v string) {
	w.key(k)
	w.b = appendJSONString(w.b, v)
}

func (w *objWriter) int(k string, v int) {
	w.key(k)
	w.b = strconv.AppendInt(w.b, int64(v), 10)
}

func (w *objWriter) bool(k string, v bool) {
	w.key(k)
	w.b = strconv.AppendBool(w.b, v)
}

// float writes f as encoding/json does: the shortest 'f' form, 'e' below
// 1e-6 and from 1e21 on with a one-digit negative exponent unpadded; NaN and
// the infinities are refused.
func (w *objWriter) float(k string, f float64) {
	w.key(k)
	if math.IsInf(f, 0) || math.IsNaN(f) {
		w.ok = false
		return
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	w.b = strconv.AppendFloat(w.b, f, format, -1, 64)
	if format == 'e' {
		n := len(w.b)
		if n >= 4 && w.b[n-4] == 'e' && w.b[n-3] == '-' && w.b[n-2] == '0' {
			w.b[n-2] = w.b[n-1]
			w.b = w.b[:n-1]
		}
	}
}

// time writes t unless it is zero (the facts' times are omitzero), as
// time.Time.MarshalJSON does.
func (w *objWriter) time(k string, t time.Time) {
	if t.IsZero() {
		return
	}
	w.key(k)
	if y := t.Year(); y >= 0 && y <= 9999 && t.Location() == time.UTC {
		w.b = append(w.b, '"')
		w.b = t.AppendFormat(w.b, time.RFC3339Nano)
		w.b = append(w.b, '"')
		return
	}
	ts, err := t.MarshalJSON()
	if err != nil {
		w.ok = false
		return
	}
	w.b = append(w.b, ts...)
}

func (w *objWriter) strs(k string, v []string) {
	w.key(k)
	switch {
	case v == nil:
		w.b = append(w.b, "null"...)
	case len(v) == 0:
		w.b = append(w.b, "[]"...)
	default:
		w.b = append(w.b, '[')
		for i, s := range v {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			w.b = append(w.b, '\n')
			w.b = append(w.b, w.indent...)
			w.b = append(w.b, "  "...)
			w.b = appendJSONString(w.b, s)
		}
		w.b = append(w.b, '\n')
		w.b = append(w.b, w.indent...)
		w.b = append(w.b, ']')
	}
}

// list writes n elements, each an object written by elem, or null for a
// nil list.
func (w *objWriter) list(k string, n int, isNil bool, elem func(i int)) {
	w.key(k)
	switch {
	case isNil:
		w.b = append(w.b, "null"...)
	case n == 0:
		w.b = append(w.b, "[]"...)
	default:
		w.b = append(w.b, '[')
		w.indent = append(w.indent, "  "...)
		for i := range n {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			w.b = append(w.b, '\n')
			w.b = append(w.b, w.indent...)
			elem(i)
		}
		w.indent = w.indent[:len(w.indent)-2]
		w.b = append(w.b, '\n')
		w.b = append(w.b, w.indent...)
		w.b = append(w.b, ']')
	}
}

func (w *objWriter) evidence(k string, e model.Evidence) {
	w.key(k)
	w.open()
	w.str("file", e.File)
	w.int("line", e.Line)
	w.time("time", e.Time)
	w.close()
}

func (w *objWriter) reasons(k string, rs []model.Reason) {
	w.list(k, len(rs), rs == nil, func(i int) {
		w.open()
		w.str("what", rs[i].What)
		w.evidence("at", rs[i].At)
		w.close()
	})
}

// appendRunFacts appends rf as encoding/json writes it into an indented
// report, its lines after the first prefixed by prefix. It reports false,
// and appends nothing, for facts encoding/json would refuse (a time outside
// years 0–9999, a NaN or infinite number): the caller then lets
// encoding/json report the error.
func appendRunFacts(b []byte, rf *RunFacts, prefix string) ([]byte, bool) {
	return writeRunFacts(nil, b, rf, prefix)
}

// writeRunFacts is appendRunFacts writing to spill, when not nil, what it
// has made whenever that passes spillSize: a run's facts are not held whole
// (one session of 40,329 killed subagents has 48 MB of facts; built in one
// buffer grown by doubling, they were a sixth of check --format json's
// time). What is left is returned in b. When it reports false, part of the
// facts may have been written to spill: the report is abandoned with
// encoding/json's error, like a stream that fails at a later run's facts.
func writeRunFacts(spill io.Writer, b []byte, rf *RunFacts, prefix string) ([]byte, bool) {
	w := objWriter{b: b, indent: append(make([]byte, 0, len(prefix)+16), prefix...), ok: true, spill: spill}
	w.open()
	r := &rf.Run
	w.key("run")
	w.open()
	w.str("kind", r.Kind)
	w.str("id", r.ID)
	w.str("path", r.Path)
	w.int("agents", r.Agents)
	w.int("attempts", r.Attempts)
	w.str("verdict", r.Verdict)
	w.time("start", r.Start)
	w.time("end", r.End)
	w.int("segments", r.Segments)
	w.int("malformed", r.Malformed)
	w.bool("shipped", r.Shipped)
	w.str("branch", r.Branch)
	w.evidence("at", r.At)
	writeStreamRun(&w, r) // jsonstream.go
	if r.Title != "" {    // omitempty
		w.str("title", r.Title)
	}
	w.close()
	w.list("attempts", len(rf.Attempts), rf.Attempts == nil, func(i int) {
		a := &rf.Attempts[i]
		w.open()
		w.str("run_id", a.RunID)
		w.str("key", a.Key)
		w.str("agent", a.Agent)
		w.str("agent_id", a.AgentID)
		w.int("ordinal", a.Ordinal)
		w.str("outcome", a.Outcome)
		w.bool("never_returned", a.NeverReturned)
		w.float("silence_seconds", a.SilenceSeconds)
		w.int("superseded_by", a.SupersededBy)
		w.str("failure_cause", a.FailureCause)
		w.bool("false_done", a.FalseDone)
		w.strs("paths", a.Paths)
		w.bool("paths_partial", a.PathsPartial)
		w.strs("commits", a.Commits)
		w.int("commits_reported", a.CommitsReported)
		w.bool("commits_unknown", a.CommitsUnknown)
		w.bool("reviewed", a.Reviewed)
		w.strs("review_evidence", a.ReviewEvidence)
		w.bool("on_shipped_branch", a.OnShippedBranch)
		w.strs("branch_matches", a.BranchMatches)
		w.time("time", a.Time)
		w.time("end", a.End)
		w.reasons("reasons", a.Reasons)
		w.evidence("at", a.At)
		w.close()
	})
	w.list("subagents", len(rf.Subagents), rf.Subagents == nil, func(i int) {
		s := &rf.Subagents[i]
		w.open()
		w.str("run_id", s.RunID)
		w.str("tool_use_id", s.ToolUseID)
		w.str("description", s.Description)
		w.str("mode", s.Mode)
		w.str("agent_id", s.AgentID)
		w.str("outcome", s.Outcome)
		w.str("signature", s.Signature)
		w.str("rule", s.Rule)
		w.int("segment", s.Segment)
		w.bool("in_last_segment", s.InLastSegment)
		w.bool("killed", s.Killed)
		w.bool("reviewed", s.Reviewed)
		w.strs("review_evidence", s.ReviewEvidence)
		w.bool("false_done", s.FalseDone)
		w.strs("paths", s.Paths)
		w.bool("paths_partial", s.PathsPartial)
		w.strs("commits", s.Commits)
		w.bool("commits_unknown", s.CommitsUnknown)
		w.bool("on_shipped_branch", s.OnShippedBranch)
		w.bool("shipped_after_kill", s.ShippedAfterKill)
		w.strs("branch_matches", s.BranchMatches)
		w.time("time", s.Time)
		w.time("end", s.End)
		w.reasons("reasons", s.Reasons)
		w.evidence("at", s.At)
		w.close()
	})
	w.list("ships", len(rf.Ships), rf.Ships == nil, func(i int) {
		s := &rf.Ships[i]
		w.open()
		w.str("run_id", s.RunID)
		w.str("kind", s.Kind)
		w.str("command", s.Command)
		w.str("tool", s.Tool)
		w.str("branch", s.Branch)
		w.str("ref_kind", s.RefKind)
		w.str("tag", s.Tag)
		w.bool("possible", s.Possible)
		w.strs("outstanding_killed", s.OutstandingKilled)
		w.int("outstanding_count", s.OutstandingCount)
		w.bool("outstanding", s.Outstanding)
		w.time("time", s.Time)
		w.evidence("at", s.At)
		w.close()
	})
	w.list("watchdogs", len(rf.Watchdogs), rf.Watchdogs == nil, func(i int) {
		d := &rf.Watchdogs[i]
		w.open()
		w.str("run_id", d.RunID)
		w.str("source", d.Source)
		w.str("kind", d.Kind)
		w.str("agent", d.Agent)
		w.float("silence_seconds", d.SilenceSeconds)
		w.str("predicted", d.Predicted)
		w.str("observed", d.Observed)
		w.str("message", d.Message)
		w.time("time", d.Time)
		w.evidence("at", d.At)
		w.close()
	})
	if o := rf.Omitted; o != nil {
		w.key("omitted")
		w.open()
		for _, f := range [...]struct {
			k string
			n int
		}{{"attempts", o.Attempts}, {"subagents", o.Subagents}, {"ships", o.Ships}, {"watchdogs", o.Watchdogs}, {"list_items", o.ListItems}, {"strings", o.Strings}} {
			if f.n != 0 {
				w.int(f.k, f.n)
			}
		}
		w.close()
	}
	w.close()
	if !w.ok {
		return b, false
	}
	return w.b, true
}

// appendRunSummary appends s as encoding/json writes it into an indented
// report, its lines after the first prefixed by prefix.
func appendRunSummary(b []byte, s *RunSummary, prefix string) []byte {
	w := objWriter{b: b, indent: append(make([]byte, 0, len(prefix)+2), prefix...), ok: true}
	w.open()
	w.str("kind", s.Kind)
	w.str("id", s.ID)
	w.str("path", s.Path)
	w.int("agents", s.Agents)
	w.int("attempts", s.Attempts)
	w.int("malformed", s.Malformed)
	w.close()
	return w.b
}
