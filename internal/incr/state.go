package incr

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// CacheDirEnv overrides where states are kept (docs/hooks.md).
const CacheDirEnv = "PMCHECK_CACHE_DIR"

// Dir is where states are kept: $PMCHECK_CACHE_DIR when set, else
// pmcheck/ in the user's cache directory ($XDG_CACHE_HOME, else
// ~/.cache on Linux; os.UserCacheDir elsewhere).
func Dir() (string, error) {
	if d := os.Getenv(CacheDirEnv); d != "" {
		return d, nil
	}
	c, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(c, "pmcheck"), nil
}

// PathFor is the state file of one transcript under dir: kind/ and a hash
// of the transcript's absolute path, so any path maps to one short,
// harmless file name. Two transcripts never share one (short of a SHA-256
// collision), and a state names its transcript inside (State.Path).
func PathFor(dir, kind, transcript string) string {
	if abs, err := filepath.Abs(transcript); err == nil {
		transcript = abs
	}
	sum := sha256.Sum256([]byte(transcript))
	return filepath.Join(dir, kind, hex.EncodeToString(sum[:16])+".state")
}

// State is one reader's work on one file, kept between processes.
type State struct {
	// Version is the writer's format and program version: a state of
	// another is not read (its payload may mean something else).
	Version string
	// Path is the absolute path of the file it is the state of: a state
	// found under another file's name is not used.
	Path string
	Mark Mark
	// Payload is the reader's own encoding of its work up to Mark.Offset.
	Payload []byte
}

// magic opens every state file.
const magic = "pmcheck-incr-state-2\n"

const crcSize = 4

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// maxState bounds what Load reads: a larger file is not a state this
// program wrote (and reading it would cost more than the full read it
// saves).
const maxState = 256 << 20

// ErrInvalid says a state file is not a state, is torn, corrupt, of
// another version or of another file.
var ErrInvalid = errors.New("not a valid state")

// A state is laid out as
//
//	magic | u32 len + Version | u32 len + Path | dev u64 | ino u64 |
//	offset u64 | head [32] | tail [32] | u64 len + Payload | CRC-32C of all before
//
// Every length is checked on decoding, and the checksum covers all of it:
// a state cut short by a crash, or changed by hand, does not decode. The
// checksum finds damage, not forgery (whoever can write the state can
// compute any checksum: docs/hooks.md, Threat model): a CRC, which the
// processor computes, where SHA-256 of the hook's kept readers (megabytes)
// cost a fifth of writing them.
//
// encodeHead gives what comes before the payload, and the checksum that
// follows it: Save writes the three apart, so a payload of megabytes (the
// hook's kept readers) is not copied first.
func encodeHead(s State) (head, sum []byte) {
	b := make([]byte, 0, len(magic)+8+len(s.Version)+len(s.Path)+24+2*sha256.Size+8)
	b = append(b, magic...)
	for _, v := range []string{s.Version, s.Path} {
		b = binary.BigEndian.AppendUint32(b, uint32(len(v)))
		b = append(b, v...)
	}
	for _, v := range []uint64{s.Mark.ID.Dev, s.Mark.ID.Ino, uint64(s.Mark.Offset)} {
		b = binary.BigEndian.AppendUint64(b, v)
	}
	b = append(b, s.Mark.Head[:]...)
	b = append(b, s.Mark.Tail[:]...)
	b = binary.BigEndian.AppendUint64(b, uint64(len(s.Payload)))
	crc := crc32.Update(crc32.Checksum(b, castagnoli), castagnoli, s.Payload)
	return b, binary.BigEndian.AppendUint32(nil, crc)
}

func decode(data []byte) (State, error) {
	var s State
	if len(data) < len(magic)+crcSize || !bytes.HasPrefix(data, []byte(magic)) {
		return s, ErrInvalid
	}
	body, sum := data[:len(data)-crcSize], data[len(data)-crcSize:]
	if crc32.Checksum(body, castagnoli) != binary.BigEndian.Uint32(sum) {
		return s, ErrInvalid
	}
	r := body[len(magic):]
	take := func(n uint64) ([]byte, bool) {
		if n > uint64(len(r)) {
			return nil, false
		}
		v := r[:n]
		r = r[n:]
		return v, true
	}
	u32 := func() (uint64, bool) {
		v, ok := take(4)
		if !ok {
			return 0, false
		}
		return uint64(binary.BigEndian.Uint32(v)), true
	}
	u64 := func() (uint64, bool) {
		v, ok := take(8)
		if !ok {
			return 0, false
		}
		return binary.BigEndian.Uint64(v), true
	}
	str := func() (string, bool) {
		n, ok := u32()
		if !ok {
			return "", false
		}
		v, ok := take(n)
		return string(v), ok
	}
	var ok bool
	var off, n uint64
	var head, tail, payload []byte
	if s.Version, ok = str(); !ok {
		return State{}, ErrInvalid
	}
	if s.Path, ok = str(); !ok {
		return State{}, ErrInvalid
	}
	if s.Mark.ID.Dev, ok = u64(); !ok {
		return State{}, ErrInvalid
	}
	if s.Mark.ID.Ino, ok = u64(); !ok {
		return State{}, ErrInvalid
	}
	if off, ok = u64(); !ok || off > 1<<62 {
		return State{}, ErrInvalid
	}
	s.Mark.Offset = int64(off)
	if head, ok = take(sha256.Size); !ok {
		return State{}, ErrInvalid
	}
	if tail, ok = take(sha256.Size); !ok {
		return State{}, ErrInvalid
	}
	copy(s.Mark.Head[:], head)
	copy(s.Mark.Tail[:], tail)
	if n, ok = u64(); !ok {
		return State{}, ErrInvalid
	}
	if payload, ok = take(n); !ok || len(r) != 0 {
		return State{}, ErrInvalid
	}
	// A view, not a copy: the bytes were read for this state alone (a
	// copy of the hook's kept readers, a megabyte or more, cost a
	// fifth of a call that reads through them).
	s.Payload = payload[:len(payload):len(payload)]
	return s, nil
}

// Load reads the state at file and returns it when it is a whole state of
// this version for path. Any other outcome is an error, and means: no
// state (read the file in full).
func Load(file, version, path string) (State, error) {
	f, err := os.Open(file)
	if err != nil {
		return State{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return State{}, err
	}
	if !st.Mode().IsRegular() || st.Size() > maxState {
		return State{}, ErrInvalid
	}
	data := make([]byte, st.Size())
	if _, err := f.ReadAt(data, 0); err != nil {
		return State{}, ErrInvalid // shorter than its stat: not a state this program wrote
	}
	s, err := decode(data)
	if err != nil {
		return State{}, err
	}
	if s.Version != version {
		return State{}, fmt.Errorf("%w: version %q, not %q", ErrInvalid, s.Version, version)
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	if s.Path != path {
		return State{}, fmt.Errorf("%w: the state of %s, not of %s", ErrInvalid, s.Path, path)
	}
	return s, nil
}

// staleTemp is how old a temporary file of a writer must be before another
// writer removes it (a writer killed mid-write leaves one).
const staleTemp = 10 * time.Minute

// Save writes s to file atomically: into a temporary file beside it, then
// renamed over it. A reader sees the old state or the new
// one, never a part; of two writers at once, the last rename wins; a
// writer killed before its rename leaves the old state and a temporary
// file, which a later Save (one in 32) removes once it is stale. The directory is
// made private (0700) and the file is 0600: the state is the user's.
func Save(file string, s State) error {
	if abs, err := filepath.Abs(s.Path); err == nil {
		s.Path = abs
	}
	dir := filepath.Dir(file)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, filepath.Base(file)+".tmp-*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	// Not synced: a rename can reach the disk before the data after a
	// crash of the machine (not of the process), leaving a short or empty
	// state, which its checksum refuses; a sync per hook call would cost
	// more than the read it saves.
	head, sum := encodeHead(s)
	_, err = tmp.Write(head)
	if err == nil {
		_, err = tmp.Write(s.Payload)
	}
	if err == nil {
		_, err = tmp.Write(sum)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(name, file)
	}
	if err != nil {
		os.Remove(name)
		return err
	}
	if rand.IntN(32) == 0 {
		// Now and then, not on every save: it lists the directory, which
		// holds one state per transcript ever seen.
		removeStale(dir, filepath.Base(file)+".tmp-")
	}
	return nil
}

// removeStale removes the temporary files of killed writers of one state.
func removeStale(dir, prefix string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), prefix) {
			continue
		}
		if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > staleTemp {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}
