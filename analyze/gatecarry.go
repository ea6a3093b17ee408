package analyze

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"hash/fnv"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pmcheck/pmcheck/analyze/detect"
	"github.com/pmcheck/pmcheck/analyze/detect/ship"
	"github.com/pmcheck/pmcheck/analyze/journal"
	"github.com/pmcheck/pmcheck/analyze/layout"
	"github.com/pmcheck/pmcheck/analyze/load"
	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/analyze/transcript"
	"github.com/pmcheck/pmcheck/internal/incr"
)

// The gate's reading carried over appended rows (the hook's incremental
// state, docs/hooks.md "What the hook remembers"). A live session's
// transcript grows a row at a time, and almost every row is one the gate
// never reads: a shell command and its output, a file edit, the
// assistant's text. GateCarry is the gate's reading of a transcript up to
// an offset together with what it takes to tell, from the appended rows
// alone, that the reading at the new end is the same one: the step of
// the fold is the identity for such rows (Carries), and a reading
// (ReadGateCarryFrom) for any other. The decision itself stays GateOf's; the
// differential test in package hook holds the carried reading to a full
// read of every prefix of every fixture and corpus session.

// GateCarry is the gate's reading of a session's transcript and what
// Carries needs to carry it over appended rows.
type GateCarry struct {
	// Memo is the gate's reading (GateOf).
	Memo GateMemo `json:"memo"`
	// Foldable says appended rows the gate ignores leave the reading
	// unchanged: the transcript is a session's, its last write time is
	// known and no other file of the run holds a later one (the end of
	// the transcript, where the gate reads, is then after every row of
	// the run however late the appended rows are), its subagents'
	// transcripts are in its own folder (SessionEntries), and the run
	// holds no Workflow launches or attempts. Otherwise every append is a
	// full read.
	Foldable bool `json:"foldable,omitempty"`
	// Watched are hashes (callHash) of the ids of every call of the run
	// the gate may read the result of (not detect.GateIgnores): a result
	// for one of them is a full read. A hash two ids share only costs a
	// full read.
	Watched hashes `json:"watched,omitempty"`
	// Ended are the agent ids of the subagents whose call the parent's
	// rows show ended (a result or a notification): the gate reads how
	// their transcripts end (a false done), so a row appended to one is
	// a full read.
	Ended []string `json:"ended,omitempty"`
	// Linked are hashes (linkHash) of the agent_progress links each
	// transcript of the run holds (the transcript, the call, the agent
	// id): a running subagent's progress rows repeat its link, which
	// changes nothing the loader links; a link not among them is a full
	// read.
	Linked hashes `json:"linked,omitempty"`
}

func carryOf(run *Run, m GateMemo) GateCarry {
	c := GateCarry{Memo: m}
	if run == nil || run.Kind != model.KindSession || run.Main == nil {
		return c
	}
	main := run.Main
	c.Foldable = !main.LastTime.IsZero() && len(run.Launches) == 0 && len(run.Attempts) == 0 &&
		run.Journal == nil && run.Runtime == nil && run.Launch == nil
	watched, linked := map[uint64]bool{}, map[uint64]bool{}
	for _, t := range append([]*model.Transcript{main}, run.Agents...) {
		if t == nil {
			continue
		}
		if t != main && (t.LastTime.After(main.LastTime) || !layout.OwnSubagent(main.File, t.File)) {
			// A later row (above), or a subagent's file outside the
			// session's folder (the legacy layout, beside the session),
			// whose changes SessionEntries does not list.
			c.Foldable = false
		}
		for _, call := range t.ToolCalls {
			if !detect.GateIgnores(call) {
				watched[callHash(call.ID())] = true
			}
		}
		for _, p := range t.Progress {
			linked[linkHash(t.AgentID, p)] = true
		}
	}
	for _, sc := range run.Subagents {
		watched[callHash(sc.ToolUseID)] = true
		if sc.Child != nil && (sc.Result != nil || sc.LastNotification != nil) && !slices.Contains(c.Ended, sc.Child.AgentID) {
			c.Ended = append(c.Ended, sc.Child.AgentID)
		}
	}
	slices.Sort(c.Ended)
	for h := range watched {
		c.Watched = append(c.Watched, h)
	}
	slices.Sort(c.Watched)
	for h := range linked {
		c.Linked = append(c.Linked, h)
	}
	slices.Sort(c.Linked)
	return c
}

// linkHash is the hash Linked keeps of an agent_progress link in the
// transcript of agent owner ("": the session's). Two links sharing one
// would carry a reading over a new link, so it is cut from SHA-256, not
// from a hash whose collisions can be made (a watched call's hash only
// has to tell the ids it watches apart from none: a collision there is a
// full read).
func linkHash(owner string, p model.AgentProgress) uint64 {
	sum := sha256.Sum256([]byte(owner + "\x00" + p.ToolUseID + "\x00" + p.AgentID))
	return binary.BigEndian.Uint64(sum[:8])
}

// hashes are sorted hashes, kept in JSON as the base64 of their 8 bytes
// each (a long session watches thousands of calls: a list of numbers in
// JSON cost a call more to decode than the rows it reads).
type hashes []uint64

func (h hashes) MarshalJSON() ([]byte, error) {
	b := make([]byte, 8*len(h))
	for i, v := range h {
		binary.BigEndian.PutUint64(b[8*i:], v)
	}
	return json.Marshal(b)
}

func (h *hashes) UnmarshalJSON(data []byte) error {
	var b []byte
	if err := json.Unmarshal(data, &b); err != nil {
		return err
	}
	if len(b)%8 != 0 {
		return errors.New("watched: not a list of 8-byte hashes")
	}
	out := make(hashes, len(b)/8)
	for i := range out {
		out[i] = binary.BigEndian.Uint64(b[8*i:])
	}
	if !slices.IsSorted(out) {
		return errors.New("watched: not sorted")
	}
	*h = out
	return nil
}

// callHash is the hash Watched keeps of a call id.
func callHash(id string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(id))
	return h.Sum64()
}

// Carries reports whether rows, bytes appended to the transcript the carry
// was read from (starting at a line's start; the last line may be
// unterminated), leave the gate's reading as it is: every line is a row
// Claude Code wrote that holds only calls the gate ignores
// (detect.GateIgnores), results of calls it does not watch, and nothing
// else the gate reads (notifications, queued notifications, marks, agent
// progress rows but those repeating a link the transcript holds,
// interruptions, API errors). Any doubt (a malformed line, a line that is
// JSON but not a row, an Agent SDK row) is false: a full read. file names
// the transcript in evidence (it changes nothing here).
func (c *GateCarry) Carries(rows []byte, file string) bool { return c.carries(rows, file, "") }

// carries is Carries for the transcript of agent owner ("": the session's).
func (c *GateCarry) carries(rows []byte, file, owner string) bool {
	if !c.Foldable {
		return false
	}
	t, err := transcript.ReadBytes(rows, file, transcript.Options{NoUUIDList: true})
	if err != nil {
		return false
	}
	if t.MalformedCount > 0 || t.Values > 0 || t.SDKRows > 0 || t.OverCap > 0 || t.ClaudeCodeRows != t.Rows ||
		len(t.Notifications) > 0 || len(t.Marks) > 0 || len(t.APIErrors) > 0 || len(t.Interrupts) > 0 {
		return false
	}
	for _, op := range t.QueueOps {
		// Only a queued task notification is read (Signature B, the
		// queue accounting, the call's notifications); a prompt the user
		// queued while the model worked is not.
		if op.Notification != nil {
			return false
		}
	}
	for _, p := range t.Progress {
		if _, known := slices.BinarySearch(c.Linked, linkHash(owner, p)); !known {
			return false
		}
	}
	for _, call := range t.ToolCalls {
		if !detect.GateIgnores(call) {
			return false
		}
	}
	for _, r := range t.ToolResults {
		id := r.ToolUseID()
		if _, watched := slices.BinarySearch(c.Watched, callHash(id)); watched || id == "" {
			return false
		}
	}
	return true
}

// CarriesAgent is Carries for rows appended to one of the session's
// subagent transcripts (rel: its path in the session's folder, slash
// separated): the rows the gate ignores in a parent's transcript it
// ignores in a subagent's, unless the subagent's call ended (Ended: the
// gate reads how its transcript ends). Any other file of the folder is
// never carried.
func (c *GateCarry) CarriesAgent(rel string, rows []byte) bool {
	id := layout.AgentIDFromName(path.Base(rel))
	if id == "" || path.Dir(rel) != "subagents" || !strings.HasSuffix(rel, ".jsonl") || slices.Contains(c.Ended, id) {
		return false
	}
	return c.carries(rows, rel, id)
}

// SessionEntry is one entry of a session's own folder, as SessionEntries
// lists it.
type SessionEntry struct {
	// Rel is its path in the folder, slash separated.
	Rel  string      `json:"rel"`
	Mode fs.FileMode `json:"mode"`
	Size int64       `json:"size"`
	// MTime is its modification time (Unix nanoseconds).
	MTime int64         `json:"mtime"`
	ID    incr.Identity `json:"id"`
}

// SessionEntries lists the files of the session whose transcript is at
// path other than the transcript itself, which the gate reads too: the
// entries of its own folder (<session>/: subagent transcripts, their
// sidecars, Workflow runs), in lexical order, each with its type, size,
// modification time and identity, after the folder that holds the
// transcript (Rel ".."; its modification time moves when a file is added
// beside the transcript, such as a legacy subagent's sidecar that would
// link a call) and the session's folder itself (Rel "."). A session folder
// that is not there has no entries of its own. A folder that cannot be
// listed, or holds a symbolic link (whose target's changes a listing would
// not see), is an error: no reading is carried.
func SessionEntries(transcriptPath string) ([]SessionEntry, error) {
	entry := func(rel string, info fs.FileInfo) SessionEntry {
		e := SessionEntry{Rel: rel, Mode: info.Mode(), MTime: info.ModTime().UnixNano(), ID: incr.IdentityOf(info)}
		if info.Mode().IsRegular() {
			e.Size = info.Size()
		}
		return e
	}
	parent, err := os.Stat(filepath.Dir(transcriptPath))
	if err != nil {
		return nil, err
	}
	out := []SessionEntry{entry("..", parent)}
	dir := SessionFolder(transcriptPath)
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir && errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			return errSymlink
		}
		rel, _ := filepath.Rel(dir, p)
		out = append(out, entry(filepath.ToSlash(rel), info))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// SessionFolder is the folder SessionEntries lists.
func SessionFolder(transcriptPath string) string {
	return filepath.Join(filepath.Dir(transcriptPath), layout.Stem(filepath.Base(transcriptPath)))
}

var errSymlink = errors.New("the session's folder holds a symbolic link")

// FrozenReader is the reader of one of a session's transcripts or of a
// Workflow run's journal, frozen (transcript.Follower.Freeze,
// journal.Follower.Freeze), with the mark of the bytes it was given: what
// the hook keeps so that a call after rows the gate reads decodes only
// what was appended since, as a watch's poll does.
type FrozenReader struct {
	// Path is the file's path as the loader opened it.
	Path string
	// Journal says the file is a Workflow run's journal (else a
	// transcript).
	Journal bool
	Mark    incr.Mark
	State   []byte
}

// GateReading is what ReadGateCarryFrom read.
type GateReading struct {
	Gate  *GateState
	Carry GateCarry
	// Fresh counts the files read from their first byte (transcripts and
	// journals), Decoded the bytes decoded.
	Fresh, Decoded int64
	fs             *load.Followers
}

// Readers are the session's transcripts' readers frozen at the end of
// the reading (those that cannot be, left out), in the order of their
// paths. Freezing costs about what decoding a tenth of the bytes they hold
// does: a caller whose reading decoded little keeps the readers it had.
func (r GateReading) Readers() []FrozenReader {
	if r.fs == nil {
		return nil
	}
	out := freezeReaders(r.fs.Transcripts(), false)
	out = append(out, freezeReaders(r.fs.Journals(), true)...)
	slices.SortFunc(out, func(a, b FrozenReader) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// ReadGateCarryFrom is ReadGate with the carry of its reading, through
// readers an earlier call froze (none: every file from its first byte):
// each file whose reader's mark holds is decoded from where its reader
// stopped, any other in full; what is read is what a full read gives (a
// follower's snapshot is a full read of the same bytes).
func ReadGateCarryFrom(path string, opts GateOptions, from []FrozenReader) (GateReading, error) {
	if len(from) > 0 {
		if r, ok, err := readThroughRecovered(path, opts, from); ok {
			return r, err
		}
		// Kept readers that thawed into something no reader holds (a
		// state forged or damaged past its checksum) made the reading
		// panic: read from the first byte, never fail the call for it.
	}
	return readThrough(path, opts, nil)
}

// onSeeded, when set (tests), is called once the kept readers are seeded.
var onSeeded func()

// readThroughRecovered is readThrough with a panic recovered (ok false).
func readThroughRecovered(path string, opts GateOptions, from []FrozenReader) (r GateReading, ok bool, err error) {
	defer func() {
		if recover() != nil {
			r, ok, err = GateReading{}, false, nil
		}
	}()
	r, err = readThrough(path, opts, from)
	return r, true, err
}

func readThrough(path string, opts GateOptions, from []FrozenReader) (GateReading, error) {
	fs := &load.Followers{}
	defer fs.Close() // the files they keep open; they can still be frozen
	for _, r := range from {
		// A reader that does not thaw or whose file changed seeds
		// nothing: its file is read in full.
		if r.Journal {
			_ = journal.Seed(fs.Journals(), r.Path, r.State, r.Mark)
		} else {
			_ = transcript.Seed(fs.Transcripts(), r.Path, r.State, r.Mark, ship.Inert)
		}
	}
	if onSeeded != nil && len(from) > 0 {
		onSeeded()
	}
	run, err := loadGateRunWith(path, fs)
	if err != nil {
		return GateReading{}, err
	}
	g := GateOf(run, opts)
	fresh, decoded := fs.FollowStats()
	return GateReading{Gate: g, Carry: carryOf(run, g.m), Fresh: fresh, Decoded: decoded, fs: fs}, nil
}

// freezeReaders freezes the followers of c, each with the mark of the
// bytes it was given (isJournal: c holds journals' readers).
func freezeReaders[A interface {
	incr.Appender
	Freeze() ([]byte, error)
}](c *incr.Cache[A], isJournal bool) []FrozenReader {
	var out []FrozenReader
	c.Each(func(p, _ string, f A, mark incr.Mark) {
		if state, err := f.Freeze(); err == nil {
			out = append(out, FrozenReader{Path: p, Journal: isJournal, Mark: mark, State: state})
		}
	})
	return out
}
