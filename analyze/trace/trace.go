// Package trace links the commits of a range to the runs that made them,
// from the evidence in the runs and in the commits (trailers, checkpoints),
// and derives one commit fact per commit.
//
// Each link records the evidence that made it:
//
//   - entire-checkpoint: the commit's Entire-Checkpoint trailer names a
//     checkpoint that holds the run's session;
//   - claude-session: the commit's Claude-Session trailer names the run's
//     session id, or a value the run's own Bash commands wrote (Claude Code
//     on the web writes its session's address into the message it commits);
//   - git-operation: a Bash row's toolUseResult.gitOperation.commit.sha;
//   - commit-line: the summary line `git commit` printed in a Bash result
//     ("[branch abc1234] subject"), matched by abbreviated sha.
//
// A run's pr-link rows and gitOperation.pr / .push are kept as the run's
// pull-request evidence (they name no commit).
package trace

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/pmcheck/pmcheck/analyze/gitsource"
	"github.com/pmcheck/pmcheck/analyze/interpret"
	"github.com/pmcheck/pmcheck/analyze/jsonl"
	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/internal/lazyre"
)

// Evidence is what one run says about the commits and pull requests it
// made. It is small: a run is scanned as it is analysed, and only this is
// kept.
type Evidence struct {
	RunID   string
	RunPath string
	// Commits are (abbreviated) commit ids the run made, with the evidence.
	Commits []CommitEvidence
	// PRs are the pull requests the run names ("#12 owner/repo", a URL),
	// with the evidence (pr-link, git-operation).
	PRs []PREvidence
	// Sessions are the Claude-Session trailer values the run's own Bash
	// commands wrote (Claude Code on the web writes
	// "Claude-Session: https://claude.ai/code/session_…" into the commit
	// message it runs): a commit carrying one of them is the run's.
	Sessions []string
}

// CommitEvidence is one commit id a run reported making.
type CommitEvidence struct {
	ID string
	By string
	At model.Evidence
}

// PREvidence is one pull request a run named.
type PREvidence struct {
	Number     int    `json:"number,omitempty"`
	URL        string `json:"url,omitempty"`
	Repository string `json:"repository,omitempty"`
	By         string `json:"by"`
	At         model.Evidence
}

// maxScanLine caps the lines decoded for gitOperation and pr-link rows: a
// longer line is skipped (those rows are small; a huge Bash result that also
// carries a gitOperation loses its link, never the check's verdict on
// checkpoints).
const maxScanLine = 8 << 20

// Scan gathers a run's evidence: commit lines from its Bash results (as the
// reader kept them), gitOperation and pr-link rows from its files, read again
// line by line. open opens a file the run names (its evidence path).
func Scan(run *model.Run, open func(file string) (io.ReadCloser, error)) Evidence {
	ev := Evidence{RunID: run.ID, RunPath: run.Path}
	for _, t := range transcripts(run) {
		for _, c := range t.ToolCalls {
			if c.Name() != "Bash" || c.Result == nil || c.Result.IsError() {
				continue
			}
			for _, m := range sessionTrailer().FindAllStringSubmatch(c.Command(), -1) {
				if !slices.Contains(ev.Sessions, m[1]) {
					ev.Sessions = append(ev.Sessions, m[1])
				}
			}
			for _, id := range interpret.CommitIDsIn(c.Result.Text) {
				ev.Commits = append(ev.Commits, CommitEvidence{ID: id, By: model.LinkCommitLine, At: c.At()})
			}
		}
		if open != nil {
			scanFile(&ev, t.File, open)
		}
	}
	return ev
}

func transcripts(run *model.Run) []*model.Transcript {
	var out []*model.Transcript
	if run.Main != nil {
		out = append(out, run.Main)
	}
	for _, a := range run.Agents {
		if a != nil {
			out = append(out, a)
		}
	}
	return out
}

// sessionTrailer finds a Claude-Session trailer in a command line (a
// message given with -m, a heredoc).
var sessionTrailer = lazyre.New(`Claude-Session:[ \t]*([^\s"'\\]+)`)

var (
	markGitOperation = []byte(`"gitOperation"`)
	markPRLink       = []byte(`"pr-link"`)
)

// row is the part of a pr-link or gitOperation row read here.
type row struct {
	Type          string          `json:"type"`
	PRNumber      json.Number     `json:"prNumber"`
	PRURL         string          `json:"prUrl"`
	PRRepository  string          `json:"prRepository"`
	ToolUseResult json.RawMessage `json:"toolUseResult"`
}

type gitOperation struct {
	GitOperation *struct {
		Commit *struct {
			SHA    string `json:"sha"`
			Branch string `json:"branch"`
		} `json:"commit"`
		PR *struct {
			Number json.Number `json:"number"`
			URL    string      `json:"url"`
		} `json:"pr"`
	} `json:"gitOperation"`
}

func scanFile(ev *Evidence, file string, open func(string) (io.ReadCloser, error)) {
	f, err := open(file)
	if err != nil {
		return // the reader already reported an unreadable file
	}
	defer f.Close()
	r := jsonl.NewReader(f, maxScanLine)
	for {
		l, err := r.Next()
		if err != nil {
			return
		}
		if !l.OverCap && (bytes.Contains(l.Data, markGitOperation) || bytes.Contains(l.Data, markPRLink)) {
			scanRow(ev, l.Data, model.Evidence{File: file, Line: l.N})
		}
	}
}

func scanRow(ev *Evidence, data []byte, at model.Evidence) {
	var r row
	if json.Unmarshal(data, &r) != nil {
		return
	}
	if r.Type == "pr-link" {
		n, _ := strconv.Atoi(r.PRNumber.String())
		if n > 0 || r.PRURL != "" {
			ev.PRs = append(ev.PRs, PREvidence{Number: n, URL: r.PRURL, Repository: r.PRRepository, By: "pr-link", At: at})
		}
		return
	}
	if len(r.ToolUseResult) == 0 || r.ToolUseResult[0] != '{' {
		return
	}
	var g gitOperation
	if json.Unmarshal(r.ToolUseResult, &g) != nil || g.GitOperation == nil {
		return
	}
	if c := g.GitOperation.Commit; c != nil && isHexID(c.SHA) {
		ev.Commits = append(ev.Commits, CommitEvidence{ID: strings.ToLower(c.SHA), By: model.LinkGitOperation, At: at})
	}
	if p := g.GitOperation.PR; p != nil {
		n, _ := strconv.Atoi(p.Number.String())
		if n > 0 || p.URL != "" {
			ev.PRs = append(ev.PRs, PREvidence{Number: n, URL: p.URL, By: model.LinkGitOperation, At: at})
		}
	}
}

func isHexID(s string) bool {
	if len(s) < 7 || len(s) > 64 {
		return false
	}
	for _, c := range strings.ToLower(s) {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// Facts links the commits to the runs and derives the commit facts, in
// the range's order. runs are the evidence of every run in the input,
// checkpoints the lookups by id.
//
// A checkpoint's session is linked to the run read from the file it was
// written to (sessionFiles: session id → run path), and to any run of that
// id given as a path.
func Facts(commits []gitsource.Commit, checkpoints map[string]*gitsource.Checkpoint, runs []Evidence, sessionFiles map[string]string) []model.CommitFact {
	byID, bySession, byPath := map[string][]int{}, map[string][]int{}, map[string][]int{}
	for i, r := range runs {
		byID[r.RunID] = append(byID[r.RunID], i)
		byPath[r.RunPath] = append(byPath[r.RunPath], i)
		for _, s := range r.Sessions {
			bySession[s] = append(bySession[s], i)
		}
	}
	// Commit ids the runs reported, sorted for a prefix search.
	type reported struct {
		id  string
		run int
		ce  CommitEvidence
	}
	var ids []reported
	for i, r := range runs {
		for _, c := range r.Commits {
			ids = append(ids, reported{strings.ToLower(c.ID), i, c})
		}
	}
	slices.SortFunc(ids, func(a, b reported) int { return strings.Compare(a.id, b.id) })
	out := make([]model.CommitFact, 0, len(commits))
	for _, c := range commits {
		f := model.CommitFact{SHA: c.ID, Short: short(c.ID), Subject: c.Subject,
			Author: c.Author.String(), AuthorEmail: c.Author.Email, Committer: c.Committer.String(), CommitterEmail: c.Committer.Email,
			Checkpoints: nonNil(c.Checkpoints), CheckpointsMissing: []string{}, CheckpointProblems: []string{},
			Sessions: nonNil(c.Sessions), Runs: []string{}, Links: []model.CommitLink{}, InHead: true}
		f.AgentTrailer = len(c.Checkpoints) > 0 || len(c.Sessions) > 0
		link := func(run int, by string, at model.Evidence) {
			r := runs[run]
			l := model.CommitLink{Run: r.RunID, RunPath: r.RunPath, By: by, At: at}
			if !slices.Contains(f.Links, l) {
				f.Links = append(f.Links, l)
			}
			if !slices.Contains(f.Runs, r.RunID) {
				f.Runs = append(f.Runs, r.RunID)
			}
		}
		for _, id := range c.Checkpoints {
			cp, ok := checkpoints[id]
			if !ok || cp == nil || !cp.Found {
				f.CheckpointsMissing = append(f.CheckpointsMissing, id)
				why := "not looked up"
				if ok && cp != nil {
					why = cp.Problem
				}
				f.CheckpointProblems = append(f.CheckpointProblems, id+": "+why)
			}
			if !ok || cp == nil {
				continue
			}
			for _, s := range cp.Sessions {
				for _, i := range byID[s] {
					link(i, model.LinkCheckpoint, model.Evidence{})
				}
				if p, ok := sessionFiles[s]; ok {
					for _, i := range byPath[p] {
						link(i, model.LinkCheckpoint, model.Evidence{})
					}
				}
			}
		}
		for _, s := range c.Sessions {
			for _, i := range byID[s] {
				link(i, model.LinkSession, model.Evidence{})
			}
			for _, i := range bySession[s] {
				link(i, model.LinkSession, model.Evidence{})
			}
		}
		// A run reported id when id is a prefix of the commit's: the ids
		// that are prefixes of it sort just before or at it.
		lc := strings.ToLower(c.ID)
		for _, n := range prefixLengths(ids, lc, func(x reported) string { return x.id }) {
			x := ids[n]
			link(x.run, x.ce.By, x.ce.At)
		}
		f.ByAgent = f.AgentTrailer || len(f.Links) > 0
		out = append(out, f)
	}
	return out
}

// prefixLengths are the positions in the sorted list of the ids that are
// prefixes (of at least 7 characters) of full.
func prefixLengths[T any](sorted []T, full string, key func(T) string) []int {
	var out []int
	for n := 7; n <= len(full); n++ {
		p := full[:n]
		i, _ := slices.BinarySearchFunc(sorted, p, func(x T, t string) int { return strings.Compare(key(x), t) })
		for ; i < len(sorted) && key(sorted[i]) == p; i++ {
			out = append(out, i)
		}
	}
	return out
}

func short(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// OpenFile opens a run's file by its evidence path: paths are as the loader
// shows them, openable from the working directory, except those under a
// root shown under another name (shown → folder on disk).
func OpenFile(shownAs map[string]string) func(string) (io.ReadCloser, error) {
	return func(file string) (io.ReadCloser, error) {
		for shown, dir := range shownAs {
			if rest, ok := strings.CutPrefix(file, shown+"/"); ok {
				return os.Open(dir + string(os.PathSeparator) + rest)
			}
		}
		return os.Open(file)
	}
}
