package match

import (
	"strings"
	"unsafe"
)

// A Group is one list of rules, in file order, compiled on its own: what
// a caller that holds the rules of a group, rather than a Set, matches
// paths with. Package acap compiles one from the rules of a conventional
// group (policy.Group.Rules) to pool them with its own records. Its rules
// are ranked as in a Set of the file that holds them, one run after
// another in file order: Match finds the rule that policy finds. A Group
// is safe for concurrent use.
type Group struct {
	set  Set
	plan Plan     // when Flat allows it
	m    *Matcher // otherwise
}

// NewGroup returns the Group of n rules under opts, in file order, the
// ith with the pattern and verdict rule(i) returns, its pattern
// normalised as the dialect of opts normalises patterns.
func NewGroup(opts Options, n int, rule func(i int) (pattern string, allow bool)) *Group {
	var text strings.Builder
	rules := make([]Rule, n)
	for i := range rules {
		p, allow := rule(i)
		rules[i] = NewRule(uint32(text.Len()), []byte(p), allow, opts.Wildcards)
		text.WriteString(p)
	}
	g := &Group{set: Set{Text: text.String(), Rules: rules, Opts: opts}}
	all := []Run{{0, uint32(n)}}
	if Flat(g.set, all) {
		g.plan = NewPlan(g.set, all[0], 0)
	} else {
		g.m = Compile(g.set, all)
	}
	return g
}

// Match returns the index of the rule that decides path, a path with its
// query, starting with "/", in the form the patterns are (for RFC9309,
// policy.CanonicalPath's), or ok false when no rule decides it: none
// matches, or /robots.txt is always allowed.
func (g *Group) Match(path string) (i int32, ok bool) {
	if g.set.Opts.RobotsTxtAllowed && path == "/robots.txt" {
		return -1, false
	}
	var best Ref
	if g.m == nil {
		best = g.plan.Match(path)
	} else {
		best = g.m.Match(path)
	}
	return best.Idx(), best != NoRule
}

// Len returns the number of rules.
func (g *Group) Len() int { return len(g.set.Rules) }

// Allow reports whether rule i allows.
func (g *Group) Allow(i int32) bool { return g.set.Rules[i].allow }

// Pattern returns the pattern of rule i.
func (g *Group) Pattern(i int32) string { return g.set.Rules[i].Pattern(g.set.Text) }

// MemSize estimates the memory g holds, in bytes.
func (g *Group) MemSize() int {
	n := int(unsafe.Sizeof(*g)) + len(g.set.Text) + cap(g.set.Rules)*int(unsafe.Sizeof(Rule{}))
	if g.m != nil {
		n += g.m.MemSize()
	}
	return n
}
