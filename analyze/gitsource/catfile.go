// Package gitsource reads what a check of a commit range needs from git
// itself: the range's commits (subjects, identities, trailers) and the Entire
// checkpoints they name (both storage backends, in the repository or in a
// separate checkpoint repository), without checking anything out or writing
// into the repository.
//
// Every object is read through one `git cat-file --batch` process per
// repository, streamed: a transcript blob goes from git's pipe to a file,
// never whole into memory. Nothing is fetched: a partial clone's missing
// blob is reported missing, not fetched from its promisor remote.
package gitsource

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// ErrMissing is an object the repository does not hold (never fetched, a
// partial clone's filtered blob, a ref that was never pushed).
var ErrMissing = errors.New("object not in the repository")

// Object is one object read from the batch: its id, type and size, and its
// content as a reader that must be read (or skipped by the next request)
// before the batch is asked for anything else.
type Object struct {
	ID   string
	Type string
	Size int64
	r    *io.LimitedReader
}

// Read reads the object's content.
func (o *Object) Read(p []byte) (int, error) { return o.r.Read(p) }

// Batch is one `git cat-file --batch` process over a repository.
type Batch struct {
	dir  string
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	cur  *Object // the object whose content may not be read to its end yet
	errs *bytes.Buffer
	// Started counts the processes started: one, plus one after each
	// object a partial clone lacks (git exits on it rather than answer).
	Started int
	// idLen is the length of a binary object id in a tree (20 bytes; 32 in
	// a SHA-256 repository).
	idLen int
}

// gitEnv keeps git offline, unprompted and free of repository locks: a
// partial clone's lazy fetch is refused (protocol.allow=never below, and
// GIT_NO_LAZY_FETCH where git knows it), so an absent blob is reported
// absent.
func gitEnv(cmd *exec.Cmd) {
	cmd.Env = append(cmd.Environ(), "LC_ALL=C", "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0", "GIT_NO_LAZY_FETCH=1", "GIT_NO_REPLACE_OBJECTS=1")
}

// gitArgs are the options every git command here runs with.
func gitArgs(dir string, args ...string) []string {
	return append([]string{"-C", dir, "-c", "protocol.allow=never", "-c", "core.quotePath=false"}, args...)
}

// OpenBatch starts the batch process in the repository at dir.
func OpenBatch(dir string) (*Batch, error) {
	b := &Batch{dir: dir, idLen: 20}
	cmd := exec.Command("git", gitArgs(dir, "rev-parse", "--show-object-format")...)
	gitEnv(cmd)
	if out, err := cmd.Output(); err == nil && strings.TrimSpace(string(out)) == "sha256" {
		b.idLen = 32
	}
	if err := b.start(); err != nil {
		return nil, err
	}
	return b, nil
}

func (b *Batch) start() error {
	cmd := exec.Command("git", gitArgs(b.dir, "cat-file", "--batch")...)
	gitEnv(cmd)
	b.cmd, b.errs, b.cur = cmd, &bytes.Buffer{}, nil
	cmd.Stderr = b.errs
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("git cat-file in %s: %v (is git installed?)", b.dir, err)
	}
	b.in, b.out = in, bufio.NewReaderSize(out, 64<<10)
	b.Started++
	return nil
}

// Close ends the process.
func (b *Batch) Close() error {
	if b == nil || b.cmd == nil {
		return nil
	}
	b.in.Close()
	_, _ = io.Copy(io.Discard, b.out)
	err := b.cmd.Wait()
	b.cmd = nil
	return err
}

// Get asks for an object by any name git understands (an id, `rev:path`).
// A name git does not resolve is ErrMissing. The returned object's content
// is valid until the next Get.
func (b *Batch) Get(name string) (*Object, error) {
	if strings.ContainsAny(name, "\n\r") {
		return nil, fmt.Errorf("git object name %q holds a line break", name)
	}
	if err := b.skip(); err != nil {
		return nil, err
	}
	if _, err := io.WriteString(b.in, name+"\n"); err != nil {
		return nil, b.failed(err)
	}
	head, err := b.out.ReadString('\n')
	if err != nil {
		// The process ended. A partial clone's filtered object: git cannot
		// fetch it (fetching is refused) and exits instead of answering
		// "missing". The object is absent; a new process serves the next
		// requests. Its error output is complete once it has been waited
		// for.
		b.in.Close()
		_ = b.cmd.Wait()
		msg := b.errs.String()
		failed := b.failed(err)
		if serr := b.start(); serr != nil {
			return nil, serr
		}
		if strings.Contains(msg, "could not fetch") || strings.Contains(msg, "promisor") {
			return nil, ErrMissing
		}
		return nil, failed
	}
	head = strings.TrimSuffix(head, "\n")
	if strings.HasSuffix(head, " missing") || strings.HasSuffix(head, " ambiguous") {
		return nil, ErrMissing
	}
	f := strings.Fields(head)
	if len(f) != 3 {
		return nil, fmt.Errorf("git cat-file in %s: unexpected answer %q", b.dir, head)
	}
	size, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil || size < 0 {
		return nil, fmt.Errorf("git cat-file in %s: unexpected size in %q", b.dir, head)
	}
	b.cur = &Object{ID: f[0], Type: f[1], Size: size, r: &io.LimitedReader{R: b.out, N: size}}
	return b.cur, nil
}

// skip reads the rest of the current object and its closing line feed.
func (b *Batch) skip() error {
	if b.cur == nil {
		return nil
	}
	if _, err := io.Copy(io.Discard, b.cur.r); err != nil {
		return b.failed(err)
	}
	b.cur = nil
	if c, err := b.out.ReadByte(); err != nil || c != '\n' {
		return b.failed(errors.New("object not followed by a line feed"))
	}
	return nil
}

func (b *Batch) failed(err error) error {
	msg := strings.TrimSpace(b.errs.String())
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	if msg != "" {
		return fmt.Errorf("git cat-file in %s: %s", b.dir, msg)
	}
	return fmt.Errorf("git cat-file in %s: %v", b.dir, err)
}

// ReadSmall reads a whole object of at most limit bytes (metadata, commits,
// trees): a larger one is an error, so a hostile checkpoint cannot make a
// check hold a huge blob.
func (b *Batch) ReadSmall(name, wantType string, limit int64) ([]byte, string, error) {
	o, err := b.Get(name)
	if err != nil {
		return nil, "", err
	}
	if wantType != "" && o.Type != wantType {
		return nil, o.ID, fmt.Errorf("%s is a %s, not a %s", name, o.Type, wantType)
	}
	if o.Size > limit {
		return nil, o.ID, fmt.Errorf("%s is %d bytes, over the %d read for it", name, o.Size, limit)
	}
	data := make([]byte, o.Size)
	if _, err := io.ReadFull(o, data); err != nil {
		return nil, o.ID, b.failed(err)
	}
	return data, o.ID, nil
}

// TreeEntry is one entry of a tree object.
type TreeEntry struct {
	Mode string
	Name string
	ID   string
}

// IsTree reports whether the entry is a folder.
func (e TreeEntry) IsTree() bool { return e.Mode == "40000" }

// maxTree caps a tree object read (a checkpoint folder lists a few dozen
// entries; the top of a branch with 256 shards is a few kB).
const maxTree = 8 << 20

// Tree lists a tree by name (`rev:path` or an id).
func (b *Batch) Tree(name string) ([]TreeEntry, error) {
	data, _, err := b.ReadSmall(name, "tree", maxTree)
	if err != nil {
		return nil, err
	}
	var out []TreeEntry
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		nul := bytes.IndexByte(data, 0)
		end := nul + 1 + b.idLen
		if sp < 0 || nul < sp || len(data) < end {
			return nil, fmt.Errorf("tree %s is malformed", name)
		}
		out = append(out, TreeEntry{Mode: string(data[:sp]), Name: string(data[sp+1 : nul]), ID: hex.EncodeToString(data[nul+1 : end])})
		data = data[end:]
	}
	return out, nil
}

// CopyBlob streams a blob into w; an absent blob is ErrMissing.
func (b *Batch) CopyBlob(id string, w io.Writer) (int64, error) {
	o, err := b.Get(id)
	if err != nil {
		return 0, err
	}
	if o.Type != "blob" {
		return 0, fmt.Errorf("%s is a %s, not a file", id, o.Type)
	}
	n, err := io.Copy(w, o)
	if err != nil {
		if _, ok := err.(*os.PathError); ok {
			return n, err
		}
		return n, b.failed(err)
	}
	return n, nil
}
