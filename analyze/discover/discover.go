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
	"runtime"
	"sort"
	"strings"
	"sync"
)

// Inventory is what a walk found. Every path is slash-separated and relative
// to the root.
type Inventory struct {
	// Sessions are candidate main transcripts (*.jsonl that are neither
	// agent-*.jsonl nor journal.jsonl, wherever they lie).
	Sessions []string
	// WorkflowDirs are directories that hold a journal.jsonl.
	WorkflowDirs []string
	// AgentFiles maps an agent id to every agent-<id>.jsonl with that id.
	AgentFiles map[string][]string
	// Metas holds the agent transcript paths that have a .meta.json sidecar
	// (at layout.MetaOf of the path; a fleet has one per subagent, so the
	// sidecar's path is not kept too).
	Metas map[string]bool
	// Streams are *.json files that may be Agent SDK message streams (the
	// GitHub action's execution files); the loader reads their first
	// element to tell (analyze/sdkrun.go).
	Streams []string
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

// Every check of an id read from a file is here: ValidID for any id that
// may name a file (the loader, replay), and the two narrower readings
// watch's lines make of it (PrintableRunID, CanonicalAgentID).

// MaxIDLen is the longest valid id, in bytes.
const MaxIDLen = 200

// ValidID reports whether an id read from a file may name a file: no path
// separators, no parent references, no NUL or control characters, not empty,
// at most MaxIDLen bytes.
func ValidID(id string) bool {
	if id == "" || len(id) > MaxIDLen || id == "." || id == ".." || strings.Contains(id, "..") {
		return false
	}
	for _, r := range id {
		if r < 0x20 || r == 0x7f || r == '/' || r == '\\' || r == ':' {
			return false
		}
	}
	return true
}

// PrintableRunID reports whether a Workflow run directory's name is a run
// id watch prints as it is on its event lines: a valid id with no blank
// (watch prints a replacement for any other; docs/replay.md).
func PrintableRunID(id string) bool {
	return ValidID(id) && !strings.ContainsAny(id, " \t")
}

// CanonicalAgentID reports whether an agent id is one watch names by its
// stable alias: a valid id of at most 128 ASCII letters, digits, '-' and
// '_' — what can safely become agent-<id>.jsonl.
func CanonicalAgentID(id string) bool {
	if len(id) > 128 || !ValidID(id) {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
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

// Walk lists root on one goroutine (WalkJobs with 1).
func Walk(root string) (*Inventory, error) { return WalkJobs(root, 1) }

// WalkJobs lists root. root must be a directory; realRoot is its path with
// symbolic links resolved (for containment checks). Up to jobs goroutines
// list directories at once (jobs <= 0: GOMAXPROCS); the inventory is the
// same whatever jobs is, as every list in it is sorted. A fleet's walk is
// mostly system calls on one directory after another, and it comes before
// any reading: listing on every CPU shortens the serial start of a check.
func WalkJobs(root string, jobs int) (*Inventory, error) {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, err
	}
	realRoot, err = filepath.Abs(realRoot)
	if err != nil {
		return nil, err
	}
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	var found []*walkFound
	if jobs == 1 {
		f := newWalkFound()
		found = append(found, f)
		err = filepath.WalkDir(root, f.visit(root, realRoot))
	} else {
		found, err = walkParallel(root, realRoot, jobs)
	}
	if err != nil {
		return nil, err
	}
	inv := &Inventory{AgentFiles: map[string][]string{}, Metas: map[string]bool{}}
	metas := found[0].metas
	for i, f := range found {
		inv.Sessions = append(inv.Sessions, f.inv.Sessions...)
		inv.WorkflowDirs = append(inv.WorkflowDirs, f.inv.WorkflowDirs...)
		inv.Streams = append(inv.Streams, f.inv.Streams...)
		inv.Refused = append(inv.Refused, f.inv.Refused...)
		for id, files := range f.inv.AgentFiles {
			inv.AgentFiles[id] = append(inv.AgentFiles[id], files...)
		}
		if i > 0 {
			for m := range f.metas {
				metas[m] = true
			}
		}
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
	sort.Strings(inv.Streams)
	for id := range inv.AgentFiles {
		sort.Strings(inv.AgentFiles[id])
	}
	sort.Slice(inv.Refused, func(i, j int) bool { return inv.Refused[i].Path < inv.Refused[j].Path })
	return inv, nil
}

// walkFound is what one walking goroutine found (merged by WalkJobs).
type walkFound struct {
	inv   Inventory
	metas map[string]bool // sidecar paths
}

func newWalkFound() *walkFound {
	return &walkFound{inv: Inventory{AgentFiles: map[string][]string{}}, metas: map[string]bool{}}
}

// visit is the walk's one decision per entry: what a path found under root
// is (filepath.WalkDir's function; walkParallel calls it the same way).
func (f *walkFound) visit(root, realRoot string) fs.WalkDirFunc {
	inv := &f.inv
	return func(p string, d fs.DirEntry, err error) error {
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
			f.metas[rel] = true
		case layout.IsStreamName(name):
			inv.Streams = append(inv.Streams, rel)
		case layout.IsTranscriptName(name):
			// Only agent-<id>.jsonl is a subagent, wherever it lies; every
			// other transcript is a session candidate, inside a subagents/
			// folder too: Claude Code writes nothing else there, so a
			// session there was put there, and a folder name must not
			// hide it from the check.
			if id := layout.AgentIDFromName(name); id != "" {
				inv.AgentFiles[id] = append(inv.AgentFiles[id], rel)
			} else {
				inv.Sessions = append(inv.Sessions, rel)
			}
		}
		return nil
	}
}

// walkParallel visits what filepath.WalkDir(root) would, calling visit the
// same way (a directory before its entries are read, again with the error
// when they cannot be), with jobs goroutines taking directories from one
// stack. The order of the calls differs; what each goroutine found is
// returned apart.
func walkParallel(root, realRoot string, jobs int) ([]*walkFound, error) {
	type dirTask struct {
		path string
		d    fs.DirEntry
	}
	found := make([]*walkFound, jobs)
	for i := range found {
		found[i] = newWalkFound()
	}
	info, err := os.Lstat(root)
	if err != nil {
		err = found[0].visit(root, realRoot)(root, nil, err)
		if err == fs.SkipDir || err == fs.SkipAll {
			err = nil
		}
		return found, err
	}
	var (
		mu       sync.Mutex
		cond     = sync.NewCond(&mu)
		stack    = []dirTask{{root, fs.FileInfoToDirEntry(info)}}
		active   int
		firstErr error
	)
	// one visits a directory (or the root, whatever it is) and returns the
	// directories under it, still to be visited.
	one := func(visit fs.WalkDirFunc, t dirTask) ([]dirTask, error) {
		if err := visit(t.path, t.d, nil); err != nil || !t.d.IsDir() {
			if err == fs.SkipDir && t.d.IsDir() || err == fs.SkipAll {
				err = nil
			}
			return nil, err
		}
		entries, err := os.ReadDir(t.path)
		if err != nil {
			// As WalkDir: report the error; unless told to skip the
			// directory, go on with the entries read before it.
			if err = visit(t.path, t.d, err); err != nil {
				if err == fs.SkipDir || err == fs.SkipAll {
					err = nil
				}
				return nil, err
			}
		}
		var dirs []dirTask
		for _, e := range entries {
			p := filepath.Join(t.path, e.Name())
			if e.IsDir() {
				dirs = append(dirs, dirTask{p, e})
				continue
			}
			if err := visit(p, e, nil); err != nil {
				if err == fs.SkipDir || err == fs.SkipAll {
					break // visit skips no file: kept as WalkDir's rule
				}
				return dirs, err
			}
		}
		return dirs, nil
	}
	var wg sync.WaitGroup
	for i := range jobs {
		wg.Add(1)
		go func(visit fs.WalkDirFunc) {
			defer wg.Done()
			mu.Lock()
			defer mu.Unlock()
			for {
				for len(stack) == 0 && active > 0 && firstErr == nil {
					cond.Wait()
				}
				if len(stack) == 0 || firstErr != nil {
					cond.Broadcast()
					return
				}
				t := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				active++
				mu.Unlock()
				dirs, err := one(visit, t)
				mu.Lock()
				active--
				stack = append(stack, dirs...)
				if err != nil && firstErr == nil {
					firstErr = err
				}
				cond.Broadcast()
			}
		}(found[i].visit(root, realRoot))
	}
	wg.Wait()
	return found, firstErr
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

// WalkSession lists what WalkJobs(root, 1) would for the one session whose
// transcript is stem + ".jsonl" at root: root's own files (a legacy agent
// transcript sits beside its session) and the session's folder stem, whole
// (its subagents, sidecars and Workflow runs), but no other folder. The
// resume gate reads one session on every ship action, in a projects folder
// that may hold hundreds of other sessions' folders.
func WalkSession(root, stem string) (*Inventory, error) {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, err
	}
	if realRoot, err = filepath.Abs(realRoot); err != nil {
		return nil, err
	}
	f := newWalkFound()
	visit := f.visit(root, realRoot)
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			rel, rerr := filepath.Rel(root, p)
			if rerr != nil {
				return rerr
			}
			rel = filepath.ToSlash(rel)
			if rel != "." && rel != stem && !strings.HasPrefix(rel, stem+"/") {
				return fs.SkipDir
			}
		}
		return visit(p, d, err)
	})
	if err != nil {
		return nil, err
	}
	inv := &f.inv
	inv.Metas = map[string]bool{}
	for _, files := range inv.AgentFiles {
		for _, a := range files {
			if f.metas[layout.MetaOf(a)] {
				inv.Metas[a] = true
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
