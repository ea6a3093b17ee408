package load

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/pmcheck/pmcheck/analyze/discover"
	"github.com/pmcheck/pmcheck/analyze/journal"
	"github.com/pmcheck/pmcheck/analyze/jsonl"
	"github.com/pmcheck/pmcheck/analyze/layout"
	"github.com/pmcheck/pmcheck/analyze/model"
)

// Link sources, in the order of trust used when they disagree.
const (
	LinkToolUseResult = "toolUseResult"
	LinkResultTail    = "result-tail"
	LinkNotification  = "notification"
	LinkSidecar       = "sidecar"
	LinkAgentProgress = "agent-progress"
)

// sessionRun builds the run of one main transcript.
func (l *loader) sessionRun(rel string) {
	main := l.transcript(rel)
	if main == nil {
		return
	}
	if isStreamTranscript(main) {
		// Told apart by its rows: an SDK message stream saved as .jsonl.
		delete(l.transcripts, rel)
		if !l.joinedElsewhere(rel) {
			l.streamRun(rel, false) // sdkrun.go
		}
		return
	}
	if why := notTranscript(main); why != "" {
		l.notARun(main, why)
		return
	}
	run := &model.Run{Kind: model.KindSession, ID: main.SessionID, Path: main.File, Main: main}
	if run.ID == "" {
		run.ID = layout.SessionIDOf(rel)
	}
	if len(main.CopyOf) > 0 {
		// The resume-copy decision (markResumeCopies) is reported: which
		// rows this file gave up, and to which file.
		run.Problems = append(run.Problems, model.Problem{At: model.Evidence{File: main.File}, Message: fmt.Sprintf(
			"%d row(s) are a resume's copies of %s (every row of it is here, with the same content, and this file has more): their Agent/Task calls are facts of that file, not of this one",
			main.Copied, strings.Join(main.CopyOf, ", "))})
	}
	// The session's own subagent transcripts: <sessionId>/subagents/** (not
	// workflows/, which belong to their runs), and legacy agent-<id>.jsonl
	// files beside the session that carry its sessionId.
	own := map[string]*model.Transcript{}
	// Only the files under the side directory or beside the session can
	// match; the index lists them in the order of a walk over every agent
	// file (sorted ids), so reads and errors come in the same order.
	for _, e := range l.sessionCandidates(layout.Stem(rel), path.Dir(rel), main.SessionID) {
		id, f := e.id, e.file
		switch {
		case layout.OwnSubagent(rel, f):
		case layout.Beside(rel, f) && main.SessionID != "":
			t := l.transcript(f)
			if t == nil || t.SessionID != main.SessionID {
				continue
			}
		default:
			continue
		}
		if t := l.transcript(f); t != nil {
			own[id] = t
			l.claimed[f] = true
		}
	}
	agents := map[string]*model.Transcript{}
	for id, t := range own {
		agents[id] = t
	}
	// Link every Agent/Task call, in the main transcript and, for nested
	// spawns, in the children (breadth first, each transcript once).
	walkSpawns(main, func(owner *model.Transcript, c *model.ToolCall) *model.Transcript {
		switch {
		case c.IsSubagentSpawn():
			sc := l.linkSubagent(run, owner, c, agents)
			run.Subagents = append(run.Subagents, sc)
			return sc.Child
		case c.Name() == "Workflow" && owner == main:
			wl := l.linkLaunch(main, c)
			l.requireRunDir(wl)
			run.Launches = append(run.Launches, wl)
		}
		return nil
	})
	for _, t := range agents {
		run.Agents = append(run.Agents, t)
	}
	sort.Slice(run.Agents, func(i, j int) bool { return run.Agents[i].File < run.Agents[j].File })
	l.joinStream(run) // sdkjoin.go
	l.emit(run)
}

// walkSpawns hands visit every tool call of main and, for nested spawns,
// of the children visit returns for them (the transcript a call spawned,
// nil for none): breadth first, each transcript once. A session's linking
// and a stream's walk their calls alike.
func walkSpawns(main *model.Transcript, visit func(owner *model.Transcript, c *model.ToolCall) *model.Transcript) {
	queue := []*model.Transcript{main}
	seen := map[*model.Transcript]bool{main: true}
	for len(queue) > 0 {
		owner := queue[0]
		queue = queue[1:]
		for _, c := range owner.ToolCalls {
			if child := visit(owner, c); child != nil && !seen[child] {
				seen[child] = true
				queue = append(queue, child)
			}
		}
	}
}

// notTranscript says why a .jsonl file is not a Claude Code transcript, or
// "" when it is one: it must hold at least one row Claude Code wrote. Such a
// file is an input problem, never a run, so a folder of other JSON Lines
// files cannot pass a check as "N runs, no findings".
func notTranscript(t *model.Transcript) string {
	switch {
	case t.Rows == 0:
		return "holds no transcript rows; not a session"
	case t.ClaudeCodeRows == 0:
		return fmt.Sprintf("holds %d JSON rows but none that Claude Code writes (a row type such as user or assistant with a sessionId or uuid); not a session", t.Rows)
	}
	return ""
}

// notARun reports a .jsonl file that is not a transcript: a note when it is
// JSON Lines of another kind (or empty); one whose lines do not decode at
// all was reported as an input error when it was read (loader.undecodable).
func (l *loader) notARun(t *model.Transcript, why string) {
	if _, ok := undecodable(t); ok {
		return
	}
	l.addSkipped(model.Problem{At: model.Evidence{File: t.File}, Message: why})
}

// undecodable reports a transcript (a session's or an agent's) whose lines
// do not decode at all as an input error, and says whether it did. A
// session re-encoded as UTF-16, gzipped, written with CR line ends or with a
// NUL on each line holds no row, but what it holds may be a run, or a
// killed agent's work: a check that passed beside it would claim a file it
// could not read, whatever else is in the folder.
func (l *loader) undecodable(t *model.Transcript) bool {
	bad, ok := undecodable(t)
	if !ok {
		return false
	}
	at := t.File
	if bad.Line > 0 {
		at += ":" + strconv.Itoa(bad.Line)
	}
	l.addErrorAt(t.File, bad.Line, fmt.Sprintf("%s: does not decode as JSON Lines (%s; %d of its %d non-blank line(s) are not JSON, and no line is a row): a file re-encoded (UTF-16, gzip) or written with CR line ends cannot be checked; convert it to UTF-8 JSON Lines with LF line ends, or remove it from the input",
		at, bad.Reason, t.Lines-t.Values, t.Lines))
	return true
}

// undecodable returns the first line of a file without a row that is not
// even a JSON value (a JSON Lines file of arrays or numbers decodes: it is
// another kind of file, not a broken one), and whether there is one.
func undecodable(t *model.Transcript) (model.Malformed, bool) {
	if t.Rows > 0 || t.Lines == t.Values {
		return model.Malformed{}, false
	}
	for _, m := range t.Malformed {
		if m.Reason != jsonl.ReasonNotAnObject {
			return m, true
		}
	}
	// Past the examples kept: the line is not known.
	return model.Malformed{Reason: "not JSON"}, true
}

// linkSubagent resolves one Agent/Task call to its agent id and child
// transcript, recording every source that named the id.
func (l *loader) linkSubagent(run *model.Run, owner *model.Transcript, c *model.ToolCall, agents map[string]*model.Transcript) *model.SubagentCall {
	sc := &model.SubagentCall{Call: c, Owner: owner.File, ToolUseID: c.ID(), Tool: c.Name(), Description: c.Description(),
		SubagentType: c.SubagentType(), At: c.At(), Mode: model.ModeSync}
	if c.RunInBackground() {
		sc.Mode = model.ModeAsync
	}
	ids := map[string][]string{} // id -> sources
	var order []string
	add := func(id, source string) {
		if id == "" {
			return
		}
		if _, ok := ids[id]; !ok {
			order = append(order, id)
		}
		ids[id] = append(ids[id], source)
	}
	if r := c.Result; r != nil {
		sc.Result = r
		at := r.At()
		sc.ResultAt = &at
		add(r.AgentID(), LinkToolUseResult)
		add(r.TailAgentID(), LinkResultTail)
		if r.IsAsync() || r.Status() == "async_launched" || strings.HasPrefix(r.Text, "Async agent launched") {
			sc.Mode = model.ModeAsync
		}
	}
	// Notifications name the call by tool-use id (≥ 2.1.100) or, for agents,
	// by task id == agent id.
	idx := l.notifications(owner)
	if c.ID() != "" {
		for _, n := range idx.byToolUse[c.ID()] {
			sc.Notifications = append(sc.Notifications, n)
			add(n.TaskID, LinkNotification)
		}
	}
	for _, p := range owner.Progress {
		if p.ToolUseID == c.ID() && c.ID() != "" {
			add(p.AgentID, LinkAgentProgress)
		}
	}
	if c.ID() != "" {
		for _, f := range l.sidecarIndex()[c.ID()] {
			add(layout.AgentIDFromName(path.Base(f)), LinkSidecar)
		}
	}
	if len(order) > 0 {
		// Prefer the most trusted source when sources disagree.
		best := order[0]
		for _, id := range order {
			if rank(ids[id]) < rank(ids[best]) {
				best = id
			}
		}
		if len(order) > 1 {
			run.Problems = append(run.Problems, model.Problem{At: c.At(), Message: fmt.Sprintf("call %s is linked to several agent ids (%s); using %s", c.ID(), strings.Join(order, ", "), best)})
		}
		if discover.ValidID(best) {
			sc.AgentID = best
			src := append([]string(nil), ids[best]...)
			sort.Strings(src)
			sc.LinkedBy = dedupe(src)
		} else {
			run.Problems = append(run.Problems, model.Problem{At: c.At(), Message: fmt.Sprintf("call %s names agent id %q, which is not a valid id; not linked", c.ID(), best)})
		}
	}
	if sc.AgentID != "" {
		// Notifications without a tool-use id (older CLIs), or whose id names
		// no call of the file (an export tool redacted or rewrote it), name
		// the agent by task id.
		if byTask := idx.byTask[sc.AgentID]; len(byTask) > 0 {
			sc.Notifications = mergeByLine(sc.Notifications, byTask)
		}
		child := agents[sc.AgentID]
		if child == nil {
			child = l.findAgent(sc.AgentID)
			if child != nil {
				agents[sc.AgentID] = child
			}
		}
		if child != nil {
			sc.Child = child
			sc.ChildFile = child.File
		}
	}
	if n := len(sc.Notifications); n > 0 {
		sc.LastNotification = sc.Notifications[n-1]
		sc.Mode = model.ModeAsync
	}
	switch {
	case sc.LastNotification != nil && sc.LastNotification.HasStatus:
		sc.Status = sc.LastNotification.Status
	case sc.Result != nil:
		sc.Status = sc.Result.Status()
	}
	return sc
}

func rank(sources []string) int {
	best := 99
	for _, s := range sources {
		r := 5
		switch s {
		case LinkToolUseResult:
			r = 0
		case LinkResultTail:
			r = 1
		case LinkNotification:
			r = 2
		case LinkSidecar:
			r = 3
		case LinkAgentProgress:
			r = 4
		}
		if r < best {
			best = r
		}
	}
	return best
}

// findAgent looks an agent id up anywhere under the root (layouts that are not
// ~/.claude/projects keep subagents elsewhere). With several files of one id,
// the first in path order is used.
func (l *loader) findAgent(id string) *model.Transcript {
	files := l.inv.AgentFiles[id]
	for _, f := range files {
		if layout.InWorkflowRun(f) {
			continue
		}
		if t := l.transcript(f); t != nil {
			l.claimed[f] = true
			return t
		}
	}
	return nil
}

// notificationIndex is a transcript's notifications (user rows and queue
// enqueues, in line order) by the call they name: byToolUse by a tool-use id
// that is a call of the file, byTask by task id for the rest (no tool-use
// id, or one that names no call: redacted to "REDACTED" by an export tool,
// or rewritten). Built once per transcript, so linking stays linear in the
// number of calls and notifications.
type notificationIndex struct {
	byToolUse map[string][]*model.Notification
	byTask    map[string][]*model.Notification
}

func (l *loader) notifications(t *model.Transcript) *notificationIndex {
	if idx, ok := l.notes[t]; ok {
		return idx
	}
	if l.notes == nil {
		l.notes = map[*model.Transcript]*notificationIndex{}
	}
	calls := make(map[string]bool, len(t.ToolCalls))
	for _, c := range t.ToolCalls {
		if c.ID() != "" {
			calls[c.ID()] = true
		}
	}
	idx := &notificationIndex{byToolUse: map[string][]*model.Notification{}, byTask: map[string][]*model.Notification{}}
	for _, n := range allNotifications(t) {
		if n.ToolUseID != "" && calls[n.ToolUseID] {
			idx.byToolUse[n.ToolUseID] = append(idx.byToolUse[n.ToolUseID], n)
		} else if n.TaskID != "" {
			idx.byTask[n.TaskID] = append(idx.byTask[n.TaskID], n)
		}
	}
	l.notes[t] = idx
	return idx
}

// mergeByLine merges two lists sorted by line into a new one.
func mergeByLine(a, b []*model.Notification) []*model.Notification {
	out := make([]*model.Notification, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		if b[0].At.Line < a[0].At.Line {
			out, b = append(out, b[0]), b[1:]
		} else {
			out, a = append(out, a[0]), a[1:]
		}
	}
	return append(append(out, a...), b...)
}

// lastByLine is the later of two notifications (nil-safe).
func lastByLine(a, b *model.Notification) *model.Notification {
	if a == nil || b != nil && b.At.Line > a.At.Line {
		return b
	}
	return a
}

// allNotifications returns a transcript's notifications from user rows and
// queue enqueues, in line order.
func allNotifications(t *model.Transcript) []*model.Notification {
	out := append([]*model.Notification(nil), t.Notifications...)
	for _, op := range t.QueueOps {
		// A remove repeats the enqueued notification; count each delivery once.
		if op.Notification != nil && op.Operation == "enqueue" {
			out = append(out, op.Notification)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].At.Line < out[j].At.Line })
	return out
}

// linkLaunch reads a Workflow call's result, notifications and TaskStops.
func (l *loader) linkLaunch(main *model.Transcript, c *model.ToolCall) *model.WorkflowLaunch {
	wl := &model.WorkflowLaunch{Call: c, ToolUseID: c.ID(), At: c.At()}
	if r := c.Result; r != nil {
		wl.RunID, wl.TaskID, wl.Status = r.RunID(), r.TaskID(), r.Status()
		at := r.At()
		wl.ResultAt = &at
	}
	idx := l.notifications(main)
	if ns := idx.byToolUse[c.ID()]; c.ID() != "" && len(ns) > 0 {
		wl.LastNotification = ns[len(ns)-1]
	}
	if ns := idx.byTask[wl.TaskID]; wl.TaskID != "" && len(ns) > 0 {
		wl.LastNotification = lastByLine(wl.LastNotification, ns[len(ns)-1])
	}
	if wl.TaskID != "" {
		for _, s := range main.ToolCalls {
			if s.Name() == "TaskStop" && s.TaskID() == wl.TaskID {
				wl.Stops = append(wl.Stops, s.At())
			}
		}
	}
	if wl.RunID != "" && discover.ValidID(wl.RunID) {
		for _, d := range l.inv.WorkflowDirs {
			if layout.RunID(d) == wl.RunID {
				wl.RunPath = l.show(d)
			}
		}
	}
	return wl
}

// requireRunDir fails the load when a session launched a Workflow run whose
// run directory is not under the root: that run's agents cannot be
// evaluated, so a check that passed would claim more than it looked at.
func (l *loader) requireRunDir(wl *model.WorkflowLaunch) {
	if wl.RunID == "" || wl.RunPath != "" || !discover.ValidID(wl.RunID) {
		return
	}
	want := layout.RunDir(wl.At.File, wl.RunID)
	l.addErrorAt(wl.At.File, wl.At.Line, fmt.Sprintf("%s:%d: the session launched Workflow run %s, whose run directory %s/ is not in the input, so its agents cannot be checked; give the folder that holds it",
		wl.At.File, wl.At.Line, wl.RunID, want))
}

// requireRunParts fails the check on a Workflow run directory with parts
// missing that the runtime always writes: agent transcripts beside an empty
// journal (the journal was lost or cut), and the transcript of an attempt
// the journal says returned a result (an agent that returned ran, and its
// transcript was written; one that failed or was stopped may have none,
// which watch reports as "details unavailable"). A check that passed would
// claim attempts it could not see.
func (l *loader) requireRunParts(run *model.Run, jrel string) {
	j := run.Journal
	if len(j.Lines) == 0 && j.MalformedCount == 0 && len(run.Agents) > 0 {
		l.addUntrustedAt(l.show(jrel), 0, fmt.Sprintf("%s: the journal is empty, but the run directory holds %d agent transcript(s): the journal was lost or cut, so their attempts cannot be checked; restore the journal or remove the run from the input",
			l.show(jrel), len(run.Agents)))
	}
	var first *model.Attempt
	missing := 0
	for _, a := range run.Attempts {
		if a.ClosedBy == model.OutcomeCompleted && a.Transcript == nil && discover.ValidID(a.AgentID) {
			if first == nil {
				first = a
			}
			missing++
		}
	}
	if first != nil {
		at, line := l.show(jrel), 0
		if first.Closed != nil {
			line = first.Closed.Line
			at += ":" + strconv.Itoa(line)
		}
		l.addUntrustedAt(l.show(jrel), line, fmt.Sprintf("%s: the journal says agent %s returned a result, but agent-%s.jsonl is not in the run directory (%d finished agent(s) without a transcript): a finished agent's transcript was removed, so its work cannot be checked; give the whole run directory or remove the run from the input",
			at, first.AgentID, first.AgentID, missing))
	}
}

// workflowRun builds the run of one Workflow run directory.
func (l *loader) workflowRun(dir string) {
	runID := layout.RunID(dir)
	if dir == "." {
		runID = path.Base(l.root)
	}
	run := &model.Run{Kind: model.KindWorkflow, ID: runID, Path: l.show(dir)}
	jrel := layout.JournalOf(dir)
	if onDecode != nil {
		onDecode(jrel)
	}
	j, err := journal.ReadFile(l.abs(jrel), l.show(jrel), journal.Options{GiveUp: l.opts.GiveUpOnJunk, Follow: l.opts.Follow.forJournals(), Rows: l.rowsOf(jrel)})
	var gaveUp *jsonl.GaveUpError
	if errors.As(err, &gaveUp) {
		l.addUntrustedAt(l.show(jrel), gaveUp.First, fmt.Sprintf("%s; a journal that is mostly not JSON cannot be checked; repair it or remove the run from the input", gaveUp))
		return
	}
	if err != nil {
		l.addErrorAt(l.show(jrel), 0, fmt.Sprintf("%s: cannot be read (%s); fix its permissions or remove the run from the input", l.show(jrel), readReason(err)))
		return
	}
	run.Journal = j
	run.Attempts, run.Orphans = journal.Attempts(j)
	// A journal that is mostly not JSON lines (a torn final line aside) was
	// damaged or padded: what the junk hid cannot be known, so the check
	// fails closed instead of judging the few lines it could read.
	bad := j.MalformedCount
	if n := len(j.Malformed); n > 0 && strings.HasPrefix(j.Malformed[n-1].Reason, "torn") {
		bad--
	}
	if jsonl.MostlyNotJSON(bad, len(j.Lines)) {
		l.addUntrustedAt(l.show(jrel), j.Malformed[0].Line, fmt.Sprintf("%s: %d of %d lines are not JSON journal lines (first at line %d); a journal that is mostly not JSON cannot be checked; repair it or remove the run from the input",
			l.show(jrel), bad, bad+len(j.Lines), j.Malformed[0].Line))
	}
	if j.OverCap > 0 {
		// watch stops at such a line (MALFORMED, exit 4), and what it held
		// is unknown: a check that passed would claim lines it never read.
		l.addUntrustedAt(l.show(jrel), int(j.FirstOverCap), fmt.Sprintf("%s:%d: a line of %d bytes is over the journal's %d-byte line cap and was not read; a journal with unread lines cannot be checked (replay stops there too); repair it or remove the run from the input",
			l.show(jrel), j.FirstOverCap, j.FirstOverCapLen, journal.LineCap))
	}
	if len(j.Lines) == 0 && j.MalformedCount == 0 {
		run.Problems = append(run.Problems, model.Problem{At: model.Evidence{File: j.File}, Message: "journal.jsonl is empty: the run started no agent (or its journal was lost)"})
	}
	byID := map[string]*model.Transcript{}
	for _, e := range l.agentIndex().candidates("", dir) {
		if t := l.transcript(e.file); t != nil {
			byID[e.id] = t
			l.claimed[e.file] = true
			run.Agents = append(run.Agents, t)
		}
	}
	sort.Slice(run.Agents, func(i, j int) bool { return run.Agents[i].File < run.Agents[j].File })
	// The attempts are linked first and their problems listed after, so
	// that the list is made at its size (a journal of 200,000 agents
	// without their transcripts has as many problems).
	problems := 0
	for _, a := range run.Attempts {
		if a.AgentID == "" {
			continue
		}
		if !discover.ValidID(a.AgentID) {
			problems++
		} else if t := byID[a.AgentID]; t != nil {
			a.Transcript = t
			a.TranscriptFile = t.File
		} else {
			problems++
		}
	}
	l.requireRunParts(run, jrel)
	run.Problems = slices.Grow(run.Problems, problems)
	for _, a := range run.Attempts {
		switch {
		case a.AgentID == "" || a.Transcript != nil:
		case !discover.ValidID(a.AgentID):
			run.Problems = append(run.Problems, model.Problem{At: a.Started, Message: fmt.Sprintf("journal names agent id %q, which is not a valid id; its transcript is not read", a.AgentID)})
		default:
			// Joined, not formatted.
			run.Problems = append(run.Problems, model.Problem{At: a.Started, Message: "journal names agent " + a.AgentID + " but agent-" + a.AgentID + ".jsonl is not in the run directory"})
		}
	}
	// The parent transcript sits beside the folder three levels up:
	// <sessionId>/subagents/workflows/<runId>/ -> <sessionId>.jsonl.
	if prel, ok := layout.ParentOfRun(dir); ok {
		if _, err := l.opts.Follow.stat(l.abs(prel)); err == nil {
			if p := l.transcript(prel); p != nil {
				run.Main = p
				for _, c := range p.ToolCalls {
					if c.Name() == "Workflow" && c.Result != nil && c.Result.RunID() == runID {
						run.Launch = l.linkLaunch(p, c)
					}
				}
			}
		} else {
			run.Problems = append(run.Problems, model.Problem{At: model.Evidence{File: run.Path}, Message: "parent transcript " + l.show(prel) + " is missing"})
		}
	} else {
		run.Problems = append(run.Problems, model.Problem{At: model.Evidence{File: run.Path}, Message: "run directory is not at " + layout.ExpectedRunLayout + ", so its parent transcript cannot be located"})
	}
	l.emit(run)
}

// orphanRuns groups subagent transcripts that no session or run claimed (their
// parent transcript is not under the root) into one run per folder and
// session id, so their work is still analysed.
func (l *loader) orphanRuns() {
	type group struct{ owner, session string }
	groups := map[group][]string{}
	noJournal := map[string]int{} // run directories without a journal: their agent files
	for _, id := range sortedIDs(l.inv.AgentFiles) {
		for _, f := range l.inv.AgentFiles[id] {
			if l.claimed[f] {
				continue
			}
			if layout.InWorkflowRun(f) {
				noJournal[path.Dir(f)]++
				continue
			}
			t := l.transcript(f)
			if t == nil {
				continue
			}
			if why := notTranscript(t); why != "" {
				l.notARun(t, why)
				continue
			}
			owner := layout.OwnerFolder(f)
			g := group{owner, t.SessionID}
			groups[g] = append(groups[g], f)
		}
	}
	// An attempt's transcript that no run claimed lies in a run directory
	// without its journal.jsonl: the journal was removed, and what the run's
	// attempts were cannot be known.
	for _, dir := range slices.Sorted(maps.Keys(noJournal)) {
		if _, found := slices.BinarySearch(l.inv.WorkflowDirs, dir); found { // sorted by the walk
			continue // its journal is there (and was refused: already said)
		}
		l.addUntrustedAt(l.show(dir), 0, fmt.Sprintf("%s/: %d agent transcript(s) of a Workflow run, but no %s: the run's journal is missing, so its attempts cannot be checked; restore the journal or remove the run directory from the input",
			l.show(dir), noJournal[dir], layout.Journal))
	}
	keys := make([]group, 0, len(groups))
	for g := range groups {
		keys = append(keys, g)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].owner != keys[j].owner {
			return keys[i].owner < keys[j].owner
		}
		return keys[i].session < keys[j].session
	})
	for _, g := range keys {
		run := &model.Run{Kind: model.KindSession, ID: g.session, Path: l.show(g.owner)}
		if run.ID == "" {
			run.ID = path.Base(g.owner)
			if g.owner == "." {
				run.ID = path.Base(l.root)
			}
		}
		sort.Strings(groups[g])
		for _, f := range groups[g] {
			run.Agents = append(run.Agents, l.transcript(f))
		}
		run.Problems = append(run.Problems, model.Problem{At: model.Evidence{File: run.Path}, Message: fmt.Sprintf("%d subagent transcript(s) of session %s whose parent transcript is not under the root; give the folder that holds the parent too", len(run.Agents), run.ID)})
		l.emit(run)
	}
}

// sidecarIndex maps a sidecar's toolUseId to the agent transcripts it
// describes. Sidecars are read once per root for it, in parallel (a fleet
// has one per subagent, and this runs on the linking goroutine). Their
// bytes are kept, within sidecarKeepBytes, until their agent transcripts
// are read (sidecarMeta parses them again): a fleet's sidecars were opened
// and read twice, and those system calls were a quarter of all it made.
// The bytes, not the parsed Meta: a hundred bytes instead of three hundred,
// so that a fleet of 100,000 sessions keeps them all in 9 MiB.
func (l *loader) sidecarIndex() map[string][]string {
	if l.metaByToolUse != nil {
		return l.metaByToolUse
	}
	l.metaByToolUse = map[string][]string{}
	files := make([]string, 0, len(l.inv.Metas))
	for f := range l.inv.Metas {
		files = append(files, f)
	}
	sort.Strings(files)
	store := &sidecarStore{files: files, data: make([][]byte, len(files))}
	ids := make([]string, len(files))
	var left atomic.Int64
	left.Store(sidecarKeepBytes)
	l.parallel(len(files), func(i int) { // parallel.go
		meta := layout.MetaOf(files[i])
		data, problem := readSidecarBytes(l.abs(meta))
		ids[i] = parseMeta(data, problem, l.show(meta)).ToolUseID
		if problem == "" && left.Add(-int64(len(data))) >= 0 {
			store.data[i] = bytes.Clone(data)
		}
	})
	for i, f := range files {
		if ids[i] != "" && !layout.InWorkflowRun(f) {
			l.metaByToolUse[ids[i]] = append(l.metaByToolUse[ids[i]], f)
		}
	}
	l.sidecars.Store(store)
	return l.metaByToolUse
}

// sidecarsFirst builds the sidecar index before any transcript is read,
// when the root has sidecars: the readers then take the sidecars it kept.
// Built on first use instead (the first spawn linked), it came after the
// readers had read ahead, and each of their sidecars was read twice: all
// 64 of a session with 64 subagents.
func (l *loader) sidecarsFirst() {
	if len(l.inv.Metas) > 0 {
		l.sidecarIndex()
	}
}

// sidecarKeepBytes bounds the sidecar bytes sidecarIndex keeps; the others
// are read again with their transcripts. (A variable so that a test can
// turn keeping off.)
var sidecarKeepBytes int64 = 16 << 20

// sidecarStore holds the bytes of the sidecars sidecarIndex read, by agent
// transcript, each until it is taken (sidecarMeta), so that those taken are
// freed as the runs are linked.
type sidecarStore struct {
	files []string // the agent transcripts, sorted; data[i] is files[i]'s sidecar
	mu    sync.Mutex
	data  [][]byte
}

// take returns the bytes kept of the agent transcript rel's sidecar and
// forgets them; nil when none are kept (never read, a problem, over the
// budget, or taken).
func (s *sidecarStore) take(rel string) []byte {
	if s == nil {
		return nil
	}
	i, ok := slices.BinarySearch(s.files, rel)
	if !ok {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	data := s.data[i]
	s.data[i] = nil
	return data
}

func (l *loader) abs(rel string) string {
	return l.opts.Follow.joined(joinAbs, l.root, rel, func(root, rel string) string {
		return path.Join(strings.ReplaceAll(root, "\\", "/"), rel)
	})
}

// capText cuts a sidecar's description or type to model.DescriptionLimit
// bytes, on a character boundary, as the transcript reader does.
func capText(s string) string {
	if len(s) <= model.DescriptionLimit {
		return s
	}
	return strings.ToValidUTF8(s[:model.DescriptionLimit], "")
}

// maxSidecar is the largest .meta.json read.
const maxSidecar = 1 << 20

func readMeta(p, file string) *model.Meta {
	data, problem := readSidecarBytes(p)
	return parseMeta(data, problem, file)
}

// readSidecarBytes reads the sidecar at p; problem says why it could not
// be read (then data is nil).
func readSidecarBytes(p string) (data []byte, problem string) {
	// Sidecars are a few hundred bytes. The size is checked on the open
	// file before anything is read, and at most the cap is read, so a huge
	// (or growing) sidecar costs nothing; a named pipe is refused unopened.
	f, size, err := jsonl.OpenRead(p)
	if err != nil {
		return nil, "cannot be read: " + readReason(err)
	}
	defer f.Close()
	if size > maxSidecar {
		return nil, "larger than 1 MiB; ignored"
	}
	data, err = io.ReadAll(io.LimitReader(f, maxSidecar+1))
	if err != nil {
		return nil, "cannot be read: " + readReason(err)
	}
	if len(data) > maxSidecar {
		return nil, "larger than 1 MiB; ignored"
	}
	return data, ""
}

// parseMeta is the sidecar file that readSidecarBytes read as data, or
// could not read (problem).
func parseMeta(data []byte, problem, file string) *model.Meta {
	m := &model.Meta{File: file}
	if problem != "" {
		m.Problem = problem
		return m
	}
	var raw struct {
		AgentType     *string `json:"agentType"`
		Description   *string `json:"description"`
		ToolUseID     *string `json:"toolUseId"`
		WorktreePath  *string `json:"worktreePath"`
		SpawnDepth    *int    `json:"spawnDepth"`
		ParentAgentID *string `json:"parentAgentId"`
		RequestShape  *string `json:"requestShape"`
		StoppedByUser *bool   `json:"stoppedByUser"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		if _, ok := err.(*json.UnmarshalTypeError); !ok {
			m.Problem = "not a JSON object"
			return m
		}
	}
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	m.AgentType, m.Description, m.ToolUseID = capText(str(raw.AgentType)), capText(str(raw.Description)), str(raw.ToolUseID)
	m.WorktreePath, m.ParentAgentID, m.RequestShape = str(raw.WorktreePath), str(raw.ParentAgentID), str(raw.RequestShape)
	if raw.SpawnDepth != nil {
		m.SpawnDepth = *raw.SpawnDepth
	}
	if raw.StoppedByUser != nil {
		m.StoppedByUser = *raw.StoppedByUser
	}
	return m
}

func sortedIDs(m map[string][]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func dedupe(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}
