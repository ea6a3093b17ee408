package gitsource_test

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pmcheck/pmcheck/analyze/gitsource"
	"github.com/pmcheck/pmcheck/internal/entiretest"
)

// One process serves every object; a partial clone's filtered blob is
// ErrMissing (git exits on it rather than answer), and the objects after
// it are still read.
func TestBatchPartialClone(t *testing.T) {
	src := entiretest.New(t)
	big := strings.Repeat("0123456789abcdef\n", 1000)
	src.Commit("big", "big.txt", big)
	bigID := src.Git("rev-parse", "HEAD:big.txt")
	smallID := src.Git("rev-parse", "HEAD:README.md")
	clone := filepath.Join(t.TempDir(), "c")
	src.GitIn(src.Dir, nil, "", "clone", "-q", "--no-checkout", "--filter=blob:limit=1k", "file://"+src.Dir, clone)

	b, err := gitsource.OpenBatch(clone)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var out bytes.Buffer
	if _, err := b.CopyBlob(smallID, &out); err != nil || out.String() != "demo\n" {
		t.Fatalf("small blob: %q, %v", out.String(), err)
	}
	if _, err := b.CopyBlob(bigID, &out); !errors.Is(err, gitsource.ErrMissing) {
		t.Fatalf("filtered blob: %v, want ErrMissing", err)
	}
	out.Reset()
	if _, err := b.CopyBlob(smallID, &out); err != nil || out.String() != "demo\n" {
		t.Fatalf("after the filtered blob: %q, %v", out.String(), err)
	}
	if _, err := b.Get("no-such-ref:x"); !errors.Is(err, gitsource.ErrMissing) {
		t.Errorf("unknown name: %v, want ErrMissing", err)
	}
	if b.Started != 2 {
		t.Errorf("%d processes started, want 2 (one restart after the filtered blob)", b.Started)
	}
}

// A content read only in part is skipped before the next request.
func TestBatchSkipsUnreadContent(t *testing.T) {
	r := entiretest.New(t)
	r.Commit("x", "a.txt", strings.Repeat("a", 100000))
	b, err := gitsource.OpenBatch(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	o, err := b.Get("HEAD:a.txt")
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 10)
	o.Read(buf)
	data, _, err := b.ReadSmall("HEAD:README.md", "blob", 100)
	if err != nil || string(data) != "demo\n" {
		t.Fatalf("%q, %v", data, err)
	}
	if _, _, err := b.ReadSmall("HEAD:a.txt", "blob", 100); err == nil {
		t.Errorf("a blob over the limit was read whole")
	}
}

// A SHA-256 repository's trees hold 32-byte ids.
func TestTreeOfSHA256Repository(t *testing.T) {
	r := entiretest.New(t)
	dir := filepath.Join(t.TempDir(), "s")
	r.GitIn(r.Dir, nil, "", "init", "-q", "--object-format=sha256", dir)
	b, err := gitsource.OpenBatch(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	blob := r.GitIn(dir, nil, "data\n", "hash-object", "-w", "--stdin")
	tree := r.GitIn(dir, nil, "100644 blob "+blob+"\tf.txt\n", "mktree")
	entries, err := b.Tree(tree)
	if err != nil || len(entries) != 1 || entries[0].ID != blob || entries[0].Name != "f.txt" {
		t.Fatalf("%+v, %v; want f.txt %s", entries, err, blob)
	}
}
