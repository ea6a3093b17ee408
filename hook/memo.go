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
// appended rows), the byte offset after the last complete row read, the
// transcript's identity and hashes of the bytes before the offset
// (incr.Mark), and a fingerprint of the session's other files
// (analyze.SessionFiles). A call on a transcript that only grew since, with
// the session's other files as they were, reads the appended bytes alone:
// when they hold only rows the gate ignores (analyze.GateCarry.Carries) the
// reading is carried over them, else the session is read in full. Nothing
// appended (parallel tool calls of one message, a call retried) is answered
// without reading the transcript at all. It is an accelerator: the answer
// is the one a full read of the same bytes gives, `pmcheck check` never
// reads it, and any fault with it (missing, corrupt, another version's,
// another file's, a cache directory that cannot be written, a transcript
// shrunk, replaced or rewritten before the offset) means a full read, never
// a failed call.

// memoFormat names the state's payload; with the binary's identity it is
// the state's version, so a state written by another pmcheck (whose
// detector may decide otherwise) is never used.
const memoFormat = "pmcheck-hook-state-3"

// memoOff turns the state off (tests comparing with full reads).
var memoOff bool

// memo is what the hook keeps of one reading of a session.
type memo struct {
	Carry analyze.GateCarry `json:"carry"`
	// Files is the fingerprint of the session's other files
	// (analyze.SessionFiles) when it was read.
	Files []byte `json:"files"`
	// Torn says the reading ends in an unterminated line: it answers the
	// same bytes only (the bytes that complete the line make another
	// line), and anything appended is a full read.
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

// fullReads counts the transcripts read in full, and carried the calls
// that read only appended bytes and carried the reading over them (tests).
var fullReads, carried atomic.Int64

// maxCarried bounds the appended bytes a call reads to carry a reading:
// beyond, a full read (which decodes on every core) is no slower.
const maxCarried = 4 << 20

// gateRemembered is readGateFull through the state: the kept reading when
// the transcript is the one it was made of, byte for byte as far as its
// mark can tell, carried over what was appended since when the gate
// ignores all of it; else a full read, whose reading is kept when the
// file did not change while it was read.
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
	files, ferr := analyze.SessionFiles(path)
	fullReads.Add(1)
	g, c, err := analyze.ReadGateCarry(path, cfg.gate())
	if err != nil {
		return g, err
	}
	if ferr == nil {
		remember(file, path, before, memo{Carry: c, Files: files[:]})
	}
	return g, nil
}

// recall returns the kept reading of path when its mark holds, the
// session's other files are as they were, and the bytes appended since, if
// any, leave the reading as it is; the state then moves on to the new end
// of the last complete row.
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
	if files, err := analyze.SessionFiles(path); err != nil || !bytes.Equal(files[:], m.Files) {
		return analyze.GateMemo{}, false
	}
	size := info.Size()
	if size == st.Mark.Offset {
		return m.Carry.Memo, true
	}
	if m.Torn || size-st.Mark.Offset > maxCarried {
		return analyze.GateMemo{}, false
	}
	rows := make([]byte, size-st.Mark.Offset)
	if n, _ := f.ReadAt(rows, st.Mark.Offset); n < len(rows) {
		return analyze.GateMemo{}, false
	}
	if !m.Carry.Carries(rows, filepath.Base(path)) {
		return analyze.GateMemo{}, false
	}
	carried.Add(1)
	if nl := bytes.LastIndexByte(rows, '\n'); nl >= 0 {
		// Kept up to the last complete row: an unterminated last line
		// is read again, whole, by the next call.
		if mark, err := st.Mark.Extend(f, info, st.Mark.Offset+int64(nl)+1); err == nil {
			st.Mark = mark
			incr.Save(file, st)
		}
	}
	return m.Carry.Memo, true
}

// remember keeps the reading of path, read when it was as before says, if
// it still is (a file that grew while it was read is not remembered: which
// bytes the reading saw is unknown). Errors are dropped: the next call
// reads the file in full.
func remember(file, path string, before os.FileInfo, m memo) {
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	after, err := f.Stat()
	if err != nil || after.Size() != before.Size() || !after.ModTime().Equal(before.ModTime()) || incr.IdentityOf(after) != incr.IdentityOf(before) {
		return
	}
	if n := after.Size(); n > 0 {
		var last [1]byte
		if _, err := f.ReadAt(last[:], n-1); err != nil {
			return
		}
		m.Torn = last[0] != '\n'
	}
	if files, err := analyze.SessionFiles(path); err != nil || !bytes.Equal(files[:], m.Files) {
		return
	}
	mark, err := incr.MarkOf(f, after, after.Size())
	if err != nil {
		return
	}
	payload, err := json.Marshal(m)
	if err != nil {
		return
	}
	incr.Save(file, incr.State{Version: memoVersion(), Path: path, Mark: mark, Payload: payload})
}
