package layout

import "path"

// SubagentFileOf is where a session's subagent transcript sits in a
// project folder, for one written there (a checkpoint's subagent is laid
// out as Claude Code lays it out, so the loader links it to its session):
// <session stem>/subagents/agent-<id>.jsonl beside the session file.
func SubagentFileOf(session, agentID string) string {
	return path.Join(path.Dir(session), Stem(path.Base(session)), subagents, agentPrefix+agentID+transcript)
}
