//go:build unix

package jsonl

import (
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestOpenReadIsOpenRegular: OpenRead reads what OpenRegular reads, refuses
// what it refuses (a named pipe without blocking, a directory) and fails
// with the same error text on a missing or unreadable file.
func TestOpenReadIsOpenRegular(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.jsonl")
	content := []byte("{\"type\":\"user\"}\n{\"type\":\"assistant\"}\n")
	if err := os.WriteFile(file, content, 0o644); err != nil {
		t.Fatal(err)
	}
	pipe := filepath.Join(dir, "p.jsonl")
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		t.Fatal(err)
	}
	f, size, err := OpenRead(file)
	if err != nil || size != int64(len(content)) {
		t.Fatalf("OpenRead(file): size %d, %v", size, err)
	}
	got, err := io.ReadAll(f)
	if err != nil || string(got) != string(content) {
		t.Fatalf("read %q, %v", got, err)
	}
	if n, err := f.Read(make([]byte, 8)); n != 0 || err != io.EOF {
		t.Fatalf("read after the end: %d, %v; want 0, EOF", n, err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err == nil {
		t.Fatal("a second Close succeeded")
	}
	for _, p := range []string{pipe, dir, filepath.Join(dir, "missing.jsonl")} {
		_, _, want := OpenRegularInfo(p)
		_, _, err := OpenRead(p)
		if want == nil || err == nil || err.Error() != want.Error() {
			t.Errorf("%s: OpenRead error %v; OpenRegular's %v", p, err, want)
		}
	}
}
