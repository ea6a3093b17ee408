package ship

// classifyTruncated classifies the head of a command the transcript's
// reader cut at its length cap. What the head shows counts as in any
// command; what followed it is unseen, and an unseen rest may do anything:
// the analysis may write, and it holds a possible push. Otherwise padding a
// command past the cap would hide a push from a check (a pull request's
// transcripts are attacker-controlled), while the hook, which sees the
// whole command, would gate it.
func classifyTruncated(head string, opts Options) Analysis {
	opts.Truncated = false
	a := Classify(head, opts)
	a.MayWrite = true
	a.Actions = append(a.Actions, possibleAction(KindPush, head))
	return a
}
