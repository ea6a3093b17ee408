package report

import "github.com/pmcheck/pmcheck/analyze/model"

// writeStreamRun writes the run fact's fields of a run read from an Agent
// SDK message stream, each omitted when empty as encoding/json's
// omitempty does (session runs have none of them).
func writeStreamRun(w *objWriter, r *model.RunFact) {
	if r.Source != "" {
		w.str("source", r.Source)
	}
	if r.StreamFormat != "" {
		w.str("stream_format", r.StreamFormat)
	}
	if r.Ending != "" {
		w.str("ending", r.Ending)
	}
	if r.EndingDetail != "" {
		w.str("ending_detail", r.EndingDetail)
	}
	if r.PermissionDenials != 0 {
		w.int("permission_denials", r.PermissionDenials)
	}
	if r.RuntimeCounted {
		w.bool("runtime_counted", r.RuntimeCounted)
	}
	if len(r.CountsDisagree) > 0 {
		w.strs("counts_disagree", r.CountsDisagree)
	}
	if len(r.Reasons) > 0 {
		w.reasons("reasons", r.Reasons)
	}
}
