package detect

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pmcheck/pmcheck/analyze/detect/gitjoin"
	"github.com/pmcheck/pmcheck/analyze/model"
)

// TestSuffixIndexAgreesWithPathMatches: the branch-path index finds exactly
// the branch paths pathMatches accepts, in their order, on random paths
// (duplicates, empty parts and leading or doubled slashes included).
func TestSuffixIndexAgreesWithPathMatches(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	parts := []string{"a", "b", "src", "a.go", "", "x/y"}
	pick := func() string {
		var p []string
		for range 1 + r.IntN(4) {
			p = append(p, parts[r.IntN(len(parts))])
		}
		return strings.Join(p, "/")
	}
	for range 500 {
		var branch []string
		for range r.IntN(8) {
			branch = append(branch, pick())
		}
		x := newSuffixIndex(branch)
		for range 10 {
			lp := pick()
			var want []int
			for i, bp := range branch {
				if pathMatches(lp, bp) {
					want = append(want, i)
				}
			}
			if got := x.matching(lp, nil); !reflect.DeepEqual(got, want) {
				t.Fatalf("ledger path %q, branch %q: index %v, pathMatches %v", lp, branch, got, want)
			}
		}
	}
}

// TestReviewFilesAgreeWithEveryPair: reviewFiles finds exactly what trying
// every pattern on every path for every item finds, in pattern then path
// order, on random ids (glob characters included), patterns and paths.
func TestReviewFilesAgreeWithEveryPair(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	ids := []string{"", "a1", "ab12cd34", "toolu_01", "x*", "a?", "[ab]", `c\d`, "ab"}
	pats := []string{"reviews/{agent}.md", "*{agent}*", "docs/*.md", "REVIEW-*", "*/{agent}", "r[{agent}]", "*.md", `\{agent}`}
	segs := []string{"reviews", "docs", "a1", "ab12cd34", "toolu_01.md", "x*.md", "ab.md", "REVIEW-ab", "c", "d", "b"}
	for range 400 {
		var items []*killedItem
		for range 1 + r.IntN(5) {
			items = append(items, &killedItem{id: ids[r.IntN(len(ids))], toolUseID: ids[r.IntN(len(ids))]})
		}
		var patterns, paths []string
		for range 1 + r.IntN(3) {
			patterns = append(patterns, pats[r.IntN(len(pats))])
		}
		for range r.IntN(8) {
			var p []string
			for range 1 + r.IntN(3) {
				p = append(p, segs[r.IntN(len(segs))])
			}
			paths = append(paths, strings.Join(p, "/"))
		}
		paths = uniqueSorted(paths)
		got := reviewFiles(patterns, paths, items)
		for i, k := range items {
			var want []reviewFileHit
			for ti, pat := range patterns {
				for pi, p := range paths {
					if reviewFileMatches(pat, p, k) {
						want = append(want, reviewFileHit{ti, pi})
					}
				}
			}
			if !slices.Equal(got[i], want) {
				t.Fatalf("item %+v, patterns %q, paths %q: got %v, want %v", *k, patterns, paths, got[i], want)
			}
		}
	}
}

// branchRun is a session with n killed foreground agents, each of which
// wrote w files, and a branch under check of n·w paths of which a quarter
// are the agents' files and n/4 are review files named by agent id
// (reviews/<tool-use id>.md).
func branchRun(n, w int) (*model.Run, *gitjoin.Branch) {
	t0 := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	run := &model.Run{Kind: model.KindSession, ID: "s", Path: "s.jsonl", Main: &model.Transcript{File: "s.jsonl"}}
	at := func(line int) model.Evidence {
		return model.Evidence{File: "s.jsonl", Line: line, Time: t0.Add(time.Duration(line) * time.Second)}
	}
	b := &gitjoin.Branch{Name: "feature"}
	for i := range n {
		id := fmt.Sprintf("toolu_kill%06d", i)
		c := model.NewToolCall(model.CallInput{ID: id, Name: "Agent", Description: fmt.Sprintf("Refactor module %06d", i), At: at(2 * i)})
		res := model.NewToolResult(model.ResultInput{ToolUseID: id, IsError: true, Text: "boom", At: at(2*i + 1)})
		child := &model.Transcript{File: "agent-" + id + ".jsonl", Cwd: "/work/repo"}
		for j := range w {
			rel := fmt.Sprintf("src/m%06d/f%03d.go", i, j)
			child.ToolCalls = append(child.ToolCalls, model.NewToolCall(model.CallInput{ID: fmt.Sprintf("%s_w%d", id, j), Name: "Write", FilePath: "/work/repo/" + rel, At: at(2 * i)}))
			if (i+j)%4 == 0 {
				b.Paths = append(b.Paths, rel)
			} else {
				b.Paths = append(b.Paths, fmt.Sprintf("lib/m%06d/g%03d.go", i, j))
			}
		}
		if i%4 == 0 {
			b.Paths = append(b.Paths, "reviews/"+id+".md")
		}
		run.Subagents = append(run.Subagents, &model.SubagentCall{Call: c, Child: child, Owner: "s.jsonl", ToolUseID: id, Description: c.Description(), Mode: model.ModeSync, At: c.At(), Result: res, ResultAt: new(res.At())})
	}
	slices.Sort(b.Paths)
	return run, b
}

// BenchmarkGitJoinAndReviewFiles: n killed agents that wrote 8 files each,
// a branch of 8n paths and review-file patterns. Each ledger path is looked
// up by its suffixes and each candidate path by its substrings of the ids'
// lengths, so time per op grows about linearly with n; the ledger × branch
// and items × patterns × paths loops grew with n².
func BenchmarkGitJoinAndReviewFiles(b *testing.B) {
	for _, n := range []int{250, 1000, 4000} {
		run, branch := branchRun(n, 8)
		opts := Options{Git: branch, Review: ReviewOptions{FilePatterns: []string{"reviews/{agent}.md", "docs/review-*.md"}}}
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				f := Analyze(run, opts)
				if s := f.Subagents; !s[0].OnShippedBranch || len(s[0].BranchMatches) != 2 || !s[0].Reviewed || s[1].Reviewed || !s[1].OnShippedBranch {
					b.Fatalf("first two subagents: %+v", f.Subagents[:2])
				}
			}
		})
	}
}
