package gitsource

import (
	"bufio"
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/pmcheck/pmcheck/analyze/layout"
	"github.com/pmcheck/pmcheck/internal/lazyre"
)

// The Entire CLI's storage (github.com/entireio/cli, docs/architecture/):
//
//   - the branch backend: one branch, entire/checkpoints/v1, sharded as
//     <id[:2]>/<id[2:]>/ (a local branch, a remote-tracking one, or the
//     refs/entire/checkpoints/v1/full alias of newer versions);
//   - the per-checkpoint ref backend: one ref per checkpoint,
//     refs/entire/checkpoints/<last two characters of the id>/<id>, a commit
//     whose tree is the checkpoint folder itself.
//
// A checkpoint folder holds metadata.json and one folder per session (0/,
// 1/, …) with the session's metadata.json and its transcript, full.jsonl,
// split as full.jsonl.001, .002, … when large (full.jsonl is the first
// part); subagent transcripts sit in tasks/<tool-use-id>/agent-<id>.jsonl
// beside a task.json (checkpoint.json in older versions).
const (
	CheckpointBranch = "entire/checkpoints/v1"
	checkpointRefs   = "refs/entire/checkpoints/"
	transcriptName   = "full.jsonl"
)

// checkpointID is a checkpoint id: 12 lowercase hex digits, a ULID (26
// characters of Crockford's base 32) in newer versions, or 40 hex digits
// (reported for carried-forward entries).
var checkpointID = lazyre.New(`^(?:[0-9a-f]{12}|[0-9A-HJKMNP-TV-Z]{26}|[0-9a-f]{40})$`)

// ValidCheckpointID reports whether id has a checkpoint id's shape.
func ValidCheckpointID(id string) bool { return checkpointID().MatchString(id) }

// sessionName is what a session id may be to become a file name.
var sessionName = lazyre.New(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// datedSession is an older Entire session id: the agent's session id
// after the day it started ("2026-01-12-<uuid>"). One Claude Code session
// that went on the next day has two of them.
var datedSession = lazyre.New(`^\d{4}-\d{2}-\d{2}-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$`)

// SessionID is the agent's session id an Entire session id names: older
// versions put the day before it.
func SessionID(entire string) string {
	if m := datedSession().FindStringSubmatch(entire); m != nil {
		return m[1]
	}
	return entire
}

// maxMetadata caps a metadata.json or task.json read.
const maxMetadata = 16 << 20

// Store is one repository that may hold checkpoints.
type Store struct {
	Dir string
	// Label names the repository in messages ("the repository", or the
	// --checkpoints folder).
	Label    string
	batch    *Batch
	branches []string // refs of the branch backend found in it
	// v2main and v2full are the refs of the v2 layout: metadata (and
	// compact transcripts) on v2/main, the raw transcripts on the full
	// refs (the current generation first, then archived ones).
	v2main string
	v2full []string
}

// Problem is something about the checkpoints a report must name.
type Problem struct {
	File    string
	Message string
}

// Checkpoint is what a lookup found of one checkpoint id.
type Checkpoint struct {
	ID string
	// Found: the checkpoint and every transcript it lists were read.
	Found bool
	// Where it was found (`entire/checkpoints/v1`, a checkpoint ref), and
	// in which repository when it is not the one under check.
	Where string
	// Problem says why it cannot be read (empty when Found).
	Problem string
	// Sessions are the session ids it holds, in folder order.
	Sessions []string
	// Agents are the agents that made them ("Claude Code", …), as its
	// metadata names them.
	Agents []string
	sess   []*sessionPart
}

// sessionPart is one session folder of one checkpoint.
type sessionPart struct {
	cp        *Checkpoint
	dir       string // the folder's path as shown (store:path)
	sessionID string
	agent     string
	start     int
	seq       int         // the checkpoint's place in the range (Sessions)
	chunks    []TreeEntry // full.jsonl, full.jsonl.001, … in order
	tasks     []taskPart
}

type taskPart struct {
	toolUseID   string
	agentID     string
	transcript  *TreeEntry
	unavailable string // transcript_unavailable_reason
	shown       string
}

// sessionMeta is the part of a session's metadata.json read here.
type sessionMeta struct {
	SessionID                 string `json:"session_id"`
	Agent                     string `json:"agent"`
	CheckpointTranscriptStart int    `json:"checkpoint_transcript_start"`
	TranscriptLinesAtStart    int    `json:"transcript_lines_at_start"`
}

// taskMeta is task.json (checkpoint.json in older versions).
type taskMeta struct {
	AgentID                     string `json:"agent_id"`
	ToolUseID                   string `json:"tool_use_id"`
	TranscriptUnavailableReason string `json:"transcript_unavailable_reason"`
}

// OpenStore starts reading checkpoints from the repository at dir.
func OpenStore(dir, label string) (*Store, error) {
	b, err := OpenBatch(dir)
	if err != nil {
		return nil, err
	}
	s := &Store{Dir: dir, Label: label, batch: b}
	cmd := exec.Command("git", gitArgs(dir, "for-each-ref", "--format=%(refname)",
		"refs/heads/"+CheckpointBranch, "refs/remotes/*/"+CheckpointBranch, checkpointRefs+"v1", checkpointRefs+"v2")...)
	gitEnv(cmd)
	out, err := cmd.Output()
	if err != nil {
		b.Close()
		return nil, fmt.Errorf("%s (%s) is not a git repository: give a clone with --checkpoints", label, dir)
	}
	for _, ref := range strings.Fields(string(out)) {
		switch {
		case ref == checkpointRefs+"v2/main":
			s.v2main = ref
		case strings.HasPrefix(ref, checkpointRefs+"v2/full/"):
			s.v2full = append(s.v2full, ref)
		case strings.HasPrefix(ref, checkpointRefs+"v2/"):
		default:
			s.branches = append(s.branches, ref)
		}
	}
	slices.SortStableFunc(s.v2full, func(a, b string) int {
		rank := func(ref string) int {
			if strings.HasSuffix(ref, "/current") {
				return 0
			}
			return 1
		}
		return cmp.Compare(rank(a), rank(b))
	})
	// The local branch first, then the full alias, then remote-tracking
	// branches by name: the first that holds a checkpoint answers.
	slices.SortStableFunc(s.branches, func(a, b string) int { return cmp.Compare(branchRank(a), branchRank(b)) })
	return s, nil
}

func branchRank(ref string) int {
	switch {
	case strings.HasPrefix(ref, "refs/heads/"):
		return 0
	case strings.HasPrefix(ref, checkpointRefs):
		return 1
	}
	return 2
}

// Close ends the store's git process.
func (s *Store) Close() error { return s.batch.Close() }

// Batch is the store's object reader.
func (s *Store) Batch() *Batch { return s.batch }

// Branches are the branch-backend refs found in the store.
func (s *Store) Branches() []string { return s.branches }

// Lookup reads checkpoint id from the first store that holds it.
func Lookup(stores []*Store, id string) *Checkpoint {
	cp := &Checkpoint{ID: id}
	if !ValidCheckpointID(id) {
		cp.Problem = "is not a checkpoint id (12 or 40 hex digits, or a 26-character ULID)"
		return cp
	}
	var tried []string
	var first *Checkpoint // the first place that holds the id, when none can be read
	for _, s := range stores {
		for _, at := range s.places(id) {
			entries, err := s.batch.Tree(at.tree)
			if errors.Is(err, ErrMissing) {
				continue
			}
			try := &Checkpoint{ID: id, Where: at.shown}
			if s.Label != "" {
				try.Where += " in " + s.Label
			}
			if err != nil {
				try.Problem = fmt.Sprintf("cannot be read from %s: %v", try.Where, err)
			} else {
				s.read(try, at, entries)
			}
			if try.Problem == "" {
				try.Found = true
				return try
			}
			// Another place may hold it whole (a compact copy without the
			// transcript on one ref, the full one on another).
			if first == nil {
				first = try
			}
		}
		where := "the checkpoint refs"
		if len(s.branches) > 0 {
			where = strings.Join(s.branches, ", ") + " and the checkpoint refs"
		}
		if s.Label != "" {
			where += " of " + s.Label
		}
		tried = append(tried, where)
	}
	if first != nil {
		return first
	}
	cp.Problem = "is in none of " + strings.Join(tried, "; ") + " (was it pushed? fetch " + CheckpointBranch + " and " + checkpointRefs + "*, or give the checkpoint repository with --checkpoints)"
	if len(stores) == 0 {
		cp.Problem = "cannot be looked up: no repository to read checkpoints from"
	}
	return cp
}

type place struct {
	tree  string // a tree name for cat-file
	shown string // how reports name the folder
	// v2 is the folder's path in the v2 refs, whose transcripts are in
	// the full refs (empty for the other layouts).
	v2 string
}

// places are where id may be, in order: its own ref, then each branch.
func (s *Store) places(id string) []place {
	ref := checkpointRefs + id[len(id)-2:] + "/" + id
	out := []place{{tree: ref + "^{tree}", shown: ref}}
	for _, b := range s.branches {
		short := strings.TrimPrefix(strings.TrimPrefix(b, "refs/heads/"), "refs/remotes/")
		out = append(out, place{tree: b + ":" + id[:2] + "/" + id[2:], shown: short + ":" + id[:2] + "/" + id[2:]})
	}
	if s.v2main != "" {
		shard := id[:2] + "/" + id[2:]
		out = append(out, place{tree: s.v2main + ":" + shard, shown: strings.TrimPrefix(s.v2main, "refs/") + ":" + shard, v2: shard})
	}
	return out
}

// read fills cp from its folder.
func (s *Store) read(cp *Checkpoint, at place, entries []TreeEntry) {
	if !slices.ContainsFunc(entries, func(e TreeEntry) bool { return e.Name == "metadata.json" && !e.IsTree() }) {
		cp.Problem = "has no metadata.json at " + at.shown
		return
	}
	var problems []string
	for _, e := range entries {
		if !e.IsTree() {
			continue
		}
		if _, err := strconv.Atoi(e.Name); err != nil {
			continue
		}
		part, err := s.readSession(cp, at, e)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		cp.sess = append(cp.sess, part)
	}
	slices.SortFunc(cp.sess, func(a, b *sessionPart) int { return cmp.Compare(folderIndex(a.dir), folderIndex(b.dir)) })
	for _, p := range cp.sess {
		cp.Sessions = append(cp.Sessions, p.sessionID)
		cp.Agents = append(cp.Agents, p.agent)
	}
	if len(cp.sess) == 0 && len(problems) == 0 {
		problems = append(problems, "holds no session folder at "+at.shown)
	}
	if len(problems) > 0 {
		cp.Problem = strings.Join(problems, "; ")
	}
}

func folderIndex(dir string) int {
	n, _ := strconv.Atoi(path.Base(dir))
	return n
}

func (s *Store) readSession(cp *Checkpoint, at place, dir TreeEntry) (*sessionPart, error) {
	shown := at.shown + "/" + dir.Name
	entries, err := s.batch.Tree(dir.ID)
	if err != nil {
		return nil, fmt.Errorf("%s cannot be read: %v", shown, err)
	}
	part := &sessionPart{cp: cp, dir: shown}
	var meta *TreeEntry
	for i, e := range entries {
		switch {
		case e.Name == "metadata.json" && !e.IsTree():
			meta = &entries[i]
		case e.Name == transcriptName && !e.IsTree():
			part.chunks = append(part.chunks, e)
		case strings.HasPrefix(e.Name, transcriptName+".") && !e.IsTree():
			if n, err := strconv.Atoi(strings.TrimPrefix(e.Name, transcriptName+".")); err == nil && n > 0 {
				part.chunks = append(part.chunks, e)
			}
		case e.Name == "tasks" && e.IsTree():
			tasks, err := s.readTasks(e.ID, shown+"/tasks")
			if err != nil {
				return nil, err
			}
			part.tasks = tasks
		}
	}
	if meta == nil {
		return nil, fmt.Errorf("%s has no metadata.json", shown)
	}
	data, _, err := s.batch.ReadSmall(meta.ID, "blob", maxMetadata)
	if errors.Is(err, ErrMissing) {
		return nil, fmt.Errorf("%s/metadata.json is absent from the repository (a partial clone or a snapshot without it)", shown)
	}
	if err != nil {
		return nil, fmt.Errorf("%s/metadata.json: %v", shown, err)
	}
	var m sessionMeta
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s/metadata.json is not valid JSON: %v", shown, err)
	}
	if !sessionName().MatchString(m.SessionID) || strings.HasPrefix(m.SessionID, "agent-") {
		return nil, fmt.Errorf("%s/metadata.json: session_id %q is not a session id", shown, m.SessionID)
	}
	part.sessionID, part.agent = SessionID(m.SessionID), m.Agent
	part.start = m.CheckpointTranscriptStart
	if part.start == 0 {
		part.start = m.TranscriptLinesAtStart
	}
	if len(part.chunks) == 0 && at.v2 != "" {
		part.chunks = s.v2Transcript(at.v2 + "/" + dir.Name)
	}
	if len(part.chunks) == 0 {
		return nil, fmt.Errorf("%s has no %s", shown, transcriptName)
	}
	slices.SortFunc(part.chunks, func(a, b TreeEntry) int { return cmp.Compare(chunkIndex(a.Name), chunkIndex(b.Name)) })
	return part, nil
}

func chunkIndex(name string) int {
	name = strings.TrimPrefix(strings.TrimPrefix(name, transcriptName), v2TranscriptName)
	n, _ := strconv.Atoi(strings.TrimPrefix(name, "."))
	return n
}

// v2TranscriptName is a v2 session's raw transcript, on the full refs.
const v2TranscriptName = "raw_transcript"

// v2Transcript is the raw transcript of a v2 session folder (shard/n): the
// parts of raw_transcript on the first full ref that has them.
func (s *Store) v2Transcript(folder string) []TreeEntry {
	for _, ref := range s.v2full {
		entries, err := s.batch.Tree(ref + ":" + folder)
		if err != nil {
			continue
		}
		var parts []TreeEntry
		for _, e := range entries {
			if e.IsTree() {
				continue
			}
			if e.Name == v2TranscriptName {
				parts = append(parts, e)
			} else if rest, ok := strings.CutPrefix(e.Name, v2TranscriptName+"."); ok {
				if n, err := strconv.Atoi(rest); err == nil && n > 0 {
					parts = append(parts, e)
				}
			}
		}
		if len(parts) > 0 {
			return parts
		}
	}
	return nil
}

var agentFile = lazyre.New(`^agent-([A-Za-z0-9_-]{1,128})\.jsonl$`)

func (s *Store) readTasks(id, shown string) ([]taskPart, error) {
	dirs, err := s.batch.Tree(id)
	if err != nil {
		return nil, fmt.Errorf("%s cannot be read: %v", shown, err)
	}
	var out []taskPart
	for _, d := range dirs {
		if !d.IsTree() {
			continue
		}
		entries, err := s.batch.Tree(d.ID)
		if err != nil {
			return nil, fmt.Errorf("%s/%s cannot be read: %v", shown, d.Name, err)
		}
		t := taskPart{toolUseID: d.Name, shown: shown + "/" + d.Name}
		for i, e := range entries {
			if m := agentFile().FindStringSubmatch(e.Name); m != nil && !e.IsTree() {
				t.agentID, t.transcript = m[1], &entries[i]
			}
		}
		for _, e := range entries {
			if e.IsTree() || (e.Name != "task.json" && e.Name != "checkpoint.json") {
				continue
			}
			data, _, err := s.batch.ReadSmall(e.ID, "blob", maxMetadata)
			if err != nil {
				t.unavailable = fmt.Sprintf("%s cannot be read: %v", e.Name, err)
				break
			}
			var m taskMeta
			if json.Unmarshal(data, &m) == nil {
				if m.TranscriptUnavailableReason != "" {
					t.unavailable = m.TranscriptUnavailableReason
				}
				if t.agentID == "" {
					t.agentID = m.AgentID
				}
			}
		}
		if t.transcript == nil && t.unavailable == "" {
			t.unavailable = "no agent transcript stored"
		}
		out = append(out, t)
	}
	return out, nil
}

// Sessions gathers the sessions of the checkpoints found: a session that
// appears in several checkpoints is one session, read from the checkpoint
// whose transcript starts latest (checkpoint_transcript_start; a
// checkpoint's full.jsonl holds the whole session up to it), so that no row
// is read twice. Subagent transcripts are gathered from every checkpoint of
// the session (the latest copy of each agent's).
func Sessions(cps []*Checkpoint) []*Session {
	by := map[string]*Session{}
	var order []string
	for i, cp := range cps {
		for _, p := range cp.sess {
			p.seq = i
			s := by[p.sessionID]
			if s == nil {
				s = &Session{ID: p.sessionID, Agent: p.agent}
				by[p.sessionID] = s
				order = append(order, p.sessionID)
			}
			s.parts = append(s.parts, p)
			if !slices.Contains(s.Checkpoints, cp.ID) {
				s.Checkpoints = append(s.Checkpoints, cp.ID)
			}
		}
	}
	out := make([]*Session, 0, len(order))
	for _, id := range order {
		s := by[id]
		// The latest start first; of equal starts, the checkpoint named
		// later in the range (it was written later).
		slices.SortStableFunc(s.parts, func(a, b *sessionPart) int { return cmp.Or(cmp.Compare(b.start, a.start), cmp.Compare(b.seq, a.seq)) })
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b *Session) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

// Session is one agent session gathered from checkpoints.
type Session struct {
	ID    string
	Agent string
	// Checkpoints are the ids of the checkpoints that hold it.
	Checkpoints []string
	// File is where Materialize wrote its transcript (relative to its
	// folder), and Shown the checkpoint folder it was read from.
	File  string
	Shown string
	parts []*sessionPart // latest start first
}

// IsClaudeCode reports whether the session is a Claude Code session (the
// transcripts pmcheck reads); older checkpoints name no agent.
func (s *Session) IsClaudeCode() bool {
	return s.Agent == "" || strings.EqualFold(s.Agent, "Claude Code") || strings.EqualFold(s.Agent, "claude-code")
}

// Materialize writes a session's transcript (and its subagents') under
// root, laid out as Claude Code lays out a project folder
// (<id[:2]>/<id[2:]>/<n>/<session>.jsonl, subagents beside it in
// <session>/subagents/), streaming each blob from git to the file.
//
// The session's checkpoints are joined in order (checkpoint_transcript_start,
// then the range's order), each row once (rowSet): current versions store
// the whole session up to each checkpoint, so the result is the latest
// checkpoint's file, line for line; older ones stored the part since the
// previous checkpoint, and the result is the parts joined. The file is
// named after the latest checkpoint read.
//
// A checkpoint whose transcript object is absent is unreadable: it is
// marked so (not read as empty), and the session is read from the others.
// Problems name what could not be read.
func Materialize(stores []*Store, s *Session, root string) []Problem {
	var problems []Problem
	tmp := filepath.Join(root, ".session-"+s.ID)
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return []Problem{{File: s.parts[0].dir, Message: fmt.Sprintf("the transcript of session %s cannot be written to a temporary file: %v", s.ID, err)}}
	}
	w := bufio.NewWriterSize(f, 256<<10)
	rows := &rowSet{w: w, uuids: map[[16]byte]struct{}{}}
	var last *sessionPart
	for i := len(s.parts) - 1; i >= 0; i-- { // oldest first
		p := s.parts[i]
		st := storeOf(stores, p.cp)
		var err error
		rows.beginPart()
		for _, c := range p.chunks {
			if _, err = st.batch.CopyBlob(c.ID, rows); err != nil {
				break
			}
			rows.endChunk()
		}
		if err != nil {
			if !errors.Is(err, ErrMissing) || rows.written {
				// Part of a blob was written, or git failed: what the file
				// holds is not the session.
				f.Close()
				os.Remove(tmp)
				msg := fmt.Sprintf("the transcript of session %s cannot be read: %v", s.ID, err)
				p.cp.Found, p.cp.Problem = false, joinProblem(p.cp.Problem, msg)
				return append(problems, Problem{File: p.dir + "/" + transcriptName, Message: msg})
			}
			msg := fmt.Sprintf("the transcript of session %s is absent from the repository (a partial clone, a --filter=blob:limit fetch or a snapshot without its largest files): the checkpoint is unreadable, not empty", s.ID)
			p.cp.Found, p.cp.Problem = false, joinProblem(p.cp.Problem, msg)
			problems = append(problems, Problem{File: p.dir + "/" + transcriptName, Message: msg})
			continue
		}
		last = p
	}
	err = w.Flush()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if last == nil || err != nil {
		os.Remove(tmp)
		if err != nil {
			problems = append(problems, Problem{File: s.parts[0].dir, Message: fmt.Sprintf("the transcript of session %s cannot be written to a temporary file: %v", s.ID, err)})
		}
		return problems
	}
	rel := path.Join(last.cp.ID[:2], last.cp.ID[2:], path.Base(last.dir), layout.SessionOfStem(s.ID))
	file := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		os.Remove(tmp)
		return append(problems, Problem{File: last.dir, Message: err.Error()})
	}
	if err := os.Rename(tmp, file); err != nil {
		os.Remove(tmp)
		return append(problems, Problem{File: last.dir, Message: err.Error()})
	}
	s.File, s.Shown = rel, last.dir
	return append(problems, materializeTasks(stores, s, root, rel)...)
}

// maxRowKept caps a row held to be compared: a longer one is written
// through, uncompared (the reader skips lines over its cap anyway).
const maxRowKept = 64 << 20

// rowSet joins the parts of a session, each row once. A part that starts
// with the rows written so far (a checkpoint holding the whole session up
// to it) has that prefix skipped, so the result is that part line for
// line; after it, a row with a uuid already written is skipped (a part
// that repeats rows it does not start with). Rows without a uuid (mode,
// title, permission-mode rows) repeat legitimately and are kept.
type rowSet struct {
	w       *bufio.Writer
	rows    [][16]byte            // SHA-256 prefixes of the rows written, in order
	uuids   map[[16]byte]struct{} // of the rows written that carry a uuid
	pos     int                   // rows of the current part that matched rows[:pos]
	prefix  bool                  // the current part still matches rows[:pos]
	line    []byte
	through bool      // the current line is over maxRowKept: written as it comes
	sum     hash.Hash // of a line written through
	written bool      // bytes of the current part were written
}

var markUUID = []byte(`"uuid":"`)

// beginPart starts a checkpoint's part of the session.
func (r *rowSet) beginPart() { r.pos, r.prefix, r.written = 0, true, false }

func (r *rowSet) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		chunk := p
		if i >= 0 {
			chunk = p[:i+1]
		}
		p = p[len(chunk):]
		if r.through {
			r.sum.Write(chunk)
			if _, err := r.w.Write(chunk); err != nil {
				return 0, err
			}
		} else {
			r.line = append(r.line, chunk...)
			if len(r.line) > maxRowKept && i < 0 {
				r.through, r.written, r.prefix = true, true, false
				r.sum = sha256.New()
				r.sum.Write(r.line)
				if _, err := r.w.Write(r.line); err != nil {
					return 0, err
				}
				r.line = r.line[:0]
			}
		}
		if i >= 0 {
			if err := r.endLine(); err != nil {
				return 0, err
			}
		}
	}
	return n, nil
}

// endLine writes the line held unless the part's prefix or a uuid shows
// it was written before.
func (r *rowSet) endLine() error {
	var key [16]byte
	if r.through {
		r.through = false
		copy(key[:], r.sum.Sum(nil))
		r.rows = append(r.rows, key)
		return nil
	}
	line := bytes.TrimRight(r.line, "\r\n")
	defer func() { r.line = r.line[:0] }()
	if len(bytes.TrimSpace(line)) == 0 {
		return nil
	}
	sum := sha256.Sum256(line)
	copy(key[:], sum[:])
	if r.prefix && r.pos < len(r.rows) && r.rows[r.pos] == key {
		r.pos++
		return nil
	}
	r.prefix = false
	withUUID := bytes.Contains(line, markUUID)
	if _, ok := r.uuids[key]; ok && withUUID {
		return nil
	}
	if withUUID {
		r.uuids[key] = struct{}{}
	}
	r.rows = append(r.rows, key)
	r.written = true
	if _, err := r.w.Write(line); err != nil {
		return err
	}
	return r.w.WriteByte('\n')
}

// endChunk ends a blob whose last line has no line feed.
func (r *rowSet) endChunk() {
	if r.through {
		r.w.WriteByte('\n')
		r.endLine()
		return
	}
	if len(r.line) > 0 {
		r.endLine()
	}
}

func joinProblem(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

func storeOf(stores []*Store, cp *Checkpoint) *Store {
	for _, st := range stores {
		if st.Label == "" && !strings.Contains(cp.Where, " in ") {
			return st
		}
		if st.Label != "" && strings.HasSuffix(cp.Where, " in "+st.Label) {
			return st
		}
	}
	return stores[0]
}

// materializeTasks writes the session's subagent transcripts, the latest
// stored copy of each agent's.
func materializeTasks(stores []*Store, s *Session, root, rel string) []Problem {
	var problems []Problem
	done := map[string]bool{}
	for _, p := range s.parts {
		st := storeOf(stores, p.cp)
		for _, t := range p.tasks {
			key := t.toolUseID
			if done[key] {
				continue
			}
			done[key] = true
			if t.transcript == nil || t.agentID == "" {
				problems = append(problems, Problem{File: t.shown, Message: fmt.Sprintf("subagent transcript of tool use %s (session %s) is not stored: %s; what is known of it comes from the parent's rows", t.toolUseID, s.ID, t.unavailable)})
				continue
			}
			out := filepath.Join(root, filepath.FromSlash(layout.SubagentFileOf(rel, t.agentID)))
			if err := writeChunks(st, []TreeEntry{*t.transcript}, out); err != nil {
				msg := fmt.Sprintf("subagent transcript of agent %s (tool use %s) cannot be read: %v", t.agentID, t.toolUseID, err)
				if errors.Is(err, ErrMissing) {
					msg = fmt.Sprintf("subagent transcript of agent %s (tool use %s) is absent from the repository (a partial clone?): unreadable, not empty", t.agentID, t.toolUseID)
				}
				problems = append(problems, Problem{File: t.shown + "/" + t.transcript.Name, Message: msg})
			}
		}
	}
	return problems
}

// writeChunks streams the parts of a transcript into one file, a line feed
// between parts that do not end with one.
func writeChunks(st *Store, chunks []TreeEntry, file string) error {
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(file, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 256<<10)
	last := &lastByte{w: w}
	for i, c := range chunks {
		if i > 0 && last.b != '\n' && last.n > 0 {
			if _, err = w.WriteString("\n"); err != nil {
				break
			}
		}
		if _, err = st.batch.CopyBlob(c.ID, last); err != nil {
			break
		}
	}
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(file)
	}
	return err
}

// lastByte passes writes through and remembers the last byte written.
type lastByte struct {
	w io.Writer
	b byte
	n int64
}

func (l *lastByte) Write(p []byte) (int, error) {
	n, err := l.w.Write(p)
	if n > 0 {
		l.b, l.n = p[n-1], l.n+int64(n)
	}
	return n, err
}
