package detect

import (
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/pmcheck/pmcheck/analyze/detect/ship"
	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/internal/lazyre"
)

// Ledger is the work one transcript (an attempt or a subagent) left behind.
type Ledger struct {
	// Paths written, relative to the transcript's cwd when under it, sorted.
	Paths []string `json:"paths"`
	// Partial is true when a shell command may have written files that Paths
	// does not list.
	Partial bool `json:"partial"`
	// Commits are the commit ids `git commit` reported, in order.
	Commits []string `json:"commits"`
	// CommitCommands counts `git commit` invocations that did not fail.
	CommitCommands int `json:"commit_commands"`
	// CommitsUnknown is true when a commit ran but reported no id.
	CommitsUnknown bool `json:"commits_unknown"`
}

// fileWriters are the tools whose file_path (notebook_path) is written.
var fileWriters = map[string]bool{"Write": true, "Edit": true, "MultiEdit": true, "NotebookEdit": true}

// commitLine matches git's summary line "[branch (root-commit) abc1234] subject".
var commitLine = lazyre.New(`(?m)^\[[^\]\n]* ([0-9a-f]{7,40})\] `)

// LedgerOf builds the ledger of t. A file-writing call whose result is an
// error wrote nothing; one with no result (cut off mid-call) counts as written.
// A shell command the reader classified is not classified again when its
// analysis is what opts give (reused).
func LedgerOf(t *model.Transcript, opts ship.Options) Ledger {
	return ledgerOf(t, func(c *model.ToolCall) ship.Analysis {
		if r, ok := reused(c, opts); ok {
			return r
		}
		return ship.Classify(c.Command(), callShipOptions(c, opts))
	})
}

// ledgerOf is LedgerOf with the shell classification supplied, so that one
// analysis parses each command once for the ledger and the ship facts alike.
func ledgerOf(t *model.Transcript, classify func(*model.ToolCall) ship.Analysis) Ledger {
	l := Ledger{Paths: []string{}, Commits: []string{}}
	if t == nil {
		return l
	}
	paths := map[string]bool{}
	add := func(p string) {
		if p = relTo(t.Cwd, p); p != "" {
			paths[p] = true
		}
	}
	for _, c := range t.ToolCalls {
		switch {
		case fileWriters[c.Name()]:
			if c.Result != nil && c.Result.IsError() {
				continue
			}
			if c.FilePath() == "" {
				l.Partial = true
				continue
			}
			add(c.FilePath())
		case c.Name() == "Bash":
			a := classify(c)
			for _, w := range a.Writes {
				add(w)
			}
			if a.MayWrite || c.CommandCut() {
				l.Partial = true
			}
			if a.Commits > 0 {
				var ids []string
				text := ""
				if c.Result != nil {
					text = c.Result.Text
				}
				for _, m := range commitLine().FindAllStringSubmatch(text, -1) {
					ids = append(ids, m[1])
				}
				l.Commits = append(l.Commits, ids...)
				failed := c.Result != nil && c.Result.IsError()
				if len(ids) > 0 {
					l.CommitCommands += a.Commits
				} else if !failed {
					// No result (cut off), or output that names no commit:
					// something may have been committed.
					l.CommitCommands += a.Commits
					l.CommitsUnknown = true
				}
			}
		}
	}
	for p := range paths {
		l.Paths = append(l.Paths, p)
	}
	sort.Strings(l.Paths)
	return l
}

// relTo makes p relative to cwd when it lies under it; other paths are kept
// as written, cleaned.
func relTo(cwd, p string) string {
	p = strings.TrimSpace(p)
	if p == "" {
		return ""
	}
	p = path.Clean(strings.ReplaceAll(p, `\`, "/"))
	if cwd != "" {
		cwd = path.Clean(strings.ReplaceAll(cwd, `\`, "/"))
		if strings.HasPrefix(p, cwd+"/") {
			return p[len(cwd)+1:]
		}
	}
	return p
}

// pathMatches reports whether a ledger path names the repository path rel:
// equal, or ending in "/"+rel (an absolute path outside the recorded cwd).
func pathMatches(ledgerPath, rel string) bool {
	return ledgerPath == rel || strings.HasSuffix(ledgerPath, "/"+rel)
}

// suffixIndex finds the branch paths a ledger path matches (pathMatches)
// without trying every branch path: a branch path matches exactly when it
// is the ledger path or the part after one of its slashes, so each of those
// parts is looked up, and the cost follows the ledger path's length, not
// the number of branch paths (a killed agent's thousands of writes against a
// branch of thousands of paths were ledger × branch comparisons).
type suffixIndex map[string][]int

func newSuffixIndex(paths []string) suffixIndex {
	x := make(suffixIndex, len(paths))
	for i, p := range paths {
		x[p] = append(x[p], i)
	}
	return x
}

// matching appends to dst the positions of the paths that ledgerPath
// matches, in increasing order (the order of the paths as given).
func (x suffixIndex) matching(ledgerPath string, dst []int) []int {
	start := len(dst)
	dst = append(dst, x[ledgerPath]...)
	for i := 0; i < len(ledgerPath); i++ {
		if ledgerPath[i] == '/' {
			dst = append(dst, x[ledgerPath[i+1:]]...)
		}
	}
	slices.Sort(dst[start:])
	return dst
}
