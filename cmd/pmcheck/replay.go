package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/pmcheck/pmcheck/analyze"
	"github.com/pmcheck/pmcheck/report"
)

// ReplayCmd replays a Workflow run through the simulated clock and prints
// what agent-postmortem watch would have printed, with watch's exit codes:
// 0 DONE clean, 3 DONE with a FAILED verdict, 4 LIMIT / MALFORMED, 2 no
// journal (and usage errors). See docs/replay.md.
type ReplayCmd struct {
	Run_ string `arg:"" name:"run" help:"Workflow run directory, its journal.jsonl, a session transcript that launched one Workflow run, or a run-id prefix under --root."`

	WatchTiming

	Timestamps bool   `help:"Prefix every line with its simulated time (RFC 3339, UTC); in --json, add a time field."`
	Start      string `help:"Start the watch at this instant (RFC 3339) instead of the Workflow launch."`
	JSON       bool   `name:"json" help:"Print watch's --json objects, one per line."`
	Explain    bool   `help:"Before the events, show the clock: the watch start and how each journal line's time was inferred."`
	Watchdogs  bool   `help:"After the events, replay ProgressWatch, the executor-harness watchdogs and the Workflow runtime on the same clock."`
	Root       string `help:"Where a run-id prefix is looked up (default ~/.claude/projects)."`
	AsWatch    bool   `name:"as-watch" help:"Keep watch's own follow-up commands (agent-postmortem rescue plan, run, scan) instead of pmcheck's, for byte-for-byte comparison with watch."`

	PWTick             Seconds `default:"30" name:"pw-tick" group:"watchdogs" help:"ProgressWatch dispatch-loop tick, seconds."`
	PWInactivity       Seconds `default:"120" name:"pw-inactivity" group:"watchdogs" help:"ProgressWatch stall threshold (sigterm), seconds."`
	PWKillAfter        Seconds `default:"300" name:"pw-kill-after" group:"watchdogs" help:"ProgressWatch sigkill threshold, seconds."`
	HarnessInactivity  Seconds `default:"600" name:"harness-inactivity" group:"watchdogs" help:"Executor-harness inactivity watchdog, seconds."`
	HarnessMaxDuration Seconds `default:"3600" name:"harness-max-duration" group:"watchdogs" help:"Executor-harness max duration, seconds."`
	HarnessColdStart   Seconds `default:"120" name:"harness-cold-start" group:"watchdogs" help:"Executor-harness cold-start diagnostic, seconds (0 disables)."`
	HarnessToolSilence Seconds `default:"-1" name:"harness-tool-silence" group:"watchdogs" help:"Executor-harness tool-silence window, seconds (0 disables; default max(max-duration/2, inactivity))."`
	RuntimeStall       Seconds `default:"180" name:"runtime-stall" group:"watchdogs" help:"Workflow runtime stall window, seconds."`
	RuntimeMaxAttempts int     `default:"6" name:"runtime-max-attempts" group:"watchdogs" help:"Workflow runtime attempts per agent."`
}

// WatchTiming is watch's timing, the same flags for replay (the simulated
// clock) and watch (the real one).
type WatchTiming struct {
	Interval   Seconds `default:"5" help:"Seconds between polls."`
	QuietAfter Seconds `default:"300" name:"quiet-after" help:"Seconds of transcript silence before the first QUIET; doubles after each."`
	DoneGrace  Seconds `default:"30" name:"done-grace" help:"Seconds every key must stay resolved before DONE."`
	MaxHours   float64 `default:"6" name:"max-hours" help:"Hours after the start at which LIMIT ends the watch."`
}

func (w WatchTiming) options() analyze.ReplayOptions {
	return analyze.ReplayOptions{Interval: w.Interval.d(), QuietAfter: w.QuietAfter.d(), DoneGrace: w.DoneGrace.d(), MaxHours: w.MaxHours}
}

// Seconds is a flag given in seconds as watch takes them ("5", "2.5"), or
// as a Go duration ("90s", "2m").
type Seconds time.Duration

// UnmarshalText parses the flag.
func (s *Seconds) UnmarshalText(b []byte) error {
	t := strings.TrimSpace(string(b))
	if f, err := strconv.ParseFloat(t, 64); err == nil {
		*s = Seconds(time.Duration(f * float64(time.Second)))
		return nil
	}
	d, err := time.ParseDuration(t)
	if err != nil {
		return fmt.Errorf("%q is not a number of seconds (e.g. 5, 2.5 or 90s)", t)
	}
	*s = Seconds(d)
	return nil
}

func (s Seconds) d() time.Duration { return time.Duration(s) }

func (c *ReplayCmd) config() (analyze.ReplayConfig, error) {
	cfg := analyze.ReplayConfig{
		Watch: c.WatchTiming.options(),
		Watchdogs: analyze.WatchdogOptions{
			PWTick: c.PWTick.d(), PWInactivity: c.PWInactivity.d(), PWKillAfter: c.PWKillAfter.d(),
			HarnessInactivity: c.HarnessInactivity.d(), HarnessMaxDuration: c.HarnessMaxDuration.d(),
			HarnessColdStart: c.HarnessColdStart.d(), HarnessToolSilence: c.HarnessToolSilence.d(),
			RuntimeStall: c.RuntimeStall.d(), RuntimeMaxAttempts: c.RuntimeMaxAttempts,
		},
	}
	if cfg.Watchdogs.HarnessToolSilence < 0 {
		cfg.Watchdogs.HarnessToolSilence = -1
	}
	if err := cfg.Watch.Validate(); err != nil {
		return cfg, err
	}
	if err := cfg.Watchdogs.Validate(); err != nil {
		return cfg, err
	}
	if c.Start != "" {
		t, err := time.Parse(time.RFC3339Nano, c.Start)
		if err != nil {
			return cfg, fmt.Errorf("--start %q is not an RFC 3339 time (e.g. 2026-05-06T09:04:55Z)", c.Start)
		}
		cfg.Start = t.UTC()
	}
	return cfg, nil
}

// Run replays the run and returns watch's exit code.
func (c *ReplayCmd) Run(env *Env) error {
	defer guardStdout(env)()
	cfg, err := c.config()
	if err != nil {
		return usageError("replay: %v", err)
	}
	run, err := c.resolve(env)
	if err != nil {
		return err
	}
	if !c.AsWatch {
		// The follow-up is pmcheck's check of this run: it reports the
		// killed attempts' work and the run's verdict as findings.
		cfg.Watch.NextCommand = nextCommand(run.Path)
	}
	rep := analyze.ReplayWorkflow(run, cfg)
	if c.Explain {
		writeExplain(env.Stdout, rep, c.JSON)
	}
	for _, l := range analyze.ReplayLines(rep.Outcome.Events, c.JSON, c.Timestamps) {
		fmt.Fprintln(env.Stdout, l)
	}
	if rep.Outcome.Stderr != "" {
		fmt.Fprintln(env.Stderr, rep.Outcome.Stderr)
		fmt.Fprintf(env.Stderr, "pmcheck: %s: the journal's first line is only written at %s, %s after the watch start (%s); watch gives up after 60 s\n",
			journalOf(run), analyze.FormatTime(rep.World.JournalAt), rep.World.JournalAt.Sub(rep.World.Start), analyze.FormatTime(rep.World.Start))
	}
	if c.Watchdogs {
		writeWatchdogs(env.Stdout, rep.Watchdogs, c.JSON)
	}
	if rep.Outcome.Exit != 0 {
		return &ExitError{Code: rep.Outcome.Exit}
	}
	return nil
}

// shellWord quotes a path for a command line only when it needs it.
func shellWord(p string) string {
	for _, r := range p {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_./:@%+=,-", r)) {
			return "'" + strings.ReplaceAll(p, "'", `'\''`) + "'"
		}
	}
	return p
}

func journalOf(run *analyze.Run) string {
	if run.Journal != nil {
		return run.Journal.File
	}
	return run.Path
}

// noJournal is watch's exit 2: its own message on stderr, then pmcheck's line
// saying what is missing and where.
func noJournal(env *Env, asWatch bool, format string, args ...any) error {
	fmt.Fprintln(env.Stderr, noJournalMessage(asWatch))
	fmt.Fprintf(env.Stderr, "pmcheck: "+format+"\n", args...)
	return &ExitError{Code: analyze.ReplayExitNoJournal}
}

// noJournalMessage is watch's no-journal message; its last words name
// pmcheck scan unless asWatch keeps watch's wording. replay and watch both
// print it.
func noJournalMessage(asWatch bool) string {
	if asWatch {
		return analyze.NoJournalMessage
	}
	return strings.Replace(analyze.NoJournalMessage, "agent-postmortem scan lists past runs", "pmcheck scan lists past runs", 1)
}

// nextCommand is the follow-up KILL and DONE lines name for the run at
// path, in replay and watch alike (without --as-watch): pmcheck's check of
// the run, which reports the killed attempts' work and the verdict as
// findings.
func nextCommand(path string) string { return "pmcheck check " + shellWord(path) }

// resolve finds the one Workflow run RUN names (analyze.FindWorkflowRun).
func (c *ReplayCmd) resolve(env *Env) (*analyze.Run, error) {
	run, err := analyze.FindWorkflowRun(c.Run_, c.Root)
	var nr *analyze.NotReplayable
	switch {
	case err == nil:
		return run, nil
	case errors.As(err, &nr) && nr.NoJournal:
		return nil, noJournal(env, c.AsWatch, "%s", nr.Message)
	}
	return nil, usageError("replay: %v", err)
}

// loadWorkflow loads the Workflow run in a run directory.
func loadWorkflow(dir string) (*analyze.Run, error) {
	run, err := analyze.LoadWorkflowRun(dir)
	if err != nil {
		return nil, usageError("replay: %v", err)
	}
	return run, nil
}

func writeExplain(w io.Writer, rep *analyze.ReplayReport, jsonMode bool) {
	if jsonMode {
		b, _ := json.Marshal(map[string]any{"explain": "start", "start": rep.Start})
		fmt.Fprintln(w, string(report.EscapeDisplayControls(b)))
		for _, lt := range rep.Times {
			b, _ := json.Marshal(map[string]any{"explain": "journal-line", "line": lt})
			fmt.Fprintln(w, string(report.EscapeDisplayControls(b)))
		}
		return
	}
	why := map[string]string{
		"flag":    "given with --start",
		"launch":  "write time of the parent's Workflow launch",
		"journal": "no launch found: the first journal line's time",
		"epoch":   "nothing in the run has a timestamp: the Unix epoch",
	}[rep.Start.Source]
	where := ""
	if rep.Start.Where.File != "" {
		where = fmt.Sprintf(" (%s:%d)", rep.Start.Where.File, rep.Start.Where.Line)
	}
	fmt.Fprintf(w, "# watch start %s: %s%s\n", analyze.FormatTime(rep.Start.At), why, where)
	for _, lt := range rep.Times {
		fmt.Fprintf(w, "# %s\n", lt.Explain())
	}
	for _, l := range rep.World.Lines {
		switch l.Kind {
		case analyze.JournalLineMalformed, analyze.JournalLineTooLong, analyze.JournalLineTorn:
			fmt.Fprintf(w, "# journal line at %s:%d (%s) at %s: inherits the time of the line above\n", l.Where.File, l.Where.Line, l.Kind, analyze.FormatTime(l.At))
		}
	}
}

func writeWatchdogs(w io.Writer, events []analyze.WatchdogEvent, jsonMode bool) {
	if !jsonMode {
		fmt.Fprintf(w, "# watchdogs: %d events\n", len(events))
	}
	for _, e := range events {
		fmt.Fprintln(w, watchdogLine(e, jsonMode))
	}
}

// watchdogLine is one watchdog event as replay --watchdogs prints it (and
// watch --watchdogs, live).
func watchdogLine(e analyze.WatchdogEvent, jsonMode bool) string {
	if jsonMode {
		b, _ := json.Marshal(struct {
			Event string `json:"event"`
			analyze.WatchdogEvent
		}{"WATCHDOG", e})
		// encoding/json writes C1 and bidi controls raw; watch's own
		// events escape every non-ASCII character (replay.Lines).
		return string(report.EscapeDisplayControls(b))
	}
	extra := ""
	if e.Predicted != "" || e.Observed != "" {
		extra = fmt.Sprintf(" [predicted %s, observed %s]", orDash(e.Predicted), orDash(e.Observed))
	}
	attempt := ""
	if e.Attempt > 0 {
		attempt = fmt.Sprintf(" attempt %d", e.Attempt)
	}
	return fmt.Sprintf("%s %-16s %-18s %s%s: %s%s", analyze.FormatTime(e.At), e.Source, e.Kind, e.Agent, attempt, e.Message, extra)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
