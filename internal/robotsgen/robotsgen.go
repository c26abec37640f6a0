// Package robotsgen makes random robots.txt files and paths for the load
// invariants of the root package and of robotsredis: drawn from a small
// alphabet, so that rules and URLs meet often, with '*', '$' and
// percent-escapes, and groups for TestBot, OtherBot and "*".
package robotsgen

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// segments are the path segments paths and patterns are made of.
var segments = []string{"a", "b", "ab", "private", "x.html", "%61", "%2Fq", "caf%C3%A9", "café"}

// Path returns a random path, with a query at times.
func Path(rng *rand.Rand) string {
	var b strings.Builder
	for range 1 + rng.IntN(3) {
		b.WriteString("/" + segments[rng.IntN(len(segments))])
	}
	if rng.IntN(4) == 0 {
		b.WriteString("/")
	}
	if rng.IntN(5) == 0 {
		b.WriteString("?q=" + segments[rng.IntN(len(segments))])
	}
	return b.String()
}

// Pattern returns a random path pattern of an Allow or Disallow rule.
func Pattern(rng *rand.Rand) string {
	var b strings.Builder
	for range 1 + rng.IntN(2) {
		b.WriteString("/")
		switch rng.IntN(5) {
		case 0:
			b.WriteString("*")
		case 1:
			b.WriteString(segments[rng.IntN(len(segments))] + "*")
		default:
			b.WriteString(segments[rng.IntN(len(segments))])
		}
	}
	if rng.IntN(4) == 0 {
		b.WriteString("$")
	}
	return b.String()
}

// Robots returns a robots.txt of a few groups, some for TestBot.
func Robots(rng *rand.Rand) string {
	var b strings.Builder
	agents := [][]string{{"*"}, {"TestBot"}, {"OtherBot"}, {"testbot", "OtherBot"}}
	for range 1 + rng.IntN(3) {
		for _, a := range agents[rng.IntN(len(agents))] {
			fmt.Fprintf(&b, "User-agent: %s\n", a)
		}
		for range rng.IntN(6) {
			verb := "Disallow"
			if rng.IntN(3) == 0 {
				verb = "Allow"
			}
			fmt.Fprintf(&b, "%s: %s\n", verb, Pattern(rng))
		}
		if rng.IntN(4) == 0 {
			b.WriteString("Disallow: /\n")
		}
		b.WriteString("\n")
	}
	return b.String()
}
