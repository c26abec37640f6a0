package policy_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/robotsguard/robotsguard/policy"
)

// TestManyWildcardRulesAgreeWithReference checks, against the reference
// matcher, groups with enough wildcard rules to be indexed: many rules
// share the literal before their first '*', those literals are prefixes of
// one another, and paths are made of the same few bytes, so that most
// paths start with several of the literals and hold many of the others.
func TestManyWildcardRulesAgreeWithReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func(s []string) string { return s[rng.IntN(len(s))] }
	prefixes := []string{"", "/", "/a", "/ab", "/ab/", "/ab/c", "/b", "/b?", "/ba"}
	segs := []string{"", "a", "b", "/", "ab", "b/", "?a=", "c"}
	const alphabet = "ab/c?="
	for file := 0; file < 200; file++ {
		var body strings.Builder
		body.WriteString("user-agent: *\n")
		for n := 30 + rng.IntN(120); n > 0; n-- {
			p := pick(prefixes) + "*" + pick(segs)
			for k := rng.IntN(3); k > 0; k-- {
				p += "*" + pick(segs)
			}
			if rng.IntN(4) == 0 {
				p += "$"
			}
			kind := "disallow"
			if rng.IntN(3) == 0 {
				kind = "allow"
			}
			fmt.Fprintf(&body, "%s: %s\n", kind, p)
			if rng.IntN(5) == 0 {
				fmt.Fprintf(&body, "disallow: %s\n", pick(prefixes)+pick(segs))
			}
		}
		for _, d := range []policy.Dialect{policy.RFC9309, policy.Google} {
			r := policy.Parser{Dialect: d}.Parse([]byte(body.String()))
			ref := newReference([]byte(body.String()), d)
			for q := 0; q < 200; q++ {
				b := []byte(pick(prefixes))
				for k := rng.IntN(12); k > 0; k-- {
					b = append(b, alphabet[rng.IntN(len(alphabet))])
				}
				u := "/" + strings.TrimPrefix(string(b), "/")
				got := r.Group("a").Decide(u)
				allowed, line := ref.decide("a", u)
				if got.Allowed != allowed || got.Rule.Line != line {
					t.Fatalf("%v: file\n%s\nDecide(%q) = %v; reference: allowed=%v line %d", d, body.String(), u, got, allowed, line)
				}
			}
		}
	}
}
