package transcript

import (
	"errors"
	"reflect"
	"sync"

	"github.com/pmcheck/pmcheck/analyze/jsonl"
	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/internal/freeze"
	"github.com/pmcheck/pmcheck/internal/incr"
)

// A follower's state between two processes: the resume-gate hook runs once
// per tool call, and keeps the followers of a session's transcripts in its
// state (docs/hooks.md, "What the hook remembers") so that a call after
// rows the gate reads decodes those rows alone, as a watch's poll does.
// Freeze writes the follower's builder and model as they are (package
// freeze: every field, pointers shared as they were); ThawFollower makes
// the follower again, and from there it reads on as the one frozen would
// have. TestThawedFollowerReadsOn holds it to a full read, frozen and
// thawed after every row of every fixture and corpus transcript.

// frozenFollower is what Freeze keeps of a follower.
type frozenFollower struct {
	B     *builder
	Lines jsonl.Splitter
	UUIDs []uint64
	// Calls are the calls the builder's index of ids holds: the index
	// places them by a hash seeded per process, so it is built again.
	Calls []*model.ToolCall
	// Opts are the follower's options but Follow and the functions (Freeze
	// refuses a follower given any but Shell.Inert, and Inert says whether
	// it was given that one: ThawFollower's caller gives it back).
	Opts  Options
	Inert bool
}

// frozenSkips are the fields a frozen follower leaves out: the options'
// functions and maps (ThawFollower sets them from the options again), the
// shell classifier's memo (a cache of what the classifier answers), the
// scratch of the line being read, the allocators of calls, results and
// events (which hand out fresh values), and the index of calls (Calls).
var frozenSkips = map[reflect.Type]map[string]bool{
	reflect.TypeFor[builder](): {
		"arena": true, "d": true, "shell": true, "shellR": true, "shells": true, "lineShells": true,
		"callByID": true, "copied": true, "spare": true, "asSession": true,
	},
	reflect.TypeFor[Options]():          {"Follow": true},
	reflect.TypeFor[model.Transcript](): {"calls": true, "results": true},
}

// frozenCodec is made on first use (a hook call that freezes nothing,
// and every other command, does not walk the model's types).
var frozenCodec = sync.OnceValue(func() *freeze.Codec {
	return freeze.New((*frozenFollower)(nil), freeze.Options{Skip: func(owner reflect.Type, f reflect.StructField) bool {
		return frozenSkips[owner][f.Name]
	}})
})

// ErrNotFrozen is Freeze's answer for a follower it cannot keep: one that
// gave up, reads an Agent SDK stream, or was given functions or maps in
// its options (a shell classifier, a row callback, the rows of earlier
// files), which a later process cannot be given back.
var ErrNotFrozen = errors.New("transcript: this follower cannot be frozen")

// Freeze writes the follower's state and options: ThawFollower, in the
// same binary, makes a follower that reads on from it as f would. f is
// unchanged.
func (f *Follower) Freeze() ([]byte, error) {
	b, o := f.b, f.opts
	if b == nil || b.gaveUp != nil || b.sdk || b.asSession != nil ||
		o.Shell.Classify != nil || o.Rows != nil || o.Copied != nil || o.MarkLater {
		return nil, ErrNotFrozen
	}
	o.Follow = nil
	ff := frozenFollower{B: b, Lines: f.lines, UUIDs: f.uuids, Opts: o, Inert: o.Shell.Inert != nil}
	for _, c := range b.callByID.slots {
		if c != nil {
			ff.Calls = append(ff.Calls, c)
		}
	}
	// About a thirtieth of the bytes read (the model of a generated 11 MiB
	// session froze to 318 KB, of 100 MiB to 2.8 MB).
	return frozenCodec().Append(make([]byte, 0, f.Size()/30+4096), &ff)
}

// ThawFollower makes again the follower whose state Freeze wrote; key is
// the key a read through Followers keeps it under. inert is the
// Shell.Inert it was given, if any (a function is not frozen: the caller
// gives the same one back).
func ThawFollower(data []byte, inert func(command string) bool) (f *Follower, key string, err error) {
	var ff frozenFollower
	if err := frozenCodec().Thaw(data, &ff); err != nil {
		return nil, "", err
	}
	b := ff.B
	if b == nil || b.t == nil {
		return nil, "", errors.New("transcript: a frozen follower without a builder")
	}
	for _, c := range ff.Calls {
		if c == nil || b.callByID.get(c.ID()) != nil {
			return nil, "", errors.New("transcript: a frozen follower's calls repeat")
		}
		b.callByID.add(c)
	}
	if ff.Inert {
		if inert == nil {
			return nil, "", errors.New("transcript: a frozen follower's Shell.Inert was not given back")
		}
		ff.Opts.Shell.Inert, b.inert = inert, inert
	}
	b.arena = arenas.Get().(*arena)
	ff.Lines.CopyLines = poisonViews
	return &Follower{b: b, opts: ff.Opts, lines: ff.Lines, uuids: ff.UUIDs}, followKey(b.t.File, ff.Opts), nil
}

// Seed gives fs the follower of the file at path that Freeze wrote, to
// read on from when mark (of the bytes it was given) still holds for the
// file (incr.Cache.Seed), with the Shell.Inert it was given (ThawFollower);
// an error seeds nothing, and the next read of the
// file starts from its first byte.
func Seed(fs *Followers, path string, frozen []byte, mark incr.Mark, inert func(command string) bool) error {
	f, key, err := ThawFollower(frozen, inert)
	if err != nil {
		return err
	}
	return fs.Seed(path, key, f, mark)
}
