package detect

// CommitIDsIn lists the commit ids of the summary lines `git commit` printed
// in a tool result ("[branch abc1234] subject"): the ledger's reading, for
// the commit ↔ run links of a range check.
func CommitIDsIn(text string) []string {
	var ids []string
	for _, m := range commitLine().FindAllStringSubmatch(text, -1) {
		ids = append(ids, m[1])
	}
	return ids
}
