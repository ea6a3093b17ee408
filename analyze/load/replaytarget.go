package load

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pmcheck/pmcheck/analyze/discover"
	"github.com/pmcheck/pmcheck/analyze/layout"
	"github.com/pmcheck/pmcheck/analyze/model"
)

// NotReplayable says why FindWorkflowRun found no run to replay.
type NotReplayable struct {
	// NoJournal is true when watch itself would have failed (exit 2 with its
	// own message): the run directory or its journal is missing, or a run-id
	// prefix matches no run or several. Otherwise the argument is unusable.
	NoJournal bool
	Message   string
}

func (e *NotReplayable) Error() string { return e.Message }

func usage(format string, args ...any) error {
	return &NotReplayable{Message: fmt.Sprintf(format, args...)}
}

func noJournal(format string, args ...any) error {
	return &NotReplayable{NoJournal: true, Message: fmt.Sprintf(format, args...)}
}

// FindWorkflowRun loads the one Workflow run arg names, as watch's
// find_run_dir does: a run directory, its journal.jsonl, a session
// transcript that launched exactly one Workflow run, or a run-id prefix of
// exactly one run under root (~/.claude/projects when root is ""), read
// with opts. Errors are *NotReplayable.
func FindWorkflowRun(arg, root string, opts Options) (*model.Run, error) {
	st, err := os.Stat(arg)
	switch {
	case err != nil && os.IsNotExist(err):
		return byPrefix(arg, root, opts)
	case err != nil:
		return nil, usage("%s: cannot be read: %v", arg, err)
	}
	// What the path names is Resolve's to say, as for check; replay
	// follows only the Workflow runs among them.
	tgt, notARun := Resolve(arg, st.IsDir())
	switch {
	case tgt.Workflow != "" && st.IsDir():
		return loadWorkflow(arg, opts)
	case tgt.Workflow != "":
		return loadWorkflow(filepath.Dir(arg), opts)
	case st.IsDir():
		if layout.LooksLikeRunDir(arg) {
			return nil, noJournal("%s: the run directory has no journal.jsonl", filepath.ToSlash(arg))
		}
		return nil, usage("%s: not a Workflow run directory (no journal.jsonl); give a run directory, its journal.jsonl, or a session transcript", filepath.ToSlash(arg))
	case tgt.Session != "" || tgt.Stream != "" && !tgt.Array:
		return fromSession(arg, opts)
	case notARun != nil && layout.IsTranscriptName(arg):
		return nil, usage("%v", notARun) // a subagent's transcript
	}
	return nil, usage("%s: not a run directory, a journal.jsonl or a session transcript", arg)
}

// LoadWorkflowRun loads the Workflow run in a run directory (an OS path).
// With opts.Follow, for a run being written, polled again and again
// (watch): the followers keep the readers of its files between calls, so
// each call decodes only what was appended since the last; the run is the
// one a load without them gives.
func LoadWorkflowRun(dir string, opts Options) (*model.Run, error) { return loadWorkflow(dir, opts) }

func loadWorkflow(dir string, opts Options) (*model.Run, error) {
	res, err := Load([]string{dir}, opts)
	if err != nil {
		return nil, usage("%v", err)
	}
	if len(res.Errors) > 0 {
		return nil, usage("%s", res.Errors[0])
	}
	for _, r := range res.Runs {
		if r.Kind == model.KindWorkflow {
			return r, nil
		}
	}
	return nil, usage("%s: no Workflow run found there", filepath.ToSlash(dir))
}

// fromSession finds the one Workflow run a session launched.
func fromSession(file string, opts Options) (*model.Run, error) {
	dir, l, err := launchedRunDir(file, opts)
	if err != nil {
		return nil, err
	}
	if l.RunPath == "" {
		return nil, noJournal("%s:%d: the Workflow launch of run %s has no run directory (looked for %s beside the transcript); replay needs the run directory and its journal.jsonl",
			l.At.File, l.At.Line, l.RunID, layout.RunDir(filepath.Base(file), l.RunID))
	}
	if _, err := os.Stat(filepath.Join(dir, layout.Journal)); err != nil {
		return nil, noJournal("%s: the run directory has no journal.jsonl", filepath.ToSlash(dir))
	}
	return loadWorkflow(dir, opts)
}

// launchedRunDir is the run directory (an OS path) of the one Workflow run
// a session transcript launched, and its launch; the directory may not
// exist yet (watch waits for it, replay does not: l.RunPath).
func launchedRunDir(file string, opts Options) (string, *model.WorkflowLaunch, error) {
	res, err := Load([]string{file}, opts)
	if err != nil {
		return "", nil, usage("%v", err)
	}
	var sess *model.Run
	for _, r := range res.Runs {
		if r.Kind == model.KindSession && r.Main != nil {
			sess = r
			break
		}
	}
	if sess == nil {
		if len(res.Errors) > 0 {
			return "", nil, usage("%s", res.Errors[0])
		}
		return "", nil, usage("%s: holds no session transcript rows", filepath.ToSlash(file))
	}
	// A launch row written twice for one run (a retried call) is one
	// launch.
	var launches []*model.WorkflowLaunch
	seen := map[string]bool{}
	for _, l := range sess.Launches {
		if l.RunID != "" && !seen[l.RunID] {
			seen[l.RunID] = true
			launches = append(launches, l)
		}
	}
	switch len(launches) {
	case 0:
		return "", nil, usage("%s: the session launched no Workflow run; replay follows Workflow runs (give a run directory)", filepath.ToSlash(file))
	case 1:
	default:
		var ids []string
		for _, l := range launches {
			ids = append(ids, l.RunID)
		}
		return "", nil, usage("%s: the session launched %d Workflow runs (%s); give the run directory of one", filepath.ToSlash(file), len(ids), strings.Join(ids, ", "))
	}
	l := launches[0]
	return layout.RunDirOnDisk(file, l.RunID), l, nil
}

// WatchRunDir is the run directory (an OS path) RUN names for watch, ""
// while it names none yet (watch keeps waiting): a journal.jsonl's folder,
// the run a session transcript launched once the launch is written, a path
// as given (its journal may appear later), or the one Workflow run under
// root whose id starts with RUN. The session and prefix lookups are
// FindWorkflowRun's (replay's), so the two commands map an argument to a
// run alike.
func WatchRunDir(arg, root string) string {
	switch {
	case filepath.Base(arg) == layout.Journal:
		return filepath.Dir(arg)
	case layout.IsTranscriptName(arg):
		dir, _, err := launchedRunDir(arg, Options{})
		if err != nil {
			return ""
		}
		return dir
	case strings.ContainsAny(arg, `/\`) || arg == "." || arg == "..":
		return arg
	}
	if st, err := os.Stat(arg); err == nil && st.IsDir() {
		return arg
	}
	if root == "" {
		return ""
	}
	dir, err := runDirByPrefix(arg, root)
	if err != nil {
		return ""
	}
	return dir
}

// byPrefix is watch's find_run_dir for a run-id prefix: exactly one Workflow
// run under the root must match; none or several is watch's exit 2.
func byPrefix(prefix, root string, opts Options) (*model.Run, error) {
	if root == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return nil, usage("%s does not exist, and there is no home directory to look up run ids in; pass --root", prefix)
		}
		root = filepath.Join(home, ".claude", "projects")
	}
	if strings.ContainsAny(prefix, `/\`) {
		return nil, usage("%s: no such file or directory", prefix)
	}
	dir, err := runDirByPrefix(prefix, root)
	if err != nil {
		return nil, err
	}
	return loadWorkflow(dir, opts)
}

// runDirByPrefix is the run directory (an OS path) of the one Workflow run
// under root whose id starts with prefix; none or several is an error
// (NoJournal: watch's exit 2).
func runDirByPrefix(prefix, root string) (string, error) {
	inv, err := discover.Walk(root)
	if err != nil {
		return "", noJournal("no Workflow run under %s matches %q (the root cannot be listed)", root, prefix)
	}
	var matches []string
	for _, d := range inv.WorkflowDirs {
		if strings.HasPrefix(layout.RunID(d), prefix) {
			matches = append(matches, d)
		}
	}
	switch len(matches) {
	case 1:
		return filepath.Join(root, filepath.FromSlash(matches[0])), nil
	case 0:
		return "", noJournal("no Workflow run under %s has an id starting with %q", root, prefix)
	}
	return "", noJournal("%d Workflow runs under %s have an id starting with %q (%s); give a longer prefix", len(matches), root, prefix, strings.Join(matches, ", "))
}
