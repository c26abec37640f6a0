package usage

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unsafe"

	"github.com/robotsguard/robotsguard/policy"
)

// RobotsSignals are the usage signals of a robots.txt: its Content-Usage
// and Content-Signal lines, by group. It holds only those lines and the
// user-agent names that select groups; a file without such lines gives an
// Empty RobotsSignals, which a caller need not keep. A RobotsSignals is
// immutable: it may be used from several goroutines at once.
type RobotsSignals struct {
	url    string
	rules  []aiprefRule
	groups []aiprefGroup
	// agents lists the product tokens (lower-cased) that name groups, with
	// each group they name, sorted by token then group; star the groups
	// of "*". Groups without signal lines are listed too: a crawler that a
	// group names follows that group only, even when it has none.
	agents   []aiprefAgent
	star     []uint32
	problems []RobotsProblem
	nproblem int
}

// aiprefRule is one Content-Usage or Content-Signal line of a group.
type aiprefRule struct {
	pattern  string // canonical (policy.CanonicalPattern); "/" when absent
	text     string // the line as written, cut (Source.Text)
	line     int32
	signal   Signal
	use      uint8 // Content-Signal's use level (contentUses), or 0
	verdicts aiprefVerdicts
}

// aiprefGroup is a group's rules: rules[lo:hi].
type aiprefGroup struct{ lo, hi uint32 }

type aiprefAgent struct {
	token string
	group uint32
}

// robotsMaxProblems is the number of problems a RobotsSignals keeps.
const robotsMaxProblems = 16

// A RobotsProblem is a Content-Usage or Content-Signal line of a robots.txt
// that could not be read whole: its value does not parse, or it stands
// before any user-agent line (and so applies to no one, RFC 9309 §2.2.2).
type RobotsProblem struct {
	Line   int
	Signal Signal // ContentUsage or ContentSignal
	Err    error
}

func (p RobotsProblem) Error() string {
	return fmt.Sprintf("robotsguard: robots.txt line %d: %s", p.Line, strings.TrimPrefix(p.Err.Error(), "robotsguard: "))
}

func (p RobotsProblem) Unwrap() error { return p.Err }

var errOutsideGroup = errors.New("robotsguard: line before any user-agent line, ignored")

// ParseRobots reads the usage signals of a robots.txt body; url is the
// file's URL, for Source.URL (when it is "", Decide gives Site.RobotsURL). It reads what policy.Parser reads (the first
// 500 KiB, see policy.DefaultMaxSize), in one scan. It returns nil, whose
// methods all work (Empty is true), without allocating, when the body
// holds no "Content-Usage" or "Content-Signal" (ignoring case): most files.
//
// Content-Usage and Content-Signal lines are rules of the group they stand
// in (draft-ietf-aipref-attach §3): a user-agent line after one starts a
// new group. A value that starts with "/" starts with a path, up to the
// first space or tab; otherwise the rule applies to every path ("/"). Each
// value is read up to MaxPreferencesSize bytes; longer Content-Usage
// values state no preference.
func ParseRobots(body []byte, url string) *RobotsSignals {
	if len(body) > policy.DefaultMaxSize {
		body = body[:policy.DefaultMaxSize]
	}
	if !aiprefMayHaveSignals(body) {
		return nil
	}
	r := &RobotsSignals{url: url}
	s := robotsScanner{r: r}
	policy.Parser{}.Scan(body, &s)
	if len(r.rules) == 0 {
		r.groups, r.agents, r.star = nil, nil, nil
		return r
	}
	slices.SortFunc(r.agents, func(a, b aiprefAgent) int {
		if c := strings.Compare(a.token, b.token); c != 0 {
			return c
		}
		return int(a.group) - int(b.group)
	})
	r.agents = slices.Compact(r.agents)
	r.star = slices.Compact(r.star)
	r.rules = slices.Clip(r.rules)
	r.groups = slices.Clip(r.groups)
	return r
}

// aiprefMayHaveSignals reports whether body holds "content-usage" or
// "content-signal" in any case: the only bodies worth a scan.
func aiprefMayHaveSignals(body []byte) bool {
	for i := 0; ; {
		j := bytes.IndexByte(body[i:], '-')
		if j < 0 {
			return false
		}
		i += j
		// The byte before the '-' rules out most: those of "user-agent",
		// and of paths.
		if i >= 7 && body[i-1]|0x20 == 't' && bytes.EqualFold(body[i-7:i], []byte("content")) {
			rest := body[i+1:]
			if len(rest) >= 5 && bytes.EqualFold(rest[:5], []byte("usage")) ||
				len(rest) >= 6 && bytes.EqualFold(rest[:6], []byte("signal")) {
				return true
			}
		}
		i++
	}
}

// Empty reports whether the file has no Content-Usage or Content-Signal
// line in any group, so that Evidence always returns nothing.
func (r *RobotsSignals) Empty() bool { return r == nil || len(r.rules) == 0 }

// Problems returns the first 16 lines that could not be read whole, in file
// order, and how many there were in all.
func (r *RobotsSignals) Problems() ([]RobotsProblem, int) {
	if r == nil {
		return nil, 0
	}
	return r.problems, r.nproblem
}

// Count returns how many Content-Usage (sig ContentUsage) or Content-Signal
// (ContentSignal) lines the file's groups hold.
func (r *RobotsSignals) Count(sig Signal) int {
	if r == nil {
		return 0
	}
	n := 0
	for i := range r.rules {
		if r.rules[i].signal == sig {
			n++
		}
	}
	return n
}

// Evidence returns what the file's lines say of target's use for c by
// agent (a product token or a full User-Agent value, see
// policy.ProductToken).
//
// The agent follows the union of the groups that name its product token,
// ignoring case, or else the "*" groups, as for Allow and Disallow (RFC 9309
// §2.2.1). Among those groups' Content-Usage lines, the one whose path
// pattern is the longest (in octets, as RFC 9309 §2.2.2 counts them) of
// those matching target decides, and so for Content-Signal lines apart:
// the line's statement as a whole, so a longer line that is silent on c
// leaves c unknown even when a shorter one speaks of it. When several
// matching lines have that length, each applies (draft-ietf-aipref-attach
// §3.1): one Evidence for each that speaks of c, and the most restrictive
// prevails when they are combined. A Content-Usage line whose value does
// not parse decides too, and says nothing.
//
// Evidence does not consult Allow and Disallow lines. The attach draft
// applies preferences only to the paths a crawler may fetch: a path
// the file disallows has none, which the caller checks with
// policy.Robots.
func (r *RobotsSignals) Evidence(agent, target string, c Category) []Evidence {
	if r.Empty() {
		return nil
	}
	slot, ok := aiprefSlotOf(c)
	if !ok {
		return nil
	}
	lo, hi, star := r.agentGroups(agent)
	groups := func(yield func(aiprefGroup) bool) {
		if star {
			for _, g := range r.star {
				if !yield(r.groups[g]) {
					return
				}
			}
			return
		}
		for _, a := range r.agents[lo:hi] {
			if !yield(r.groups[a.group]) {
				return
			}
		}
	}
	path := policy.CanonicalPath(policy.PathOf(target))
	var out []Evidence
	for _, sig := range [...]Signal{ContentUsage, ContentSignal} {
		best := -1
		for g := range groups {
			for i := g.lo; i < g.hi; i++ {
				rule := &r.rules[i]
				if rule.signal == sig && len(rule.pattern) > best && policy.PatternMatches(rule.pattern, path) {
					best = len(rule.pattern)
				}
			}
		}
		if best < 0 {
			continue
		}
		for g := range groups {
			for i := g.lo; i < g.hi; i++ {
				rule := &r.rules[i]
				v := rule.verdicts[slot]
				if rule.signal != sig || v == Unknown && rule.use == 0 || len(rule.pattern) != best || !policy.PatternMatches(rule.pattern, path) {
					continue
				}
				// A use level names no category: it is a condition on
				// every use the line speaks of, and decides none.
				var cond Conditions
				if rule.use != 0 {
					cond.ContentUse = contentUses[rule.use]
				}
				out = append(out, Evidence{
					Category:   c,
					Verdict:    v,
					Conditions: cond,
					Source: Source{
						Signal: sig,
						Place:  InFile,
						URL:    r.url,
						Line:   int(rule.line),
						Text:   rule.text,
					},
				})
			}
		}
	}
	return out
}

// agentGroups returns the agents[lo:hi] that name agent's product token,
// or star true when none does and agent follows the "*" groups.
func (r *RobotsSignals) agentGroups(agent string) (lo, hi int, star bool) {
	tok := strings.ToLower(policy.ProductToken(agent))
	if tok == "" {
		return 0, 0, true
	}
	lo, _ = slices.BinarySearchFunc(r.agents, tok, func(a aiprefAgent, t string) int {
		return strings.Compare(a.token, t)
	})
	hi = lo
	for hi < len(r.agents) && r.agents[hi].token == tok {
		hi++
	}
	return lo, hi, lo == hi
}

// robotsScanner is the policy.Handler that fills a RobotsSignals.
type robotsScanner struct {
	r *RobotsSignals
	// taking is true within a group's run of user-agent lines, which a
	// rule ends.
	taking bool
}

func (s *robotsScanner) UserAgent(line int, value []byte) {
	r := s.r
	if !s.taking {
		n := uint32(len(r.rules))
		r.groups = append(r.groups, aiprefGroup{n, n})
		s.taking = true
	}
	g := uint32(len(r.groups) - 1)
	if len(value) == 0 {
		return // names no crawler
	}
	// As policy reads it: "*" alone or before a space is the "*" group;
	// otherwise the product token the value starts with.
	if value[0] == '*' && (len(value) == 1 || value[1] == ' ' || value[1] == '\t') {
		r.star = append(r.star, g)
		return
	}
	n := 0
	for n < len(value) && aiprefIsTokenChar(value[n]) {
		n++
	}
	if n == 0 {
		return // names no crawler
	}
	r.agents = append(r.agents, aiprefAgent{strings.ToLower(string(value[:n])), g})
}

func aiprefIsTokenChar(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' || c == '-'
}

func (s *robotsScanner) Allow(int, []byte)    { s.taking = false }
func (s *robotsScanner) Disallow(int, []byte) { s.taking = false }
func (s *robotsScanner) Sitemap(int, []byte)  {}

func (s *robotsScanner) Other(line int, key, value []byte) {
	var sig Signal
	switch {
	case bytes.EqualFold(key, []byte("content-usage")):
		sig = ContentUsage
	case bytes.EqualFold(key, []byte("content-signal")):
		sig = ContentSignal
	default:
		return
	}
	r := s.r
	if len(r.groups) == 0 {
		s.problem(line, sig, errOutsideGroup)
		return
	}
	s.taking = false
	pattern, prefs := "/", value
	if len(value) > 0 && value[0] == '/' {
		end := bytes.IndexAny(value, " \t")
		if end < 0 {
			end = len(value)
		}
		pattern = policy.CanonicalPattern(string(value[:end]))
		prefs = bytes.TrimLeft(value[end:], " \t")
	}
	rule := aiprefRule{
		pattern: pattern,
		text:    aiprefText(string(key) + ": " + string(value[:min(len(value), aiprefMaxText)])),
		line:    int32(line),
		signal:  sig,
	}
	var err error
	switch {
	case sig == ContentUsage && len(prefs) > MaxPreferencesSize:
		err = fmt.Errorf("robotsguard: statement of preference of %d bytes, over %d", len(prefs), MaxPreferencesSize)
	case sig == ContentUsage:
		var p Preferences
		p, err = parsePreferences(string(prefs), false)
		rule.verdicts = p.known
	default:
		rule.verdicts, rule.use, err = parseContentSignal(string(prefs))
	}
	if err != nil {
		s.problem(line, sig, err)
	}
	r.rules = append(r.rules, rule)
	r.groups[len(r.groups)-1].hi = uint32(len(r.rules))
}

func (s *robotsScanner) problem(line int, sig Signal, err error) {
	r := s.r
	r.nproblem++
	if len(r.problems) < robotsMaxProblems {
		r.problems = append(r.problems, RobotsProblem{line, sig, err})
	}
}

// MemSize returns an estimate of the memory r holds, in bytes, for caches
// bounded in bytes (a Transport keeps one per origin whose robots.txt has
// usage lines).
func (r *RobotsSignals) MemSize() int {
	if r == nil {
		return 0
	}
	n := int(unsafe.Sizeof(*r)) + len(r.url)
	n += cap(r.rules) * int(unsafe.Sizeof(aiprefRule{}))
	for _, x := range r.rules {
		n += len(x.pattern) + len(x.text)
	}
	n += cap(r.groups)*int(unsafe.Sizeof(aiprefGroup{})) + cap(r.star)*4
	n += cap(r.agents) * int(unsafe.Sizeof(aiprefAgent{}))
	for _, a := range r.agents {
		n += len(a.token)
	}
	n += cap(r.problems) * int(unsafe.Sizeof(RobotsProblem{}))
	for _, p := range r.problems {
		if p.Err != nil {
			n += 64 + len(p.Err.Error())
		}
	}
	return n
}
