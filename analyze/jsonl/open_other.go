//go:build !unix

package jsonl

import "io"

// OpenRead opens a regular file for reading as OpenRegular does; size is
// the file's size when opened.
func OpenRead(path string) (io.ReadCloser, int64, error) {
	f, st, err := OpenRegularInfo(path)
	if err != nil {
		return nil, 0, err
	}
	return f, st.Size(), nil
}
