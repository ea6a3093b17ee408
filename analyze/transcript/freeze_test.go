package transcript

import (
	"bytes"
	"math/rand"
	"testing"

	"github.com/pmcheck/pmcheck/analyze/detect/ship"
)

// refrozen is f frozen and thawed (f is closed).
func refrozen(t *testing.T, name string, f *Follower, opts Options) *Follower {
	t.Helper()
	data, err := f.Freeze()
	if err != nil {
		t.Fatalf("%s: freeze at %d bytes: %v", name, f.Size(), err)
	}
	g, key, err := ThawFollower(data, opts.Shell.Inert)
	if err == nil && key != followKey(name, opts) {
		t.Fatalf("%s: thawed under key %q, want %q", name, key, followKey(name, opts))
	}
	if err != nil {
		t.Fatalf("%s: thaw at %d bytes: %v", name, f.Size(), err)
	}
	if g.Size() != f.Size() || g.Offset() != f.Offset() {
		t.Fatalf("%s: thawed at %d/%d bytes, frozen at %d/%d", name, g.Size(), g.Offset(), f.Size(), f.Offset())
	}
	f.Close()
	return g
}

// thawDifferential feeds data to a follower in random pieces (ending
// mid-row as often as not), freezing and thawing it after some pieces
// (after every row of a short file), and compares its snapshots with full
// reads of the same prefixes, taken before and after the thaw.
func thawDifferential(t *testing.T, name string, data []byte, opts Options, seed int64) (thaws int) {
	t.Helper()
	rng := rand.New(rand.NewSource(seed))
	rows := bytes.Count(data, []byte("\n"))
	every := max(1, rows/40)
	f := NewFollower(name, opts)
	for fed := 0; fed < len(data); {
		n := 1 + rng.Intn(64)
		switch rng.Intn(3) {
		case 0:
			n = 1 + rng.Intn(8192)
		case 1:
			// To the end of the row: where the hook freezes.
			if nl := bytes.IndexByte(data[fed:], '\n'); nl >= 0 {
				n = nl + 1
			}
		}
		n = min(n, len(data)-fed)
		f.Write(data[fed : fed+n])
		fed += n
		if rng.Intn(every) == 0 || fed == len(data) {
			// The snapshot first (it merges the uuids listed since), or
			// not: a follower is frozen either way.
			if rng.Intn(2) == 0 {
				sameAsFullRead(t, name, f, data[:fed], opts)
			}
			f = refrozen(t, name, f, opts)
			thaws++
			sameAsFullRead(t, name, f, data[:fed], opts)
		}
	}
	f.Close()
	return thaws
}

// TestThawedFollowerReadsOn: a follower frozen and thawed at any point of
// any fixture and corpus transcript (mid-row included, with the options a
// check reads with or none) reads on as the follower frozen would: every
// snapshot after is a full read of the same bytes.
func TestThawedFollowerReadsOn(t *testing.T) {
	for i, s := range transcriptSeeds() {
		thawDifferential(t, "seed", s, Options{}, int64(i))
		thawDifferential(t, "seed", s, Options{LineCap: 40, NoUUIDList: true}, int64(i))
	}
	files, thaws := 0, 0
	eachTranscript(t, realRoots(t), func(p string, data []byte) error {
		files++
		opts := Options{}
		if files%2 == 0 {
			// With the options a check and the hook read with (the hook
			// classifies no command while reading).
			opts = Options{GiveUp: true, LineCap: 1 << 20, Shell: ShellOptions{Inert: ship.Inert}}
		}
		thaws += thawDifferential(t, p, data, opts, int64(files))
		return nil
	})
	if files == 0 {
		t.Fatal("no transcripts found")
	}
	t.Logf("%d files, %d thaws", files, thaws)
}

// TestFrozenFollowerIsRefused: a state that does not thaw is an error,
// never a follower (the hook then reads in full).
func TestFrozenFollowerIsRefused(t *testing.T) {
	f := NewFollower("f.jsonl", Options{})
	f.Write(transcriptSeeds()[0])
	data, err := f.Freeze()
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][]byte{nil, data[:len(data)/2], append(bytes.Clone(data), 1)} {
		if _, _, err := ThawFollower(bad, nil); err == nil {
			t.Errorf("%d bytes of %d thawed", len(bad), len(data))
		}
	}
	if _, _, err := ThawFollower(data, nil); err != nil {
		t.Error(err)
	}
	g := NewFollower("f.jsonl", Options{Shell: shipShell(nil)})
	if _, err := g.Freeze(); err != ErrNotFrozen {
		t.Errorf("a follower given a shell classifier: %v", err)
	}
}
