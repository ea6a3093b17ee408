package detect

// gitJoin is the git step: it intersects the branch under check with each
// item's ledger (onBranch, matches).
func gitJoin(a *pass) {
	b := a.opts.Git
	if b == nil {
		return
	}
	branchPaths, branchCommits := newSuffixIndex(b.Paths), b.CommitIDs()
	var at []int
	for _, k := range a.killedOf() {
		for _, id := range k.ledger.Commits {
			if branchCommits.Has(id) {
				k.onBranch = true
				k.matches = append(k.matches, "commit "+id)
			}
		}
		for _, lp := range k.ledger.Paths {
			at = branchPaths.matching(lp, at[:0])
			for _, i := range at {
				bp := b.Paths[i]
				k.onBranch = true
				m := "path " + bp
				if lp != bp {
					m += " (written as " + lp + ")"
				}
				k.matches = append(k.matches, m)
			}
		}
		// Work the ledger could not see (a write through an interpreter, a
		// commit that printed no id) cannot be shown to be off the branch:
		// when the branch changes anything, unknown work counts as on it.
		if (k.ledger.Partial || k.ledger.CommitsUnknown) && (len(b.Commits) > 0 || len(b.Paths) > 0) {
			k.onBranch = true
			k.matches = append(k.matches, "unknown work (a write or commit the ledger could not see) on a branch that changes files")
		}
	}
}
