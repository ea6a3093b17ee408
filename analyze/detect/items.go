package detect

import (
	"github.com/pmcheck/pmcheck/analyze/interpret"
	"github.com/pmcheck/pmcheck/analyze/model"
)

// killedItem is one killed (or otherwise unreturned) subagent or attempt
// whose work is at risk until reviewed (interpret's Subagent.AtRisk,
// Attempt.AtRisk). The subagents and attempts steps make it and no step
// changes it: what later steps find about it (its review, its matches on
// the branch, whether something shipped after it) is each step's own
// result, indexed by the item's place in the items step's list.
type killedItem struct {
	kind      string // "subagent" | "attempt"
	id        string // agent id
	toolUseID string
	name      string // description or agent name
	key       string
	ledger    *interpret.Ledger // read only; attempts without a transcript share noWork
	known     model.Evidence    // when the kill became visible in the files
}

// listItems is the items step: every item at risk, subagents first, in fact
// order. Its position in the list indexes every later step's result of it.
func listItems(p *pass) {
	s, a := p.subagents(), p.attempts()
	var out []*killedItem
	for _, e := range s.entries {
		if e.item != nil {
			out = append(out, e.item)
		}
	}
	for _, k := range a.items {
		if k != nil {
			out = append(out, k)
		}
	}
	p.res.items = out
}

// itemReview is the review step's finding of one item.
type itemReview struct {
	// reviewedAt is the earliest review subagent's completion when no
	// evidence is timeless.
	reviewedAt *model.Evidence
	evidence   []string
	// reviews are the review subagents' completion rows.
	reviews []model.Reason
	// timeless is true when some evidence has no time (trailer, file).
	timeless bool
}

func (r *itemReview) reviewed() bool { return r.timeless || r.reviewedAt != nil }

// reviewResult is the review step's result: of[i] is the review of item i,
// of is nil when no item has any evidence.
type reviewResult struct{ of []itemReview }

// noReview is the review of an item nothing reviewed (read only).
var noReview itemReview

// review is item i's review.
func (r *reviewResult) review(i int) *itemReview {
	if r == nil || r.of == nil {
		return &noReview
	}
	return &r.of[i]
}

// at is item i's review for the review step to fill in (of is made for n
// items on the first).
func (r *reviewResult) at(i, n int) *itemReview {
	if r.of == nil {
		r.of = make([]itemReview, n)
	}
	return &r.of[i]
}

// branchMatch is the git step's finding of one item: its commits and paths
// on the branch under check.
type branchMatch struct {
	matches  []string
	onBranch bool
}

// gitResult is the git step's result: of[i] is item i's (nil without a
// branch under check, or when nothing matched).
type gitResult struct{ of []branchMatch }

// match is item i's match.
func (g *gitResult) match(i int) branchMatch {
	if g == nil || g.of == nil {
		return branchMatch{}
	}
	return g.of[i]
}

// risk is what the outstanding sweep reads of the items at risk: each
// item's kill and name, and its review.
type risk struct {
	items []*killedItem
	rev   *reviewResult
}

func (r risk) len() int                   { return len(r.items) }
func (r risk) review(i int) *itemReview   { return r.rev.review(i) }
func (r risk) known(i int) model.Evidence { return r.items[i].known }
func (r risk) name(i int) string          { return r.items[i].name }
