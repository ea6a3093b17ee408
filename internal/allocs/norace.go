//go:build !race

package allocs

// RaceEnabled is true when the race detector is built in (race.go).
const RaceEnabled = false
