//go:build !linux

package main

import "errors"

// rawListing: not here; a listing made again is a full one (follower.list).
func rawListing(string, []byte) ([]byte, error) {
	return nil, errors.ErrUnsupported
}
