package policy_test

import (
	"slices"
	"strconv"
	"strings"

	"github.com/robotsguard/robotsguard/policy"
)

// reference is a deliberately simple matcher, used to check the indexed one
// in match.go. It follows the streaming algorithm of Google's library: it
// replays the directives of the file for every query, tracks whether the
// current group applies to the agent, and tries every rule with a
// position-set simulation of the pattern. It shares only the line parser
// with the package (which the conformance vectors test on their own).
type reference struct {
	dialect policy.Dialect
	events  []event
}

type event struct {
	kind  policy.Kind
	line  int
	value string
}

func (ref *reference) UserAgent(line int, v []byte) {
	ref.events = append(ref.events, event{policy.KindUserAgent, line, string(v)})
}
func (ref *reference) Allow(line int, v []byte) {
	ref.events = append(ref.events, event{policy.KindAllow, line, string(v)})
}
func (ref *reference) Disallow(line int, v []byte) {
	ref.events = append(ref.events, event{policy.KindDisallow, line, string(v)})
}
func (ref *reference) Sitemap(int, []byte)       {}
func (ref *reference) Other(int, []byte, []byte) {}

// Line records blank lines, which end the records of the 1996 draft.
func (ref *reference) Line(info policy.LineInfo) {
	if info.Empty {
		ref.events = append(ref.events, event{policy.KindNone, info.Line, ""})
	}
}

func newReference(body []byte, d policy.Dialect) *reference {
	ref := &reference{dialect: d}
	policy.Parser{Dialect: d}.Scan(body, ref)
	return ref
}

type refMatch struct{ prio, line int }

// decide returns the verdict for agent on url and the line of the rule that
// decided it (0 when no rule did).
func (ref *reference) decide(agent, url string) (allowed bool, line int) {
	if ref.dialect == policy.Koster1996 {
		return ref.decideKoster(agent, url)
	}
	path := policy.PathOf(url)
	if ref.dialect == policy.RFC9309 {
		path = policy.CanonicalPath(path)
		if path == "/robots.txt" {
			return true, 0
		}
	}
	// The caller's token: Google compares an agent without one as given.
	tok := policy.AgentToken(agent)
	valid := tok != ""
	if !valid && ref.dialect == policy.Google {
		tok, valid = agent, true
	}

	var (
		seenGlobal, seenSpecific, everSpecific, seenSeparator bool
		allowG, allowS, disG, disS                            = refMatch{-1, 0}, refMatch{-1, 0}, refMatch{-1, 0}, refMatch{-1, 0}
	)
	scratch := [2][]int{make([]int, 0, len(path)+1), make([]int, 0, len(path)+1)}
	var rule func(e event, allow bool, pattern string)
	rule = func(e event, allow bool, pattern string) {
		prio := -1
		rfc := ref.dialect == policy.RFC9309
		match := matchesPattern(path, pattern, rfc, scratch)
		if rfc && tooManyQueryVariants(pattern) {
			// The written form only; a Disallow also matches where its
			// escapes between '*' and '?' are read as '*'.
			match = matchesPattern(path, pattern, false, scratch) ||
				!allow && matchesPattern(path, widenEscapes(pattern), false, scratch)
		}
		if match {
			prio = len(pattern)
		}
		if prio < 0 {
			if allow && ref.dialect == policy.Google {
				// Google: "/dir/index.html" also allows "/dir/".
				if s := strings.LastIndexByte(pattern, '/'); s >= 0 && strings.HasPrefix(pattern[s:], "/index.htm") {
					rule(e, allow, pattern[:s+1]+"$")
				}
			}
			return
		}
		m := &disG
		switch {
		case allow && seenSpecific:
			m = &allowS
		case allow:
			m = &allowG
		case seenSpecific:
			m = &disS
		}
		if m.prio < prio {
			*m = refMatch{prio, e.line}
		}
	}
	for _, e := range ref.events {
		switch e.kind {
		case policy.KindUserAgent:
			if seenSeparator {
				seenGlobal, seenSpecific, seenSeparator = false, false, false
			}
			v := e.value
			if len(v) >= 1 && v[0] == '*' && (len(v) == 1 || strings.ContainsRune(" \t\n\v\f\r", rune(v[1]))) {
				seenGlobal = true
				continue
			}
			key := v[:len(v)-len(strings.TrimLeft(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_-"))]
			if valid && strings.EqualFold(key, tok) && (key != "" || ref.dialect == policy.Google) {
				seenSpecific, everSpecific = true, true
			}
		case policy.KindAllow, policy.KindDisallow:
			if !seenGlobal && !seenSpecific {
				continue
			}
			seenSeparator = true
			rule(e, e.kind == policy.KindAllow, e.value)
		}
	}
	higher := func(d, a refMatch) refMatch {
		if d.prio > a.prio {
			return d
		}
		return a
	}
	if allowS.prio > 0 || disS.prio > 0 {
		return !(disS.prio > allowS.prio), higher(disS, allowS).line
	}
	if everSpecific {
		return true, 0
	}
	if allowG.prio > 0 || disG.prio > 0 {
		return !(disG.prio > allowG.prio), higher(disG, allowG).line
	}
	return true, 0
}

// matchesPattern is the pattern matcher of Google's library: it keeps the
// set of path positions that the pattern read so far can end at.
//
// In the RFC9309 dialect, where a canonical path has %2F and %3F decoded
// in its query only, a "%2F" or "%3F" of the pattern that comes after its
// first '*' and before its first '?' (so that the pattern cannot tell
// whether it is in the path or the query) matches that escape in the path,
// or the decoded character in the query.
func matchesPattern(path, pattern string, rfc bool, scratch [2][]int) bool {
	query := strings.IndexByte(path, '?') // the query starts after it
	if query < 0 {
		query = len(path)
	}
	star, q := strings.IndexByte(pattern, '*'), strings.IndexByte(pattern, '?')
	if q < 0 {
		q = len(pattern)
	}
	// pos lists the positions the pattern read so far can end at, in
	// increasing order; next is scratch space for the following list.
	pos, next := append(scratch[0][:0], 0), scratch[1][:0]
	for i := 0; i < len(pattern); i++ {
		c := pattern[i]
		if c == '$' && i == len(pattern)-1 {
			return pos[len(pos)-1] == len(path)
		}
		next = next[:0]
		switch {
		case c == '*':
			for p := pos[0]; p <= len(path); p++ {
				next = append(next, p)
			}
		case rfc && star >= 0 && star < i && i < q && (strings.HasPrefix(pattern[i:], "%2F") || strings.HasPrefix(pattern[i:], "%3F")):
			esc, dec := pattern[i:i+3], map[string]byte{"%2F": '/', "%3F": '?'}[pattern[i:i+3]]
			for _, p := range pos {
				if p <= query && strings.HasPrefix(path[p:], esc) {
					next = append(next, p+3)
				}
				if p > query && p < len(path) && path[p] == dec {
					next = append(next, p+1)
				}
			}
			slices.Sort(next)
			next = slices.Compact(next)
			i += 2
		default:
			for _, p := range pos {
				if p < len(path) && path[p] == c {
					next = append(next, p+1)
				}
			}
		}
		if len(next) == 0 {
			return false
		}
		pos, next = next, pos
	}
	return true
}

// tooManyQueryVariants reports whether an RFC9309 pattern has more than
// 8 '*'-separated literals between its first '*' and its first '?' before
// the first that holds "%2F" or "%3F": the package does not spell out the
// ways such a pattern meets a query, and reads it as tooManyQueryVariants
// says in the reference (a Disallow widened, an Allow as written).
func tooManyQueryVariants(pattern string) bool {
	star, q := strings.IndexByte(pattern, '*'), strings.IndexByte(pattern, '?')
	if q < 0 {
		q = len(pattern)
	}
	if star < 0 || q < star {
		return false
	}
	for i, lit := range strings.Split(pattern[star+1:q], "*") {
		if strings.Contains(lit, "%2F") || strings.Contains(lit, "%3F") {
			return i+1 > 8
		}
	}
	return false
}

// widenEscapes replaces each "%2F" and "%3F" between a pattern's first '*'
// and its first '?' by '*'.
func widenEscapes(pattern string) string {
	star, q := strings.IndexByte(pattern, '*'), strings.IndexByte(pattern, '?')
	if q < 0 {
		q = len(pattern)
	}
	return pattern[:star+1] + strings.NewReplacer("%2F", "*", "%3F", "*").Replace(pattern[star+1:q]) + pattern[q:]
}

// decideKoster follows the 1996 draft: records end at blank lines and at a
// user-agent line after rules; the first record with a user-agent value
// holding the robot's name, else the first "*" record, is obeyed; its first
// rule that is a prefix of the path (both with %xx decoded but %2F and %25)
// decides.
func (ref *reference) decideKoster(agent, url string) (allowed bool, line int) {
	path := kosterDecode(policy.PathOf(url))
	if path == "/robots.txt" {
		return true, 0
	}
	type record struct {
		agents []string
		rules  []event
	}
	var records []*record
	var cur *record
	for _, e := range ref.events {
		switch e.kind {
		case policy.KindNone:
			cur = nil
		case policy.KindUserAgent:
			if cur == nil || len(cur.rules) > 0 {
				cur = &record{}
				records = append(records, cur)
			}
			cur.agents = append(cur.agents, strings.ToLower(e.value))
		case policy.KindAllow, policy.KindDisallow:
			if cur != nil {
				cur.rules = append(cur.rules, e)
			}
		}
	}
	tok := strings.ToLower(policy.AgentToken(agent))
	var chosen *record
	for _, want := range []func(string) bool{
		func(v string) bool { return tok != "" && v != "*" && strings.Contains(v, tok) },
		func(v string) bool { return v == "*" },
	} {
		for _, r := range records {
			if chosen == nil && slices.ContainsFunc(r.agents, want) {
				chosen = r
			}
		}
	}
	if chosen == nil {
		return true, 0
	}
	for _, e := range chosen.rules {
		if e.value != "" && strings.HasPrefix(path, kosterDecode(e.value)) {
			return e.kind == policy.KindAllow, e.line
		}
	}
	return true, 0
}

// kosterDecode decodes the %xx escapes of s, except %2F and %25, whose hex
// digits it upper-cases; a '%' that starts no escape becomes "%25".
func kosterDecode(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b.WriteByte(s[i])
			continue
		}
		v, err := strconv.ParseUint(s[i+1:min(i+3, len(s))], 16, 8)
		if err != nil || i+3 > len(s) || strings.ContainsAny(s[i+1:i+3], "+-") {
			b.WriteString("%25")
			continue
		}
		if v == '/' || v == '%' {
			b.WriteString(strings.ToUpper(s[i : i+3]))
		} else {
			b.WriteByte(byte(v))
		}
		i += 2
	}
	return b.String()
}
