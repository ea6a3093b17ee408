package gitjoin

import (
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
