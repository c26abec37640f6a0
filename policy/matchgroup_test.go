package policy_test

import (
	"fmt"

	"github.com/robotsguard/robotsguard/internal/match"
	"github.com/robotsguard/robotsguard/policy"
)

// matchOptions are the match.Options of the dialects whose paths a caller
// outside the package can put in their form: RFC9309's, which package acap
// uses for the conventional records it pools with its own (canonical
// paths), and Google's (paths as given). Koster1996's form is policy's
// own.
var matchOptions = map[policy.Dialect]match.Options{
	policy.RFC9309: match.RFC9309(),
	policy.Google:  {Wildcards: true, IndexHTML: true},
}

// checkMatchGroup reports how a match.Group compiled from g's rules, as
// package acap compiles one from a conventional group, decides path
// differently from g (decidePath), or "". path, which starts with "/", is
// in the form of dialect d; "" for Koster1996.
func checkMatchGroup(g *policy.Group, d policy.Dialect, path string) string {
	opts, ok := matchOptions[d]
	if !ok {
		return ""
	}
	rules := g.Rules()
	m := match.NewGroup(opts, len(rules), func(i int) (string, bool) { return rules[i].Pattern, rules[i].Allow })
	want := decidePath(g, path)
	i, ok := m.Match(path)
	if ok != (want.Basis == policy.BasisRule) {
		return fmt.Sprintf("match.Group.Match(%q) found a rule: %v; Decide = %v", path, ok, want)
	}
	if !ok {
		return ""
	}
	if m.Allow(i) != want.Rule.Allow || m.Pattern(i) != want.Rule.Pattern || rules[i] != want.Rule {
		return fmt.Sprintf("match.Group.Match(%q) = rule %d, %v %q (%+v); Decide = %v", path, i, m.Allow(i), m.Pattern(i), rules[i], want)
	}
	return ""
}
