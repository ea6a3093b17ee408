package replay

import (
	"sort"
	"strings"
	"time"

	"github.com/pmcheck/pmcheck/analyze/clock"
	"github.com/pmcheck/pmcheck/analyze/discover"
	"github.com/pmcheck/pmcheck/analyze/interpret"
	"github.com/pmcheck/pmcheck/analyze/journal"
	"github.com/pmcheck/pmcheck/analyze/model"
)

// World is everything the live watcher could observe of one Workflow run, laid
// out on the simulated clock. Both engines (the event-driven one and the
// reference poller) read only a World, so the property test can feed them
// random Worlds without building files.
type World struct {
	// RunID is printed on START, KILL and DONE.
	RunID string
	// Start is the instant the watch starts (clock.WatchStart).
	Start time.Time
	// HasJournal is false when the run directory or its journal.jsonl never
	// appears; JournalAt is when it comes into existence.
	HasJournal bool
	JournalAt  time.Time
	// Lines are the journal's complete non-blank lines in file order, with
	// non-decreasing At; a Truncate line marks the file shrinking (a RESET).
	Lines []journalLine
	// Agents are the attempts' transcripts by agent id.
	Agents map[string]*Agent
	// Terminals are the parent transcript's lifecycle evidence, sorted by At.
	Terminals []lifecycleTerminal
	// Launches are the instants of the parent's Workflow launches of this run
	// (generation g launched at Launches[g-1]).
	Launches []time.Time
}

// Journal line kinds.
const (
	LineStarted   = "started"
	LineResult    = "result"
	LineFailed    = "failed"
	LineOther     = "other"     // a JSON object of another type: kept, ignored
	LineMalformed = "malformed" // a complete line that is not a JSON object
	LineTooLong   = "too-long"  // a line longer than 1 MiB
	LineTorn      = "torn"      // an unterminated final line: withheld forever
	LineTruncate  = "truncate"  // the file shrank here (engine tests only)
)

// journalLine is one journal line as the watch sees it.
type journalLine struct {
	At      time.Time
	Kind    string
	Key     string // already defaulted (journal.KeyOf) for keyless lines
	AgentID string
	// Where is the line's evidence (file and physical line).
	Where model.Evidence
}

// Agent is what the watch reads of one attempt's transcript.
type Agent struct {
	ID   string
	File clock.File
	Path string // the transcript, for evidence

	// KILL: the last user row (its write time, whether it is the kill
	// sentinel) and the silence before it in seconds (SilenceKnown false:
	// "unknown").
	LastUserAt     time.Time
	LastUserLine   int
	HasLastUser    bool
	LastUserKill   bool
	SilenceKnown   bool
	SilenceSeconds float64
	Ledger         Ledger

	// FAILED: the cause read from the last user or assistant row, and when
	// that row was written.
	LastEventAt time.Time
	HasLast     bool
	Cause       Cause
}

// lifecycleTerminal is one piece of lifecycle evidence in the parent transcript.
type lifecycleTerminal struct {
	At time.Time
	// Status is completed, failed or stopped (DONE at once), or unknown (a
	// status that is not terminal, e.g. missing); interpret.WorkflowTerminal
	// reads a notification's status (killed is stopped).
	Status string
	// Source: notification, task-stop, sync-result.
	Source string
	// Generation is the launch this evidence belongs to (1-based).
	Generation int
	Where      model.Evidence
}

// buildOptions tune how a model.Run becomes a World.
type buildOptions struct {
	// Start overrides the watch start (--start) when non-zero.
	Start time.Time
	// Ledger computes the work of a killed attempt.
	Ledger LedgerFunc
}

// buildWorld lays a loaded Workflow run out on the simulated clock.
func buildWorld(run *model.Run, opts buildOptions) (*World, clock.Start) {
	start := clock.WatchStart(run, opts.Start)
	w := &World{RunID: runIDOf(run.ID), Start: start.At, Agents: map[string]*Agent{}}
	for id, t := range clock.AgentTranscripts(run) {
		w.Agents[id] = agentOf(id, t, start.At, opts.Ledger)
	}
	if run.Journal != nil {
		w.HasJournal = true
		w.Lines = journalLines(run.Journal, clock.JournalInstants(run, start.At), start.At)
		w.JournalAt = start.At
		if len(w.Lines) > 0 {
			w.JournalAt = w.Lines[0].At
		}
	}
	if l := run.Launch; l != nil {
		launchAt := l.At.Time
		if launchAt.IsZero() {
			launchAt = start.At
		}
		w.Launches = []time.Time{launchAt.UTC()}
		w.Terminals = launchTerminals(l, 1)
	}
	return w, start
}

// runIDOf is the run id printed on the event lines: the directory name when it
// is a valid id, else "unknown-run" (watch prints a replacement for a
// directory name its validator refuses; docs/replay.md).
func runIDOf(id string) string {
	if discover.PrintableRunID(id) {
		return id
	}
	return "unknown-run"
}

func agentOf(id string, t *model.Transcript, start time.Time, ledger LedgerFunc) *Agent {
	a := &Agent{ID: id, File: clock.FileOf(t), Path: t.File}
	if !a.File.Timed() && t.Rows > 0 {
		// A transcript with rows but no timestamps: its time is unknown, so
		// it is taken to be on disk from the watch start (docs/replay.md).
		a.File = clock.Writes(start)
	}
	at := func(e *model.Event) time.Time {
		if !e.WriteTime.IsZero() {
			return e.WriteTime.UTC()
		}
		if wt := t.WriteTimeAt(e.Line); !wt.IsZero() {
			return wt.UTC()
		}
		return a.File.First()
	}
	if u := t.Tail.LastUser; u != nil {
		a.HasLastUser = true
		a.LastUserAt, a.LastUserLine = at(u), u.Line
		a.LastUserKill = interpret.IsKillSentinel(u.Text)
		a.SilenceSeconds, a.SilenceKnown = interpret.KillSilence(t)
	}
	if a.LastUserKill {
		a.Ledger = ledger(t)
	}
	if e := t.Tail.LastEvent; e != nil {
		a.HasLast = true
		a.LastEventAt = at(e)
		a.Cause = causeOf(interpret.EndingOf(t))
	} else {
		a.Cause = Cause{Phrase: CauseNotRecorded}
	}
	return a
}

// journalLines merges the parsed and the malformed lines back into file order.
func journalLines(j *model.Journal, times []time.Time, start time.Time) []journalLine {
	out := make([]journalLine, 0, len(j.Lines)+len(j.Malformed))
	for i, l := range j.Lines {
		kind := LineOther
		switch l.Type {
		case "started", "result", "failed":
			kind = l.Type
		}
		if l.Torn {
			kind = LineTorn // watch holds an unterminated line back, even valid JSON
		}
		out = append(out, journalLine{At: times[i], Kind: kind, Key: journal.KeyOf(l), AgentID: l.AgentID,
			Where: model.Evidence{File: j.File, Line: l.Line}})
	}
	for _, m := range j.Malformed {
		if !m.Skipped {
			continue // decoded with a caveat: it is among Lines
		}
		kind := LineMalformed
		switch {
		case m.Length > journal.LineCap || strings.Contains(m.Reason, "longer than"):
			kind = LineTooLong
		case strings.HasPrefix(m.Reason, "torn"):
			kind = LineTorn
		}
		out = append(out, journalLine{At: clock.TimeAfterLine(j, times, m.Line, start), Kind: kind,
			Where: model.Evidence{File: j.File, Line: m.Line}})
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Where.Line < out[b].Where.Line })
	return out
}

// launchTerminals lists the lifecycle evidence of one launch: its synchronous
// result, its last task-notification, and TaskStops of its task.
func launchTerminals(l *model.WorkflowLaunch, gen int) []lifecycleTerminal {
	var ts []lifecycleTerminal
	if l.ResultAt != nil {
		switch l.Status {
		case interpret.TerminalCompleted, interpret.TerminalFailed, interpret.TerminalStopped:
			ts = append(ts, lifecycleTerminal{At: l.ResultAt.Time.UTC(), Status: l.Status, Source: "sync-result", Generation: gen, Where: *l.ResultAt})
		}
	}
	if n := l.LastNotification; n != nil {
		st := interpret.WorkflowTerminal(n.Status)
		ts = append(ts, lifecycleTerminal{At: n.At.Time.UTC(), Status: st, Source: "notification", Generation: gen, Where: n.At})
	}
	for _, s := range l.Stops {
		ts = append(ts, lifecycleTerminal{At: s.Time.UTC(), Status: interpret.TerminalStopped, Source: "task-stop", Generation: gen, Where: s})
	}
	sort.SliceStable(ts, func(i, j int) bool { return ts[i].At.Before(ts[j].At) })
	return ts
}
