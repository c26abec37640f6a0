package acap

import (
	"sync/atomic"

	"github.com/robotsguard/robotsguard/internal/match"
	"github.com/robotsguard/robotsguard/policy"
)

// A convGroup is the conventional group an agent follows, as a crawl
// decision pools its rules with the ACAP fields (section 2.10.2): the
// rules of the policy.Group, in file order, compiled as package policy
// compiles them (internal/match, RFC 9309's options), so that the rule
// that decides a path Decide made canonical itself is found without the
// group scanning the path again and without a policy.Decision being built;
// and the line of each rule, read only when the rule wins.
type convGroup struct {
	agent string // policy.Group.Agent
	m     *match.Group
	lines []int32
}

// convCache keeps the convGroups last compiled, most recent first, by the
// policy.Group they were compiled from: a plan is built again for an agent
// past the cachedPlans last asked about, and agents often follow the same
// group (those that no group names all follow "*"), compiled once.
type convCache struct {
	last atomic.Pointer[[cachedConvs]convEntry]
}

type convEntry struct {
	g *policy.Group
	c *convGroup // nil when g has no rule with a pattern
}

// cachedConvs is the number of conventional groups whose convGroups a
// Policy keeps.
const cachedConvs = 4

// convFor returns the convGroup of g, a Group of p.conventional: one
// compiled before, or a new one.
func (p *Policy) convFor(g *policy.Group) *convGroup {
	var old *[cachedConvs]convEntry
	if p.convs != nil {
		if old = p.convs.last.Load(); old != nil {
			for _, e := range old {
				if e.g == g {
					return e.c
				}
			}
		}
	}
	c := newConvGroup(g.Agent(), g.Rules())
	if p.convs != nil {
		next := new([cachedConvs]convEntry)
		next[0] = convEntry{g, c}
		if old != nil {
			copy(next[1:], old[:])
		}
		p.convs.last.Store(next)
	}
	return c
}

// newConvGroup returns the convGroup of the rules of the conventional
// group that agent follows, or nil when none of them has a pattern (an
// empty pattern matches nothing, RFC 9309 section 2.2.2), and so no rule
// ever decides.
func newConvGroup(agent string, rules []policy.Rule) *convGroup {
	some := false
	for _, r := range rules {
		some = some || r.Pattern != ""
	}
	if !some {
		return nil
	}
	c := &convGroup{agent: agent, lines: make([]int32, len(rules))}
	for i, r := range rules {
		c.lines[i] = int32(r.Line)
	}
	c.m = match.NewGroup(match.RFC9309(), len(rules), func(i int) (string, bool) { return rules[i].Pattern, rules[i].Allow })
	return c
}

// find returns the rule that decides path, as policy.Group.Decide does,
// if one does (ok): its verdict, its pattern and its index, by which rule
// returns the whole rule. path is canonical (policy.CanonicalPath of
// policy.PathOf), as Decide makes it.
func (c *convGroup) find(path string) (allow bool, pattern string, idx int32, ok bool) {
	idx, ok = c.m.Match(path)
	if !ok {
		return false, "", -1, false
	}
	return c.m.Allow(idx), c.m.Pattern(idx), idx, true
}

// rule returns rule i, in file order.
func (c *convGroup) rule(i int32) policy.Rule {
	return policy.Rule{Allow: c.m.Allow(i), Pattern: c.m.Pattern(i), Line: int(c.lines[i])}
}

// len returns the number of rules.
func (c *convGroup) len() int { return len(c.lines) }

// memSize estimates the memory c holds, in bytes.
func (c *convGroup) memSize() int {
	return 48 + len(c.agent) + 4*cap(c.lines) + c.m.MemSize()
}
