package policy

import (
	"net/url"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/robotsguard/robotsguard/internal/ascii"
	"github.com/robotsguard/robotsguard/internal/match"
)

// A Group is the set of rules one agent follows in a robots.txt: the union
// of every group that names the agent's product token, or else of every "*"
// group (RFC 9309 §2.2.1); under Koster1996, the one record the draft has
// the agent follow. Get one with Robots.Group and reuse it to check
// many URLs for the same agent. A Group is safe for concurrent use.
type Group struct {
	// flat is what deciding a path reads when the Group's rules are those
	// of one group of the file, matched rule by rule: first, so that a
	// decision reads the Group's first bytes, then the rules it tries and
	// their text, and neither the Robots nor its list of groups.
	flat  match.Plan
	agent string // "*", a lower-case token (Koster1996: value), or "" for no group
	// ext is the Crawl-delay and Request-rate that apply, or nil when
	// neither does: one of Robots.exts when it is among them.
	ext *agentExt
	*rules
}

// planOf returns the plan of a Group of the groups members of r, or the
// zero plan when it has none: several members, none, or rules that a
// compiled matcher decides.
func planOf(r *Robots, members []uint32) match.Plan {
	if len(members) != 1 {
		return match.Plan{}
	}
	lo, hi := r.groupRules(members[0])
	runs := []match.Run{{Lo: lo, Hi: hi}}
	if !match.Flat(r.set(), runs) {
		return match.Plan{}
	}
	return match.NewPlan(r.set(), runs[0], uint8(r.beh.encoding))
}

// encoding returns how the paths g decides are normalised, and whether g
// has rules at all (a Group without is decided without normalising).
func (g *Group) encoding() (encoding, bool) {
	if g.flat.OK() {
		return encoding(g.flat.Enc()), true
	}
	if g.empty() {
		return 0, false
	}
	return g.r.beh.encoding, true
}

// rules is what Groups with the same member groups share: the groups
// (members) of the Robots r whose rules they are.
type rules struct {
	r    *Robots
	m    atomic.Pointer[match.Matcher] // set once, by compile, with r.index.mu held
	more *[]uint32                     // the members when there are several
	one  [1]uint32                     // the members when there are fewer (n of them)
	n    uint32
}

// members returns the indices of the member groups in Robots.groups, in
// file order.
func (rs *rules) members() []uint32 {
	if rs.more != nil {
		return *rs.more
	}
	return rs.one[:rs.n]
}

// line returns the line of the first user-agent line of the first member
// group, or 0 when there is none.
func (rs *rules) line() int {
	if ms := rs.members(); len(ms) > 0 {
		return int(rs.r.groups()[ms[0]].line)
	}
	return 0
}

// empty reports whether rs has no member groups.
func (rs *rules) empty() bool { return rs.n == 0 && rs.more == nil }

// groupAndRules is a Group with rules of its own, allocated at once.
type groupAndRules struct {
	g  Group
	rs rules
}

// agentIndex holds the Groups asked for so far: each is built on the
// first query for its agent, so that a file naming many agents costs
// memory only for those a crawler is.
type agentIndex struct {
	mu sync.Mutex // serialises building and compiling; readers load built without it
	// built lists the Groups built so far, the latest first, by product
	// token: those of the tokens the file names, and of others (which
	// follow the "*" group), at most maxBuilt. Under
	// behaviour.emptyAgentGroup, token "" is the group of the user-agent
	// values without a token. Entries are never changed once listed.
	built   atomic.Pointer[tokenGroup]
	nbuilt  int32                       // entries in built
	star    atomic.Pointer[Group]       // the "*" groups, or the empty group when there are none
	records atomic.Pointer[recordIndex] // Koster1996
	first   tokenGroup                  // the first entry of built
}

// recordIndex holds the Group of each record of a Koster1996 file, by
// index in Robots.groups, and the first "*" record's.
type recordIndex struct {
	groups []*Group
	star   *Group
}

// tokenGroup is an entry of agentIndex.built.
type tokenGroup struct {
	// token is a lower-case product token: one of Robots.text, or a copy
	// of one the file does not name (never a part of the caller's string,
	// which may be larger).
	token string
	g     *Group
	next  *tokenGroup
	// When token is 4 to 16 bytes long, w is token as loadShort reads it,
	// and keep the bits of w that a string equal to token but for case has
	// the same: all but 0x20 of the letters.
	w, keep [2]uint64
}

// newTokenGroup returns the entry of built for token, whose Group is g.
func newTokenGroup(token string, g *Group, next *tokenGroup) tokenGroup {
	e := tokenGroup{token: token, g: g, next: next}
	if 4 <= len(token) && len(token) <= 16 {
		var mask [16]byte
		for i := 0; i < len(token); i++ {
			mask[i] = 0xff
			if 'a' <= token[i] && token[i] <= 'z' {
				mask[i] = 0xff &^ 0x20
			}
		}
		e.w[0], e.w[1] = loadShort(token)
		e.keep[0], e.keep[1] = loadShort(string(mask[:len(token)]))
	}
	return e
}

// is reports whether a string of n bytes, 4 to 16, whose words (see
// loadShort) are a and b, equals e.token ignoring the case of its letters.
func (e *tokenGroup) is(n int, a, b uint64) bool {
	return len(e.token) == n && (a^e.w[0])&e.keep[0]|(b^e.w[1])&e.keep[1] == 0
}

// loadShort returns the bytes of s, 4 to 16 of them, in two words: each
// byte of s is in one of them, at a place that depends only on len(s), so
// that strings of the same length are equal when their words are. Eight
// bytes and more are read as the first eight and the last eight, which
// overlap below 16; four to seven as the first four and the last four.
func loadShort(s string) (a, b uint64) {
	if n := len(s); n < 8 {
		return uint64(load32(s, 0)) | uint64(load32(s, n-4))<<32, 0
	}
	return load64(s, 0), load64(s, len(s)-8)
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
	if r.beh.substringAgents {
		return r.recordGroup(agentToken(userAgent))
	}
	// Most queries name, as a bare product token, an agent asked about
	// before: its token is userAgent itself, in lower case. (Tokens are
	// in lower case and hold only token characters, so a userAgent equal
	// to one but for case is that token.)
	// From 4 to 16 bytes, two words compare each token: the letters of
	// userAgent may differ from the token's in their bit 0x20, the other
	// bytes not at all.
	if n := len(userAgent); 4 <= n && n <= 16 {
		a, b := loadShort(userAgent)
		for e := r.index.built.Load(); e != nil; e = e.next {
			if e.is(n, a, b) {
				return e.g
			}
		}
	} else {
		for e := r.index.built.Load(); e != nil; e = e.next {
			if ascii.EqualFold(userAgent, e.token) {
				return e.g
			}
		}
	}
	tok := agentToken(userAgent)
	if tok == "" {
		if userAgent == "" && r.beh.emptyAgentGroup {
			return r.tokenGroup("")
		}
		return r.starGroup()
	}
	return r.tokenGroup(tok)
}

// builtGroup returns the Group built for product token tok, or nil.
func (idx *agentIndex) builtGroup(tok string) *Group {
	for e := idx.built.Load(); e != nil; e = e.next {
		if len(e.token) == len(tok) && sameToken(tok, e.token) {
			return e.g
		}
	}
	return nil
}

// tokenGroup returns the Group of product token tok: the union of the
// groups that name it, or else the "*" group.
func (r *Robots) tokenGroup(tok string) *Group {
	idx := &r.index
	if g := idx.builtGroup(tok); g != nil {
		return g
	}
	idx.mu.Lock()
	defer idx.mu.Unlock()
	if g := idx.builtGroup(tok); g != nil {
		return g
	}
	// One pass over the user-agent lines: the groups naming tok, and the
	// politest Crawl-delay and Request-rate that reach it.
	var buf [8]uint32
	members := buf[:0]
	delay, rate := -1.0, Rate{}
	name := ""
	agents := r.agents()
	gi := ^uint32(0)
	for i := range agents {
		a := &agents[i]
		if a.first() {
			gi++
		}
		if a.star() || int(a.token.n) != len(tok) || !sameToken(tok, r.str(a.token)) {
			continue
		}
		members = appendGroup(members, gi)
		r.ext(a).merge(&delay, &rate)
		name = r.str(a.token)
	}
	var g *Group
	if len(members) == 0 {
		g = r.starGroupLocked()
		if tok != "" {
			b := make([]byte, len(tok))
			for i := range b {
				b[i] = ascii.Lower(tok[i])
			}
			name = unsafe.String(&b[0], len(b)) // b is not changed again
		}
	} else {
		g = r.newGroup(name, delay, rate, members)
	}
	if idx.nbuilt < maxBuilt {
		e := &idx.first
		if idx.nbuilt > 0 {
			e = new(tokenGroup)
		}
		*e = newTokenGroup(name, g, idx.built.Load())
		idx.built.Store(e)
		idx.nbuilt++
	}
	return g
}

// sameToken reports whether the product tokens a and b, of the same
// length, are equal ignoring case. Setting bit 0x20 lower-cases a letter
// and changes neither '-' nor '_' into another token character.
func sameToken(a, b string) bool {
	b = b[:len(a)]
	for i := 0; i < len(a); i++ {
		if a[i]|0x20 != b[i]|0x20 {
			return false
		}
	}
	return true
}

// newGroup returns a Group of the groups members, with rules of a Group
// already built with the same members, or new ones. (Tokens named by the
// same groups share their matcher.) It does not retain members. r.index.mu
// is held.
func (r *Robots) newGroup(agent string, delay float64, rate Rate, members []uint32) *Group {
	ext := r.findExt(agentExt{crawlDelay: delay, rate: rate})
	plan := planOf(r, members)
	if rs := r.builtRules(members); rs != nil {
		return &Group{flat: plan, agent: agent, ext: ext, rules: rs}
	}
	a := &groupAndRules{g: Group{flat: plan, agent: agent, ext: ext}}
	a.g.rules = &a.rs
	r.initRules(&a.rs, members)
	return &a.g
}

// findExt returns nil for noExt, else a pointer to e: one of r.exts when
// it is there, else a copy.
func (r *Robots) findExt(e agentExt) *agentExt {
	if e == noExt {
		return nil
	}
	exts := r.exts()
	for i := range exts {
		if exts[i] == e {
			return &exts[i]
		}
	}
	p := new(agentExt) // not &e, which would allocate on every call
	*p = e
	return p
}

// builtRules returns the rules of a Group already built with the groups
// members, or nil.
func (r *Robots) builtRules(members []uint32) *rules {
	if g := r.index.star.Load(); g != nil && slices.Equal(g.members(), members) {
		return g.rules
	}
	for e := r.index.built.Load(); e != nil; e = e.next {
		if slices.Equal(e.g.members(), members) {
			return e.g.rules
		}
	}
	return nil
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
	var buf [8]uint32
	members := buf[:0]
	delay, rate := -1.0, Rate{}
	agents := r.agents()
	gi := ^uint32(0)
	for i := range agents {
		a := &agents[i]
		if a.first() {
			gi++
		}
		if a.star() {
			members = appendGroup(members, gi)
			r.ext(a).merge(&delay, &rate)
		}
	}
	agent := ""
	if len(members) > 0 {
		agent = "*"
	}
	g := r.newGroup(agent, delay, rate, members)
	r.index.star.Store(g)
	return g
}

// recordGroups returns the Group of each record of a Koster1996 file,
// building them on the first call: the draft follows one record, never a
// union.
func (r *Robots) recordGroups() *recordIndex {
	if x := r.index.records.Load(); x != nil {
		return x
	}
	r.index.mu.Lock()
	defer r.index.mu.Unlock()
	if x := r.index.records.Load(); x != nil {
		return x
	}
	x := &recordIndex{groups: make([]*Group, r.ngroups)}
	agents := r.agents()
	for i, j := 0, 0; i < len(x.groups); i++ {
		delay, rate, agent, star := -1.0, Rate{}, "", false
		for k := j; j < len(agents) && (j == k || !agents[j].first()); j++ {
			a := &agents[j]
			r.ext(a).merge(&delay, &rate)
			if agent == "" || a.star() {
				agent = r.str(a.token)
			}
			star = star || a.star()
		}
		x.groups[i] = r.newGroup(agent, delay, rate, []uint32{uint32(i)})
		if star && x.star == nil {
			x.star = x.groups[i]
		}
	}
	if x.star == nil {
		x.star = r.newGroup("", -1, Rate{}, nil)
	}
	r.index.records.Store(x)
	return x
}

// recordGroup returns the Group of the first record of a Koster1996 file
// with a user-agent line whose value holds tok, ignoring case (section
// 3.2.1), or the first "*" record.
func (r *Robots) recordGroup(tok string) *Group {
	x := r.recordGroups()
	if tok != "" {
		gi := -1
		for _, a := range r.agents() {
			if a.first() {
				gi++
			}
			if !a.star() && ascii.ContainsFold(r.str(a.token), tok) {
				return x.groups[gi]
			}
		}
	}
	return x.star
}

// appendGroup adds group i to list unless it is already its last element
// (an agent named twice in one group).
func appendGroup(list []uint32, i uint32) []uint32 {
	if n := len(list); n > 0 && list[n-1] == i {
		return list
	}
	return append(list, i)
}

// initRules sets rs to the rules of the groups members, which it does not
// retain.
func (r *Robots) initRules(rs *rules, members []uint32) {
	rs.r = r
	if len(members) <= len(rs.one) {
		rs.n = uint32(copy(rs.one[:], members))
	} else {
		more := slices.Clone(members)
		rs.more = &more
	}
}

// Allowed reports whether userAgent may fetch target, which is an absolute
// URL or a path with an optional query: Group(userAgent).Decide(target).Allowed,
// in one call, without building the Decision. It is the one-line question
// a crawler asks of a file, and the cheapest on a string: to know why,
// look the group up (Robots.Group) and call Decide.
func (r *Robots) Allowed(userAgent, target string) bool {
	best, basis := r.Group(userAgent).lookup(target)
	return basis != BasisRule || best.Allow()
}

// Agent returns the group's product token in lower case (under
// Koster1996, the record's whole user-agent value), "*" for the "*" group,
// or "" when no group applies.
func (g *Group) Agent() string { return g.agent }

// Line returns the line of the group's first user-agent line, or 0 when no
// group applies.
func (g *Group) Line() int { return g.line() }

// CrawlDelay returns the Crawl-delay that applies to the group's agent: that
// of a Crawl-delay line below one of its user-agent lines, in the same
// group. When there are several, it is the longest.
func (g *Group) CrawlDelay() (time.Duration, bool) {
	if g.ext == nil || g.ext.crawlDelay < 0 {
		return 0, false
	}
	return seconds(g.ext.crawlDelay), true
}

// RequestRate returns the Request-rate that applies to the group's agent,
// found as CrawlDelay is. When there are several, it is the slowest.
func (g *Group) RequestRate() (Rate, bool) {
	if g.ext == nil {
		return Rate{}, false
	}
	return g.ext.rate, g.ext.rate.Per != 0
}

// Rules returns the group's rules in file order.
func (g *Group) Rules() []Rule {
	var out []Rule
	for _, i := range g.members() {
		lo, hi := g.r.groupRules(i)
		for j := lo; j < hi; j++ {
			out = append(out, g.r.rule(int32(j)))
		}
	}
	return out
}

// Decide returns the verdict on target, with the rule that decided it: the
// one way to ask a Group about a URL held as a string (the Decision holds
// the verdict, Allowed, and allocates nothing). target is an absolute URL
// ("https://example.com/a?b") or a path with an optional query ("/a?b").
// A path that starts with "//" is read as a scheme-relative URL, whose
// first segment is a host: decide such paths through an absolute URL, or
// with DecideURL.
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
// sent in a request (URL.RequestURI), without building that string. The
// Transport calls it for the Decision of a refusal.
func (g *Group) DecideURL(u *url.URL) Decision {
	return g.decision(g.lookupURL(u))
}

// AllowedURL reports whether u may be fetched: it is DecideURL(u).Allowed,
// without the rest of the Decision (the rule's line and text, the group),
// and allocates nothing. It is what a request's hot path asks, as the
// Transport does before each request; most answers are yes, and need no
// reason.
func (g *Group) AllowedURL(u *url.URL) bool {
	best, basis := g.lookupURL(u)
	return basis != BasisRule || best.Allow()
}

// lookupURL returns the rule that decides u, or match.NoRule, and why.
func (g *Group) lookupURL(u *url.URL) (match.Ref, Basis) {
	if u.Opaque != "" {
		return g.lookup(u.RequestURI())
	}
	path := escapedPath(u)
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

// decision is the Decision for the rule best, found on the given basis.
func (g *Group) decision(best match.Ref, basis Basis) Decision {
	switch basis {
	case BasisNoGroup:
		return Decision{Allowed: true, Basis: BasisNoGroup}
	case BasisRule:
		return Decision{Allowed: best.Allow(), Basis: BasisRule, Rule: g.r.rule(best.Idx()), GroupAgent: g.agent, GroupLine: g.line()}
	}
	return Decision{Allowed: true, Basis: basis, GroupAgent: g.agent, GroupLine: g.line()}
}

// lookup returns the rule that decides target, or match.NoRule, and why.
func (g *Group) lookup(target string) (match.Ref, Basis) {
	if enc, ok := g.encoding(); ok && enc == encCanonical {
		// Most URLs are canonical already: one pass finds the path and
		// tells. Those that are not are put in that form without
		// looking for the path again.
		if path, canonical, ok := canonicalPathOf(target); ok {
			if !canonical {
				var buf [256]byte
				b := canonicalize(buf[:0], path, false)
				path = unsafe.String(unsafe.SliceData(b), len(b)) // b is not retained
			}
			return g.decideNormalised(path)
		}
	}
	path, slash := pathOf(target)
	return g.decide(path, slash)
}

// decide returns the rule that decides path (with its query), which is
// missing its leading "/" when slash is true, or match.NoRule, and why.
func (g *Group) decide(path string, slash bool) (match.Ref, Basis) {
	enc, ok := g.encoding()
	if !ok {
		return match.NoRule, BasisNoGroup
	}
	if slash || enc.needsPath(path) {
		var buf [256]byte
		b := buf[:0]
		if slash {
			b = append(b, '/')
		}
		b = enc.appendPath(b, path)
		path = unsafe.String(unsafe.SliceData(b), len(b)) // b is not retained
	}
	return g.decideNormalised(path)
}

// decideNormalised is decide for a path normalised for the dialect, of a
// group with members.
func (g *Group) decideNormalised(path string) (match.Ref, Basis) {
	var best match.Ref
	if f := &g.flat; f.OK() {
		if f.RobotsTxtAllowed() && path == "/robots.txt" {
			return match.NoRule, BasisRobotsTxt
		}
		best = f.Match(path)
	} else if g.r.beh.match.RobotsTxtAllowed && path == "/robots.txt" {
		return match.NoRule, BasisRobotsTxt
	} else if m := g.load(); m == flatMatcher {
		best = matchFlat(g.r, g.members(), path)
	} else {
		best = m.Match(path)
	}
	if best == match.NoRule {
		return match.NoRule, BasisNoMatch
	}
	return best, BasisRule
}

// flatMatcher marks a group matched rule by rule (matchFlat).
var flatMatcher = new(match.Matcher)

// matchFlat returns the rule of the groups members that decides path, or
// match.NoRule, trying each rule that would beat the best match so far.
func matchFlat(r *Robots, members []uint32, path string) match.Ref {
	best := match.NoRule
	for _, gi := range members {
		lo, hi := r.groupRules(gi)
		best = match.MatchRun(r.rules()[lo:hi], lo, r.text(), r.beh.match.FirstMatch, r.nrules, path, best)
	}
	return best
}

// runs returns the runs of rules of the groups members of r.
func (r *Robots) runs(members []uint32) []match.Run {
	runs := make([]match.Run, len(members))
	for i, gi := range members {
		runs[i].Lo, runs[i].Hi = r.groupRules(gi)
	}
	return runs
}

// load returns the matcher of g, building it on the first call.
func (g *rules) load() *match.Matcher {
	if m := g.m.Load(); m != nil {
		return m
	}
	return g.compile()
}

// compile builds the matcher of g, once, and returns it.
func (g *rules) compile() *match.Matcher {
	g.r.index.mu.Lock()
	defer g.r.index.mu.Unlock()
	m := g.m.Load()
	if m == nil {
		runs := g.r.runs(g.members())
		if match.Flat(g.r.set(), runs) {
			m = flatMatcher
		} else {
			m = match.Compile(g.r.set(), runs)
		}
	}
	g.m.Store(m)
	return m
}
