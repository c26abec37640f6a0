package policy_test

import (
	"fmt"

	"github.com/robotsguard/robotsguard/internal/canonical"
	"github.com/robotsguard/robotsguard/policy"
)

// ruleCanonical and ruleAt are what package acap calls to find the rule
// that decides a path it made canonical itself: TestDecidePath and
// FuzzMatch check, with checkRuleCanonical, that it is DecidePath's.
var (
	ruleCanonical = canonical.RulePath.(func(*policy.Group, string) (allow bool, pattern string, idx int32, ok bool))
	ruleAt        = canonical.Rule.(func(*policy.Group, int32) policy.Rule)
)

// checkRuleCanonical reports how ruleCanonical(g, path) and the rule of
// its index differ from what g.DecidePath(path) decides, or "".
func checkRuleCanonical(g *policy.Group, path string) string {
	d := g.DecidePath(path)
	allow, pattern, idx, ok := ruleCanonical(g, path)
	if ok != (d.Basis == policy.BasisRule) {
		return fmt.Sprintf("ruleCanonical(%q) found a rule: %v; DecidePath = %v", path, ok, d)
	}
	if !ok {
		return ""
	}
	if allow != d.Rule.Allow || pattern != d.Rule.Pattern {
		return fmt.Sprintf("ruleCanonical(%q) = %v, %q; DecidePath = %v", path, allow, pattern, d)
	}
	if r := ruleAt(g, idx); r != d.Rule {
		return fmt.Sprintf("ruleAt(%d) = %+v for %q; DecidePath = %v", idx, r, path, d)
	}
	return ""
}
