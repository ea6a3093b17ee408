//go:build unix

package jsonl

import (
	"io"
	"os"
	"syscall"
)

// OpenRead opens a regular file for reading as OpenRegular does, with plain
// system calls: an *os.File asks for the file's kind again when it is made
// and sets up a finalizer and a poller check, which is a fifth of the cost
// of opening, reading and closing a small transcript, and a folder of tens
// of thousands of them is mostly that. size is the file's size when opened.
func OpenRead(path string) (f io.ReadCloser, size int64, err error) {
	var fd int
	for {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, 0, &os.PathError{Op: "open", Path: path, Err: err}
	}
	var st syscall.Stat_t
	for {
		err = syscall.Fstat(fd, &st)
		if err != syscall.EINTR {
			break
		}
	}
	if err == nil && st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		syscall.Close(fd)
		return nil, 0, ErrNotRegular
	}
	if err != nil {
		syscall.Close(fd)
		return nil, 0, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	return &rawFile{fd: fd, name: path}, st.Size, nil
}

// rawFile reads a regular file by its descriptor.
type rawFile struct {
	fd   int
	name string
}

func (f *rawFile) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for {
		n, err := syscall.Read(f.fd, p)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return 0, &os.PathError{Op: "read", Path: f.name, Err: err}
		case n == 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

func (f *rawFile) Close() error {
	if f.fd < 0 {
		return os.ErrClosed
	}
	err := syscall.Close(f.fd)
	f.fd = -1
	if err != nil {
		return &os.PathError{Op: "close", Path: f.name, Err: err}
	}
	return nil
}
