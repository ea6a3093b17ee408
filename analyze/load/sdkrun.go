package load

import (
	"bytes"
	"errors"
	"fmt"
	"sort"

	"github.com/pmcheck/pmcheck/analyze/discover"
	"github.com/pmcheck/pmcheck/analyze/jsonl"
	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/analyze/transcript"
)

// Agent SDK message streams (transcript/sdkstream.go) as runs: the GitHub
// action's execution file (a JSON array) or `claude -p --output-format
// stream-json` output (JSON Lines). A stream is one session: its parent's
// transcript, its subagents' (grouped by parent_tool_use_id) and the
// runtime's own account (model.Runtime). Discovery tells a stream from a
// session file by its rows: a .jsonl whose rows spell session_id, a .json
// whose first element is such a message.

// LinkParentToolUse names the stream's own link from a call to its
// subagent's messages: they carry the call's id in parent_tool_use_id.
// LinkTaskStarted names the agent id a task_started message gives a call
// (its task_id, for a local_agent task) when no other source names one: a
// foreground agent cut off before its call returned an agent id.
const (
	LinkParentToolUse = "parent_tool_use_id"
	LinkTaskStarted   = "task_started"
)

// isStreamTranscript reports whether a file read as a session is a
// stream: most of its rows spell session_id.
func isStreamTranscript(t *model.Transcript) bool {
	return isStreamSpelling(transcript.Spelling{SDKRows: t.SDKRows, ClaudeCodeRows: t.ClaudeCodeRows})
}

// isStreamSpelling is the one rule that tells a stream saved as .jsonl from
// a session file, whichever reader counted the rows (Transcript.SDKRows and
// ClaudeCodeRows, Stream.AsSession): most of them spell session_id.
func isStreamSpelling(c transcript.Spelling) bool {
	return c.SDKRows > 0 && 2*c.SDKRows >= c.ClaudeCodeRows
}

// streamFirst links session file k, whose first rows name their session as
// a stream does (firstUUIDs), from one reading with the stream reader, and
// reports true; a file so read is not read as a session. It reports false,
// having read it but reported nothing, when the rows say it is a session
// after all (isStreamSpelling: most of them spell sessionId): the caller
// reads it as one, and only such a mixed file is decoded twice. A stream
// that belongs with a session file of the walk (findJoins) is read here
// and its reading kept for that session's run (joinStream), or, when that
// run came first, decided from the join's reading.
func (l *loader) streamFirst(k int, rel string) bool {
	if l.joinedHere(rel) {
		if isStream, read := l.joins.asStream[rel]; read {
			return isStream
		}
		st, err := l.readStream(rel, false, l.takeFirstData(k))
		l.joins.kept[rel] = streamReading{st, err}
		return err != nil || isStreamSpelling(st.AsSession)
	}
	if l.joinedElsewhere(rel) {
		// Joined with another input's session file, which reads it
		// there: only whether it is a session is read here.
		st, err := l.readStream(rel, false, l.takeFirstData(k))
		return err == nil && isStreamSpelling(st.AsSession)
	}
	st, err := l.readStream(rel, false, l.takeFirstData(k))
	if err == nil && !isStreamSpelling(st.AsSession) {
		return false
	}
	l.linkStreamReading(rel, st, err)
	return true
}

// takeFirstData hands on the bytes the first-row pass kept of session k
// (nil: none), once.
func (l *loader) takeFirstData(k int) []byte {
	if l.firstData == nil {
		return nil
	}
	data := l.firstData[k]
	l.firstData[k] = nil
	return data
}

// streamReading is a stream as a reader left it: what it read, or why it
// could not.
type streamReading struct {
	st  *transcript.Stream
	err error
}

// readStream decodes a stream: data, the file's bytes, when not nil.
func (l *loader) readStream(rel string, array bool, data []byte) (*transcript.Stream, error) {
	if onDecode != nil {
		onDecode(rel)
	}
	if data != nil {
		return transcript.ReadStream(bytes.NewReader(data), l.show(rel), array, l.readOptions(rel))
	}
	return transcript.ReadStreamFile(l.abs(rel), l.show(rel), array, l.readOptions(rel))
}

// streamCandidates links the .json files of a walk that are streams.
func (l *loader) streamCandidates() {
	for k, rel := range l.inv.Streams {
		l.key = problemKey{4, k}
		ok, err := transcript.SniffStreamArray(l.abs(rel))
		if err != nil {
			l.addError(fmt.Sprintf("%s: cannot be read (%s); fix its permissions or remove it from the input", l.show(rel), readReason(err)))
			continue
		}
		if ok && !l.joinedElsewhere(rel) {
			l.streamRun(rel, true)
			l.evict()
		}
	}
}

// streamRun reads a stream and links its run.
func (l *loader) streamRun(rel string, array bool) {
	st, err := l.readStream(rel, array, nil)
	l.linkStreamReading(rel, st, err)
}

// linkStreamReading reports what a stream's reading says of it and links
// its run.
func (l *loader) linkStreamReading(rel string, st *transcript.Stream, err error) {
	show := l.show(rel)
	var gaveUp *jsonl.GaveUpError
	switch {
	case errors.As(err, &gaveUp):
		l.addUntrusted(fmt.Sprintf("%s; a message stream that is mostly not JSON cannot be checked; repair it or remove it from the input", gaveUp))
		return
	case err != nil:
		l.addError(fmt.Sprintf("%s: cannot be read (%s); fix its permissions or remove it from the input", show, readReason(err)))
		return
	}
	if msg := cutOff(st, show); msg != "" {
		l.addUntrusted(msg)
	}
	if st.FirstInvalid > 0 {
		l.addUntrusted(fmt.Sprintf("%s:%d: an element of the message array is not a JSON object; the execution file was damaged and cannot be checked; give an intact copy", show, st.FirstInvalid))
	}
	all := append([]*model.Transcript{st.Main}, agentTranscripts(st)...)
	for _, t := range all {
		if t.OverCap > 0 {
			l.addUntrusted(fmt.Sprintf("%s:%d: a message of %d bytes is over the line cap (%d bytes) and was not read; a stream with unread messages cannot be checked; pass --line-cap %d or more to read it, or remove the file from the input",
				show, t.FirstOverCap, t.FirstOverCapLen, l.lineCap(), t.FirstOverCapLen))
			break
		}
	}
	if st.Runtime.Format == transcript.StreamLines && st.Main.ClaudeCodeRows > 0 && jsonl.MostlyNotJSON(st.Main.MalformedSkipped, st.Main.Rows) {
		l.addUntrusted(fmt.Sprintf("%s: %d of %d lines are not JSON messages (first at line %d); a stream that is mostly not JSON cannot be checked; repair it or remove it from the input",
			show, st.Main.MalformedSkipped, st.Main.Lines, st.Main.Malformed[0].Line))
	}
	if rt := st.Runtime; rt.Messages > 0 && rt.Messages <= len(rt.Results) && st.Broken == nil {
		// Result messages and nothing else: the runtime says how the run
		// ended, but none of what it did (its calls, its subagents) is here
		// to check. Passing it would claim an audit that never happened.
		l.addUntrusted(fmt.Sprintf("%s:%d: the stream holds only its result message, none of the run's messages (its calls and subagents) to check; give the output of `claude -p --output-format stream-json --verbose`, the action's execution_file, or the runner's session transcripts", show, st.LastLine))
		return
	}
	if st.Runtime.Messages == 0 && st.Broken == nil {
		l.addSkipped(model.Problem{At: model.Evidence{File: show}, Message: "holds no messages; not a run"})
		return
	}
	l.emit(l.linkStream(rel, st))
}

// cutOff says why a stream's record of its run is cut off, or "" when it
// is whole. The action writes its execution file as the run goes: a job
// cancelled mid-write leaves an array without its end. `claude -p
// --output-format stream-json` prints a result message when the run ends,
// however it ends (error subtypes included), one per turn: a stream of
// messages without one, or whose last turn has none, was cut off too, the
// process killed or the job cancelled before the runtime could say how the
// run ended. Either way what the missing
// messages said is unknown, and a run that cannot be judged is never a
// pass. (A stream without messages is not a run at all.)
func cutOff(st *transcript.Stream, show string) string {
	if b := st.Broken; b != nil && b.NotArray {
		// Not cut off: another file. `claude -p --output-format json` writes
		// one result object, which holds none of the run's messages.
		return fmt.Sprintf("%s:%d: %s, and this file is none; give the action's execution_file, the output of `claude -p --output-format stream-json --verbose` (the one result object `--output-format json` writes holds no messages to check) or the runner's session transcripts", show, b.Line, b.Msg)
	}
	if b := st.Broken; b != nil {
		return fmt.Sprintf("%s:%d: %s; a run whose record is cut off cannot be checked; give the complete execution file (or the runner's session transcripts)", show, b.Line, b.Msg)
	}
	const how = "a run whose record is cut off cannot be checked; give the complete stream (or the runner's session transcripts)"
	switch {
	case st.Runtime.Messages > 0 && st.Runtime.Result == nil:
		return fmt.Sprintf("%s:%d: the stream ends without a result message (the process was killed or the job cancelled before the run ended); %s", show, st.LastLine, how)
	case st.Unended > 0:
		return fmt.Sprintf("%s:%d: the turn that starts here has no result message: the stream ends mid-turn (the process was killed or the job cancelled); %s", show, st.Unended, how)
	}
	return ""
}

func agentTranscripts(st *transcript.Stream) []*model.Transcript {
	out := make([]*model.Transcript, len(st.Agents))
	for i, a := range st.Agents {
		out[i] = a.T
	}
	return out
}

// linkStream builds the run of a stream: every Agent/Task call is linked
// as a session's is (its result, its notifications), and to its
// subagent's messages by their parent_tool_use_id; nested calls in the
// subagents' transcripts too.
func (l *loader) linkStream(rel string, st *transcript.Stream) *model.Run {
	main := st.Main
	run := &model.Run{Kind: model.KindSession, ID: main.SessionID, Path: main.File, Main: main, Runtime: st.Runtime}
	if in := st.Runtime.Init; in != nil && in.SessionID != "" {
		run.ID = in.SessionID
	}
	byCall := map[string]*model.Transcript{}
	for _, a := range st.Agents {
		byCall[a.ToolUseID] = a.T
	}
	denied := map[string]model.Evidence{}
	if res := st.Runtime.Result; res != nil {
		for _, d := range res.PermissionDenials {
			if d.ToolUseID != "" {
				denied[d.ToolUseID] = res.At
			}
		}
	}
	taskAgent := map[string]string{} // call id -> the agent task it started
	for _, t := range st.Runtime.Tasks {
		if t.TaskType == "local_agent" && t.ToolUseID != "" && discover.ValidID(t.TaskID) {
			if _, dup := taskAgent[t.ToolUseID]; !dup {
				taskAgent[t.ToolUseID] = t.TaskID
			}
		}
	}
	used := map[*model.Transcript]bool{}
	walkSpawns(main, func(owner *model.Transcript, c *model.ToolCall) *model.Transcript { // link.go
		switch {
		case c.IsSubagentSpawn():
			// No agent file can be the child: the stream holds them.
			sc := l.linkSubagent(run, owner, c, streamAgents{})
			sc.OwnerTranscript = owner
			sc.Child, sc.ChildFile = nil, ""
			if id := taskAgent[c.ID()]; sc.AgentID == "" && id != "" {
				sc.AgentID = id
				sc.LinkedBy = append(sc.LinkedBy, LinkTaskStarted)
			}
			if child := byCall[c.ID()]; child != nil && !used[child] {
				used[child] = true
				sc.Child, sc.ChildFile = child, child.File
				sc.LinkedBy = append(sc.LinkedBy, LinkParentToolUse)
				sort.Strings(sc.LinkedBy)
				if child.AgentID == "" {
					child.AgentID = sc.AgentID
				}
			}
			if at, ok := denied[c.ID()]; ok {
				sc.Denied = &at
			}
			run.Subagents = append(run.Subagents, sc)
			return sc.Child
		case c.Name() == "Workflow" && owner == main:
			run.Launches = append(run.Launches, l.linkLaunch(main, c))
		}
		return nil
	})
	for _, a := range st.Agents {
		run.Agents = append(run.Agents, a.T)
		if !used[a.T] {
			msg := fmt.Sprintf("messages with parent_tool_use_id %s name no Agent or Task call of the stream; read as a subagent nobody spawned", a.ToolUseID)
			if a.ToolUseID == "" {
				msg = fmt.Sprintf("%d messages name a parent_tool_use_id that no Agent or Task call before them has; read together as a subagent nobody spawned", a.T.Rows)
			}
			run.Problems = append(run.Problems, model.Problem{At: model.Evidence{File: a.T.File, Line: a.T.FirstRowLine}, Message: msg})
		}
	}
	return run
}

// streamAgents is linkSubagent's agent map for a stream: empty, as no
// agent file belongs to it.
type streamAgents = map[string]*model.Transcript

// isStreamFile reports whether a .jsonl file given by name is a message
// stream (a file that cannot be read is left to the session reader, which
// says why).
func isStreamFile(path string) bool {
	ok, _ := transcript.SniffStreamLines(path)
	return ok
}
