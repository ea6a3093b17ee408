package journal

import (
	"bytes"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pmcheck/pmcheck/internal/testcorpus"
)

// TestFollowerIsAFullReadOfEveryPrefix: every fixture and corpus journal
// (and a few hostile ones), fed row by row and in random pieces ending
// mid-line, the third time frozen and thawed after every piece (the hook's
// kept readers), gives at every prefix the journal a full read of that
// prefix gives, and a snapshot is not changed by what is written after it.
func TestFollowerIsAFullReadOfEveryPrefix(t *testing.T) {
	docs := [][]byte{
		[]byte("{\"type\":\"started\",\"key\":\"k\",\"agentId\":\"a\"}\n\nnot json\n[1]\n{\"type\":\"result\",\"agentId\":\"a\"}\r\n{\"type\":\"fail"),
		[]byte(strings.Repeat("junk\n", 40) + "{\"type\":\"started\",\"key\":\"k\"}\n"),
		[]byte("{\"type\":\"started\",\"key\":\"" + strings.Repeat("x", LineCap) + "\"}\n{\"type\":\"started\"}"),
	}
	files := 0
	for _, root := range testcorpus.With(t, filepath.Join("..", "..", "fixtures", "runs")) {
		filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
			if err == nil && info.Mode().IsRegular() && filepath.Base(p) == "journal.jsonl" {
				data, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				docs = append(docs, data)
				files++
			}
			return nil
		})
	}
	if files == 0 {
		t.Fatal("no journal found")
	}
	for i, data := range docs {
		for _, opts := range []Options{{}, {GiveUp: true}} {
			rng := rand.New(rand.NewSource(int64(i)))
			for pass := 0; pass < 3; pass++ {
				f := NewFollower("journal.jsonl", opts)
				type snap struct {
					at   int
					got  any
					want any
				}
				var snaps []snap
				for fed := 0; fed < len(data); {
					n := 1 + rng.Intn(max(200, len(data)/64))
					if pass == 0 { // row by row
						n = bytes.IndexByte(data[fed:], '\n') + 1
						if n == 0 {
							n = len(data) - fed
						}
					}
					n = min(n, len(data)-fed)
					f.Write(data[fed : fed+n])
					fed += n
					if pass == 2 {
						f = refrozen(t, f)
					}
					got, gotErr := f.Snapshot()
					want, wantErr := ReadOptions(bytes.NewReader(data[:fed]), "journal.jsonl", opts)
					if !reflect.DeepEqual(got, want) || (gotErr == nil) != (wantErr == nil) {
						t.Fatalf("doc %d, %d bytes: follower %+v (%v)\nfull read %+v (%v)", i, fed, got, gotErr, want, wantErr)
					}
					if len(snaps) < 50 {
						snaps = append(snaps, snap{fed, got, want})
					}
				}
				for _, s := range snaps {
					if !reflect.DeepEqual(s.got, s.want) {
						t.Fatalf("doc %d: the snapshot at %d bytes changed after later pieces", i, s.at)
					}
				}
			}
		}
	}
}

// refrozen is f frozen and thawed; a follower whose reader gave up is not
// frozen (Freeze refuses it) and is returned as it is.
func refrozen(t *testing.T, f *Follower) *Follower {
	t.Helper()
	data, err := f.Freeze()
	if err == ErrNotFrozen && f.err != nil {
		return f
	}
	if err != nil {
		t.Fatalf("freeze at %d bytes: %v", f.Size(), err)
	}
	g, key, err := ThawFollower(data)
	if err != nil {
		t.Fatalf("thaw at %d bytes: %v", f.Size(), err)
	}
	if g.Size() != f.Size() || g.Offset() != f.Offset() || key != followKey(f.r.j.File, f.r.opts.GiveUp) {
		t.Fatalf("thawed at %d/%d bytes under %q, frozen at %d/%d", g.Size(), g.Offset(), key, f.Size(), f.Offset())
	}
	return g
}
