package transcript

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/internal/testcorpus"
)

// realRoots are the folders of real transcripts the differential tests
// read: the fixtures and, with PMCHECK_CORPUS, the corpus.
func realRoots(t testing.TB) []string {
	return testcorpus.With(t, filepath.Join("..", "..", "fixtures", "runs"))
}

// eachTranscript calls fn with the path and the bytes of every .jsonl file
// under roots, in walk order, and fails the test on a walk or read error
// or on an error fn returns.
func eachTranscript(t testing.TB, roots []string, fn func(p string, data []byte) error) {
	t.Helper()
	for _, root := range roots {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".jsonl") {
				return err
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return fn(p, data)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// readBoth reads data with opts serially and in parallel (two workers,
// chunks of about 700 bytes: many chunks even for a small file).
func readBoth(p string, data []byte, opts Options) (serial, parallel *model.Transcript, err error) {
	if serial, err = Read(bytes.NewReader(data), p, opts); err != nil {
		return nil, nil, err
	}
	parallel, err = readParallel(bytes.NewReader(data), p, opts, 2, 700)
	return serial, parallel, err
}
