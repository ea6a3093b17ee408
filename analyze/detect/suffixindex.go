package detect

import (
	"slices"
	"strings"
)

// pathMatches reports whether a ledger path names the repository path rel:
// equal, or ending in "/"+rel (an absolute path outside the recorded cwd).
func pathMatches(ledgerPath, rel string) bool {
	return ledgerPath == rel || strings.HasSuffix(ledgerPath, "/"+rel)
}

// suffixIndex finds the branch paths a ledger path matches (pathMatches)
// without trying every branch path: a branch path matches exactly when it
// is the ledger path or the part after one of its slashes, so each of those
// parts is looked up, and the cost follows the ledger path's length, not
// the number of branch paths (a killed agent's thousands of writes against a
// branch of thousands of paths were ledger × branch comparisons).
type suffixIndex map[string][]int

func newSuffixIndex(paths []string) suffixIndex {
	x := make(suffixIndex, len(paths))
	for i, p := range paths {
		x[p] = append(x[p], i)
	}
	return x
}

// matching appends to dst the positions of the paths that ledgerPath
// matches, in increasing order (the order of the paths as given).
func (x suffixIndex) matching(ledgerPath string, dst []int) []int {
	start := len(dst)
	dst = append(dst, x[ledgerPath]...)
	for i := 0; i < len(ledgerPath); i++ {
		if ledgerPath[i] == '/' {
			dst = append(dst, x[ledgerPath[i+1:]]...)
		}
	}
	slices.Sort(dst[start:])
	return dst
}
