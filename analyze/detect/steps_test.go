package detect

import (
	"strings"
	"testing"

	"github.com/pmcheck/pmcheck/analyze/model"
)

// TestStepsRunAfterWhatTheyRequire: every step runs once, after each step it
// requires, and the final step needs every step.
func TestStepsRunAfterWhatTheyRequire(t *testing.T) {
	steps := order(factsStep)
	pos := map[*step]int{}
	for i, s := range steps {
		if _, dup := pos[s]; dup {
			t.Fatalf("step %s runs twice", s.name)
		}
		pos[s] = i
	}
	for _, s := range steps {
		for _, r := range s.requires {
			if pos[r] >= pos[s] {
				t.Errorf("step %s runs before %s, which it requires", s.name, r.name)
			}
		}
	}
	for _, s := range []*step{runStep, subagentsStep, attemptsStep, itemsStep, reviewStep, gitStep, shipsStep} {
		if _, ok := pos[s]; !ok {
			t.Errorf("step %s never runs", s.name)
		}
	}
}

// TestUndeclaredResultPanics: a step that reads a result it did not require
// fails loudly instead of reading whatever happens to be there.
func TestUndeclaredResultPanics(t *testing.T) {
	defer func() {
		r := recover()
		if r == nil || !strings.Contains(r.(string), `step "ships" reads the result of "git" without requiring it`) {
			t.Fatalf("recovered %v", r)
		}
	}()
	a := &analysis{run: &model.Run{}}
	p := &pass{analysis: a, step: shipsStep, res: &results{}}
	p.branch()
}

// TestAttemptFactsAreMovedOnce: the facts step takes the attempt facts from
// the attempts step's result, which then holds none, and a second take
// panics: no two steps can hold the same facts to write.
func TestAttemptFactsAreMovedOnce(t *testing.T) {
	r := &attemptResult{facts: make([]model.AttemptFact, 2)}
	if got := r.takeFacts(); len(got) != 2 || r.facts != nil {
		t.Fatalf("took %d facts, %d left behind; want 2 taken and none left", len(got), len(r.facts))
	}
	defer func() {
		if p := recover(); p == nil || !strings.Contains(p.(string), "moved to the facts step already") {
			t.Fatalf("a second take recovered %v, want a panic", p)
		}
	}()
	r.takeFacts()
}
