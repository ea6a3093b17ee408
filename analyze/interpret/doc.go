// Package interpret is the one reading of what a transcript's rows say
// happened: how a transcript ended (kill sentinel, usage limit, API error,
// context exhaustion, or nothing recorded), whether a Workflow attempt was
// killed, and how every Agent/Task call ended, each with the row that proves
// it. The detectors (package detect) and the replay (package replay) both
// call these functions and nothing else for those decisions, so `pmcheck
// check` and `pmcheck replay` cannot disagree on whether an attempt was
// killed or why it failed.
//
// Every function here is a pure function of model values: it reads no file
// and keeps no state, so the same rows always give the same reading.
package interpret
