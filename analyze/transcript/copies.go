package transcript

import (
	"sort"

	"github.com/pmcheck/pmcheck/analyze/model"
)

// MarkCopied makes t, read with Options.MarkLater, the transcript a reading
// with Options.Copied set to copied gives, without reading the file again:
// the rows whose uuid a map holds with the same content (the last map that
// holds the uuid deciding) are counted (Transcript.Copied, CopiedFrom), the
// calls, results and notifications on them are marked Copied, and the
// title is the first prompt not on such a row. It drops what the reading
// kept for it (Transcript.CopyRows and RowHashes). A transcript not read
// with MarkLater is left as it is.
func MarkCopied(t *model.Transcript, copied []map[uint64]uint64) {
	cr, own := t.CopyRows, t.RowHashes
	if cr == nil {
		return
	}
	t.CopyRows, t.RowHashes = nil, nil
	if len(copied) == 0 {
		return
	}
	t.CopiedFrom = make([]int, len(copied))
	var lines []int // the copied rows' lines, ascending
	for n, h := range cr.UUIDs {
		c := own[h]
		want, ok := lastHash(copied, h)
		if !ok {
			continue
		}
		if c == want {
			lines = append(lines, cr.Lines[n])
			t.Copied++
		}
		for i, m := range copied {
			if w, ok := m[h]; ok && w == c {
				t.CopiedFrom[i]++
			}
		}
	}
	if len(lines) == 0 {
		return
	}
	isCopied := func(line int) bool {
		k := sort.SearchInts(lines, line)
		return k < len(lines) && lines[k] == line
	}
	for _, c := range t.ToolCalls {
		if isCopied(c.At().Line) {
			c.MarkCopied()
		}
	}
	for _, r := range t.ToolResults {
		if isCopied(r.Line()) {
			r.MarkCopied()
		}
	}
	for _, n := range t.Notifications {
		if isCopied(n.At.Line) {
			n.Copied = true
		}
	}
	for i := range t.QueueOps {
		if n := t.QueueOps[i].Notification; n != nil && isCopied(n.At.Line) {
			n.Copied = true
		}
	}
	if !cr.Named {
		t.Title = ""
		for _, p := range cr.Prompts {
			if !isCopied(p.Line) {
				t.Title = p.Title
				break
			}
		}
	}
}

// lastHash is the content hash the last map of copied that holds a row
// uuid hash gives it (builder.copiedHash).
func lastHash(copied []map[uint64]uint64, h uint64) (uint64, bool) {
	for i := len(copied) - 1; i >= 0; i-- {
		if c, ok := copied[i][h]; ok {
			return c, true
		}
	}
	return 0, false
}
