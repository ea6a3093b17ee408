package replay

import (
	"time"

	"github.com/pmcheck/pmcheck/analyze/model"
)

// SetSplitAgents sets the number of subagents from which a session's replay
// runs in halves, and returns a function that puts it back.
func SetSplitAgents(n int) (restore func()) {
	was := splitAgents
	splitAgents = n
	return func() { splitAgents = was }
}

// LiveMemo is the live watchdogs' memo of each attempt's watchdogs.
type LiveMemo = liveMemo

// AttemptWatchdogsLive is the live watchdogs' replay of run from origin,
// through memo when it is not nil.
func AttemptWatchdogsLive(run *model.Run, origin time.Time, memo LiveMemo) []WatchdogEvent {
	return attemptWatchdogsMemo(run, origin, origin, DefaultWatchdogOptions(), true, memo)
}

// AttemptWatchdogsLiveWith is AttemptWatchdogsLive with options o.
func AttemptWatchdogsLiveWith(run *model.Run, origin time.Time, o WatchdogOptions, memo LiveMemo) []WatchdogEvent {
	return attemptWatchdogsMemo(run, origin, origin, o, true, memo)
}

// LiveState is what memo keeps of an attempt (nil: nothing): the same
// value at two polls means the second resumed the first's watchdogs.
func LiveState(memo LiveMemo, key string, ordinal int) any {
	if st, ok := memo[handle{key, ordinal}]; ok {
		return st
	}
	return nil
}
