// Package clock reconstructs when each file of a run was written, from the
// files themselves. A file's mtime on disk is a different clock from the
// timestamps inside it (a copy, a checkout or a resume rewrites it), so
// pmcheck never reads mtimes:
//
//   - a row's write time is the running maximum of the timestamps of its file
//     up to that row (a row cannot be written before the rows above it); rows
//     above the first timestamp take that first timestamp;
//   - at instant t a file holds the rows whose write time is ≤ t, it does not
//     exist before its first row, and its simulated mtime is the write time of
//     its last row held;
//   - journal lines carry no timestamps, so their times are inferred from the
//     transcripts they name (JournalTimes), and the watch starts at the write
//     time of the parent's Workflow launch (WatchStart).
//
// docs/replay.md explains every rule with examples; `pmcheck replay --explain`
// prints the inference line by line.
package clock

import (
	"fmt"
	"iter"
	"time"

	"github.com/pmcheck/pmcheck/analyze/model"
)

// File is the simulated life of one transcript file: the distinct instants at
// which rows were appended to it, in increasing order. It reads the
// transcript's write-time staircase in place (a large transcript has a step
// per row; copying them into instants cost 32 bytes a row).
type File struct {
	// steps are the write times with the lines at which each is first
	// reached; nil for an untimed file.
	steps *model.Staircase
}

// FileOf returns the write staircase of t; a nil transcript gives an empty File.
func FileOf(t *model.Transcript) File {
	if t == nil || t.Steps.Len() == 0 {
		return File{}
	}
	return File{steps: &t.Steps}
}

// Writes returns a file written at the given increasing instants, at no line
// (a file pmcheck made up, and tests).
func Writes(at ...time.Time) File {
	if len(at) == 0 {
		return File{}
	}
	s := new(model.Staircase)
	for _, w := range at {
		s.Append(0, w)
	}
	return File{steps: s}
}

// Timed reports whether the file has any timestamp at all.
func (f File) Timed() bool { return f.Len() > 0 }

// Len is the number of distinct write times.
func (f File) Len() int {
	if f.steps == nil {
		return 0
	}
	return f.steps.Len()
}

// Write is the i-th write time (0-based, i < Len).
func (f File) Write(i int) time.Time { return f.steps.At(i).At() }

// All yields the write times in order with their indexes.
func (f File) All() iter.Seq2[int, time.Time] {
	return func(yield func(int, time.Time) bool) {
		if f.steps == nil {
			return
		}
		for i, s := range f.steps.All() {
			if !yield(i, s.At()) {
				return
			}
		}
	}
}

// From yields the write times from the i-th on (0-based), with their
// indexes: All resumed where a walk of the file as it stood before stopped.
func (f File) From(i int) iter.Seq2[int, time.Time] {
	return func(yield func(int, time.Time) bool) {
		if i >= f.Len() {
			return
		}
		c := f.steps.CursorAt(i - 1)
		for st, ok := c.Next(); ok; st, ok = c.Next() {
			if !yield(c.Index(), st.At()) {
				return
			}
		}
	}
}

// First is the instant the file comes into existence (zero when untimed).
func (f File) First() time.Time {
	if f.Len() == 0 {
		return time.Time{}
	}
	return f.steps.First().At()
}

// Last is the write time of the file's last row (zero when untimed).
func (f File) Last() time.Time {
	if f.Len() == 0 {
		return time.Time{}
	}
	return f.steps.Last().At()
}

// ExistsAt reports whether the file exists at instant at.
func (f File) ExistsAt(at time.Time) bool {
	return f.Len() > 0 && !at.Before(f.First())
}

// after is the number of writes at or before at (the index of the first
// write after it).
func (f File) after(at time.Time) int {
	if f.steps == nil {
		return 0
	}
	return f.steps.SearchTime(at)
}

// MtimeAt is the simulated mtime at instant at: the last write time ≤ at.
// ok is false when the file does not exist yet.
func (f File) MtimeAt(at time.Time) (mtime time.Time, ok bool) {
	i := f.after(at)
	if i == 0 {
		return time.Time{}, false
	}
	return f.Write(i - 1), true
}

// LineAt is the line of the file's last write at or before at (0 if unknown).
func (f File) LineAt(at time.Time) int {
	i := f.after(at)
	if i == 0 {
		return 0
	}
	return f.steps.At(i - 1).Line()
}

// NextWriteAfter is the first write time strictly after at.
func (f File) NextWriteAfter(at time.Time) (time.Time, bool) {
	i := f.after(at)
	if i == f.Len() {
		return time.Time{}, false
	}
	return f.Write(i), true
}

// WroteIn reports whether some write happened in the half-open span (from, to].
func (f File) WroteIn(from, to time.Time) bool {
	w, ok := f.NextWriteAfter(from)
	return ok && !w.After(to)
}

// Epoch is the instant a replay starts at when nothing in the run carries a
// timestamp: any fixed instant works, since only differences are printed
// (and --timestamps then shows times from the Unix epoch).
var Epoch = time.Unix(0, 0).UTC()

// Start says where the watch start came from.
type Start struct {
	At time.Time `json:"at"`
	// Source is "flag" (--start), "launch" (the parent's Workflow tool_use
	// row), "journal" (the first journal line's inferred time), or "epoch".
	Source string         `json:"source"`
	Where  model.Evidence `json:"where,omitzero"`
}

// WatchStart is the instant the live watcher would have started for a
// Workflow run: the write time of the parent's Workflow tool_use row whose
// result names the run, else the first journal line whose time a transcript
// gives, else Epoch. override (from --start) wins when non-zero.
func WatchStart(run *model.Run, override time.Time) Start {
	if !override.IsZero() {
		return Start{At: override.UTC(), Source: "flag"}
	}
	if l := run.Launch; l != nil {
		at := l.At.Time
		if at.IsZero() && run.Main != nil && l.At.Line > 0 {
			at = run.Main.WriteTimeAt(l.At.Line)
		}
		if !at.IsZero() {
			return Start{At: at.UTC(), Source: "launch", Where: l.At}
		}
	}
	if run.Journal != nil {
		byID := AgentTranscripts(run)
		for i := range run.Journal.Lines {
			if at, _, where := rawJournalTime(byID, &run.Journal.Lines[i]); !at.IsZero() {
				return Start{At: at, Source: "journal", Where: where}
			}
		}
	}
	return Start{At: Epoch, Source: "epoch"}
}

// LineTime is the inferred time of one journal line and why.
type LineTime struct {
	Index   int       `json:"index"` // non-blank line number, as watch counts
	Line    int       `json:"line"`  // physical line
	Type    string    `json:"type"`
	AgentID string    `json:"agent_id,omitempty"`
	At      time.Time `json:"at"`
	// Rule is one of: "first-row" (a started line: the first row of its
	// agent's transcript), "last-row" (a result or failed line: the last row
	// of its agent's transcript), "inherited" (no transcript gives a time:
	// the previous line's time), "watch-start" (the first line, with no
	// transcript), and Raised is true when the time was raised to keep the
	// times non-decreasing in file order.
	Rule   string         `json:"rule"`
	Raised bool           `json:"raised,omitempty"`
	Where  model.Evidence `json:"where,omitzero"`
}

// AgentTranscripts indexes a run's transcripts by agent id: the attempts'
// transcripts first, then every transcript of the run directory.
func AgentTranscripts(run *model.Run) map[string]*model.Transcript {
	m := map[string]*model.Transcript{}
	for _, a := range run.Attempts {
		if a.Transcript != nil && a.AgentID != "" {
			m[a.AgentID] = a.Transcript
		}
	}
	for _, t := range run.Agents {
		if t.AgentID != "" {
			if _, ok := m[t.AgentID]; !ok {
				m[t.AgentID] = t
			}
		}
	}
	return m
}

// rawJournalTime is the time a transcript gives journal line jl, the rule
// that gives it and the row it comes from; zero when no transcript does.
func rawJournalTime(byID map[string]*model.Transcript, jl *model.JournalLine) (time.Time, string, model.Evidence) {
	t := byID[jl.AgentID]
	if t == nil || t.Steps.Len() == 0 {
		return time.Time{}, "", model.Evidence{}
	}
	switch jl.Type {
	case "started":
		line := t.FirstRowLine
		if line == 0 {
			line = t.Steps.First().Line()
		}
		return t.WriteTimeAt(line).UTC(), "first-row", model.Evidence{File: t.File, Line: line}
	case "result", "failed":
		line := t.LastRowLine
		if line == 0 {
			line = t.Steps.Last().Line()
		}
		return t.WriteTimeAt(line).UTC(), "last-row", model.Evidence{File: t.File, Line: line}
	}
	return time.Time{}, "", model.Evidence{}
}

// JournalTimes infers the time of every parsed journal line (the journal has
// no timestamps of its own):
// a started line for agent X at the write time of the first row of
// agent-X.jsonl, a result or failed line at the write time of its last row; a
// line with no transcript inherits the previous line's time (the first line:
// the watch start); then times are made non-decreasing in file order.
func JournalTimes(run *model.Run, start time.Time) []LineTime {
	if run.Journal == nil {
		return nil
	}
	out := make([]LineTime, len(run.Journal.Lines))
	inferJournalTimes(run, start, func(i int, lt LineTime) { out[i] = lt })
	return out
}

// JournalInstants is JournalTimes without the why: each line's time, all a
// replay that does not explain its clock needs (check's: the LineTimes of a
// 200,000-line journal were 29 MB, and copying them in while the collector
// ran a tenth of its replay).
func JournalInstants(run *model.Run, start time.Time) []time.Time {
	if run.Journal == nil {
		return nil
	}
	out := make([]time.Time, len(run.Journal.Lines))
	inferJournalTimes(run, start, func(i int, lt LineTime) { out[i] = lt.At })
	return out
}

// inferJournalTimes gives each parsed journal line's LineTime to each, in
// file order.
func inferJournalTimes(run *model.Run, start time.Time, each func(i int, lt LineTime)) {
	byID := AgentTranscripts(run)
	prev := start.UTC()
	for i := range run.Journal.Lines {
		jl := &run.Journal.Lines[i]
		lt := LineTime{Index: jl.Index, Line: jl.Line, Type: jl.Type, AgentID: jl.AgentID}
		raw, rule, where := rawJournalTime(byID, jl)
		switch {
		case !raw.IsZero():
			lt.At, lt.Rule, lt.Where = raw, rule, where
			if lt.At.Before(prev) {
				lt.At, lt.Raised = prev, true
			}
		case i == 0:
			lt.At, lt.Rule = prev, "watch-start"
		default:
			lt.At, lt.Rule = prev, "inherited"
		}
		prev = lt.At
		each(i, lt)
	}
}

// TimeAfterLine is the time of a journal position that is not a parsed line
// (a malformed line sits between parsed lines): it inherits the time of the
// last parsed line above it, or start when there is none. at holds the
// times of j's parsed lines (JournalInstants).
func TimeAfterLine(j *model.Journal, at []time.Time, physical int, start time.Time) time.Time {
	t := start.UTC()
	for i := range j.Lines {
		if j.Lines[i].Line > physical {
			break
		}
		t = at[i]
	}
	return t
}

// Explain renders one line of the inference for --explain.
func (lt LineTime) Explain() string {
	var why string
	switch lt.Rule {
	case "first-row":
		why = fmt.Sprintf("first row of agent-%s.jsonl (%s:%d)", lt.AgentID, lt.Where.File, lt.Where.Line)
	case "last-row":
		why = fmt.Sprintf("last row of agent-%s.jsonl (%s:%d)", lt.AgentID, lt.Where.File, lt.Where.Line)
	case "inherited":
		why = "no transcript gives a time: the previous line's time"
	case "watch-start":
		why = "first line, no transcript gives a time: the watch start"
	default:
		why = lt.Rule
	}
	if lt.Raised {
		why += "; raised to the previous line's time (times never go back in file order)"
	}
	return fmt.Sprintf("journal line %d (%s) at %s: %s", lt.Index, lt.Type, Format(lt.At), why)
}

// Format prints an instant as RFC 3339 in UTC, with fractional seconds only
// when there are any (2026-05-06T09:04:55Z).
func Format(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
