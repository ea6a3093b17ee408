//go:build !unix

package main

import (
	"errors"
	"os"
)

// openKept keeps no file open where an open file can stop its writer from
// renaming or removing it: the change check stats by path there.
func openKept(string) (*os.File, error) {
	return nil, errors.ErrUnsupported
}
