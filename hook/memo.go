package hook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/pmcheck/pmcheck/analyze"
	"github.com/pmcheck/pmcheck/internal/incr"
)

// The hooks keep, per transcript, the gate's reading of it and where the
// reading stopped (docs/hooks.md, "What the hook remembers"): the reading
// (analyze.GateCarry: the gate's answer and what it takes to carry it over
// appended rows), and for the transcript and each of the session's other
// files (its subagents' transcripts and sidecars: analyze.SessionEntries)
// the byte offset after the last complete row read, the file's identity
// and hashes of the bytes before the offset (incr.Mark). A call on a
// session whose files only grew since reads the appended bytes alone: when
// they hold only rows the gate ignores (analyze.GateCarry.Carries,
// CarriesAgent) the reading is carried over them, else the session is read
// again through the transcript readers an earlier call kept (readers.go),
// which decode the appended bytes alone. Nothing appended (parallel tool
// calls of one message, a call retried) is answered without reading the
// transcript at all. It is an accelerator: the answer is the one a full
// read of the same bytes gives, `pmcheck check` never reads it, and any
// fault with it (missing, corrupt, another version's, another file's, a
// cache directory that cannot be written, a transcript shrunk, replaced or
// rewritten before the offset) means a read from the first byte, never a
// failed call.

// memoFormat names the state's payload; with the binary's identity it is
// the state's version, so a state written by another pmcheck (whose
// detector may decide otherwise) is never used.
const memoFormat = "pmcheck-hook-state-3"

// memoOff turns the state off (tests comparing with full reads).
var memoOff bool

// memo is what the hook keeps of one reading of a session, beside the
// mark of its transcript (incr.State.Mark).
type memo struct {
	Carry analyze.GateCarry `json:"carry"`
	// Torn says the transcript ended in an unterminated line: the reading
	// answers the same bytes only (the bytes that complete the line make
	// another line), and anything appended is read again (through the
	// kept readers, which hold the unterminated line as it was).
	Torn bool `json:"torn,omitempty"`
	// Files are the session's other files as read (analyze.SessionEntries).
	Files []fileState `json:"files,omitempty"`
}

// fileState is one of the session's other files as read: its entry, and
// for a regular file the mark of its bytes up to the end of its last
// complete line.
type fileState struct {
	analyze.SessionEntry
	Mark incr.Mark `json:"mark"`
	// Torn: it ended in an unterminated line when read; any change is read
	// again.
	Torn bool `json:"torn,omitempty"`
}

var (
	versionOnce sync.Once
	version     string
)

// memoVersion is the memo format and the running binary's identity (its
// path, size and modification time): reinstalling or upgrading pmcheck
// makes every memo another version's.
func memoVersion() string {
	versionOnce.Do(func() {
		version = memoFormat
		if exe, err := os.Executable(); err == nil {
			if st, err := os.Stat(exe); err == nil {
				version += fmt.Sprintf(" %s %d %d", exe, st.Size(), st.ModTime().UnixNano())
			}
		}
	})
	return version
}

// readings counts the sessions read (through kept readers or from their
// first byte), and carried the calls that read only appended bytes and
// carried the reading over them (tests).
var readings, carried atomic.Int64

// freshFiles counts the transcripts the readings read from their first
// byte, and decoded the bytes they decoded (tests).
var freshFiles, decoded atomic.Int64

// throughReaders counts the readings that read every transcript on from
// readers kept by an earlier call (tests).
var throughReaders atomic.Int64

// refreezeAfter is how many bytes a reading through the kept readers
// decodes before it keeps them moved on: freezing and writing the readers
// of an 11 MiB session (about 300 KB) costs about what decoding 300 KB of
// rows again does, so the readings after a row the gate reads decode from
// the readers' offsets until that many bytes have piled up. A reading that
// read a transcript from its first byte always keeps them.
// (A variable: the differential test also keeps them after every reading.)
var refreezeAfter int64 = 64 << 10

// maxCarried bounds the appended bytes a call reads to carry a reading:
// beyond, judging them row by row costs what reading them does, and the
// session is read again.
const maxCarried = 4 << 20

// saveAfter is how many appended bytes a call reads before it writes the
// state moved on: writing a state (a file created and renamed) costs
// more than reading and judging a few kilobytes again, so the calls after
// an append of a row or two read from the state's offset until that many
// bytes have piled up.
const saveAfter = 32 << 10

// gateRemembered is readGateFull through the state: the kept reading when
// the session's files are the ones it was made of, byte for byte as far as
// their marks can tell, carried over what was appended since when the gate
// ignores all of it; else a reading of the session through its kept
// readers (a full read where they do not hold), whose reading, and
// readers, are kept when the files did not change while they were read.
func gateRemembered(path string, cfg Config) (*analyze.GateState, error) {
	if memoOff {
		return readGateFull(path, cfg)
	}
	dir, err := incr.Dir()
	if err != nil {
		return readGateFull(path, cfg)
	}
	file := incr.PathFor(dir, "hook", path)
	if m, ok := recall(file, path); ok {
		return analyze.GateFromMemo(m, cfg.gate()), nil
	}
	before, err := os.Stat(path)
	if err != nil {
		return readGateFull(path, cfg) // it reports the error as a full read would
	}
	files, ferr := filesOf(path)
	readings.Add(1)
	r, err := analyze.ReadGateCarryFrom(path, cfg.gate(), loadReaders(dir, path))
	if err != nil {
		return r.Gate, err
	}
	freshFiles.Add(r.Fresh)
	decoded.Add(r.Decoded)
	if r.Fresh == 0 {
		throughReaders.Add(1)
	}
	if ferr == nil && remember(file, path, before, memo{Carry: r.Carry, Files: files}) && (r.Fresh > 0 || r.Decoded >= refreezeAfter) {
		saveReaders(dir, path, r.Readers())
	}
	return r.Gate, nil
}

// recall returns the kept reading of path when the marks of the
// transcript and of the session's other files hold and the bytes appended
// to them since, if any, leave the reading as it is; the state then moves
// on to the ends of their last complete rows.
func recall(file, path string) (analyze.GateMemo, bool) {
	st, err := incr.Load(file, memoVersion(), path)
	if err != nil {
		return analyze.GateMemo{}, false
	}
	var m memo
	if err := json.Unmarshal(st.Payload, &m); err != nil {
		return analyze.GateMemo{}, false
	}
	f, err := os.Open(path)
	if err != nil {
		return analyze.GateMemo{}, false
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() || st.Mark.Check(f, info) != nil {
		return analyze.GateMemo{}, false
	}
	read := info.Size() - st.Mark.Offset
	if read > 0 {
		if m.Torn {
			return analyze.GateMemo{}, false
		}
		mark, ok := carryOver(f, info, st.Mark, func(rows []byte) bool { return m.Carry.Carries(rows, filepath.Base(path)) })
		if !ok {
			return analyze.GateMemo{}, false
		}
		st.Mark = mark
	}
	others, ok := carryFiles(path, &m)
	if !ok {
		return analyze.GateMemo{}, false
	}
	if read > 0 || others > 0 {
		carried.Add(1)
	}
	if read+others >= saveAfter {
		if payload, err := json.Marshal(m); err == nil {
			st.Payload = payload
			incr.Save(file, st)
		}
	}
	return m.Carry.Memo, true
}

// carryOver reads what was appended to f (whose stat is info) since mark
// and asks carries whether the reading holds over it; the mark of f up to
// its last complete line when it does.
func carryOver(f *os.File, info os.FileInfo, mark incr.Mark, carries func([]byte) bool) (incr.Mark, bool) {
	n := info.Size() - mark.Offset
	if n > maxCarried {
		return incr.Mark{}, false
	}
	rows := make([]byte, n)
	if got, _ := f.ReadAt(rows, mark.Offset); int64(got) < n {
		return incr.Mark{}, false
	}
	if !carries(rows) {
		return incr.Mark{}, false
	}
	nl := bytes.LastIndexByte(rows, '\n')
	if nl < 0 {
		return mark, true // an unterminated line: read again, whole, next time
	}
	next, err := mark.Extend(f, info, mark.Offset+int64(nl)+1)
	return next, err == nil
}

// carryFiles checks the session's other files against m.Files: the same
// entries, each unchanged or a subagent transcript that only grew by rows
// the reading is carried over (m.Files then records them as they are
// now). It reports how many appended bytes it read, and whether they hold.
func carryFiles(path string, m *memo) (read int64, ok bool) {
	now, err := analyze.SessionEntries(path)
	if err != nil || len(now) != len(m.Files) {
		return 0, false
	}
	folder := analyze.SessionFolder(path)
	for i, e := range now {
		old := &m.Files[i]
		switch {
		case e.Rel != old.Rel || e.Mode != old.Mode || e.ID != old.ID || !e.Mode.IsRegular() && e.MTime != old.MTime:
			return 0, false // another file, or a folder whose entries changed
		case !e.Mode.IsRegular() || e.Size == old.Size && e.MTime == old.MTime:
			continue
		case old.Torn:
			return 0, false
		}
		f, err := os.Open(filepath.Join(folder, filepath.FromSlash(e.Rel)))
		if err != nil {
			return 0, false
		}
		info, err := f.Stat()
		if err != nil || old.Mark.Check(f, info) != nil {
			f.Close()
			return 0, false
		}
		mark, ok := carryOver(f, info, old.Mark, func(rows []byte) bool { return m.Carry.CarriesAgent(e.Rel, rows) })
		f.Close()
		if !ok {
			return 0, false
		}
		read += info.Size() - old.Mark.Offset
		old.Size, old.MTime, old.Mark = info.Size(), info.ModTime().UnixNano(), mark
	}
	return read, true
}

// filesOf lists the session's other files with the marks of what they hold
// now (each regular file up to its end; Torn when that is not the end of a
// line).
func filesOf(path string) ([]fileState, error) {
	entries, err := analyze.SessionEntries(path)
	if err != nil {
		return nil, err
	}
	folder := analyze.SessionFolder(path)
	out := make([]fileState, len(entries))
	for i, e := range entries {
		out[i].SessionEntry = e
		if !e.Mode.IsRegular() {
			continue
		}
		f, err := os.Open(filepath.Join(folder, filepath.FromSlash(e.Rel)))
		if err != nil {
			return nil, err
		}
		info, err := f.Stat()
		if err == nil && (info.Size() != e.Size || incr.IdentityOf(info) != e.ID) {
			err = incr.ErrChanged
		}
		if err == nil {
			out[i].Mark, err = incr.MarkOf(f, info, e.Size)
		}
		if err == nil && e.Size > 0 {
			var last [1]byte
			_, err = f.ReadAt(last[:], e.Size-1)
			out[i].Torn = last[0] != '\n'
		}
		f.Close()
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// remember keeps the reading of path, read when it was as before says, if
// it still is and the session's other files are as m.Files says (a file
// that changed while it was read is not remembered: which bytes the
// reading saw is unknown). Errors are dropped: the next call reads the
// session in full. It reports whether the reading was kept.
func remember(file, path string, before os.FileInfo, m memo) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	after, err := f.Stat()
	if err != nil || after.Size() != before.Size() || !after.ModTime().Equal(before.ModTime()) || incr.IdentityOf(after) != incr.IdentityOf(before) {
		return false
	}
	if n := after.Size(); n > 0 {
		var last [1]byte
		if _, err := f.ReadAt(last[:], n-1); err != nil {
			return false
		}
		m.Torn = last[0] != '\n'
	}
	now, err := analyze.SessionEntries(path)
	if err != nil || len(now) != len(m.Files) {
		return false
	}
	for i, e := range now {
		if e != m.Files[i].SessionEntry {
			return false
		}
	}
	mark, err := incr.MarkOf(f, after, after.Size())
	if err != nil {
		return false
	}
	payload, err := json.Marshal(m)
	if err != nil {
		return false
	}
	return incr.Save(file, incr.State{Version: memoVersion(), Path: path, Mark: mark, Payload: payload}) == nil
}
