package analyze

import "github.com/pmcheck/pmcheck/analyze/layout"

// JournalName is a Workflow run directory's journal file name.
const JournalName = layout.Journal

// ParentOfRunOnDisk is the session transcript (an OS path) that launched the
// run directory dir: <session>.jsonl beside <session>/subagents/workflows/<run>.
func ParentOfRunOnDisk(dir string) string { return layout.ParentOfRunOnDisk(dir) }
