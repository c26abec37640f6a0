package policy

import (
	"net/url"
	"strconv"
	"strings"
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

// fewTokens is the number of distinct tokens up to which agentIndex keeps a
// list instead of a map.
const fewTokens = 8

// agentIndex maps product tokens to Groups. Robots builds it on first use.
type agentIndex struct {
	// The Groups of the tokens the file names: in a short list when there
	// are few, which is quicker to search than a map, else in a map by
	// lower-case token.
	few     []*Group
	byToken map[string]*Group
	// Koster1996: the Group of each record, by index in Robots.groups.
	records []*Group
	star    *Group // the "*" groups, or the empty group when there are none
	empty   *Group // Google: groups whose user-agent value has no token; nil otherwise
}

func (r *Robots) agentIndex() *agentIndex {
	r.indexOnce.Do(r.buildIndex)
	return &r.index
}

func (r *Robots) buildIndex() {
	if r.beh.substringAgents {
		r.buildRecordIndex()
		return
	}
	// One pass over the user-agent lines: the groups naming each token,
	// and the politest Crawl-delay and Request-rate that reach it.
	type named struct {
		groups []uint32
		delay  float64
		rate   Rate
	}
	tokens := map[string]*named{}
	var order []string // tokens in file order
	star, empty := &named{delay: -1}, &named{delay: -1}
	for i := range r.agents {
		a := &r.agents[i]
		var n *named
		switch {
		case a.star:
			n = star
		case a.token.n == 0:
			n = empty
		default:
			tok := r.str(a.token)
			if n = tokens[tok]; n == nil {
				n = &named{delay: -1}
				tokens[tok] = n
				order = append(order, tok)
			}
		}
		n.groups = appendGroup(n.groups, a.group)
		a.merge(&n.delay, &n.rate)
	}
	// Tokens named by the same groups share their rules.
	shared := map[string]*rules{}
	newGroup := func(agent string, n *named) *Group {
		var kb []byte
		for _, i := range n.groups {
			kb = strconv.AppendUint(append(kb, ','), uint64(i), 10)
		}
		rs := shared[string(kb)]
		if rs == nil {
			rs = r.newRules(n.groups)
			shared[string(kb)] = rs
		}
		return &Group{agent: agent, crawlDelay: n.delay, rate: n.rate, rules: rs}
	}
	var idx agentIndex
	if len(order) <= fewTokens {
		for _, tok := range order {
			idx.few = append(idx.few, newGroup(tok, tokens[tok]))
		}
	} else {
		idx.byToken = make(map[string]*Group, len(order))
		for _, tok := range order {
			idx.byToken[tok] = newGroup(tok, tokens[tok])
		}
	}
	if star.groups != nil {
		idx.star = newGroup("*", star)
	} else {
		idx.star = newGroup("", star)
	}
	if empty.groups != nil && r.beh.emptyAgentGroup {
		idx.empty = newGroup("", empty)
	}
	r.index = idx
	r.indexed.Store(true)
}

// buildRecordIndex gives each record of a Koster1996 file its own Group:
// the draft follows one record, never a union.
func (r *Robots) buildRecordIndex() {
	idx := agentIndex{records: make([]*Group, len(r.groups))}
	for i := range r.groups {
		g := &Group{crawlDelay: -1, rules: r.newRules([]uint32{uint32(i)})}
		for _, a := range r.agents[r.groups[i].agents[0]:r.groups[i].agents[1]] {
			a.merge(&g.crawlDelay, &g.rate)
			if g.agent == "" || a.star {
				g.agent = r.str(a.token)
			}
		}
		idx.records[i] = g
	}
	idx.star = &Group{crawlDelay: -1, rules: r.newRules(nil)}
	for _, a := range r.agents {
		if a.star {
			idx.star = idx.records[a.group]
			break
		}
	}
	r.index = idx
	r.indexed.Store(true)
}

// recordGroup returns the Group of the first record of a Koster1996 file
// with a user-agent line whose value holds tok, ignoring case (section
// 3.2.1), or the first "*" record.
func (r *Robots) recordGroup(idx *agentIndex, tok string) *Group {
	if tok != "" {
		for _, a := range r.agents {
			if !a.star && ascii.ContainsFold(r.str(a.token), tok) {
				return idx.records[a.group]
			}
		}
	}
	return idx.star
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
	idx := r.agentIndex()
	tok := agentToken(userAgent)
	if r.beh.substringAgents {
		return r.recordGroup(idx, tok)
	}
	if tok == "" {
		if userAgent == "" && idx.empty != nil { // only under behaviour.emptyAgentGroup
			return idx.empty
		}
		return idx.star
	}
	if idx.byToken == nil {
		for _, g := range idx.few {
			if len(g.agent) == len(tok) && ascii.EqualFold(tok, g.agent) {
				return g
			}
		}
		return idx.star
	}
	var buf [64]byte
	if len(tok) <= len(buf) {
		for i := 0; i < len(tok); i++ {
			buf[i] = ascii.Lower(tok[i])
		}
		if g := idx.byToken[string(buf[:len(tok)])]; g != nil {
			return g
		}
	} else if g := idx.byToken[strings.ToLower(tok)]; g != nil {
		return g
	}
	return idx.star
}

// Allowed reports whether userAgent may fetch target, which is an absolute
// URL or a path with an optional query. It is Group(userAgent).Allowed(target).
func (r *Robots) Allowed(userAgent, target string) bool {
	return r.Group(userAgent).Decide(target).Allowed
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
	return g.Decide(target).Allowed
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
	path, slash := pathOf(target)
	return g.decide(path, slash)
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
			return g.decide("/", false)
		}
		return g.decide(path, path[0] != '/')
	}
	var buf [256]byte
	b := append(append(append(buf[:0], path...), '?'), u.RawQuery...)
	return g.decide(unsafe.String(unsafe.SliceData(b), len(b)), path == "" || path[0] != '/') // b is not retained
}

// decide decides path (with its query), which is missing its leading "/"
// when slash is true.
func (g *Group) decide(path string, slash bool) Decision {
	if len(g.members) == 0 {
		return Decision{Allowed: true, Basis: BasisNoGroup}
	}
	beh := g.r.beh
	if slash || beh.encoding.needsPath(path) {
		var buf [256]byte
		b := buf[:0]
		if slash {
			b = append(b, '/')
		}
		b = beh.encoding.appendPath(b, path)
		path = unsafe.String(unsafe.SliceData(b), len(b)) // b is not retained
	}
	if beh.robotsTxtAllowed && path == "/robots.txt" {
		return Decision{Allowed: true, Basis: BasisRobotsTxt, GroupAgent: g.agent, GroupLine: g.line}
	}
	g.once.Do(g.compile)
	best := g.m.Load().match(path)
	if best.idx < 0 {
		return Decision{Allowed: true, Basis: BasisNoMatch, GroupAgent: g.agent, GroupLine: g.line}
	}
	return Decision{Allowed: best.allow, Basis: BasisRule, Rule: g.r.rule(best.idx), GroupAgent: g.agent, GroupLine: g.line}
}

func (g *rules) compile() {
	g.m.Store(compile(g.r, g.members))
}
