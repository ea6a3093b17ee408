// Package discover finds the files of agent runs under a root without leaving
// it: session transcripts, subagent transcripts and sidecars, and Workflow run
// directories. It only lists and classifies; reading is the caller's job.
//
// Containment: the walk does not follow symbolic links to directories, and a
// symbolic link to a file is used only when its target lies inside the root.
// Paths are built from what the walk found, never from ids read out of files.
package discover

import (
	"fmt"
	"github.com/pmcheck/pmcheck/analyze/layout"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// Inventory is what a walk found. Every path is slash-separated and relative
// to the root.
type Inventory struct {
	// Sessions are candidate main transcripts (*.jsonl that are neither
	// agent-*.jsonl nor journal.jsonl nor inside a subagents/ directory).
	Sessions []string
	// WorkflowDirs are directories that hold a journal.jsonl.
	WorkflowDirs []string
	// AgentFiles maps an agent id to every agent-<id>.jsonl with that id.
	AgentFiles map[string][]string
	// Metas holds the agent transcript paths that have a .meta.json sidecar
	// (at layout.MetaOf of the path; a fleet has one per subagent, so the
	// sidecar's path is not kept too).
	Metas map[string]bool
	// Refused lists entries that were not used, each with the reason.
	Refused []Refusal
}

// Refusal is an entry the walk did not use.
type Refusal struct {
	Path   string
	Reason string
}

// AgentIDFromName returns the id of an agent transcript file name
// (agent-<id>.jsonl), or "" when the name has another shape
// (layout.AgentIDFromName).
func AgentIDFromName(name string) string { return layout.AgentIDFromName(name) }

// ValidID reports whether an id read from a file may name a file: no path
// separators, no parent references, no NUL or control characters, not empty,
// at most 200 bytes.
func ValidID(id string) bool {
	if id == "" || len(id) > 200 || id == "." || id == ".." || strings.Contains(id, "..") {
		return false
	}
	for _, r := range id {
		if r < 0x20 || r == 0x7f || r == '/' || r == '\\' || r == ':' {
			return false
		}
	}
	return true
}

// IsHelperAgent reports whether an agent id names a helper transcript that no
// tool call spawned (compaction, side question, prompt suggestion).
func IsHelperAgent(id string) bool {
	for _, p := range []string{"acompact-", "aside_question-", "aprompt_suggestion-"} {
		if strings.HasPrefix(id, p) {
			return true
		}
	}
	return false
}

// Walk lists root. root must be a directory; realRoot is its path with
// symbolic links resolved (for containment checks).
func Walk(root string) (*Inventory, error) {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, err
	}
	realRoot, err = filepath.Abs(realRoot)
	if err != nil {
		return nil, err
	}
	inv := &Inventory{AgentFiles: map[string][]string{}, Metas: map[string]bool{}}
	metas := map[string]bool{}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		rel, rerr := filepath.Rel(root, p)
		if rerr != nil {
			return rerr
		}
		rel = filepath.ToSlash(rel)
		if err != nil {
			if rel == "." {
				return err
			}
			inv.Refused = append(inv.Refused, Refusal{Path: rel, Reason: fmt.Sprintf("cannot be read (%s)", reason(err))})
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			target, terr := filepath.EvalSymlinks(p)
			if terr != nil {
				inv.Refused = append(inv.Refused, Refusal{Path: rel, Reason: "symbolic link that cannot be resolved"})
				return nil
			}
			if !inside(realRoot, target) {
				inv.Refused = append(inv.Refused, Refusal{Path: rel, Reason: "symbolic link pointing outside the input root; refused"})
				return nil
			}
			st, serr := os.Stat(target)
			if serr != nil || st.IsDir() {
				if serr == nil {
					inv.Refused = append(inv.Refused, Refusal{Path: rel, Reason: "symbolic link to a directory; not followed"})
				}
				return nil
			}
			if !st.Mode().IsRegular() {
				inv.Refused = append(inv.Refused, Refusal{Path: rel, Reason: notRegular})
				return nil
			}
		} else if d.IsDir() {
			// Every folder is searched, hidden ones too (.agent-runs,
			// .claude-sessions): a run no walk visits cannot fail a check.
			// Only a repository's .git is left out, and that is reported.
			if rel != "." && d.Name() == ".git" {
				inv.Refused = append(inv.Refused, Refusal{Path: rel, Reason: "a Git repository's .git folder; not searched"})
				return fs.SkipDir
			}
			return nil
		} else if !d.Type().IsRegular() {
			// Opening a named pipe blocks until a writer appears, so reading
			// one would hang the check; devices and sockets are no transcripts.
			inv.Refused = append(inv.Refused, Refusal{Path: rel, Reason: notRegular})
			return nil
		}
		name := d.Name()
		dir := path.Dir(rel)
		switch {
		case name == layout.Journal:
			inv.WorkflowDirs = append(inv.WorkflowDirs, dir)
		case layout.IsMetaName(name):
			metas[rel] = true
		case layout.IsTranscriptName(name):
			if id := layout.AgentIDFromName(name); id != "" {
				inv.AgentFiles[id] = append(inv.AgentFiles[id], rel)
			} else if !layout.UnderSubagents(rel) {
				inv.Sessions = append(inv.Sessions, rel)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, files := range inv.AgentFiles {
		for _, f := range files {
			if metas[layout.MetaOf(f)] {
				inv.Metas[f] = true
			}
		}
	}
	sort.Strings(inv.Sessions)
	sort.Strings(inv.WorkflowDirs)
	for id := range inv.AgentFiles {
		sort.Strings(inv.AgentFiles[id])
	}
	sort.Slice(inv.Refused, func(i, j int) bool { return inv.Refused[i].Path < inv.Refused[j].Path })
	return inv, nil
}

// notRegular is the reason a named pipe, device or socket is not read.
const notRegular = "not a regular file (named pipe, device or socket); not read"

// inside reports whether target (absolute, symlinks resolved) lies in root.
func inside(root, target string) bool {
	rel, err := filepath.Rel(root, target)
	if err != nil {
		return false
	}
	return rel == "." || (rel != ".." && !strings.HasPrefix(rel, "../") && !filepath.IsAbs(rel))
}

// Inside is the containment check for callers that resolve a path themselves.
func Inside(root, target string) bool { return inside(root, target) }

func reason(err error) string {
	switch {
	case os.IsPermission(err):
		return "permission denied"
	case os.IsNotExist(err):
		return "does not exist"
	}
	var pe *fs.PathError
	if e, ok := err.(*fs.PathError); ok {
		pe = e
		return pe.Err.Error()
	}
	return err.Error()
}
