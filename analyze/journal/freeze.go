package journal

import (
	"errors"
	"reflect"
	"sync"

	"github.com/pmcheck/pmcheck/analyze/jsonl"
	"github.com/pmcheck/pmcheck/internal/freeze"
	"github.com/pmcheck/pmcheck/internal/incr"
)

// A journal follower's state between two processes, as the transcript
// follower's (transcript/freeze.go): the resume-gate hook keeps the
// readers of a session's files, a Workflow run's journal among them, so
// that a call after rows the gate reads decodes only what was appended.

// frozenFollower is what Freeze keeps of a follower: its reader (the
// journal read so far, the counts of lines) and its splitter.
type frozenFollower struct {
	R     reader
	Lines jsonl.Splitter
}

// frozenCodec is made on first use. The line being decoded (reader.v, whose
// fields point into its own array) is scratch, and the options' Follow and
// Rows are the caller's.
var frozenCodec = sync.OnceValue(func() *freeze.Codec {
	skips := map[reflect.Type]map[string]bool{
		reflect.TypeFor[reader]():  {"v": true},
		reflect.TypeFor[Options](): {"Follow": true},
	}
	return freeze.New((*frozenFollower)(nil), freeze.Options{Skip: func(owner reflect.Type, f reflect.StructField) bool {
		return skips[owner][f.Name]
	}})
})

// ErrNotFrozen is Freeze's answer for a follower it cannot keep: one whose
// reader gave up, or that was given a Rows function.
var ErrNotFrozen = errors.New("journal: this follower cannot be frozen")

// Freeze writes the follower's state: ThawFollower, in the same binary,
// makes a follower that reads on from it as f would. f is unchanged.
func (f *Follower) Freeze() ([]byte, error) {
	if f.err != nil || f.r.opts.Rows != nil {
		return nil, ErrNotFrozen
	}
	ff := frozenFollower{R: f.r, Lines: f.lines}
	ff.R.opts.Follow = nil
	return frozenCodec().Append(nil, &ff)
}

// ThawFollower makes again the follower whose state Freeze wrote; key is
// the key a read through Followers keeps it under.
func ThawFollower(data []byte) (f *Follower, key string, err error) {
	var ff frozenFollower
	if err := frozenCodec().Thaw(data, &ff); err != nil {
		return nil, "", err
	}
	if ff.R.j == nil {
		return nil, "", errors.New("journal: a frozen follower without a journal")
	}
	return &Follower{r: ff.R, lines: ff.Lines}, followKey(ff.R.j.File, ff.R.opts.GiveUp), nil
}

// Seed gives fs the follower of the journal at path that Freeze wrote, to
// read on from when mark (of the bytes it was given) still holds for the
// file (incr.Cache.Seed); an error seeds nothing, and the next read of the
// file starts from its first byte.
func Seed(fs *Followers, path string, frozen []byte, mark incr.Mark) error {
	f, key, err := ThawFollower(frozen)
	if err != nil {
		return err
	}
	return fs.Seed(path, key, f, mark)
}
