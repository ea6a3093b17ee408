package transcript

import (
	"errors"
	"strconv"

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
// It is built by hand (a poll reads every changed file through it; fmt
// took a few hundredths of a watch's CPU): the flags, the line cap and each
// label with its length, then the file.
func followKey(file string, o Options) string {
	var a [64]byte
	b := append(a[:0], flag(o.RowHashes), flag(o.HeadsOnly), flag(o.GiveUp), flag(o.NoUUIDList), flag(o.Shell.Classify != nil))
	b = strconv.AppendInt(b, o.LineCap, 10)
	b = strconv.AppendInt(append(b, ' '), int64(len(o.Shell.Labels)), 10)
	for _, l := range o.Shell.Labels {
		b = strconv.AppendInt(append(b, ' '), int64(len(l)), 10)
		b = append(append(b, ':'), l...)
	}
	return string(append(append(b, ' '), file...))
}

func flag(v bool) byte {
	if v {
		return '1'
	}
	return '0'
}
