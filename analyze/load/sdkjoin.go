package load

import (
	"fmt"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/pmcheck/pmcheck/analyze/layout"
	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/analyze/transcript"
)

// A CI job that runs Claude Code leaves two records of one run: the SDK
// message stream (the action's execution_file, or stream-json output) and
// the runner's session files (~/.claude/projects/…). Given together, they
// are one run, not two: the session files' run (the richer record: every
// row, agent_progress, sidechain flags, the branch) takes the stream's
// runtime account (init, tasks, the result with its counts and permission
// denials), and where the two disagree on a transcript's messages the run
// says so (model.Runtime.Disagreements).

// streamJoin is what the walk's pre-pass found: each stream whose session
// also has a session file under the root (or in another input), by that
// session's id.
type streamJoin struct {
	bySession map[string]joinable
	joined    map[string]bool // stream files folded into a session's run
	// streams are the walk's streams and their session ids, for the joins
	// across inputs (joinAcross).
	streams []joinable
	// kept are the readings of the joined streams read before their
	// session's run (streamFirst), which that run takes (joinStream); and
	// asStream says, of each joined stream that run read itself, whether
	// its rows make it a stream (isStreamSpelling).
	kept     map[string]streamReading
	asStream map[string]bool
	// own are the joined streams that turned out another session's:
	// linked as runs of their own, by the run that read them.
	own map[string]bool
}

type joinable struct {
	rel   string // in the root of the input that holds it
	abs   string // on disk
	show  string // as evidence names it
	array bool
	id    string // its session_id
}

// findJoins looks for streams that belong with a session file of the
// walk: execution files (.json) and .jsonl files not named as sessions
// are, by their session_id, and joined when a session file carries that
// id in its name.
func (l *loader) findJoins() {
	stems := map[string]bool{}
	for _, s := range l.inv.Sessions {
		stems[layout.SessionIDOf(s)] = true
	}
	j := l.joinState()
	consider := func(rel string, array bool) {
		id := transcript.StreamSessionID(l.abs(rel), array)
		if id == "" || layout.SessionIDOf(rel) == id {
			return
		}
		s := joinable{rel: rel, abs: l.abs(rel), show: l.show(rel), array: array, id: id}
		j.streams = append(j.streams, s)
		if !stems[id] {
			return
		}
		if _, dup := j.bySession[id]; !dup {
			j.bySession[id] = s
		}
	}
	for _, rel := range l.inv.Streams {
		if ok, _ := transcript.SniffStreamArray(l.abs(rel)); ok {
			consider(rel, true)
		}
	}
	for _, rel := range l.inv.Sessions {
		if !looksLikeSessionName(rel) {
			if ok, _ := transcript.SniffStreamLines(l.abs(rel)); ok {
				consider(rel, false)
			}
		}
	}
	for _, s := range j.bySession {
		j.joined[s.rel] = true
	}
}

func (l *loader) joinState() *streamJoin {
	if l.joins == nil {
		l.joins = &streamJoin{bySession: map[string]joinable{}, joined: map[string]bool{},
			kept: map[string]streamReading{}, asStream: map[string]bool{}, own: map[string]bool{}}
	}
	return l.joins
}

// joinAcross joins streams and session files given as different inputs
// (`pmcheck check "$EXECUTION_FILE" ~/.claude/projects`, or two roots): a
// stream whose session has no file in its own input but has one in
// another is read with that session's run, there, and not as a run of its
// own. The first input holding the session's file takes it.
func joinAcross(inputs []*input) {
	if len(inputs) < 2 {
		return
	}
	sessionIn := map[string]int{} // session id -> the first input with its file
	sessionsOf := make([]map[string]bool, len(inputs))
	for k, in := range inputs {
		ids := map[string]bool{}
		switch {
		case in.tgt.Session != "":
			ids[layout.SessionIDOf(in.tgt.Session)] = true
		case in.tgt.Workflow == "" && in.tgt.Stream == "":
			for _, s := range in.all.Sessions {
				ids[layout.SessionIDOf(s)] = true
			}
		}
		for id := range ids {
			if _, ok := sessionIn[id]; !ok {
				sessionIn[id] = k
			}
		}
		sessionsOf[k] = ids
	}
	for k, in := range inputs {
		l := in.l
		streams := l.joinState().streams
		if in.tgt.Stream != "" {
			rel := in.tgt.Stream
			id := transcript.StreamSessionID(l.abs(rel), in.tgt.Array)
			streams = []joinable{{rel: rel, abs: l.abs(rel), show: l.show(rel), array: in.tgt.Array, id: id}}
		}
		for _, s := range streams {
			m, ok := sessionIn[s.id]
			if s.id == "" || !ok || m == k || sessionsOf[k][s.id] || l.joins.joined[s.rel] {
				continue // no session file elsewhere, or joined in its own input
			}
			to := inputs[m].l.joinState()
			if prev, dup := to.bySession[s.id]; dup {
				if filepath.Clean(prev.abs) == filepath.Clean(s.abs) {
					l.joins.joined[s.rel] = true // the same file, given twice
				}
				continue
			}
			to.bySession[s.id] = s
			l.joins.joined[s.rel] = true
		}
	}
}

// looksLikeSessionName reports whether a transcript is named as Claude
// Code names session files: <uuid>.jsonl.
func looksLikeSessionName(rel string) bool {
	id := layout.SessionIDOf(rel)
	if len(id) != 36 {
		return false
	}
	for i, c := range id {
		switch {
		case i == 8 || i == 13 || i == 18 || i == 23:
			if c != '-' {
				return false
			}
		case c >= '0' && c <= '9', c >= 'a' && c <= 'f':
		default:
			return false
		}
	}
	return true
}

// joinedHere reports whether a stream file is read with a session file's
// run of this loader (not of another input's: joinAcross).
func (l *loader) joinedHere(rel string) bool {
	if !l.joinedElsewhere(rel) {
		return false
	}
	for _, j := range l.joins.bySession {
		if j.rel == rel {
			return true
		}
	}
	return false
}

// joinedElsewhere reports whether a stream file is read with its
// session's files instead of as a run of its own.
func (l *loader) joinedElsewhere(rel string) bool {
	return l.joins != nil && l.joins.joined[rel]
}

// joinStream adds to a session-file run the stream of the same session,
// if the walk found one (again when the run is linked again, a resume
// copy's). A stream that turns out to be another session's is a run of
// its own.
func (l *loader) joinStream(run *model.Run) {
	if l.joins == nil || run.Main == nil {
		return
	}
	j, ok := l.joins.bySession[layout.SessionIDOf(run.Main.File)]
	if !ok || l.joins.own[j.rel] {
		return
	}
	show := j.show
	r, ok := l.joins.kept[j.rel]
	if ok {
		delete(l.joins.kept, j.rel) // read before this run (streamFirst)
	} else {
		if onDecode != nil {
			onDecode(j.rel)
		}
		r.st, r.err = transcript.ReadStreamFile(j.abs, show, j.array, l.readOptions(j.rel))
		l.joins.asStream[j.rel] = r.err != nil || isStreamSpelling(r.st.AsSession)
	}
	st, err := r.st, r.err
	if err != nil {
		l.addError(fmt.Sprintf("%s: cannot be read (%s); fix its permissions or remove it from the input", show, readReason(err)))
		return
	}
	if st.Main.SessionID != run.ID && run.ID != "" {
		// Named for the session, but another session's stream: a run of
		// its own after all, linked here, once. It stays joined, so that
		// its own turn does not link it again (a report holds one run per
		// file: twice was an internal error), and a run linked again (a
		// resume copy's) does not either.
		l.joins.own[j.rel] = true
		l.emit(l.linkStream(j.rel, st))
		return
	}
	if msg := cutOff(st, show); msg != "" {
		l.addUntrusted(msg)
	}
	rt := st.Runtime
	rt.SessionFiles = append(rt.SessionFiles, run.Main.File)
	for _, a := range run.Agents {
		rt.SessionFiles = append(rt.SessionFiles, a.File)
	}
	run.Runtime = rt
	// The stream's messages, matched to the files' rows by uuid: the
	// parent's to the main file, each subagent's to the file of the call
	// that ran it. What one holds and the other does not is named.
	streamRows, err := transcript.RowIDs(j.abs, true, j.array, l.lineCap())
	if err != nil {
		l.addError(fmt.Sprintf("%s: cannot be read (%s); fix its permissions or remove it from the input", show, readReason(err)))
		return
	}
	byParent := map[string][]transcript.RowID{}
	for _, r := range streamRows {
		byParent[r.Parent] = append(byParent[r.Parent], r)
	}
	compare := func(file *model.Transcript, parent, what string) {
		var fileRows []transcript.RowID
		if file != nil {
			fileRows, _ = transcript.RowIDs(l.abs(l.relOf(file.File)), false, false, l.lineCap())
		}
		rt.Disagreements = append(rt.Disagreements, rowsDiffer(file, fileRows, show, byParent[parent], what)...)
		delete(byParent, parent)
	}
	compare(run.Main, "", "the parent")
	denied := map[string]model.Evidence{}
	if res := rt.Result; res != nil {
		for _, d := range res.PermissionDenials {
			denied[d.ToolUseID] = res.At
		}
	}
	for _, sc := range run.Subagents {
		if at, ok := denied[sc.ToolUseID]; ok {
			sc.Denied = &at
		}
		if _, inStream := byParent[sc.ToolUseID]; inStream || sc.Child != nil {
			compare(sc.Child, sc.ToolUseID, "subagent "+sc.ToolUseID)
		}
	}
	parents := make([]string, 0, len(byParent))
	for p := range byParent {
		parents = append(parents, p)
	}
	sort.Strings(parents)
	for _, p := range parents {
		rows := byParent[p]
		rt.Disagreements = append(rt.Disagreements, model.Problem{At: model.Evidence{File: show, Line: rows[0].Line},
			Message: fmt.Sprintf("the stream holds %d messages of a subagent (parent_tool_use_id %s) that no call of the session files ran", len(rows), p)})
	}
	for _, d := range rt.Disagreements {
		run.Problems = append(run.Problems, model.Problem{At: d.At, Message: "stream and session files disagree: " + d.Message})
	}
}

// rowsDiffer names the first user or assistant row that one side holds
// and the other does not, each way, with how many more there are.
func rowsDiffer(file *model.Transcript, fileRows []transcript.RowID, stream string, streamRows []transcript.RowID, what string) []model.Problem {
	inFile := make(map[uint64]bool, len(fileRows))
	for _, r := range fileRows {
		inFile[r.Hash] = true
	}
	inStream := make(map[uint64]bool, len(streamRows))
	for _, r := range streamRows {
		inStream[r.Hash] = true
	}
	var out []model.Problem
	name := "no session file"
	if file != nil {
		name = "the session file " + path.Base(file.File)
	}
	if first, n := firstMissing(fileRows, inStream); n > 0 && file != nil {
		out = append(out, model.Problem{At: model.Evidence{File: file.File, Line: first.Line},
			Message: fmt.Sprintf("%s: this row of %s is not in the stream%s", what, name, more(n))})
	}
	if first, n := firstMissing(streamRows, inFile); n > 0 {
		out = append(out, model.Problem{At: model.Evidence{File: stream, Line: first.Line},
			Message: fmt.Sprintf("%s: this message of the stream is not in %s%s", what, name, more(n))})
	}
	return out
}

func firstMissing(rows []transcript.RowID, other map[uint64]bool) (transcript.RowID, int) {
	var first transcript.RowID
	n := 0
	for _, r := range rows {
		if !other[r.Hash] {
			if n == 0 {
				first = r
			}
			n++
		}
	}
	return first, n
}

func more(n int) string {
	if n <= 1 {
		return ""
	}
	return fmt.Sprintf(" (and %d more)", n-1)
}

// relOf is the root-relative path of an evidence path (show's inverse).
func (l *loader) relOf(file string) string {
	if l.display == "" {
		return file
	}
	return strings.TrimPrefix(file, l.display+"/")
}
