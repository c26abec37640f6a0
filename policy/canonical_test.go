package policy_test

import (
	"fmt"

	"github.com/robotsguard/robotsguard/internal/canonical"
	"github.com/robotsguard/robotsguard/policy"
)

// decideCanonical is what package acap calls to decide a path it made
// canonical itself: TestDecidePath and FuzzMatch check it is DecidePath.
var decideCanonical = canonical.DecidePath.(func(*policy.Group, string) policy.Decision)

// ruleCanonical and ruleAt are what acap's fast path calls instead, when
// it needs only the rule that decides: checkRuleCanonical checks they
// agree with decideCanonical.
var (
	ruleCanonical = canonical.RulePath.(func(*policy.Group, string) (allow bool, pattern string, idx int32, ok bool))
	ruleAt        = canonical.Rule.(func(*policy.Group, int32) policy.Rule)
)

// checkRuleCanonical reports how ruleCanonical(g, path) and the rule of
// its index differ from decideCanonical(g, path), or "".
func checkRuleCanonical(g *policy.Group, path string) string {
	d := decideCanonical(g, path)
	allow, pattern, idx, ok := ruleCanonical(g, path)
	if ok != (d.Basis == policy.BasisRule) {
		return fmt.Sprintf("ruleCanonical(%q) found a rule: %v; decideCanonical = %v", path, ok, d)
	}
	if !ok {
		return ""
	}
	if allow != d.Rule.Allow || pattern != d.Rule.Pattern {
		return fmt.Sprintf("ruleCanonical(%q) = %v, %q; decideCanonical = %v", path, allow, pattern, d)
	}
	if r := ruleAt(g, idx); r != d.Rule {
		return fmt.Sprintf("ruleAt(%d) = %+v for %q; decideCanonical = %v", idx, r, path, d)
	}
	return ""
}
