package analyze

import (
	"fmt"
	"os"
	"strings"

	"github.com/pmcheck/pmcheck/analyze/detect/gitjoin"
	"github.com/pmcheck/pmcheck/analyze/gitsource"
	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/analyze/trace"
)

// CheckpointsShown is how evidence paths name the transcripts read from
// Entire checkpoints: CheckpointsShown/<id[:2]>/<id[2:]>/<n>/<session>.jsonl
// is the session folder <n> of that checkpoint (its full.jsonl), line for
// line.
const CheckpointsShown = "entire/checkpoints"

// RangeOptions say which commit range to check and where its checkpoints are.
type RangeOptions struct {
	// Repo is the repository of the range (the working directory when "").
	Repo string
	// Spec is BASE..HEAD.
	Spec string
	// CheckpointRepos are local clones of separate checkpoint repositories,
	// read after Repo.
	CheckpointRepos []string
}

// CommitRange is a commit range read from git, with the runs its
// checkpoints hold written to a temporary folder for the loader. Close
// removes the folder.
type CommitRange struct {
	Spec       string
	Base, Head string // full ids
	Commits    []gitsource.Commit
	// Checkpoints are the lookups of every checkpoint id the commits name.
	Checkpoints map[string]*gitsource.Checkpoint
	// Sessions are the sessions the checkpoints hold, one per session id.
	Sessions []*gitsource.Session
	// Problems are what could not be read of the checkpoints (a missing
	// transcript, a subagent transcript not stored).
	Problems []Problem
	// Branch is the range as the git join reads it: with a range,
	// on_shipped_branch means "in the head".
	Branch *GitBranch
	// Dir is the temporary folder the sessions were written to ("" when
	// none was needed).
	Dir    string
	stores []*gitsource.Store
}

// ParseRange splits BASE..HEAD.
func ParseRange(spec string) (base, head string, err error) {
	base, head, ok := strings.Cut(spec, "..")
	if !ok || strings.HasPrefix(head, ".") || base == "" || head == "" {
		return "", "", fmt.Errorf("--commits %q: write BASE..HEAD (two dots), e.g. --commits origin/main..HEAD", spec)
	}
	return base, head, nil
}

// ReadRange reads the commits of the range, looks up the checkpoints they
// name, and writes the sessions found to a temporary folder (streamed from
// git; nothing is written into a repository).
func ReadRange(o RangeOptions) (*CommitRange, error) {
	repo := o.Repo
	if repo == "" {
		repo = "."
	}
	base, head, err := ParseRange(o.Spec)
	if err != nil {
		return nil, err
	}
	r := &CommitRange{Spec: o.Spec, Checkpoints: map[string]*gitsource.Checkpoint{}}
	if r.Base, err = gitsource.ResolveCommit(repo, base); err != nil {
		return nil, fmt.Errorf("--commits: %v", err)
	}
	if r.Head, err = gitsource.ResolveCommit(repo, head); err != nil {
		return nil, fmt.Errorf("--commits: %v", err)
	}
	main, err := gitsource.OpenStore(repo, "")
	if err != nil {
		return nil, fmt.Errorf("--repo %s: %v", repo, err)
	}
	r.stores = append(r.stores, main)
	for _, dir := range o.CheckpointRepos {
		st, err := gitsource.OpenStore(dir, dir)
		if err != nil {
			r.Close()
			return nil, fmt.Errorf("--checkpoints %s: %v", dir, err)
		}
		r.stores = append(r.stores, st)
	}
	var order []*gitsource.Checkpoint
	_, err = gitsource.Range(repo, main.Batch(), r.Base, r.Head, func(c gitsource.Commit) error {
		r.Commits = append(r.Commits, c)
		for _, id := range c.Checkpoints {
			if _, seen := r.Checkpoints[id]; !seen {
				cp := gitsource.Lookup(r.stores, id)
				r.Checkpoints[id] = cp
				order = append(order, cp)
			}
		}
		return nil
	})
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("--commits %s: %v", o.Spec, err)
	}
	if r.Branch, err = gitjoin.Join(repo, r.Base, r.Head); err != nil {
		r.Close()
		return nil, err
	}
	r.Branch.Name, r.Branch.Base, r.Branch.Head = head, base, head
	r.Sessions = gitsource.Sessions(order)
	for _, s := range r.Sessions {
		if !s.IsClaudeCode() {
			r.Problems = append(r.Problems, Problem{At: model.Evidence{File: CheckpointsShown}, Message: fmt.Sprintf("session %s of checkpoint %s was made by %s: pmcheck reads Claude Code transcripts only, so its commits count as made by an agent without a run", s.ID, strings.Join(s.Checkpoints, ", "), agentName(s.Agent))})
			continue
		}
		if r.Dir == "" {
			if r.Dir, err = os.MkdirTemp("", "pmcheck-checkpoints-"); err != nil {
				r.Close()
				return nil, fmt.Errorf("a temporary folder for the checkpoints' transcripts: %v", err)
			}
		}
		for _, p := range gitsource.Materialize(r.stores, s, r.Dir) {
			r.Problems = append(r.Problems, Problem{At: model.Evidence{File: p.File}, Message: p.Message})
		}
	}
	for _, st := range r.stores {
		st.Close()
	}
	r.stores = nil
	return r, nil
}

// Close removes the temporary folder.
func (r *CommitRange) Close() {
	if r == nil {
		return
	}
	for _, st := range r.stores {
		st.Close()
	}
	r.stores = nil
	if r.Dir != "" {
		os.RemoveAll(r.Dir)
		r.Dir = ""
	}
}

// ShowAs maps the temporary folder to CheckpointsShown (Options.ShowAs).
func (r *CommitRange) ShowAs() map[string]string {
	if r == nil || r.Dir == "" {
		return nil
	}
	return map[string]string{r.Dir: CheckpointsShown}
}

// RunEvidence is what a run says about the commits it made (trace.Evidence).
type RunEvidence = trace.Evidence

// ScanRun gathers a run's commit evidence: its Bash results' commit lines,
// and its files' gitOperation and pr-link rows (read again, line by line).
func (r *CommitRange) ScanRun(run *Run) RunEvidence {
	var shown map[string]string
	if r != nil && r.Dir != "" {
		shown = map[string]string{CheckpointsShown: r.Dir}
	}
	return trace.Scan(run, trace.OpenFile(shown))
}

// CommitFacts links the range's commits to the runs and derives a commit
// fact for each, in the range's order.
//
// A Claude Code session read from a checkpoint that gave no run (an empty
// file, or rows that are not a Claude Code transcript) leaves its
// checkpoints unreadable: a checkpoint's claim that an agent made a commit
// is never satisfied by a transcript pmcheck could not check.
//
// A commit's evidence is the first path it changes (line 0: the whole
// file), so that a finding about it lands on the pull request's diff; a
// commit that changes none points at the root.
func (r *CommitRange) CommitFacts(runs []RunEvidence) []model.CommitFact {
	read := map[string]bool{}
	for _, ev := range runs {
		read[ev.RunPath] = true
	}
	files := map[string]string{}
	for _, s := range r.Sessions {
		if s.File == "" {
			continue
		}
		shown := CheckpointsShown + "/" + s.File
		files[s.ID] = shown
		if read[shown] {
			continue
		}
		for _, id := range s.Checkpoints {
			if cp := r.Checkpoints[id]; cp != nil && cp.Found {
				cp.Found = false
				cp.Problem = fmt.Sprintf("its Claude Code session %s gave no run: %s holds no row of a Claude Code transcript", s.ID, s.Shown+"/"+"full.jsonl")
			}
		}
	}
	facts := trace.Facts(r.Commits, r.Checkpoints, runs, files)
	paths := map[string]string{}
	if r.Branch != nil {
		for _, c := range r.Branch.Commits {
			if len(c.Paths) > 0 {
				paths[c.ID] = c.Paths[0]
			}
		}
	}
	for i := range facts {
		f := &facts[i]
		f.At = model.Evidence{File: ".", Time: r.Commits[i].Committer.Time}
		if p, ok := paths[f.SHA]; ok {
			f.At.File = p
		}
	}
	return facts
}

// RangeRunID is the run id of a range's facts. It does not name the range:
// a finding's fingerprint hashes it, and a commit's findings must keep
// their fingerprints (and baselines) as the pull request's head moves.
const RangeRunID = "commits"

// RangeFacts are the facts the range rules are evaluated on: a range holds
// only its commit facts.
func (r *CommitRange) RangeFacts(commits []model.CommitFact) RunFacts {
	return RunFacts{Run: model.RunFact{Kind: model.KindRange, ID: RangeRunID}, Commits: commits}
}

// agentName is an agent's name as a message quotes it: the metadata is the
// pull request's, so a long name is cut.
func agentName(name string) string {
	if len(name) > 64 {
		return fmt.Sprintf("%q…", name[:64])
	}
	return fmt.Sprintf("%q", name)
}
