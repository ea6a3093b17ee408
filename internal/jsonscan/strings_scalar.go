//go:build !(goexperiment.simd && amd64)

package jsonscan

// StringEnd: see strings.go.
func StringEnd(d []byte, i int) (end int, all uint64, esc, ok bool) {
	return stringEndWords(d, i, 0, false)
}

// copyBlocks copies nothing: Unescape copies a word at a time.
func copyBlocks(out []byte, o int, body []byte, r int) (int, int) {
	return r, o
}
