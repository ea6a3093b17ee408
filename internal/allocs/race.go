//go:build race

package allocs

// RaceEnabled is true when the race detector is built in: it instruments
// memory accesses, allocates for its own bookkeeping and changes what the
// compiler keeps on the stack, so an allocation bound holds only without it.
const RaceEnabled = true
