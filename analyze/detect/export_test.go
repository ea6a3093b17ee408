package detect

// CountClassified makes f see every command the detectors classify
// themselves (countClassified) until the returned function is called.
func CountClassified(f func(cmd string)) (restore func()) {
	old := countClassified
	countClassified = f
	return func() { countClassified = old }
}
