package detect

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pmcheck/pmcheck/analyze/detect/ship"
	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/internal/allocs"
)

// TestReviewEvidenceGrowsLinearly (issue 12, item 12; BenchmarkReviewEvidence
// shows the time): n killed agents and n review agents with long prompts.
// Every (killed, review) pair used to build and lower-case the review's
// prompt to look for the killed agent's names (an 11 MB transcript took
// 114 s); each prompt is now read once through an index of every name.
func TestReviewEvidenceGrowsLinearly(t *testing.T) {
	measure := func(n int) (uint64, uint64) {
		run := reviewRun(n)
		var reviewed bool
		b, m := allocs.Measure(func() {
			f := Analyze(run, Options{})
			reviewed = f.Subagents[0].Reviewed && f.Subagents[n-1].Reviewed
		})
		if !reviewed {
			t.Fatalf("n=%d: the killed agents are not reviewed", n)
		}
		return b, m
	}
	sb, sm := measure(100)
	lb, lm := measure(400)
	t.Logf("bytes %d -> %d, allocations %d -> %d", sb, lb, sm, lm)
	if r := float64(lb) / float64(sb); r > 5 {
		t.Errorf("4x the agents allocated %.1fx the bytes: review evidence is not linear", r)
	}
	if r := float64(lm) / float64(sm); r > 5 {
		t.Errorf("4x the agents made %.1fx the allocations: review evidence is not linear", r)
	}
}

// TestPerCallLookupsGrowLinearly (issue 12, item 12;
// BenchmarkKilledSubagentsAndMarks shows the time): n killed agents, a
// segment mark after each, and an output poll of each; then the same run
// without the marks, so that every kill is a hit in the window. For every call the
// facts look up its resume-gate hit, its segment and its polls; each used to
// be a pass over every hit, every mark or every tool call of the transcript
// (n² in all: 32,000 killed agents took 28 s). Counted as the hits, marks and
// poll results looked at: now a map lookup, a binary search and the agent's
// own polls per call.
func TestPerCallLookupsGrowLinearly(t *testing.T) {
	var visits int
	countLookups = func(n int) { visits += n }
	defer func() { countLookups = nil }()
	measure := func(n int) int {
		run := killedManyRun(n)
		main := run.Main
		for i, sc := range run.Subagents {
			sc.AgentID = fmt.Sprintf("a%016d", i)
			poll := model.NewToolCall(model.CallInput{ID: fmt.Sprintf("toolu_poll%06d", i), Name: "TaskOutput", TaskID: sc.AgentID, At: sc.At,
				Result: model.NewToolResult(model.ResultInput{ToolUseID: fmt.Sprintf("toolu_poll%06d", i), At: sc.At, Extra: &model.ResultExtra{PollTaskID: sc.AgentID, PollStatus: "running"}})})
			main.ToolCalls = append(main.ToolCalls, poll)
		}
		visits = 0
		f := Analyze(run, Options{})
		if !f.Subagents[n-1].Killed || f.Subagents[n-1].Segment != n {
			t.Fatalf("n=%d: last subagent %+v", n, f.Subagents[n-1])
		}
		// Without the marks every kill is in the window: n hits to look up.
		run.Main.Marks = nil
		f = Analyze(run, Options{})
		if f.Subagents[n-1].Signature == "" || f.Subagents[0].Signature == "" {
			t.Fatalf("n=%d: the kills are not resume-gate hits: %+v", n, f.Subagents[n-1])
		}
		return visits
	}
	small, large := measure(1000), measure(4000)
	t.Logf("lookups looked at %d -> %d hits, marks and polls", small, large)
	if r := float64(large) / float64(small); r > 6 || large > 4000*25 {
		t.Errorf("4x the agents looked at %.1fx the hits, marks and polls (%d for 4,000 calls): the per-call lookups are not linear", r, large)
	}
}

// startedRun is a Workflow run of n attempts that were started and never
// returned, with no transcripts (bench/hostile's started-200k).
func startedRun(n int) *model.Run {
	run := &model.Run{Kind: model.KindWorkflow, ID: "wf1", Path: "s/subagents/workflows/wf1"}
	slab := make([]model.Attempt, n)
	for i := range slab {
		id := fmt.Sprintf("as%014d", i)
		slab[i] = model.Attempt{Key: "v2:s" + id, Ordinal: 1, AgentID: id, Started: model.Evidence{File: "s/subagents/workflows/wf1/journal.jsonl", Line: i + 1}}
		run.Attempts = append(run.Attempts, &slab[i])
	}
	return run
}

// TestAttemptFactsAllocateLittlePerAttempt (issue 12, started-200k;
// BenchmarkAnalyzeStarted shows the time): an attempt's fact is made in
// place in the list the facts hand on (it was made, then copied into a
// second list of 384-byte facts), and its item and reasons come from shared
// chunks; an attempt without a transcript shares one empty ledger. It was
// 1,411 bytes and 2 allocations per attempt, now about 940 bytes and 0.02
// allocations; 4x the attempts must stay 4x the cost.
func TestAttemptFactsAllocateLittlePerAttempt(t *testing.T) {
	measure := func(n int) (uint64, uint64) {
		run := startedRun(n)
		var f model.Facts
		b, m := allocs.Measure(func() { f = Analyze(run, Options{}) })
		if len(f.Attempts) != n || !f.Attempts[n-1].NeverReturned || len(f.Attempts[n-1].Reasons) != 1 {
			t.Fatalf("n=%d: %d attempt facts, last %+v", n, len(f.Attempts), f.Attempts[n-1])
		}
		return b, m
	}
	sb, sm := measure(5000)
	lb, lm := measure(20000)
	t.Logf("5,000 attempts: %d bytes, %d allocations; 20,000: %d bytes, %d allocations", sb, sm, lb, lm)
	if per := float64(lb) / 20000; per > 1100 {
		t.Errorf("%.0f bytes per attempt, want at most 1,100", per)
	}
	if per := float64(lm) / 20000; per > 0.5 {
		t.Errorf("%.2f allocations per attempt, want at most 0.5", per)
	}
	if r := float64(lb) / float64(sb); r > 5 {
		t.Errorf("4x the attempts allocated %.1fx the bytes", r)
	}
}

// BenchmarkAnalyzeStarted: the detectors over 20,000 started attempts
// without transcripts.
func BenchmarkAnalyzeStarted(b *testing.B) {
	run := startedRun(20000)
	b.ReportAllocs()
	for b.Loop() {
		Analyze(run, Options{})
	}
}

// TestOneAttemptKeepsLittle: the chunks of the attempts step start small, so
// a run of one attempt (a fleet has many) does not pay for a chunk sized for
// thousands: its reasons are kept with its facts (3,216 bytes for the whole
// analysis; chunks of 16 made it 7,184).
func TestOneAttemptKeepsLittle(t *testing.T) {
	run := startedRun(1)
	Analyze(run, Options{}) // what is made once per process
	b := allocs.LeastOf(3, func() { Analyze(run, Options{}) })
	t.Logf("one attempt: %d bytes", b)
	if b > 4500 {
		t.Errorf("analysing a run of one attempt allocated %d bytes, want at most 4,500", b)
	}
}

// TestClassificationsCopyOnlyWhatTheyKeep: a command whose analysis no
// longer fits in the check's cache is classified and handed back without a
// copy of its analysis (the cache used to copy every analysis, then find it
// too large to keep). Counted as the bytes one classification allocates,
// through the cache and without it.
func TestClassificationsCopyOnlyWhatTheyKeep(t *testing.T) {
	allocs.SkipUnderRace(t)
	var cmd strings.Builder
	cmd.WriteString("echo x")
	for i := range 40 {
		fmt.Fprintf(&cmd, " > out/a-rather-long-file-name-%d.txt", i)
	}
	command := cmd.String()
	opts := ship.Options{}
	if a := ship.Classify(command, opts); len(a.Writes) < 40 {
		t.Fatalf("%q: %d writes, want 40: the test measures nothing", command, len(a.Writes))
	}
	cache := NewClassifications()
	cache.bytes = maxClassificationBytes - 100 // room for no analysis of this size
	through := allocs.LeastPerCall(50, func() { cache.classify(command, opts) })
	alone := allocs.LeastPerCall(50, func() { ship.Classify(command, opts) })
	t.Logf("bytes a classification: through the cache %d, alone %d", through, alone)
	if cache.Len() != 0 {
		t.Fatalf("the cache kept %d entries past its bound", cache.Len())
	}
	if through > alone+64 {
		t.Errorf("a classification the cache cannot keep allocated %d bytes through it, %d alone: it copied the analysis it did not keep", through, alone)
	}
}
