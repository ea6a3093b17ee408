//go:build unix

package discover

import (
	"os"
	"path/filepath"
	"syscall"
)

func mkfifo(p string) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return syscall.Mkfifo(p, 0o644)
}
