package gitjoin

import (
	"crypto/sha1"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pmcheck/pmcheck/analyze/detect/gitjoin/gittest"
)

func TestJoinListsCommitsTrailersAndPaths(t *testing.T) {
	r := gittest.NewRepo(t)
	r.Git("checkout", "-q", "-b", "feat")
	r.Write("src/parser.go", "package src\n")
	c1 := r.Commit("Add parser\n\nWritten by a subagent.")
	r.Write("docs/review.md", "ok\n")
	r.Write("src/parser.go", "package src // reviewed\n")
	c2 := r.Commit("Review killed agent work\n\nReviewed-Killed-Agent: a1b2c3d4e5f60718\nCo-authored-by: Someone <s@example.com>")
	r.Git("checkout", "-q", "main")
	r.Write("unrelated.txt", "main moved on\n")
	r.Commit("main only")

	b, err := Join(r.Dir, "main", "feat")
	if err != nil {
		t.Fatal(err)
	}
	if b.Name != "feat" {
		t.Errorf("Name = %q", b.Name)
	}
	if len(b.Commits) != 2 || b.Commits[0].ID != c1 || b.Commits[1].ID != c2 {
		t.Fatalf("commits = %+v, want %s then %s", b.Commits, c1, c2)
	}
	if b.Commits[0].Subject != "Add parser" || len(b.Commits[0].Trailers) != 0 {
		t.Errorf("first commit = %+v", b.Commits[0])
	}
	wantTrailers := []Trailer{{"Reviewed-Killed-Agent", "a1b2c3d4e5f60718"}, {"Co-authored-by", "Someone <s@example.com>"}}
	if !reflect.DeepEqual(b.Commits[1].Trailers, wantTrailers) {
		t.Errorf("trailers = %+v", b.Commits[1].Trailers)
	}
	if !reflect.DeepEqual(b.Commits[1].Paths, []string{"docs/review.md", "src/parser.go"}) {
		t.Errorf("paths of second commit = %q", b.Commits[1].Paths)
	}
	// The three-dot diff excludes what only main changed.
	if !reflect.DeepEqual(b.Paths, []string{"docs/review.md", "src/parser.go"}) {
		t.Errorf("branch paths = %q", b.Paths)
	}
	if !b.HasCommit(c1[:7]) || b.HasCommit("abc") || b.HasCommit("0000000") {
		t.Error("HasCommit is wrong")
	}
}

func TestJoinRejectsBadRevisionsWithOneLine(t *testing.T) {
	r := gittest.NewRepo(t)
	for _, tc := range []struct{ dir, base, head string }{
		{r.Dir, "main", "no-such-branch"},
		{r.Dir, "--output=x", "main"},
		{filepath.Join(r.Dir, "missing"), "main", "main"},
		{r.Dir, "", "main"},
	} {
		_, err := Join(tc.dir, tc.base, tc.head)
		if err == nil {
			t.Errorf("Join(%q, %q, %q) succeeded", tc.dir, tc.base, tc.head)
			continue
		}
		if strings.Contains(err.Error(), "\n") || !strings.HasPrefix(err.Error(), "git join: ") {
			t.Errorf("error is not one clear line: %q", err)
		}
	}
}

func TestJoinEmptyBranch(t *testing.T) {
	r := gittest.NewRepo(t)
	b, err := Join(r.Dir, "main", "main")
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Commits) != 0 || len(b.Paths) != 0 {
		t.Fatalf("got %+v", b)
	}
}

// TestCommitIDsAgreeWithEveryCommit: the sorted search finds exactly what
// comparing the id with every commit finds, on random ids and prefixes
// (short, upper case, shared prefixes, absent).
func TestCommitIDsAgreeWithEveryCommit(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	hex := "0123456789abcdef"
	id := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = hex[r.IntN(3)] // few digits: many shared prefixes
		}
		return string(b)
	}
	for range 300 {
		b := &Branch{}
		for range r.IntN(12) {
			b.Commits = append(b.Commits, Commit{ID: id(40)})
		}
		x := b.CommitIDs()
		for range 20 {
			q := id(5 + r.IntN(6))
			if r.IntN(4) == 0 && len(b.Commits) > 0 {
				q = strings.ToUpper(b.Commits[r.IntN(len(b.Commits))].ID[:7+r.IntN(34)])
			}
			want := false
			if len(q) >= 7 {
				for _, c := range b.Commits {
					want = want || strings.HasPrefix(c.ID, strings.ToLower(q))
				}
			}
			if got := x.Has(q); got != want {
				t.Fatalf("id %q among %v: Has %v, want %v", q, b.Commits, got, want)
			}
		}
	}
}

// BenchmarkCommitLookups: n ledger commit ids looked up in a branch of n
// commits. Time per op grows as n·log n (one sort, a binary search per id);
// HasCommit per id compared it with every commit, n².
func BenchmarkCommitLookups(b *testing.B) {
	for _, n := range []int{1000, 4000, 16000} {
		br := &Branch{}
		for i := range n {
			br.Commits = append(br.Commits, Commit{ID: fmt.Sprintf("%x", sha1.Sum([]byte(fmt.Sprint(i))))})
		}
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				x := br.CommitIDs()
				for i := range n {
					if !x.Has(br.Commits[i].ID[:12]) {
						b.Fatal("missing")
					}
				}
			}
		})
	}
}
