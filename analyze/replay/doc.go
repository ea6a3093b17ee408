// Package replay reproduces, on a simulated clock, what the live watchers
// would have printed for a finished run: agent-postmortem's `watch` over a
// Workflow run's journal (START, KILL, FAILED, OK, QUIET, DONE, LIMIT,
// MALFORMED with its exit codes), and the ProgressWatch, executor-harness
// and Workflow-runtime watchdogs over every attempt or subagent transcript.
//
// The API is small on purpose:
//
//	rep := replay.Workflow(run, replay.Config{})  // a Workflow run
//	rep.Outcome.Events, rep.Outcome.Verdict, rep.Outcome.Exit, rep.Facts
//	lines := replay.Lines(rep.Outcome.Events, jsonMode, timestamps)
//	facts := replay.Session(run, replay.Config{}) // a session's subagents
//	live := replay.NewLive(start, opts, nil)      // the same engine, fed live
//
// Workflow turns watch's events and the watchdogs' events into
// model.WatchdogFacts (source watch | progresswatch | harness |
// workflow-runtime), including a "mismatch" fact for every attempt whose
// predicted and observed kills disagree. What the files say happened (how
// a transcript ended, whether an attempt was killed, a Workflow
// notification's lifecycle terminal) is package interpret's reading, the
// same the detectors use; this package keeps only watch's timing and its
// wording for each cause. Everything is a pure function of the loaded run.
// docs/replay.md documents each of watch's rules and pmcheck's choices.
package replay
