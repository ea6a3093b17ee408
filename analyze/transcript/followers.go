package transcript

import (
	"errors"
	"fmt"

	"github.com/pmcheck/pmcheck/analyze/jsonl"
	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/internal/incr"
)

// Followers keeps a Follower per file between reads of files that grow
// (Options.Follow; a live watch): a read decodes only the bytes appended
// since the last one, when the file is still the one read before and its
// bytes before that point are unchanged (incr.Cache: its first 4 KiB and the 4 KiB before the point), and reads the file
// afresh otherwise.
type Followers = incr.Cache[*Follower]

// readFollowing is ReadFileSize through opts.Follow: the transcript a full
// read gives, from the bytes appended since the last read.
func readFollowing(path, file string, opts Options) (*model.Transcript, int64, error) {
	plain := opts
	plain.Follow = nil
	var t *model.Transcript
	var size int64
	err := opts.Follow.Read(path, followKey(file, opts),
		func() *Follower { return NewFollower(file, plain) },
		func(f *Follower) (err error) {
			t, err = f.Snapshot()
			size = f.Size()
			return err
		})
	switch {
	case errors.Is(err, ErrFullRead):
		return ReadFileSize(path, file, plain)
	case errors.Is(err, incr.ErrNotRegular):
		return nil, 0, jsonl.ErrNotRegular
	case err != nil:
		var gaveUp *jsonl.GaveUpError
		if errors.As(err, &gaveUp) {
			return nil, 0, err
		}
		// The file changed under the read (shrank mid-read): what a
		// full read gives now.
		return ReadFileSize(path, file, plain)
	}
	return t, size, nil
}

// followKey tells apart the readings of one file with options that change
// what is kept (a follower is for one set of options).
func followKey(file string, o Options) string {
	return fmt.Sprint(file, o.LineCap, o.RowHashes, o.HeadsOnly, o.GiveUp, o.NoUUIDList, o.Shell.Classify != nil, o.Shell.Labels)
}
