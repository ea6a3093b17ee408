package interpret

import (
	"github.com/pmcheck/pmcheck/analyze/model"
)

// Rule names, as reported in SubagentFact.Rule and Hit.Rule.
const (
	// RuleA: a tool_result that resolves to an Agent/Task call, contains the
	// harness's partial-output notice and begins with the API-error prefix.
	RuleA = "A:prefix-anchored"
	// RuleBQueue: the reference rule — task-notification queue operations for
	// an Agent/Task call whose enqueues outnumber removes and whose latest
	// status is not "completed" (missing counts as outstanding).
	RuleBQueue = "B:queue-balance"
	// RuleBUserRow: the newer delivery — a task-notification delivered as a
	// user row, for an Agent/Task call that has no queue accounting in the
	// segment, whose latest status is not "completed".
	RuleBUserRow = "B:user-row"
	// RuleBSDK: the Agent SDK message stream's delivery — a system
	// task_notification message for an Agent/Task call, whose latest
	// status is not "completed" (transcript/sdkstream.go).
	RuleBSDK = "B:sdk-task-notification"
)

// NoDescription labels an Agent call without a description, as the
// reference does.
const NoDescription = "(no description)"

// Hit is one subagent reported by Signature A or B.
type Hit struct {
	ToolUseID   string `json:"tool_use_id"`
	Description string `json:"description"`
	Signature   string `json:"signature"` // "A" | "B"
	Rule        string `json:"rule"`
	// Status is the notification status for B ("" when missing).
	Status string `json:"status,omitempty"`
	// At is the row that proves it: the tool_result (A) or the latest
	// notification (B).
	At model.Evidence `json:"at"`
}

// Scan is the resume-gate detector run once over one transcript: its marks,
// its current segment, and the hits in that segment.
type Scan struct {
	Segments Segments `json:"segments"`
	Hits     []Hit    `json:"hits,omitempty"`
	// Items are the hits' descriptions, Signature A first, deduplicated in
	// stable order: what the reference's detect() returns.
	Items []string `json:"items,omitempty"`
}

// agentCalls maps every Agent/Task call id of t to its description. It is
// never windowed: a dispatch may sit before the mark while its result lands
// after it. A repeated id keeps the last description, as the reference's dict does.
func agentCalls(t *model.Transcript) map[string]string {
	calls := map[string]string{}
	for _, c := range t.ToolCalls {
		if !c.IsSubagentSpawn() {
			continue
		}
		d := c.Description()
		if d == "" {
			d = NoDescription
		}
		calls[c.ID()] = d
	}
	return calls
}

// SignatureA reports whether a tool result of an Agent/Task call qualifies:
// it holds the partial-output notice and, left-trimmed, begins with the
// harness prefix. (Rule 1 — resolving to an Agent/Task call — is the caller's.)
func SignatureA(r *model.ToolResult) bool {
	return r != nil && r.HasPartialNotice() && r.StartsWithAPIErrorPrefix()
}

// ScanTranscript runs Signature A and B over the current segment of t: A in
// file order, then B by the reference rule (queue accounting), then B by the
// newer deliveries (user rows, SDK notifications) of calls the queue does
// not account for. Items are the hits' descriptions, deduplicated.
func ScanTranscript(t *model.Transcript) Scan {
	s := Scan{Segments: ReadSegments(t)}
	if t == nil {
		return s
	}
	calls := agentCalls(t)
	s.Hits = signatureAHits(t, calls, s.Segments, s.Hits)
	queue := map[string]*queueAccount{} // made here, it can stay on the stack
	s.Hits = queueHits(t, calls, s.Segments, queue, s.Hits)
	s.Hits = deliveredHits(t, calls, s.Segments, queue, s.Hits)
	seen := map[string]bool{}
	for _, h := range s.Hits {
		if !seen[h.Description] {
			seen[h.Description] = true
			s.Items = append(s.Items, h.Description)
		}
	}
	return s
}

// signatureAHits appends the Signature A hits of the segment w, in file
// order.
func signatureAHits(t *model.Transcript, calls map[string]string, w Segments, out []Hit) []Hit {
	for _, r := range t.ToolResults {
		if !w.InWindow(r.Line()) {
			continue
		}
		id := r.ToolUseID()
		desc, ok := calls[id]
		if !ok || !SignatureA(r) {
			continue
		}
		out = append(out, Hit{ToolUseID: id, Description: desc, Signature: "A", Rule: RuleA, At: r.At()})
	}
	return out
}

// queueAccount is the reference rule's accounting of one tool-use id over
// a segment's queue operations.
type queueAccount struct {
	balance   int
	status    string
	hasStatus bool
	at        model.Evidence
}

// queueHits appends the Signature B hits of the reference rule: balance and
// latest status per tool-use id over the segment's queue operations, in
// first-seen order. It keeps the accounting in queue: the newer deliveries
// defer to it.
func queueHits(t *model.Transcript, calls map[string]string, w Segments, queue map[string]*queueAccount, out []Hit) []Hit {
	var order []string
	for _, op := range t.QueueOps {
		n := op.Notification
		if n == nil || n.ToolUseID == "" || !w.InWindow(op.At.Line) {
			continue
		}
		a := queue[n.ToolUseID]
		if a == nil {
			a = &queueAccount{}
			queue[n.ToolUseID] = a
			order = append(order, n.ToolUseID)
		}
		switch op.Operation {
		case "enqueue":
			a.balance++
		case "remove":
			a.balance--
		}
		a.status, a.hasStatus, a.at = n.Status, n.HasStatus, op.At
	}
	for _, id := range order {
		a := queue[id]
		desc, ok := calls[id]
		if a.balance > 0 && !(a.hasStatus && a.status == "completed") && ok {
			out = append(out, Hit{ToolUseID: id, Description: desc, Signature: "B", Rule: RuleBQueue, Status: a.status, At: a.at})
		}
	}
	return out
}

// delivery is the latest notification of one tool-use id delivered as a user
// row or an SDK message.
type delivery struct {
	status    string
	hasStatus bool
	at        model.Evidence
	rule      string
}

// deliveredHits appends the Signature B hits of the newer deliveries:
// user-row (and SDK) notifications of calls that have no queue accounting
// in the segment, latest status winning.
func deliveredHits(t *model.Transcript, calls map[string]string, w Segments, queue map[string]*queueAccount, out []Hit) []Hit {
	rows := map[string]*delivery{}
	var rowOrder []string
	for _, n := range t.Notifications {
		rule := RuleBUserRow
		if n.Source == model.SourceSDKNotification {
			rule = RuleBSDK
		}
		if n.Source != "user-row" && rule != RuleBSDK || n.ToolUseID == "" || !w.InWindow(n.At.Line) {
			continue
		}
		if _, accounted := queue[n.ToolUseID]; accounted {
			continue
		}
		d := rows[n.ToolUseID]
		if d == nil {
			d = &delivery{}
			rows[n.ToolUseID] = d
			rowOrder = append(rowOrder, n.ToolUseID)
		}
		d.status, d.hasStatus, d.at, d.rule = n.Status, n.HasStatus, n.At, rule
	}
	for _, id := range rowOrder {
		d := rows[id]
		desc, ok := calls[id]
		if ok && !(d.hasStatus && d.status == "completed") {
			out = append(out, Hit{ToolUseID: id, Description: desc, Signature: "B", Rule: d.rule, Status: d.status, At: d.at})
		}
	}
	return out
}
