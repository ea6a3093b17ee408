//go:build !pmcheck_poison

package transcript

// poisonViews is set by the pmcheck_poison build tag (poison_on.go).
const poisonViews = false
