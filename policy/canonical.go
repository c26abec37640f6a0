package policy

import (
	"github.com/robotsguard/robotsguard/internal/canonical"
	"github.com/robotsguard/robotsguard/internal/match"
)

func init() {
	canonical.RulePath = (*Group).ruleCanonical
	canonical.Rule = (*Group).ruleAt
	canonical.PathStart = match.PathStart
}

// ruleCanonical finds the rule that decides a path the caller made
// canonical (CanonicalPath(PathOf(target))), as DecidePath does, without
// building the Decision: when a rule decides path (ok), it returns whether
// the rule allows, its pattern and its index, by which ruleAt returns the
// whole rule. In a dialect that compares paths in that form, path is not
// scanned again; in another, or when it does not start with "/", it is
// read as DecidePath reads it.
func (g *Group) ruleCanonical(path string) (allow bool, pattern string, idx int32, ok bool) {
	best, basis := g.lookupCanonical(path)
	if basis != BasisRule {
		return false, "", -1, false
	}
	idx = best.Idx()
	return best.Allow(), g.r.rules()[idx].Pattern(g.r.text()), idx, true
}

// ruleAt returns the rule whose index ruleCanonical returned.
func (g *Group) ruleAt(idx int32) Rule { return g.r.rule(idx) }

// lookupCanonical is lookupPath for a path the caller made canonical.
func (g *Group) lookupCanonical(path string) (match.Ref, Basis) {
	if enc, ok := g.encoding(); path == "" || path[0] != '/' || !ok || enc != encCanonical {
		return g.lookupPath(path)
	}
	return g.decideNormalised(path)
}
