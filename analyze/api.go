package analyze

import (
	"time"

	"github.com/pmcheck/pmcheck/analyze/clock"
	"github.com/pmcheck/pmcheck/analyze/detect"
	"github.com/pmcheck/pmcheck/analyze/detect/gitjoin"
	"github.com/pmcheck/pmcheck/analyze/discover"
	"github.com/pmcheck/pmcheck/analyze/harness"
	"github.com/pmcheck/pmcheck/analyze/layout"
	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/analyze/replay"
	"github.com/pmcheck/pmcheck/analyze/transcript"
)

// The names the command line uses, so that cmd/pmcheck depends on package
// analyze alone and analyze's sub-packages can change behind it. Each is the
// sub-package's own type or function; see there for the documentation.

// Model types.
type (
	Run        = model.Run
	Transcript = model.Transcript
	RunFacts   = model.Facts
	Evidence   = model.Evidence
	Problem    = model.Problem
	Malformed  = model.Malformed
)

// Run kinds.
const (
	KindSession  = model.KindSession
	KindWorkflow = model.KindWorkflow
)

// Detector options.
type (
	DetectOptions = detect.Options
	ReviewOptions = detect.ReviewOptions
)

// Classifications caches shell-command classifications across the runs of
// one check (DetectOptions.Classifications).
type Classifications = detect.Classifications

// NewClassifications returns an empty cache.
func NewClassifications() *Classifications { return detect.NewClassifications() }

// GitBranch is the branch under check (JoinGit).
type GitBranch = gitjoin.Branch

// JoinGit reads the branch under check from a git repository: the commits
// in base..head with their trailers and the paths they change.
func JoinGit(dir, base, head string) (*GitBranch, error) { return gitjoin.Join(dir, base, head) }

// GitCommit is one commit of the branch under check.
type GitCommit = gitjoin.Commit

// VerifyOptions say which keys and platform reports verify commits.
type VerifyOptions = gitjoin.VerifyOptions

// VerifySignatures marks the branch's commits whose signature verifies
// (gitjoin.VerifySignatures).
func VerifySignatures(dir string, b *GitBranch, opts VerifyOptions) error {
	return gitjoin.VerifySignatures(dir, b, opts)
}

// FormatTime writes a simulated instant as reports and the replay do.
func FormatTime(t time.Time) string { return clock.Format(t) }

// Inventory is what a walk of a root found.
type Inventory = discover.Inventory

// Walk lists the runs, transcripts and sidecars under root.
func Walk(root string) (*Inventory, error) { return discover.Walk(root) }

// Replay types and constants.
type (
	ReplayConfig    = replay.Config
	ReplayOptions   = replay.Options
	ReplayReport    = replay.Report
	WatchdogEvent   = replay.WatchdogEvent
	WatchdogOptions = replay.WatchdogOptions
	LiveReplay      = replay.Live
	LiveWatchdogs   = replay.LiveWatchdogs
)

// Replay constants.
const (
	ReplayExitNoJournal  = replay.ExitNoJournal
	NoJournalMessage     = replay.NoJournalMessage
	JournalLineMalformed = replay.LineMalformed
	JournalLineTooLong   = replay.LineTooLong
	JournalLineTorn      = replay.LineTorn
)

// ReplayWorkflow replays a loaded Workflow run (replay.Workflow).
// The KILL line's ledger is the detectors' work ledger (Ledgers).
func ReplayWorkflow(run *Run, cfg ReplayConfig) *ReplayReport {
	if cfg.Ledgers == nil {
		cfg.Ledgers = Ledgers
	}
	return replay.Workflow(run, cfg)
}

// ReplayLines prints watch's events (replay.Lines).
func ReplayLines(events []replay.Event, jsonMode, timestamps bool) []string {
	return replay.Lines(events, jsonMode, timestamps)
}

// NewLiveWatchdogs starts the watchdog replays run beside a live watch
// (replay.NewLiveWatchdogs), with their default settings.
func NewLiveWatchdogs(start time.Time) *LiveWatchdogs {
	return replay.NewLiveWatchdogs(start, replay.WatchdogOptions{})
}

// NewLiveReplay starts the replay engine fed live (replay.NewLive), with the
// detectors' work ledger.
func NewLiveReplay(start time.Time, opt ReplayOptions) *LiveReplay {
	return replay.NewLive(start, opt, Ledgers)
}

// Layout helpers for the command line (package layout owns the shapes).
func IsTranscriptName(name string) bool { return layout.IsTranscriptName(name) }

// RunID is a Workflow run directory's id.
func RunID(dir string) string { return layout.RunID(dir) }

// The runtime's own strings, for the fixture generator (package harness
// owns them; code never holds the partial-output notice as one literal).
const (
	APIErrorPrefix     = harness.APIErrorPrefix
	KillSentinelPrefix = harness.KillSentinelPrefix
	SegmentMarkPrefix  = harness.SegmentMarkPrefix
)

// PartialNotice is the harness's partial-output notice, assembled at run
// time (harness.PartialNotice).
func PartialNotice() string { return harness.PartialNotice() }

// ParseTimestamp reads a row's timestamp as the transcript reader does
// (ISO-8601; no offset is UTC); the zero time when it does not parse.
func ParseTimestamp(s string) time.Time { return transcript.ParseTime(s) }
