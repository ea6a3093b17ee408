package load

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pmcheck/pmcheck/analyze/layout"
)

// Target is what a path given on the command line names: the folder its
// runs are read from and, when it names one run, that run. Check, scan and
// the hook (through Load), replay (FindWorkflowRun) and a finding's
// identity (RunIdentity) map a path to runs with Resolve alone.
type Target struct {
	// Root is the folder the runs are read from (an OS path): the folder
	// given, or the one that holds the file or run directory given.
	Root string
	// Session is a session transcript, relative to Root.
	Session string
	// Workflow is a Workflow run directory, relative to Root.
	Workflow string
	// Stream is an Agent SDK message stream, relative to Root; Array says
	// it is a JSON array (an execution file).
	Stream string
	Array  bool
}

// Folder reports whether the path names no one run: every run under Root.
func (t Target) Folder() bool { return t.Session == "" && t.Workflow == "" && t.Stream == "" }

// Resolve maps a path given on the command line (isDir: it is a
// directory) to its Target: a directory that holds a journal.jsonl, or a
// journal.jsonl, is a Workflow run directory (read from the folder of the
// session that launched it); a .jsonl file is a message stream when it
// starts like one, else a session transcript (a subagent's transcript is an
// error: its parent's is the run); a .json file that is no sidecar is an
// execution file; any other directory is a folder to search, and any other
// file an error.
func Resolve(given string, isDir bool) (Target, error) {
	return resolveWith(given, isDir, os.Stat)
}

// resolveWith is Resolve stating the journal a directory may hold with
// stat (a followed load's: the stat its caller handed over).
func resolveWith(given string, isDir bool, stat func(string) (os.FileInfo, error)) (Target, error) {
	tgt := Target{Root: given}
	switch {
	case isDir:
		if _, err := stat(filepath.Join(given, layout.Journal)); err == nil {
			tgt.Root, tgt.Workflow = layout.WorkflowRoot(given)
		}
	case filepath.Base(given) == layout.Journal:
		tgt.Root, tgt.Workflow = layout.WorkflowRoot(filepath.Dir(given))
	case layout.IsTranscriptName(given) && isStreamFile(given):
		tgt.Root, tgt.Stream = filepath.Dir(given), filepath.Base(given)
	case strings.HasSuffix(given, ".json") && !layout.IsMetaName(filepath.Base(given)):
		// A JSON file given by name is read as an execution file: one
		// that is not a message array is an input problem, not a pass.
		tgt.Root, tgt.Stream, tgt.Array = filepath.Dir(given), filepath.Base(given), true
	case layout.IsTranscriptName(given):
		tgt.Root, tgt.Session = filepath.Dir(given), filepath.Base(given)
		if layout.AgentIDFromName(tgt.Session) != "" {
			return Target{}, fmt.Errorf("%s: is a subagent transcript; give its parent session transcript or the folder that holds both", given)
		}
	default:
		return Target{}, fmt.Errorf("%s: not a .jsonl transcript or message stream, a .json execution file, a journal.jsonl or a directory", given)
	}
	return tgt, nil
}
