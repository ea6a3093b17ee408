// Package interpret is the one reading of what a transcript's rows say
// happened: how a transcript ended (kill sentinel, usage limit, API error,
// context exhaustion, or nothing recorded), how every Agent/Task call ended
// (its outcome merged with the resume gate's Signature A/B scan of the
// transcript that owns it, the segment marks, whether the parent consumed
// its report), how each Workflow attempt ended, and what work a transcript
// left behind (its ledger), each with the row that proves it. The detectors
// (package detect, and through them the hook's gate and explain's reasons)
// and the replay (package replay) call these functions and nothing else for
// those decisions, so `pmcheck check`, `pmcheck hook` and `pmcheck replay`
// cannot disagree on whether a subagent or an attempt was killed or why it
// failed.
//
// Every reading is a function of model values: it reads no file, and the
// same rows always give the same reading (Owners only remembers each owner's
// scan, so that a transcript's calls cost one scan of it).
package interpret
