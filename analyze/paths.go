package analyze

import (
	"path/filepath"

	"github.com/pmcheck/pmcheck/analyze/layout"
)

// JournalName is a Workflow run directory's journal file name.
const JournalName = layout.Journal

// ParentOfRunOnDisk is the session transcript (an OS path) that launched the
// run directory dir: <session>.jsonl beside <session>/subagents/workflows/<run>.
func ParentOfRunOnDisk(dir string) string { return layout.ParentOfRunOnDisk(dir) }

// Where a session's files sit, for collect, which copies what check reads
// of a session (package layout owns the shapes).

// SubagentsFolder is the name of the folder, beside a session transcript's
// folder, that holds its subagents' files and its Workflow runs.
const SubagentsFolder = layout.SubagentsFolder

// SubagentsDirOnDisk is a session folder's subagents folder (OS paths).
func SubagentsDirOnDisk(sessionFolder string) string { return layout.SubagentsDirOnDisk(sessionFolder) }

// IsAgentName reports whether a file name is an agent transcript's
// (agent-<id>.jsonl, the legacy layout's beside a session included).
func IsAgentName(name string) bool { return layout.IsAgentName(name) }

// SessionIDOf is the session id a session transcript's file name carries.
func SessionIDOf(name string) string { return layout.SessionIDOf(name) }

// What check reads a file under a session's subagents folder as
// (SessionFileKind).
const (
	FileWorkflowJournal = "workflow-journal"
	FileSidecar         = "sidecar"
	FileSubagent        = "subagent"
	FileWorkflowAgent   = "workflow-agent"
)

// SessionFileKind says what check reads a file under a session's
// subagents folder as (p is its path, OS or slash-separated): a Workflow
// run's journal, a subagent's sidecar, a subagent's transcript, a Workflow
// attempt's transcript; "" for a file check does not read.
func SessionFileKind(p string) string {
	name := filepath.Base(p)
	switch {
	case name == layout.Journal:
		return FileWorkflowJournal
	case layout.HasMetaExt(name):
		return FileSidecar
	case layout.IsTranscriptName(name) && layout.InWorkflowRun(filepath.ToSlash(p)):
		return FileWorkflowAgent
	case layout.IsTranscriptName(name):
		return FileSubagent
	}
	return ""
}
