package layout

import "testing"

// TestShapes pins each path shape and its inverse, and the paths that are
// not in the shape.
func TestShapes(t *testing.T) {
	if got := RunDir("p/s1.jsonl", "wf_1"); got != "p/s1/subagents/workflows/wf_1" {
		t.Errorf("RunDir = %s", got)
	}
	for dir, want := range map[string]string{
		"p/s1/subagents/workflows/wf_1": "p/s1.jsonl",
		"s1/subagents/workflows/wf_1":   "s1.jsonl",
	} {
		if got, ok := ParentOfRun(dir); !ok || got != want {
			t.Errorf("ParentOfRun(%s) = %s %v, want %s", dir, got, ok, want)
		}
	}
	for _, dir := range []string{"wf_1", "subagents/workflows/wf_1", "p/s1/other/workflows/wf_1", "p/s1/subagents/wf/wf_1"} {
		if got, ok := ParentOfRun(dir); ok {
			t.Errorf("ParentOfRun(%s) = %s, want not in the layout", dir, got)
		}
	}
	if !OwnSubagent("p/s1.jsonl", "p/s1/subagents/agent-a1.jsonl") || !OwnSubagent("p/s1.jsonl", "p/s1/subagents/x/agent-a1.jsonl") {
		t.Error("own subagents not recognised")
	}
	if OwnSubagent("p/s1.jsonl", "p/s1/subagents/workflows/wf_1/agent-a1.jsonl") || OwnSubagent("p/s1.jsonl", "p/s10/subagents/agent-a1.jsonl") {
		t.Error("a Workflow attempt or another session's agent taken as the session's own")
	}
	if !Beside("p/s1.jsonl", "p/agent-a1.jsonl") || Beside("p/s1.jsonl", "q/agent-a1.jsonl") {
		t.Error("legacy layout")
	}
	if AgentIDFromName("agent-a1.jsonl") != "a1" || AgentIDFromName("a1.jsonl") != "" || AgentIDFromName("agent-a1.meta.json") != "" {
		t.Error("AgentIDFromName")
	}
	if MetaOf("p/agent-a1.jsonl") != "p/agent-a1.meta.json" || !IsMetaName("agent-a1.meta.json") || IsMetaName("x.meta.json") {
		t.Error("sidecars")
	}
	var stems []string
	SubagentStems("a/subagents/b/subagents/agent-x.jsonl", func(s string) { stems = append(stems, s) })
	if len(stems) != 2 || stems[0] != "a" || stems[1] != "a/subagents/b" {
		t.Errorf("stems = %v", stems)
	}
	for f, want := range map[string]string{"p/s1/subagents/agent-a.jsonl": "p/s1", "subagents/agent-a.jsonl": ".", "p/agent-a.jsonl": "p"} {
		if got := OwnerFolder(f); got != want {
			t.Errorf("OwnerFolder(%s) = %s, want %s", f, got, want)
		}
	}
	if !InWorkflowRun("p/s1/subagents/workflows/wf_1/agent-a.jsonl") || InWorkflowRun("p/s1/subagents/agent-a.jsonl") {
		t.Error("InWorkflowRun")
	}
	if ShardKey("s1.jsonl") != "s1" || ShardKey("s1/subagents/agent-a.jsonl") != "s1" {
		t.Error("ShardKey")
	}
}
