package hook

import (
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"sync/atomic"

	"github.com/pmcheck/pmcheck/analyze"
	"github.com/pmcheck/pmcheck/internal/incr"
)

// The hooks remember, per transcript, what the gate read in it and
// which bytes it read (docs/hooks.md, "What the hook remembers"): a call on
// a transcript that has not changed since (parallel tool calls of one
// message, a call retried) answers from that, without reading the file. A
// transcript that changed in any way the mark sees (another file, another
// size, other bytes at its start or end) is read in full, and the memo
// replaced. It is an accelerator: the answer is the one a full read of the
// same bytes gives, `pmcheck check` never reads it, and any fault with it
// (missing, corrupt, another version's, another file's, a cache directory
// that cannot be written) means a full read, never a failed call.

// memoFormat names the memo's payload; with the binary's identity it is
// the state's version, so a memo written by another pmcheck (whose
// detector may decide otherwise) is never used.
const memoFormat = "pmcheck-hook-memo-2"

// memoOff turns the memo off (tests comparing with full reads).
var memoOff bool

// memo is what the hook keeps of one reading of a session: what the
// decisions read of the gate (analyze.GateMemo: the outstanding items, the
// mark's, whether to disarm, the git aliases its commands define). It is
// keyed on the session's transcript: a subagent's file that changes
// without a row reaching the parent (its notification or result) changes
// no decision the parent's rows do not change too.
type memo = analyze.GateMemo

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

// fullReads counts the transcripts read in full (tests).
var fullReads atomic.Int64

// gateRemembered is readGateFull through the memo: the remembered reading
// when the transcript is the one it was made of, byte for byte as far as
// its mark can tell, else a full read whose reading is remembered when the
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
	fullReads.Add(1)
	g, err := readGateFull(path, cfg)
	if err != nil {
		return g, err
	}
	remember(file, path, before, g.Memo())
	return g, nil
}

// recall returns the remembered reading of path when its mark holds and
// the file is exactly as long as what was read.
func recall(file, path string) (memo, bool) {
	st, err := incr.Load(file, memoVersion(), path)
	if err != nil {
		return memo{}, false
	}
	f, err := os.Open(path)
	if err != nil {
		return memo{}, false
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() || info.Size() != st.Mark.Offset || st.Mark.Check(f, info) != nil {
		return memo{}, false
	}
	var m memo
	if err := json.Unmarshal(st.Payload, &m); err != nil {
		return memo{}, false
	}
	return m, true
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
