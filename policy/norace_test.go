//go:build !race

package policy_test

// raceEnabled reports whether the race detector is on: sync.Pool then
// drops items at random, and allocation counts vary.
const raceEnabled = false
