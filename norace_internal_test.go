//go:build !race

package robotsguard

// raceEnabled reports whether the race detector is on: it allocates on
// its own account, and sync.Pool then drops items at random, so
// allocation counts are not the program's.
const raceEnabled = false
