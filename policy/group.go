package policy

import (
	"net/url"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/robotsguard/robotsguard/internal/ascii"
)

// A Group is the set of rules one agent follows in a robots.txt: the union
// of every group that names the agent's product token, or else of every "*"
// group (RFC 9309 §2.2.1); under Koster1996, the one record the draft has
// the agent follow. Get one with Robots.Group and reuse it to check
// many URLs for the same agent. A Group is safe for concurrent use.
type Group struct {
	agent      string  // "*", a lower-case token (Koster1996: value), or "" for no group
	crawlDelay float64 // seconds; negative when absent
	rate       Rate
	*rules
}

// rules is what Groups with the same member groups share.
type rules struct {
	r       *Robots
	members []uint32 // indices of Robots.groups, in file order
	line    int      // first user-agent line of the first member; 0 for none

	once sync.Once
	m    atomic.Pointer[matcher] // set once, by compile
}

// agentIndex holds the Groups asked for so far: each is built on the
// first query for its agent, so that a file naming many agents costs
// memory only for those a crawler is.
type agentIndex struct {
	mu sync.Mutex // serialises building; readers load built without it
	// built is the Groups built so far, by lower-case token: those of the
	// tokens the file names, and of others (which follow the "*" group),
	// at most maxBuilt. Under behaviour.emptyAgentGroup, token "" is the
	// group of the user-agent values without a token.
	built   atomic.Pointer[[]tokenGroup]
	star    atomic.Pointer[Group] // the "*" groups, or the empty group when there are none
	records *recordIndex          // Koster1996; set once, by buildRecordIndex
}

// recordIndex holds the Group of each record of a Koster1996 file, by
// index in Robots.groups, and the first "*" record's.
type recordIndex struct {
	groups []*Group
	star   *Group
}

type tokenGroup struct {
	token string
	g     *Group
}

// maxBuilt bounds the Groups an agentIndex keeps. Past it, a Group is
// built anew on each query for an agent the file names, and an agent it
// does not name gets the "*" group with a search.
const maxBuilt = 32

// Group returns the group that userAgent follows: a product token, or a
// value that starts with a "token/version" product (or a Mozilla value with
// "compatible; token/version"), as Google's library reads it; "Foo Bar"
// holds no token and follows "*". To read a User-Agent header value by RFC
// 9110 ("colly - https://…" names colly), pass ProductToken's result, as
// the Transport does. The result is never nil: when no group applies, it is
// a Group without rules that allows everything.
//
// In the Google dialect, a userAgent that holds no product token is compared
// as given, as Google's library does.
func (r *Robots) Group(userAgent string) *Group {
	tok := agentToken(userAgent)
	if r.beh.substringAgents {
		r.indexOnce.Do(r.buildRecordIndex)
		return r.recordGroup(tok)
	}
	if tok == "" {
		if userAgent == "" && r.beh.emptyAgentGroup {
			return r.tokenGroup("")
		}
		return r.starGroup()
	}
	return r.tokenGroup(tok)
}

// tokenGroup returns the Group of product token tok: the union of the
// groups that name it, or else the "*" group.
func (r *Robots) tokenGroup(tok string) *Group {
	if p := r.index.built.Load(); p != nil {
		for _, e := range *p {
			if len(e.token) == len(tok) && sameToken(tok, e.token) {
				return e.g
			}
		}
	}
	idx := &r.index
	idx.mu.Lock()
	defer idx.mu.Unlock()
	var built []tokenGroup
	if p := idx.built.Load(); p != nil {
		built = *p
		for _, e := range built {
			if len(e.token) == len(tok) && ascii.EqualFold(tok, e.token) {
				return e.g
			}
		}
	}
	// One pass over the user-agent lines: the groups naming tok, and the
	// politest Crawl-delay and Request-rate that reach it.
	var members []uint32
	delay, rate := -1.0, Rate{}
	name := ""
	for i := range r.agents {
		a := &r.agents[i]
		if a.star || int(a.token.n) != len(tok) || !ascii.EqualFold(tok, r.str(a.token)) {
			continue
		}
		members = appendGroup(members, a.group)
		a.merge(&delay, &rate)
		name = r.str(a.token)
	}
	var g *Group
	if members == nil {
		g = r.starGroupLocked()
		b := make([]byte, len(tok))
		for i := range b {
			b[i] = ascii.Lower(tok[i])
		}
		name = string(b)
	} else {
		g = &Group{agent: name, crawlDelay: delay, rate: rate, rules: r.sharedRules(built, members)}
	}
	if len(built) < maxBuilt {
		next := make([]tokenGroup, len(built), len(built)+1)
		copy(next, built)
		next = append(next, tokenGroup{name, g})
		idx.built.Store(&next)
	}
	return g
}

// sameToken reports whether the product token tok is lower, a lower-case
// token of the same length, ignoring case. Setting bit 0x20 lower-cases a
// letter and changes neither '-' nor '_' into another token character.
func sameToken(tok, lower string) bool {
	lower = lower[:len(tok)]
	for i := 0; i < len(tok); i++ {
		if tok[i]|0x20 != lower[i]|0x20 {
			return false
		}
	}
	return true
}

// sharedRules returns the rules of the groups members: those of a Group
// already built with the same members, or new ones. (Tokens named by the
// same groups share their matcher.)
func (r *Robots) sharedRules(built []tokenGroup, members []uint32) *rules {
	if g := r.index.star.Load(); g != nil && slices.Equal(g.members, members) {
		return g.rules
	}
	for _, e := range built {
		if slices.Equal(e.g.members, members) {
			return e.g.rules
		}
	}
	return r.newRules(members)
}

// starGroup returns the Group of the "*" groups, or a Group without rules
// when there are none.
func (r *Robots) starGroup() *Group {
	if g := r.index.star.Load(); g != nil {
		return g
	}
	r.index.mu.Lock()
	defer r.index.mu.Unlock()
	return r.starGroupLocked()
}

// starGroupLocked is starGroup with r.index.mu held.
func (r *Robots) starGroupLocked() *Group {
	if g := r.index.star.Load(); g != nil {
		return g
	}
	var members []uint32
	g := &Group{crawlDelay: -1}
	for i := range r.agents {
		if a := &r.agents[i]; a.star {
			members = appendGroup(members, a.group)
			a.merge(&g.crawlDelay, &g.rate)
		}
	}
	if members != nil {
		g.agent = "*"
	}
	var built []tokenGroup
	if p := r.index.built.Load(); p != nil {
		built = *p
	}
	g.rules = r.sharedRules(built, members)
	r.index.star.Store(g)
	return g
}

// buildRecordIndex gives each record of a Koster1996 file its own Group:
// the draft follows one record, never a union.
func (r *Robots) buildRecordIndex() {
	idx := &recordIndex{groups: make([]*Group, len(r.groups))}
	for i := range r.groups {
		g := &Group{crawlDelay: -1, rules: r.newRules([]uint32{uint32(i)})}
		for _, a := range r.agents[r.groups[i].agents[0]:r.groups[i].agents[1]] {
			a.merge(&g.crawlDelay, &g.rate)
			if g.agent == "" || a.star {
				g.agent = r.str(a.token)
			}
		}
		idx.groups[i] = g
	}
	idx.star = &Group{crawlDelay: -1, rules: r.newRules(nil)}
	for _, a := range r.agents {
		if a.star {
			idx.star = idx.groups[a.group]
			break
		}
	}
	r.index.records = idx
	r.indexed.Store(true)
}

// recordGroup returns the Group of the first record of a Koster1996 file
// with a user-agent line whose value holds tok, ignoring case (section
// 3.2.1), or the first "*" record.
func (r *Robots) recordGroup(tok string) *Group {
	if tok != "" {
		for _, a := range r.agents {
			if !a.star && ascii.ContainsFold(r.str(a.token), tok) {
				return r.index.records.groups[a.group]
			}
		}
	}
	return r.index.records.star
}

// appendGroup adds group i to list unless it is already its last element
// (an agent named twice in one group).
func appendGroup(list []uint32, i uint32) []uint32 {
	if n := len(list); n > 0 && list[n-1] == i {
		return list
	}
	return append(list, i)
}

func (r *Robots) newRules(members []uint32) *rules {
	g := &rules{r: r, members: members}
	if len(members) > 0 {
		g.line = int(r.groups[members[0]].line)
	}
	return g
}

// Allowed reports whether userAgent may fetch target, which is an absolute
// URL or a path with an optional query. It is Group(userAgent).Allowed(target).
func (r *Robots) Allowed(userAgent, target string) bool {
	return r.Group(userAgent).Allowed(target)
}

// Decide returns the verdict on target for userAgent, with the rule that
// decided it. It is Group(userAgent).Decide(target).
func (r *Robots) Decide(userAgent, target string) Decision {
	return r.Group(userAgent).Decide(target)
}

// Agent returns the group's product token in lower case (under
// Koster1996, the record's whole user-agent value), "*" for the "*" group,
// or "" when no group applies.
func (g *Group) Agent() string { return g.agent }

// Line returns the line of the group's first user-agent line, or 0 when no
// group applies.
func (g *Group) Line() int { return g.line }

// CrawlDelay returns the Crawl-delay that applies to the group's agent: that
// of a Crawl-delay line below one of its user-agent lines, in the same
// group. When there are several, it is the longest.
func (g *Group) CrawlDelay() (time.Duration, bool) {
	if g.crawlDelay < 0 {
		return 0, false
	}
	return seconds(g.crawlDelay), true
}

// RequestRate returns the Request-rate that applies to the group's agent,
// found as CrawlDelay is. When there are several, it is the slowest.
func (g *Group) RequestRate() (Rate, bool) {
	return g.rate, g.rate.Per != 0
}

// Rules returns the group's rules in file order.
func (g *Group) Rules() []Rule {
	var out []Rule
	for _, i := range g.members {
		src := &g.r.groups[i]
		for j := src.rules[0]; j < src.rules[1]; j++ {
			out = append(out, g.r.rule(int32(j)))
		}
	}
	return out
}

// Allowed reports whether target may be fetched; target is an absolute URL
// or a path with an optional query.
func (g *Group) Allowed(target string) bool {
	best, basis := g.lookup(target)
	return basis != BasisRule || best.allow()
}

// Decide returns the verdict on target, with the rule that decided it.
// target is an absolute URL ("https://example.com/a?b") or a path with an
// optional query ("/a?b"). A path that starts with "//" is read as a
// scheme-relative URL, whose first segment is a host: decide such paths
// through an absolute URL, or with DecideURL.
//
// In the RFC9309 and Koster1996 dialects, target is normalised as described
// in the package documentation, and /robots.txt is always allowed. In the
// Google dialect
// target is compared as given, so it must already be percent-encoded (as
// net/url's URL.String and URL.RequestURI give it).
func (g *Group) Decide(target string) Decision {
	best, basis := g.lookup(target)
	return g.decision(best, basis)
}

// DecideURL is Decide for a parsed URL: its escaped path and its query, as
// sent in a request (URL.RequestURI), without building that string.
func (g *Group) DecideURL(u *url.URL) Decision {
	if u.Opaque != "" {
		return g.Decide(u.RequestURI())
	}
	path := u.EscapedPath()
	if u.RawQuery == "" && !u.ForceQuery {
		if path == "" {
			return g.decision(g.decide("/", false))
		}
		return g.decision(g.decide(path, path[0] != '/'))
	}
	var buf [256]byte
	b := append(append(append(buf[:0], path...), '?'), u.RawQuery...)
	return g.decision(g.decide(unsafe.String(unsafe.SliceData(b), len(b)), path == "" || path[0] != '/')) // b is not retained
}

// decision is the Decision for the rule best, found on the given basis.
func (g *Group) decision(best ruleRef, basis Basis) Decision {
	switch basis {
	case BasisNoGroup:
		return Decision{Allowed: true, Basis: BasisNoGroup}
	case BasisRule:
		return Decision{Allowed: best.allow(), Basis: BasisRule, Rule: g.r.rule(best.idx()), GroupAgent: g.agent, GroupLine: g.line}
	}
	return Decision{Allowed: true, Basis: basis, GroupAgent: g.agent, GroupLine: g.line}
}

// lookup returns the rule that decides target, or noRule, and why.
func (g *Group) lookup(target string) (ruleRef, Basis) {
	if len(g.members) > 0 && g.r.beh.encoding == encCanonical {
		// Most URLs are canonical already: one pass finds the path and
		// tells.
		if path, ok := canonicalPathOf(target); ok {
			return g.decideNormalised(path)
		}
	}
	path, slash := pathOf(target)
	return g.decide(path, slash)
}

// decide returns the rule that decides path (with its query), which is
// missing its leading "/" when slash is true, or noRule, and why.
func (g *Group) decide(path string, slash bool) (ruleRef, Basis) {
	if len(g.members) == 0 {
		return noRule, BasisNoGroup
	}
	if slash || g.r.beh.encoding.needsPath(path) {
		var buf [256]byte
		b := buf[:0]
		if slash {
			b = append(b, '/')
		}
		b = g.r.beh.encoding.appendPath(b, path)
		path = unsafe.String(unsafe.SliceData(b), len(b)) // b is not retained
	}
	return g.decideNormalised(path)
}

// decideNormalised is decide for a path normalised for the dialect, of a
// group with members.
func (g *Group) decideNormalised(path string) (ruleRef, Basis) {
	if g.r.beh.robotsTxtAllowed && path == "/robots.txt" {
		return noRule, BasisRobotsTxt
	}
	g.once.Do(g.compile)
	var best ruleRef
	if m := g.m.Load(); m == flatMatcher {
		best = matchFlat(g.r, g.members, path)
	} else {
		best = m.match(path)
	}
	if best == noRule {
		return noRule, BasisNoMatch
	}
	return best, BasisRule
}

func (g *rules) compile() {
	if flat(g.r, g.members) {
		g.m.Store(flatMatcher)
		return
	}
	g.m.Store(compile(g.r, g.members))
}
