package analyze

import (
	"github.com/pmcheck/pmcheck/analyze/detect"
	"github.com/pmcheck/pmcheck/analyze/detect/ship"
	"github.com/pmcheck/pmcheck/analyze/load"
	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/analyze/transcript"
)

// Loading is package load's: the façade hands paths to it and gets runs
// back. The names below are load's own types and functions; see there.
type (
	Options       = load.Options
	Result        = load.Result
	Input         = load.Input
	Followers     = load.Followers
	Shard         = load.Shard
	Stats         = load.Stats
	NotReplayable = load.NotReplayable
)

// Load reads every run under the given paths (load.Load).
func Load(paths []string, opts Options) (*Result, error) { return load.Load(paths, reading(opts)) }

// Each hands each run under the given paths to fn as it is linked, and
// keeps only what fn returns (load.Each).
func Each[T any](paths []string, opts Options, fn func(run *model.Run, input int) T) (*Result, []T, error) {
	return load.Each(paths, reading(opts), fn)
}

// reading is opts with what the reader is given of the shell classifier's
// policy: the commands whose output it need not keep (ship.Inert), whether
// or not it classifies (ClassifyWhileReading). The loader and the reader
// import no detection; the façade hands it to them.
func reading(opts Options) Options {
	if opts.Shell.Inert == nil {
		opts.Shell.Inert = ship.Inert
	}
	return opts
}

// ParseShard reads --shard i/n (load.ParseShard).
func ParseShard(s string) (Shard, error) { return load.ParseShard(s) }

// RunStats counts a run's agents, attempts, files and rows (load.RunStats).
func RunStats(r *model.Run) Stats { return load.RunStats(r) }

// RunIdentity maps the run paths Load reports for one path given on the
// command line to the path a finding's fingerprint hashes (load.RunIdentity).
func RunIdentity(given, repoRoot string) func(runPath string) string {
	return load.RunIdentity(given, repoRoot)
}

// FindWorkflowRun loads the one Workflow run a replay argument names
// (load.FindWorkflowRun).
func FindWorkflowRun(arg, root string) (*model.Run, error) {
	return load.FindWorkflowRun(arg, root, reading(Options{}))
}

// LoadWorkflowRun loads the Workflow run in a run directory (an OS path).
func LoadWorkflowRun(dir string) (*model.Run, error) {
	return load.LoadWorkflowRun(dir, reading(Options{}))
}

// FollowWorkflowRun is LoadWorkflowRun for a run being written, polled
// again and again (watch): follow keeps the readers of its files between
// calls, so each call decodes only what was appended since the last. The
// run is the one LoadWorkflowRun gives. It is loaded on the calling
// goroutine (Jobs 1): a poll reads a few appended rows per file, less than
// what starting workers at every poll costs; a file's first read still
// decodes on every core (transcript.Follower.Fill).
func FollowWorkflowRun(dir string, follow *Followers) (*model.Run, error) {
	return load.LoadWorkflowRun(dir, reading(Options{Follow: follow, Jobs: 1}))
}

// ClassifyWhileReading is Options.Shell for a check: the reader classifies
// every Bash command with the detectors' classifier (ship.Classify with
// these deploy labels; nil: the defaults) while it decodes the file, on
// every core a large file is decoded on and off the serial path, from cache
// when it is set (DetectOptions.Classifications). The detectors reuse an
// analysis made with their deploy labels and classify again only the
// commands a run's git aliases could change (ship.Reuse), so the facts are
// the ones they would derive alone.
func ClassifyWhileReading(deployLabels []string, cache *Classifications) transcript.ShellOptions {
	return transcript.ShellOptions{Classify: (*detect.Classifications)(cache).ReaderClassifier(deployLabels), Inert: ship.Inert, Labels: deployLabels}
}

// WatchRunDir is the run directory a watch argument names, "" while it
// names none yet (load.WatchRunDir: replay's mapping).
func WatchRunDir(arg, root string) string { return load.WatchRunDir(arg, root) }
