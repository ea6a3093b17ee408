package detect

import (
	"github.com/pmcheck/pmcheck/analyze/interpret"
)

// Subagent outcomes (SubagentFact.Outcome); package interpret decides them.
const (
	OutcomeCompleted       = interpret.OutcomeCompleted
	OutcomeTerminatedEarly = interpret.OutcomeTerminatedEarly
	OutcomeOpenAtEnd       = interpret.OutcomeOpenAtEnd
	OutcomeRejected        = interpret.OutcomeRejected
)
