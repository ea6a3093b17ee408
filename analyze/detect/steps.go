package detect

import (
	"fmt"

	"github.com/pmcheck/pmcheck/analyze/model"
)

// A step is one pass of the detectors. Requires names the steps whose results
// it reads: Analyze runs every step after the steps it requires, and a step
// can read only those steps' results (need panics on any other), so an
// undeclared dependency fails every test at once instead of silently relying
// on the order of calls. The idea is golang.org/x/tools/go/analysis's
// Analyzer.Requires.
type step struct {
	name     string
	requires []*step
	run      func(p *pass)
}

// results are the steps' results, each in a field of its own type that one
// step sets: a step reads another's through the typed accessors below,
// which check that it required that step. No step writes into another's
// result: the items at risk are made by the subagents and attempts steps
// and never changed, and what review, git and ships find about each item
// is their own result, indexed by the item's place in the items step's list.
type results struct {
	run       *model.RunFact
	subagents *subagentResult
	attempts  *attemptResult
	items     []*killedItem
	review    reviewResult
	git       gitResult
	ships     *shipResult
	gate      *Gate
	facts     model.Facts
}

// pass is one step's view of the analysis: the shared inputs, and the
// results of the steps it requires.
type pass struct {
	*analysis
	step *step
	res  *results
}

// need panics unless this step requires s: reading a result the step did
// not declare would depend on the order the steps happen to run in.
func (p *pass) need(s *step) {
	for _, r := range p.step.requires {
		if r == s {
			return
		}
	}
	panic(fmt.Sprintf("detect: step %q reads the result of %q without requiring it", p.step.name, s.name))
}

// The typed results a step reads (each checks the step requires it).
func (p *pass) runResult() *model.RunFact  { p.need(runStep); return p.res.run }
func (p *pass) subagents() *subagentResult { p.need(subagentsStep); return p.res.subagents }
func (p *pass) attempts() *attemptResult   { p.need(attemptsStep); return p.res.attempts }
func (p *pass) items() []*killedItem       { p.need(itemsStep); return p.res.items }
func (p *pass) reviews() *reviewResult     { p.need(reviewStep); return &p.res.review }
func (p *pass) branch() *gitResult         { p.need(gitStep); return &p.res.git }
func (p *pass) ships() *shipResult         { p.need(shipsStep); return p.res.ships }

// risk is the items with their review, for the outstanding sweep.
func (p *pass) risk() risk { return risk{items: p.items(), rev: p.reviews()} }

// The steps, each with what it reads. Items (killed or unreturned work) are
// made by the subagents and attempts steps and listed by the items step;
// review, git and ships each find their own result about them, and facts
// reads them all.
var (
	runStep       = &step{name: "run", run: runFact}
	subagentsStep = &step{name: "subagents", run: subagentFacts}
	attemptsStep  = &step{name: "attempts", run: attemptFacts}
	itemsStep     = &step{name: "items", requires: []*step{subagentsStep, attemptsStep}, run: listItems}
	reviewStep    = &step{name: "review", requires: []*step{subagentsStep, itemsStep}, run: reviewEvidence}
	gitStep       = &step{name: "git", requires: []*step{itemsStep}, run: gitJoin}
	shipsStep     = &step{name: "ships", requires: []*step{itemsStep, reviewStep}, run: shipFacts}
	factsStep     = &step{name: "facts", requires: []*step{runStep, subagentsStep, attemptsStep, itemsStep, reviewStep, gitStep, shipsStep}, run: assembleFacts}
)

// order lists the steps final needs, each after everything it requires
// (depth first, in the order requirements are declared).
func order(final *step) []*step {
	var out []*step
	state := map[*step]int{} // 1 visiting, 2 done
	var visit func(s *step)
	visit = func(s *step) {
		switch state[s] {
		case 1:
			panic("detect: steps require each other in a cycle at " + s.name)
		case 2:
			return
		}
		state[s] = 1
		for _, r := range s.requires {
			visit(r)
		}
		state[s] = 2
		out = append(out, s)
	}
	visit(final)
	return out
}

// orders are the steps of each final step Analyze and GateOf run, ordered
// once: ordering them for every run was a map and a list per run, a tenth
// of what analysing a small session allocated.
var orders = map[*step][]*step{factsStep: order(factsStep), gateStep: order(gateStep)}

// runSteps runs final and everything it requires, and returns the results.
func (a *analysis) runSteps(final *step) *results {
	res := &results{}
	steps, ok := orders[final]
	if !ok {
		steps = order(final)
	}
	for _, s := range steps {
		s.run(&pass{analysis: a, step: s, res: res})
	}
	return res
}

// subagentEntry is one Agent/Task call's fact and, when its work is at risk,
// its item.
type subagentEntry struct {
	call *model.SubagentCall
	fact model.SubagentFact
	item *killedItem
}

// subagentResult is the subagents step's result.
type subagentResult struct {
	entries []subagentEntry
	// written are paths written by transcripts that are not killed work.
	written []string
}

// attemptResult is the attempts step's result: one fact per Workflow attempt
// (then per orphan line) and, at the same index, its item (nil when its work
// is not at risk). The facts step completes the facts in place and hands the
// slice on: a journal of 200,000 attempts made a second copy of them cost
// 77 MB.
type attemptResult struct {
	facts []model.AttemptFact // moved to the facts step (takeFacts)
	items []*killedItem
	taken bool
}

// takeFacts moves the attempt facts to the facts step, which completes them
// with what review, git and ships found: a move, not a share (a second copy
// of a 200,000-attempt journal's facts cost 77 MB). After it the attempts
// step's result no longer holds them, and a second take panics, so no step
// can read facts another step is writing.
func (r *attemptResult) takeFacts() []model.AttemptFact {
	if r.taken {
		panic("detect: the attempt facts were moved to the facts step already")
	}
	f := r.facts
	r.facts, r.taken = nil, true
	return f
}

// shipResult is the ships step's result.
type shipResult struct {
	ships   []model.ShipFact
	shipped bool
	// shippedAfter[i]: a ship action the classifier named ran after item
	// i's kill (nil when there are no items).
	shippedAfter []bool
}
