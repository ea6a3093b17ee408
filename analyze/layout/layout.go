// Package layout owns every on-disk path shape of Claude Code's runs; no other
// file of pmcheck takes a path apart. Paths here are root-relative and
// slash-separated unless a function says otherwise:
//
//	<dir>/<sessionId>.jsonl                                   a session transcript
//	<dir>/<sessionId>/subagents/agent-<id>.jsonl              its subagents (current layout;
//	<dir>/<sessionId>/subagents/**/agent-<id>.jsonl            nested folders allowed)
//	<dir>/agent-<id>.jsonl                                    a subagent (legacy layout, beside the session)
//	…/agent-<id>.meta.json                                    a subagent's sidecar
//	<dir>/<sessionId>/subagents/workflows/<runId>/journal.jsonl   a Workflow run directory
//	<dir>/<sessionId>/subagents/workflows/<runId>/agent-<id>.jsonl its attempts' transcripts
package layout

import (
	"path"
	"path/filepath"
	"strings"
)

// File and folder names of the layout.
const (
	// Journal is a Workflow run directory's journal.
	Journal      = "journal.jsonl"
	transcript   = ".jsonl"
	meta         = ".meta.json"
	agentPrefix  = "agent-"
	subagents    = "subagents"
	workflows    = "workflows"
	subagentsDir = "/" + subagents + "/"
)

// IsTranscriptName reports whether a file name is a JSONL transcript's.
func IsTranscriptName(name string) bool { return strings.HasSuffix(name, transcript) }

// AgentIDFromName returns the id of an agent transcript file name
// (agent-<id>.jsonl), or "" when the name has another shape.
func AgentIDFromName(name string) string {
	if !strings.HasPrefix(name, agentPrefix) || !strings.HasSuffix(name, transcript) {
		return ""
	}
	return strings.TrimSuffix(strings.TrimPrefix(name, agentPrefix), transcript)
}

// IsMetaName reports whether a file name is an agent sidecar's
// (agent-<id>.meta.json).
func IsMetaName(name string) bool {
	return strings.HasPrefix(name, agentPrefix) && strings.HasSuffix(name, meta)
}

// IsStreamName reports whether a file name may be an Agent SDK message
// stream written as a JSON array (the GitHub action's execution file,
// claude-execution-output.json): any .json file but a sidecar. Only its
// first element tells (analyze/sdkrun.go).
func IsStreamName(name string) bool { return strings.HasSuffix(name, ".json") && !IsMetaName(name) }

// MetaOf is the sidecar path of an agent transcript path.
func MetaOf(agentFile string) string { return strings.TrimSuffix(agentFile, transcript) + meta }

// Stem is a session transcript's path without ".jsonl": the folder that
// holds its subagents and Workflow runs.
func Stem(session string) string { return strings.TrimSuffix(session, transcript) }

// SessionIDOf is the session id a transcript's file name carries.
func SessionIDOf(session string) string { return Stem(path.Base(session)) }

// SessionOfStem is the session transcript of a stem (the inverse of Stem).
func SessionOfStem(stem string) string { return stem + transcript }

// InWorkflowRun reports whether an agent transcript belongs to a Workflow
// run directory (…/workflows/<runId>/…) rather than to a session.
func InWorkflowRun(rel string) bool {
	return strings.Contains(rel, "/"+workflows+"/")
}

// OwnSubagent reports whether an agent file is one of the session's own
// subagents in the current layout: under <stem>/subagents/, not in a
// Workflow run directory there.
func OwnSubagent(session, f string) bool {
	side := Stem(session) + subagentsDir
	return strings.HasPrefix(f, side) && !strings.HasPrefix(f, side+workflows+"/")
}

// Beside reports whether an agent file sits in the session's own folder
// (the legacy layout).
func Beside(session, f string) bool { return path.Dir(f) == path.Dir(session) }

// SubagentStems calls fn with every session stem whose subagents folder
// holds f: each prefix of f that ends before a "/subagents/".
func SubagentStems(f string, fn func(stem string)) {
	for i := 0; ; {
		j := strings.Index(f[i:], subagentsDir)
		if j < 0 {
			return
		}
		fn(f[:i+j])
		i += j + 1
	}
}

// OwnerFolder is the folder an agent file belongs to when its parent
// transcript is missing: the session stem before its last "/subagents/"
// ("." for a subagents folder at the root), else its own folder.
func OwnerFolder(f string) string {
	if i := strings.LastIndex(f, subagentsDir); i >= 0 {
		return f[:i]
	}
	if strings.HasPrefix(f, subagents+"/") {
		return "."
	}
	return path.Dir(f)
}

// RunDir is the directory of Workflow run runID launched by a session.
func RunDir(session, runID string) string {
	return Stem(session) + subagentsDir + workflows + "/" + runID
}

// RunID is a Workflow run directory's id: its name.
func RunID(dir string) string { return path.Base(dir) }

// ParentOfRun returns the session transcript that launched a run directory
// (<stem>/subagents/workflows/<runId> -> <stem>.jsonl), or false when the
// directory is not in that layout.
func ParentOfRun(dir string) (string, bool) {
	parts := strings.Split(dir, "/")
	if len(parts) < 4 || parts[len(parts)-2] != workflows || parts[len(parts)-3] != subagents {
		return "", false
	}
	return SessionOfStem(strings.Join(parts[:len(parts)-3], "/")), true
}

// ExpectedRunLayout names the layout ParentOfRun needs, for messages.
const ExpectedRunLayout = "<sessionId>/" + subagents + "/" + workflows + "/<runId>"

// JournalOf is a run directory's journal path.
func JournalOf(dir string) string { return path.Join(dir, Journal) }

// WorkflowRoot returns, for a run directory on disk (an OS path), the root
// that holds its parent transcript (<root>/<sessionId>/subagents/workflows/<runId>)
// and the run directory relative to it (slash-separated). A run directory in
// another layout is its own root (".").
func WorkflowRoot(dir string) (root, rel string) {
	clean := filepath.Clean(dir)
	wf := filepath.Dir(clean)
	sub := filepath.Dir(wf)
	if filepath.Base(wf) == workflows && filepath.Base(sub) == subagents {
		top := filepath.Dir(filepath.Dir(sub))
		if r, err := filepath.Rel(top, clean); err == nil {
			return top, filepath.ToSlash(r)
		}
	}
	return clean, "."
}

// LooksLikeRunDir reports whether an OS path names a Workflow run directory
// by its shape (a wf_ name, or a folder inside workflows/), even when its
// journal is missing.
func LooksLikeRunDir(dir string) bool {
	clean := filepath.Clean(dir)
	return strings.HasPrefix(filepath.Base(clean), "wf_") || filepath.Base(filepath.Dir(clean)) == workflows
}

// RunDirOnDisk is the OS path of the run directory a session transcript (an
// OS path) launched.
func RunDirOnDisk(sessionFile, runID string) string {
	return filepath.Join(filepath.Dir(sessionFile), Stem(filepath.Base(sessionFile)), subagents, workflows, runID)
}

// ShardKey is what keeps a session and its folder together: a path's first
// component without ".jsonl" (<id>.jsonl and <id>/ give the same key).
func ShardKey(rel string) string {
	first, _, _ := strings.Cut(rel, "/")
	return Stem(first)
}

// ParentOfRunOnDisk is the session transcript (an OS path) that launched the
// run directory dir (an OS path in the usual layout):
// <session>.jsonl beside <session>/subagents/workflows/<run>.
func ParentOfRunOnDisk(dir string) string {
	return SessionOfStem(filepath.Dir(filepath.Dir(filepath.Dir(filepath.Clean(dir)))))
}

// SubagentsFolder is the name of a session's folder of subagent transcripts.
const SubagentsFolder = subagents

// SubagentsDirOnDisk is a session folder's subagents folder (OS paths).
func SubagentsDirOnDisk(sessionFolder string) string { return filepath.Join(sessionFolder, subagents) }

// HasMetaExt reports whether a file name ends like a sidecar's (.meta.json).
func HasMetaExt(name string) bool { return strings.HasSuffix(name, meta) }

// IsAgentName reports whether a file name is an agent transcript's
// (agent-<id>.jsonl, legacy layout included).
func IsAgentName(name string) bool { return AgentIDFromName(name) != "" }
