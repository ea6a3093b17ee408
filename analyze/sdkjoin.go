package analyze

import (
	"fmt"
	"path"
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
// also has a session file under the root, by that session's id.
type streamJoin struct {
	bySession map[string]joinable
	joined    map[string]bool // stream files folded into a session's run
}

type joinable struct {
	rel   string
	array bool
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
	j := &streamJoin{bySession: map[string]joinable{}, joined: map[string]bool{}}
	consider := func(rel string, array bool) {
		id := transcript.StreamSessionID(l.abs(rel), array)
		if id == "" || !stems[id] || layout.SessionIDOf(rel) == id {
			return
		}
		if _, dup := j.bySession[id]; !dup {
			j.bySession[id] = joinable{rel, array}
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
	l.joins = j
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
	if !ok {
		return
	}
	show := l.show(j.rel)
	st, err := transcript.ReadStreamFile(l.abs(j.rel), show, j.array, l.readOptions(j.rel))
	if err != nil {
		l.addError(fmt.Sprintf("%s: cannot be read (%s); fix its permissions or remove it from the input", show, readReason(err)))
		return
	}
	if st.Main.SessionID != run.ID && run.ID != "" {
		// Named for the session, but another session's stream: a run of
		// its own after all.
		l.joins.joined[j.rel] = false
		l.emit(l.linkStream(j.rel, st))
		return
	}
	if b := st.Broken; b != nil {
		l.addUntrusted(fmt.Sprintf("%s:%d: %s; a run whose record is cut off cannot be checked; give the complete execution file (or the runner's session transcripts)", show, b.Line, b.Msg))
	}
	rt := st.Runtime
	rt.SessionFiles = append(rt.SessionFiles, run.Main.File)
	for _, a := range run.Agents {
		rt.SessionFiles = append(rt.SessionFiles, a.File)
	}
	run.Runtime = rt
	// The stream's transcripts, matched to the files: the parent's to the
	// main file, each subagent's to the file of the call that ran it.
	byCall := map[string]*model.Transcript{}
	for _, a := range st.Agents {
		byCall[a.ToolUseID] = a.T
	}
	compare := func(file, stream *model.Transcript, what string) {
		fm, sm := messages(file), messages(stream)
		if fm != sm {
			at := model.Evidence{File: show}
			if stream != nil {
				at.Line = stream.FirstRowLine
			}
			rt.Disagreements = append(rt.Disagreements, model.Problem{At: at,
				Message: fmt.Sprintf("%s: %s holds %d user and assistant rows, the stream %d", what, fileName(file), fm, sm)})
		}
	}
	compare(run.Main, st.Main, "the parent")
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
		if s := byCall[sc.ToolUseID]; s != nil || sc.Child != nil {
			compare(sc.Child, s, fmt.Sprintf("subagent %s", sc.ToolUseID))
			delete(byCall, sc.ToolUseID)
		}
	}
	for _, a := range st.Agents {
		if _, left := byCall[a.ToolUseID]; left {
			rt.Disagreements = append(rt.Disagreements, model.Problem{At: model.Evidence{File: show, Line: a.T.FirstRowLine},
				Message: fmt.Sprintf("the stream holds %d messages of a subagent (parent_tool_use_id %s) that no session file's call ran", messages(a.T), a.ToolUseID)})
		}
	}
	for _, d := range rt.Disagreements {
		run.Problems = append(run.Problems, model.Problem{At: d.At, Message: "stream and session files disagree: " + d.Message})
	}
}

// messages counts a transcript's user and assistant rows (0 for none).
func messages(t *model.Transcript) int {
	if t == nil {
		return 0
	}
	return t.Types["user"] + t.Types["assistant"]
}

func fileName(t *model.Transcript) string {
	if t == nil {
		return "no session file"
	}
	return "the session file " + path.Base(strings.TrimSuffix(t.File, "/"))
}
