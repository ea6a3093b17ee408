//go:build unix

package report

import (
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestReportToAPipeIsWrittenInPlace: a report path that is a device, pipe
// or socket (/dev/null, /dev/stdout, a named pipe) is written in place. A
// temporary file renamed over it replaced the device with a regular file:
// `check --format json=/dev/null` run as root left /dev/null a 200 MB
// file, and every later write to /dev/null on the machine went to it.
func TestReportToAPipeIsWrittenInPlace(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "out.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	link := filepath.Join(dir, "stdout") // as /dev/stdout is a link
	if err := os.Symlink(fifo, link); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, path string
		write      func(string) error
	}{
		{"WriteFileAtomic", fifo, func(p string) error { return WriteFileAtomic(p, []byte("report\n")) }},
		{"writeOutputs", link, func(p string) error {
			return writeOutputs([]Output{{Format: FormatText, Path: p}}, io.Discard, false, "", func(w io.Writer, _ Output) error {
				_, err := io.WriteString(w, "report\n")
				return err
			})
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			// The pipe's reader is open before the report is written, so
			// the write neither waits for a reader nor races one (a reader
			// opened on another goroutine could find the writer gone and
			// read nothing, or leave it writing to no reader); the report
			// fits the pipe's buffer and is read once it is written.
			r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if err := c.write(c.path); err != nil {
				t.Fatal(err)
			}
			r.SetReadDeadline(time.Now().Add(10 * time.Second))
			if b, err := io.ReadAll(r); err != nil || string(b) != "report\n" {
				t.Errorf("the pipe's reader got %q, %v (a file was put in its place?)", b, err)
			}
			if fi, err := os.Stat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
				t.Errorf("%s is no longer a named pipe: %v %v", fifo, fi.Mode(), err)
			}
			if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Errorf("%s is no longer a link: %v", link, err)
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 2 {
				t.Errorf("left behind in the folder: %v", ents)
			}
		})
	}
}
