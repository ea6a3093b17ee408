package detect

// gitJoin is the git step: it intersects the branch under check with each
// item's ledger (onBranch, matches).
func gitJoin(a *pass) {
	res := &a.res.git
	b := a.opts.Git
	items := a.items()
	if b == nil || len(items) == 0 {
		return
	}
	res.of = make([]branchMatch, len(items))
	branchPaths, branchCommits := newSuffixIndex(b.Paths), b.CommitIDs()
	var at []int
	for i, k := range items {
		m := &res.of[i]
		for _, id := range k.ledger.Commits {
			if branchCommits.Has(id) {
				m.onBranch = true
				m.matches = append(m.matches, "commit "+id)
			}
		}
		for _, lp := range k.ledger.Paths {
			at = branchPaths.matching(lp, at[:0])
			for _, j := range at {
				bp := b.Paths[j]
				m.onBranch = true
				s := "path " + bp
				if lp != bp {
					s += " (written as " + lp + ")"
				}
				m.matches = append(m.matches, s)
			}
		}
		// Work the ledger could not see (a write through an interpreter, a
		// commit that printed no id) cannot be shown to be off the branch:
		// when the branch changes anything, unknown work counts as on it.
		if (k.ledger.Partial || k.ledger.CommitsUnknown) && (len(b.Commits) > 0 || len(b.Paths) > 0) {
			m.onBranch = true
			m.matches = append(m.matches, "unknown work (a write or commit the ledger could not see) on a branch that changes files")
		}
	}
}
