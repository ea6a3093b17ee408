package detect

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/pmcheck/pmcheck/analyze/detect/gitjoin"
	"github.com/pmcheck/pmcheck/analyze/interpret"
	"github.com/pmcheck/pmcheck/analyze/model"
)

// TestNameIndexAgreesWithNamedBy: the index finds exactly the items the
// one-item-at-a-time definition (namedBy, and equalsAnyFold for exact
// trailer values) finds, on random items and texts.
func TestNameIndexAgreesWithNamedBy(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	words := []string{"Fix", "the", "parser", "toolu_01ab", "a1234567", "A1234567", "Review", "login flow", "(no description)", "x"}
	pick := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(words[r.IntN(len(words))])
			if r.IntN(3) > 0 {
				b.WriteByte(' ')
			}
		}
		return b.String()
	}
	for round := 0; round < 300; round++ {
		var items []*killedItem
		for i := range 1 + r.IntN(6) {
			kind := "subagent"
			if i%3 == 2 {
				kind = "attempt"
			}
			items = append(items, &killedItem{kind: kind, id: pick(1 + r.IntN(2)), toolUseID: pick(r.IntN(2)), name: pick(1 + r.IntN(8))})
		}
		idx := newNameIndex(items)
		for k := range 12 {
			text := pick(r.IntN(24))
			if k%3 == 0 {
				// Names longer than the automaton's indexed prefix must
				// still be confirmed whole: embed one, cut or not.
				name := items[r.IntN(len(items))].name
				if r.IntN(2) == 0 {
					name = name[:r.IntN(len(name)+1)]
				}
				text = pick(r.IntN(3)) + name + pick(r.IntN(3))
			}
			for _, exact := range []bool{false, true} {
				want := []int{}
				for i, k := range items {
					if k.namedBy(text) || exact && equalsAnyFold(text, k.names()) {
						want = append(want, i)
					}
				}
				if got := idx.named(text, exact); !reflect.DeepEqual(got, want) {
					t.Fatalf("text %q exact %v: index %v, namedBy %v (items %+v)", text, exact, got, want, items)
				}
			}
		}
	}
}

// reviewRun is a session with n killed foreground agents, then n review
// agents, each with a long prompt naming one of them.
func reviewRun(n int) *model.Run {
	t0 := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	main := &model.Transcript{File: "s.jsonl"}
	run := &model.Run{Kind: model.KindSession, ID: "s", Path: "s.jsonl", Main: main}
	filler := strings.Repeat("Check every change, line by line, against the tests. ", 80)
	at := func(line int) model.Evidence {
		return model.Evidence{File: "s.jsonl", Line: line, Time: t0.Add(time.Duration(line) * time.Second)}
	}
	for i := range n {
		c := model.NewToolCall(model.CallInput{ID: fmt.Sprintf("toolu_kill%06d", i), Name: "Agent", Description: fmt.Sprintf("Refactor module %06d", i), At: at(2 * i)})
		res := model.NewToolResult(model.ResultInput{ToolUseID: c.ID(), IsError: true, Text: "boom", At: at(2*i + 1)})
		run.Subagents = append(run.Subagents, &model.SubagentCall{Call: c, Owner: "s.jsonl", ToolUseID: c.ID(), Description: c.Description(), Mode: model.ModeSync, At: c.At(), Result: res, ResultAt: new(res.At())})
	}
	for i := range n {
		c := model.NewToolCall(model.CallInput{ID: fmt.Sprintf("toolu_rev%06d", i), Name: "Agent", Description: fmt.Sprintf("Review module %06d", i),
			Prompt: filler + fmt.Sprintf("The subagent toolu_kill%06d was killed; review it.", i), At: at(2*n + 2*i)})
		res := model.NewToolResult(model.ResultInput{ToolUseID: c.ID(), Text: "Reviewed.", At: at(2*n + 2*i + 1)})
		run.Subagents = append(run.Subagents, &model.SubagentCall{Call: c, Owner: "s.jsonl", ToolUseID: c.ID(), Description: c.Description(), SubagentType: "code-reviewer", Mode: model.ModeSync, At: c.At(), Result: res, ResultAt: new(res.At())})
	}
	return run
}

// BenchmarkReviewEvidence: n killed agents and n review agents. The time per
// op grows linearly with n (each prompt is read once); naming every item in
// every prompt grew with n².
func BenchmarkReviewEvidence(b *testing.B) {
	for _, n := range []int{250, 1000, 4000} {
		run := reviewRun(n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				f := Analyze(run, Options{})
				if !f.Subagents[0].Reviewed {
					b.Fatal("not reviewed")
				}
			}
		})
	}
}

// killedManyRun is a session whose main transcript has n foreground agents
// killed under Signature A and a segment mark between every two calls.
func killedManyRun(n int) *model.Run {
	t0 := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	main := &model.Transcript{File: "s.jsonl"}
	run := &model.Run{Kind: model.KindSession, ID: "s", Path: "s.jsonl", Main: main}
	mark := interpret.FindMarks(interpret.EncodeMark(nil))[0]
	at := func(line int) model.Evidence {
		return model.Evidence{File: "s.jsonl", Line: line, Time: t0.Add(time.Duration(line) * time.Second)}
	}
	for i := range n {
		c := model.NewToolCall(model.CallInput{ID: fmt.Sprintf("toolu_kill%06d", i), Name: "Agent", Description: fmt.Sprintf("Refactor module %06d", i), At: at(3 * i)})
		res := model.NewToolResult(model.ResultInput{ToolUseID: c.ID(), IsError: true, HasPartialNotice: true, StartsWithAPIErrorPrefix: true, At: at(3*i + 1)})
		c.Result = res
		main.ToolCalls = append(main.ToolCalls, c)
		main.ToolResults = append(main.ToolResults, res)
		main.Marks = append(main.Marks, model.Mark{At: at(3*i + 2), Outstanding: mark[0], Payload: mark[1]})
		run.Subagents = append(run.Subagents, &model.SubagentCall{Call: c, Owner: "s.jsonl", ToolUseID: c.ID(), Description: c.Description(), Mode: model.ModeSync, At: c.At(), Result: res, ResultAt: new(res.At())})
	}
	return run
}

// BenchmarkKilledSubagentsAndMarks: n killed agents and n segment marks.
// Each call's hit and segment are a map lookup and a binary search, so time
// per op grows as n·log n; scanning every hit and every mark per call grew
// with n².
func BenchmarkKilledSubagentsAndMarks(b *testing.B) {
	for _, n := range []int{2000, 8000, 32000} {
		run := killedManyRun(n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				f := Analyze(run, Options{})
				if !f.Subagents[n-1].Killed || f.Subagents[n-1].Segment != n {
					b.Fatalf("last subagent: %+v", f.Subagents[n-1])
				}
			}
		})
	}
}

// TestReviewerMatchedByWord: a reviewer keyword must start a word of the
// description or subagent type; "Preview docs" contains the letters of
// "review" and is not a review.
func TestReviewerMatchedByWord(t *testing.T) {
	a := &analysis{opts: Options{}.WithDefaults()}
	for desc, want := range map[string]bool{
		"Review the parser":          true,
		"Code review of login.go":    true,
		"Re-review the killed agent": true,
		"Preview docs":               false,
		"Build the overview page":    false,
		"Fix the parser":             false,
	} {
		if got := a.isReviewer(&model.SubagentCall{Description: desc}); got != want {
			t.Errorf("%q: reviewer %v, want %v", desc, got, want)
		}
	}
	if !a.isReviewer(&model.SubagentCall{Description: "Check it", SubagentType: "code-reviewer"}) {
		t.Error("subagent type code-reviewer is a reviewer")
	}
}

// reviewCase is a killed foreground agent at line 3, then one more
// completed Agent call at the given line with the given description.
func reviewCase(reviewLine int, desc string) *model.Run {
	t0 := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	at := func(line int) model.Evidence {
		return model.Evidence{File: "s.jsonl", Line: line, Time: t0.Add(time.Duration(line) * time.Second)}
	}
	run := &model.Run{Kind: model.KindSession, ID: "s", Path: "s.jsonl", Main: &model.Transcript{File: "s.jsonl"}}
	kill := model.NewToolCall(model.CallInput{ID: "toolu_killed01", Name: "Agent", Description: "Refactor the billing module", At: at(2)})
	kres := model.NewToolResult(model.ResultInput{ToolUseID: kill.ID(), IsError: true, Text: "boom", At: at(3)})
	rev := model.NewToolCall(model.CallInput{ID: "toolu_review01", Name: "Agent", Description: desc, Prompt: "Look at what toolu_killed01 left behind.", At: at(reviewLine)})
	rres := model.NewToolResult(model.ResultInput{ToolUseID: rev.ID(), Text: "Done.", At: at(reviewLine + 1)})
	run.Subagents = []*model.SubagentCall{
		{Call: kill, Owner: "s.jsonl", ToolUseID: kill.ID(), Description: kill.Description(), Mode: model.ModeSync, At: kill.At(), Result: kres, ResultAt: new(kres.At())},
		{Call: rev, Owner: "s.jsonl", ToolUseID: rev.ID(), Description: rev.Description(), Mode: model.ModeSync, At: rev.At(), Result: rres, ResultAt: new(rres.At())},
	}
	return run
}

// TestReviewMustBeAReviewAfterTheKill: the one extra call that clears the
// kill must be a reviewer by word, and start after the kill was visible.
func TestReviewMustBeAReviewAfterTheKill(t *testing.T) {
	for _, c := range []struct {
		line int
		desc string
		want bool
	}{
		{10, "Review the billing refactor", true},
		{10, "Preview docs", false},
		{1, "Review the billing refactor", false}, // launched before the kill
	} {
		f := Analyze(reviewCase(c.line, c.desc), Options{})
		if got := f.Subagents[0].Reviewed; got != c.want {
			t.Errorf("%q at line %d: reviewed %v, want %v (%v)", c.desc, c.line, got, c.want, f.Subagents[0].ReviewEvidence)
		}
	}
}

// TestStrictReviewCountsOnlyOthersTrailers: with AgentAuthors set, a review
// subagent does not count, nor a trailer on a commit the agent authored or
// committed; a trailer on someone else's commit does.
func TestStrictReviewCountsOnlyOthersTrailers(t *testing.T) {
	trailer := []gitjoin.Trailer{{Key: "Reviewed-Killed-Agent", Value: "toolu_killed01"}}
	byAgent := gitjoin.Commit{ID: "aaaaaaaa1", AuthorEmail: "agent@bots.example", CommitterEmail: "agent@bots.example", Trailers: trailer}
	committedByAgent := gitjoin.Commit{ID: "bbbbbbbb2", AuthorEmail: "dev@example.com", CommitterEmail: "agent@bots.example", Trailers: trailer}
	byHuman := gitjoin.Commit{ID: "cccccccc3", AuthorEmail: "dev@example.com", CommitterEmail: "dev@example.com", Trailers: trailer, Verified: true}
	unsigned := gitjoin.Commit{ID: "dddddddd4", AuthorEmail: "dev@example.com", CommitterEmail: "dev@example.com", Trailers: trailer}
	signedByAgent := gitjoin.Commit{ID: "eeeeeeee5", AuthorEmail: "agent@bots.example", CommitterEmail: "agent@bots.example", Trailers: trailer, Verified: true}
	strict := ReviewOptions{AgentAuthors: []string{"*@bots.example"}}
	for _, c := range []struct {
		name    string
		commits []gitjoin.Commit
		review  ReviewOptions
		want    bool
	}{
		{"lenient: a review subagent counts", nil, ReviewOptions{}, true},
		{"strict: a review subagent does not", nil, strict, false},
		{"strict: the agent's own trailer does not", []gitjoin.Commit{byAgent, committedByAgent}, strict, false},
		{"strict: a human's trailer does", []gitjoin.Commit{byAgent, byHuman}, strict, true},
		{"strict: a human's e-mail on an unsigned commit does not", []gitjoin.Commit{unsigned}, strict, false},
		{"strict: the agent's signed commit does not", []gitjoin.Commit{signedByAgent}, strict, false},
	} {
		opts := Options{Review: c.review, Git: &gitjoin.Branch{Name: "feat", Commits: c.commits}}
		f := Analyze(reviewCase(10, "Review the billing refactor"), opts)
		if got := f.Subagents[0].Reviewed; got != c.want {
			t.Errorf("%s: reviewed %v, want %v (%v)", c.name, got, c.want, f.Subagents[0].ReviewEvidence)
		}
	}
}
