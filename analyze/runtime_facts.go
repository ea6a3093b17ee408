package analyze

import (
	"fmt"
	"slices"

	"github.com/pmcheck/pmcheck/analyze/interpret"
	"github.com/pmcheck/pmcheck/analyze/model"
)

// withRuntime adds what a stream's runtime says of its run to the run's
// fact: the format read, how the run ended (package interpret decides),
// the permission denials, and the runtime's own subagent counts next to
// the ones derived from the messages, with every count where they differ.
// Session runs are left as they are.
func withRuntime(f *model.Facts, run *model.Run) {
	rt := run.Runtime
	if rt == nil {
		return
	}
	rf := &f.Run
	rf.Source = "sdk-stream"
	if len(rt.SessionFiles) > 0 {
		rf.Source = "sdk-stream+session-files"
	}
	rf.StreamFormat = rt.Format
	rf.Reasons = append(rf.Reasons, model.Reason{What: fmt.Sprintf("read from an Agent SDK message stream (%s, %d messages); rows only session files hold (agent_progress, sidechain flags, the first prompt) are not in it", rt.Format, rt.Messages), At: model.Evidence{File: rt.File}})
	for _, d := range rt.Disagreements {
		rf.Reasons = append(rf.Reasons, model.Reason{What: "stream and session files disagree: " + d.Message, At: d.At})
	}
	end := interpret.RunEnding(rt, run.Main)
	rf.Ending, rf.EndingDetail = end.Ending, end.Detail
	rf.Reasons = append(rf.Reasons, model.Reason{What: "run ended: " + end.Ending + " (" + end.Detail + ")", At: end.At})
	res := rt.Result
	if res == nil {
		return
	}
	rf.PermissionDenials = len(res.PermissionDenials)
	for _, d := range res.PermissionDenials {
		rf.Reasons = append(rf.Reasons, model.Reason{What: "permission denied: " + d.Tool + " call " + d.ToolUseID, At: res.At})
	}
	if res.SubagentStats == nil {
		return
	}
	rf.RuntimeCounted = true
	derived := deriveStats(run, f.Subagents)
	rf.DerivedStats = derived
	// A stream has a result per turn (a background agent's end starts a
	// turn of its own). Whether a result counts its turn or the run so far
	// is not documented: the counts are compared both ways, summed over
	// the results and as the last one says, and a count disagrees only
	// when it does either way; the reading that agrees best is reported.
	stats, how := res.SubagentStats, ""
	rf.CountsDisagree = compareStats(stats, derived)
	if sum, n := summedStats(rt.Results); n > 1 {
		if d := compareStats(sum, derived); len(d) < len(rf.CountsDisagree) {
			stats, rf.CountsDisagree = sum, d
			how = fmt.Sprintf(" (summed over %d result messages, one per turn)", n)
		} else {
			how = fmt.Sprintf(" (the last of %d result messages)", n)
		}
	}
	rf.RuntimeStats = stats
	what := "the runtime's subagent_stats" + how + " agree with the messages"
	if len(rf.CountsDisagree) > 0 {
		what = fmt.Sprintf("the runtime's subagent_stats%s differ from the messages in %d counts", how, len(rf.CountsDisagree))
	}
	rf.Reasons = append(rf.Reasons, model.Reason{What: what, At: res.At})
	for _, d := range rf.CountsDisagree {
		rf.Reasons = append(rf.Reasons, model.Reason{What: d, At: res.At})
	}
}

// summedStats adds up the subagent_stats of the results that carry them,
// and says how many do.
func summedStats(results []*model.RuntimeResult) (*model.SubagentStats, int) {
	sum := &model.SubagentStats{}
	n := 0
	for _, r := range results {
		if r.SubagentStats != nil {
			sum.Add(r.SubagentStats)
			n++
		}
	}
	return sum, n
}

// deriveStats counts the subagents as the messages show them, in the
// runtime's categories. A call started when anything shows its agent ran
// (its messages, an agent id, a task_started row); of the others, one
// whose error result names a spawn limit was refused (interpret decides),
// and the rest (permission denials, input the runtime rejected) are
// neither. Outcomes are interpret's.
func deriveStats(run *model.Run, facts []model.SubagentFact) *model.SubagentStats {
	st := &model.SubagentStats{ByType: map[string]int{}}
	outcome := map[string]string{}
	for _, f := range facts {
		outcome[f.ToolUseID] = f.Outcome
	}
	started := map[string]bool{}
	for _, t := range run.Runtime.Tasks {
		if t.ToolUseID != "" {
			started[t.ToolUseID] = true
		}
	}
	depth := map[*model.Transcript]int{run.Main: 0}
	byFile := map[string]*model.Transcript{} // a session-file run's owners
	for _, t := range append([]*model.Transcript{run.Main}, run.Agents...) {
		if t != nil {
			byFile[t.File] = t
		}
	}
	for _, sc := range run.Subagents {
		if model.CopiedCall(sc) {
			continue
		}
		owner := sc.OwnerTranscript
		if owner == nil {
			owner = byFile[sc.Owner]
		}
		d := depth[owner] + 1
		if sc.Child != nil {
			depth[sc.Child] = d
		}
		if !interpret.Started(sc, started[sc.ToolUseID]) {
			if interpret.RefusedBySpawnLimit(sc) {
				st.Refused.DepthLimit++ // which limit is not told apart: compared as a total
			}
			continue
		}
		st.Spawned++
		st.MaxDepth = max(st.MaxDepth, d)
		if owner != nil && owner != run.Main {
			st.SpawnedBySubagents++
		}
		typ := sc.SubagentType
		if typ == "" {
			typ = "general-purpose"
		}
		st.ByType[typ]++
		switch interpret.RuntimeTally(sc, outcome[sc.ToolUseID], started[sc.ToolUseID]) {
		case interpret.TallyCompleted:
			st.Completed++
		case interpret.TallyFailed:
			st.Failed++
		case interpret.TallyKilled:
			st.Killed.System++ // who killed it is not in the messages
		}
	}
	return st
}

// compareStats lists the counts where the runtime and the messages
// differ, each with both numbers.
func compareStats(rt, derived *model.SubagentStats) []string {
	var out []string
	cmp := func(name string, runtime, messages int) {
		if runtime != messages {
			out = append(out, fmt.Sprintf("%s: the runtime counted %d, the messages show %d", name, runtime, messages))
		}
	}
	cmp("spawned", rt.Spawned, derived.Spawned)
	cmp("completed", rt.Completed, derived.Completed)
	cmp("failed", rt.Failed, derived.Failed)
	if rt.KilledTotal() != derived.KilledTotal() {
		out = append(out, fmt.Sprintf("killed: the runtime counted %d (parent %d, user %d, system %d), the messages show %d",
			rt.KilledTotal(), rt.Killed.Parent, rt.Killed.User, rt.Killed.System, derived.KilledTotal()))
	}
	if rt.RefusedTotal() != derived.RefusedTotal() {
		out = append(out, fmt.Sprintf("refused: the runtime counted %d (depth limit %d, concurrency limit %d, budget %d), the messages show %d calls that never started",
			rt.RefusedTotal(), rt.Refused.DepthLimit, rt.Refused.ConcurrencyLimit, rt.Refused.Budget, derived.RefusedTotal()))
	}
	cmp("spawned by subagents", rt.SpawnedBySubagents, derived.SpawnedBySubagents)
	cmp("max depth", rt.MaxDepth, derived.MaxDepth)
	if rt.ByType != nil {
		types := map[string]bool{}
		for k := range rt.ByType {
			types[k] = true
		}
		for k := range derived.ByType {
			types[k] = true
		}
		keys := make([]string, 0, len(types))
		for k := range types {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			cmp(fmt.Sprintf("by type %q", k), rt.ByType[k], derived.ByType[k])
		}
	}
	return out
}
