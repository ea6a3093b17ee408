package detect_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/pmcheck/pmcheck/analyze/detect"
	"github.com/pmcheck/pmcheck/analyze/detect/gitjoin"
	"github.com/pmcheck/pmcheck/analyze/detect/gitjoin/gittest"
	"github.com/pmcheck/pmcheck/analyze/model"
)

// branchWith adds to r a branch off main that carries the killed subagent's
// file (disclosure.md, written in detect-sync-killed) and, when message is not
// empty, one more commit with that message and the extra files. One repository
// serves many branches, which keeps the tests fast.
func branchWith(t *testing.T, r *gittest.Repo, name, message string, extra map[string]string) *gitjoin.Branch {
	r.Git("checkout", "-q", "-b", name, "main")
	r.Write("disclosure.md", "fixed in "+name+"\n")
	r.Commit("Fix disclosure defects")
	if message != "" {
		for p, d := range extra {
			r.Write(p, d)
		}
		r.Write("CHANGELOG.md", "reviewed in "+name+"\n")
		r.Commit(message)
	}
	b, err := gitjoin.Join(r.Dir, "main", name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestGitJoinPutsKilledWorkOnTheShippedBranch(t *testing.T) {
	run := loadRun(t, "detect-sync-killed", model.KindSession)
	r := gittest.NewRepo(t)
	f := detect.Analyze(run, detect.Options{Git: branchWith(t, r, "feat", "", nil)})
	s := subagent(t, f, "toolu_kill01")
	if !s.OnShippedBranch || s.Reviewed {
		t.Fatalf("fact %+v", s)
	}
	// The join says which path of the branch matched, so a reader can check it.
	if len(s.BranchMatches) != 1 || s.BranchMatches[0] != "path disclosure.md" {
		t.Fatalf("branch matches %q, want the one path the branch shares with the killed work", s.BranchMatches)
	}
	if !f.Run.Shipped || f.Run.Branch != "feat" {
		t.Fatalf("the branch under check is shipped: %+v", f.Run)
	}
	// A branch that does not carry the killed work.
	r.Git("checkout", "-q", "-b", "other", "main")
	r.Write("unrelated.go", "package x\n")
	r.Commit("Unrelated")
	b, err := gitjoin.Join(r.Dir, "main", "other")
	if err != nil {
		t.Fatal(err)
	}
	if s := subagent(t, detect.Analyze(run, detect.Options{Git: b}), "toolu_kill01"); s.OnShippedBranch || len(s.BranchMatches) != 0 {
		t.Fatalf("unrelated branch: %+v", s)
	}
}

func TestReviewTrailerOnTheBranch(t *testing.T) {
	run := loadRun(t, "detect-sync-killed", model.KindSession)
	r := gittest.NewRepo(t)
	for i, tc := range []struct {
		message  string
		reviewed bool
	}{
		{"Review killed work\n\nReviewed-Killed-Agent: a4000000000000011", true},
		{"Review killed work\n\nReviewed-Killed-Agent: Fix three disclosure defects", true},
		{"Review killed work\n\nreviewed-killed-agent: toolu_kill01", true},
		{"Review killed work\n\nReviewed-Killed-Agent: a4000000000000099", false},
		{"Mentions a4000000000000011 in the body but has no trailer", false},
	} {
		f := detect.Analyze(run, detect.Options{Git: branchWith(t, r, "case"+strconv.Itoa(i), tc.message, nil)})
		s := subagent(t, f, "toolu_kill01")
		if s.Reviewed != tc.reviewed {
			t.Errorf("%q: reviewed = %v (evidence %q)", tc.message, s.Reviewed, s.ReviewEvidence)
		}
		if s.Reviewed && (len(s.ReviewEvidence) != 1 || !strings.HasPrefix(strings.ToLower(s.ReviewEvidence[0]), "trailer reviewed-killed-agent")) {
			t.Errorf("%q: evidence %q", tc.message, s.ReviewEvidence)
		}
	}
	// Trailers can be renamed in the rule file.
	f := detect.Analyze(run, detect.Options{Git: branchWith(t, r, "renamed", "Review\n\nChecked-Agent: a4000000000000011", nil),
		Review: detect.ReviewOptions{Trailers: []string{"Checked-Agent"}}})
	if !subagent(t, f, "toolu_kill01").Reviewed {
		t.Error("a configured trailer key is not honoured")
	}
}

func TestReviewFileOnTheBranch(t *testing.T) {
	run := loadRun(t, "detect-sync-killed", model.KindSession)
	opts := detect.Options{Review: detect.ReviewOptions{FilePatterns: []string{"reviews/{agent}.md"}}}
	r := gittest.NewRepo(t)
	opts.Git = branchWith(t, r, "mine", "Add review", map[string]string{"reviews/a4000000000000011.md": "looked at it\n"})
	if s := subagent(t, detect.Analyze(run, opts), "toolu_kill01"); !s.Reviewed || s.ReviewEvidence[0] != "review file reviews/a4000000000000011.md" {
		t.Fatalf("fact %+v", s)
	}
	opts.Git = branchWith(t, r, "theirs", "Add review", map[string]string{"reviews/someone-else.md": "x\n"})
	if s := subagent(t, detect.Analyze(run, opts), "toolu_kill01"); s.Reviewed {
		t.Fatalf("a review file for another agent counted: %+v", s)
	}
}

// TestTrustUnknownKilledWorkIsNotOffTheBranch: a killed subagent that wrote
// through an interpreter (python3 -c) and committed quietly (git commit -q,
// no id printed) has a partial ledger. Its work cannot be shown to be off a
// branch that changed anything, so the join puts it on the branch; a branch
// that changes nothing does not.
func TestTrustUnknownKilledWorkIsNotOffTheBranch(t *testing.T) {
	run := loadRun(t, "detect-sync-killed", model.KindSession)
	for _, a := range run.Agents {
		for _, c := range a.ToolCalls {
			switch in := c.Input(); c.Name() {
			case "Write":
				in.Name, in.FilePath = "Bash", ""
				in.Command = `python3 -c "open('disclosure.md','w').write('x')"`
				c.Set(in)
			case "Bash":
				in.Command = "git commit -qam wip"
				c.Set(in)
				if c.Result != nil {
					rin := c.Result.Input()
					rin.Text, rin.TextLen = "", 0
					c.Result.Set(rin)
				}
			}
		}
	}
	r := gittest.NewRepo(t)
	r.Git("checkout", "-q", "-b", "feat", "main")
	r.Write("disclosure.md", "written by python\n")
	r.Commit("wip")
	b, err := gitjoin.Join(r.Dir, "main", "feat")
	if err != nil {
		t.Fatal(err)
	}
	s := subagent(t, detect.Analyze(run, detect.Options{Git: b}), "toolu_kill01")
	if !s.PathsPartial || !s.CommitsUnknown || len(s.Commits) != 0 {
		t.Fatalf("the ledger should be partial with an unknown commit: %+v", s)
	}
	if !s.OnShippedBranch {
		t.Fatalf("unknown work of a killed agent read as not on the branch: %+v", s)
	}
	r.Git("checkout", "-q", "-b", "empty", "main")
	b, err = gitjoin.Join(r.Dir, "main", "empty")
	if err != nil {
		t.Fatal(err)
	}
	if s := subagent(t, detect.Analyze(run, detect.Options{Git: b}), "toolu_kill01"); s.OnShippedBranch {
		t.Fatalf("a branch that changes nothing carries no work: %+v", s)
	}
}
