package policy

import (
	"math/bits"
	"slices"
	"strings"
	"sync"
	"unsafe"
)

// This file is the matcher: given the rules of a group, it finds the rule
// that decides a path (RFC 9309 §2.2.2: the longest pattern that matches,
// an Allow winning a tie) without looking at every rule.
//
// Rules are split three ways when a group is compiled:
//
//   - prefix rules, whose pattern is a literal, possibly followed by '*'s
//     ("/a/b", "/a/b*"): every one that matches is a prefix of the path.
//     They are kept sorted; the last one not after the path is found by
//     binary search, and all prefixes of the path are on its chain of
//     ancestors (each entry links to its longest proper prefix), whose best
//     rule is precomputed. Cost: O(log n + chain) string comparisons.
//   - exact rules, a literal followed by '$' ("/a/b$"): binary search for
//     the path itself.
//   - wildcard rules, with a literal after a '*' ("/*.php", "/a/*/b$"):
//     grouped by the literal before their first '*', and these literals
//     indexed like the prefix rules, so only the groups whose literal
//     starts the path are looked at. Within a group rules are kept best
//     first; a group of many has an Aho-Corasick automaton over one
//     required literal of each rule ("factor"), which finds, in one pass
//     over the path, the few that can match. Candidates are tried best
//     first, and the first that matches decides its group. A rule that
//     cannot beat the best match so far is never tried.
//
// Trying one wildcard rule is linear in the path: its literals are found
// left to right, each at its first occurrence, which is how a '*'-only
// pattern matches if it matches at all. There is no backtracking, so
// patterns like "/*a*a*a*a*$" cost no more than their length.

// ruleRef is a rule as the matcher ranks it.
type ruleRef struct {
	prio  int32 // octets of the pattern, wildcards and anchor included
	idx   int32 // index in Robots.rules (file order); -1 for no rule
	allow bool
}

var noRule = ruleRef{prio: -1, idx: -1}

// beats reports whether a decides over b: the longer pattern wins, Allow
// wins a tie, and of two equal rules the earlier line is reported.
func (a ruleRef) beats(b ruleRef) bool {
	if a.prio != b.prio {
		return a.prio > b.prio
	}
	if a.allow != b.allow {
		return a.allow
	}
	return a.idx < b.idx
}

func compareRank(a, b ruleRef) int {
	switch {
	case a.beats(b):
		return -1
	case b.beats(a):
		return 1
	}
	return 0
}

// wildLinear is the number of wildcard rules in a group up to which they
// are tried one by one instead of through an automaton.
const wildLinear = 8

type matcher struct {
	text     string       // Robots.text: every literal is a span of it
	prefixes chain        // literals of the prefix rules
	best     []ruleRef    // best rule of each prefix literal and its ancestors
	exact    []exactEntry // sorted by literal, distinct
	wilds    chain        // literal prefixes of the wildcard rules
	groups   []wildGroup  // the wildcard rules of each of those literals
	wild     []wildEntry  // grouped as groups say, best first within a group
}

// chain is a sorted set of distinct literals, each linked to the longest
// other literal of the set that is a prefix of it.
type chain struct {
	lits   []span
	keys   []uint64 // key8 of each literal: ordered as the literals are
	parent []int32  // -1: none
}

// key8 returns the first eight bytes of s, zero-padded, as a big-endian
// number. When key8(a) < key8(b), a < b: comparing keys orders literals
// with one integer comparison, and strings are compared only among
// literals with the same key.
func key8(s string) uint64 {
	var k uint64
	for i := 0; i < 8; i++ {
		k <<= 8
		if i < len(s) {
			k |= uint64(s[i])
		}
	}
	return k
}

// link computes the keys and parent links; lits must be sorted and
// distinct.
func (c *chain) link(text string) {
	c.keys = make([]uint64, len(c.lits))
	for i, sp := range c.lits {
		c.keys[i] = key8(text[sp.off : sp.off+sp.n])
	}
	c.parent = make([]int32, len(c.lits))
	var stack []int32 // literals that are prefixes of the current one
	for i, sp := range c.lits {
		lit := text[sp.off : sp.off+sp.n]
		for len(stack) > 0 {
			top := c.lits[stack[len(stack)-1]]
			if strings.HasPrefix(lit, text[top.off:top.off+top.n]) {
				break
			}
			stack = stack[:len(stack)-1]
		}
		c.parent[i] = -1
		if n := len(stack); n > 0 {
			c.parent[i] = stack[n-1]
		}
		stack = append(stack, int32(i))
	}
}

// deepest returns the longest literal of the set that is a prefix of path,
// or -1; the others that are are its ancestors. The last literal not after
// path has every literal that is a prefix of path among its prefixes, so
// they are on its chain, at most as long as their common prefix.
func (c *chain) deepest(text, path string) int32 {
	// Literals with a smaller key come before path, those with a larger
	// one after it; among those with path's key, compare strings.
	pk := key8(path)
	lo, hi := 0, len(c.keys)
	for lo < hi {
		h := int(uint(lo+hi) >> 1)
		if c.keys[h] <= pk {
			lo = h + 1
		} else {
			hi = h
		}
	}
	end := lo
	lo = 0
	for lo < hi {
		h := int(uint(lo+hi) >> 1)
		if c.keys[h] < pk {
			lo = h + 1
		} else {
			hi = h
		}
	}
	for hi = end; lo < hi; {
		h := int(uint(lo+hi) >> 1)
		if sp := c.lits[h]; text[sp.off:sp.off+sp.n] <= path {
			lo = h + 1
		} else {
			hi = h
		}
	}
	i := int32(lo - 1)
	if i < 0 {
		return -1
	}
	sp := c.lits[i]
	l := commonPrefixLen(text[sp.off:sp.off+sp.n], path)
	for i >= 0 && int(c.lits[i].n) > l {
		i = c.parent[i]
	}
	return i
}

type exactEntry struct {
	lit span
	ref ruleRef
}

type wildEntry struct {
	pat      span  // pattern without its end anchor; holds a '*'
	lit      int32 // length of the literal before the first '*'
	anchored bool  // the pattern ended with '$'
	ref      ruleRef
}

// wildGroup is the wildcard rules that share a literal prefix.
type wildGroup struct {
	lo, hi int32      // range of matcher.wild, best first
	ac     *acMachine // over the factors of the rules, when more than wildLinear
	// factorWild[factorLo[f]:factorLo[f+1]] are the rules (offsets from
	// lo) whose factor is f.
	factorLo, factorWild []int32
}

func (m *matcher) str(s span) string { return m.text[s.off : s.off+s.n] }

// memSize estimates the memory the matcher holds (its text is the
// Robots').
func (m *matcher) memSize() int {
	n := int(unsafe.Sizeof(*m)) + m.prefixes.memSize() + m.wilds.memSize() +
		cap(m.best)*int(unsafe.Sizeof(ruleRef{})) +
		cap(m.exact)*int(unsafe.Sizeof(exactEntry{})) +
		cap(m.wild)*int(unsafe.Sizeof(wildEntry{})) +
		cap(m.groups)*int(unsafe.Sizeof(wildGroup{}))
	for _, g := range m.groups {
		n += 4 * (cap(g.factorLo) + cap(g.factorWild))
		if a := g.ac; a != nil {
			n += int(unsafe.Sizeof(*a)) + cap(a.nodes)*int(unsafe.Sizeof(acNode{})) + 4*cap(a.root) + 2*cap(a.delta)
		}
	}
	return n
}

func (c *chain) memSize() int {
	return cap(c.lits)*int(unsafe.Sizeof(span{})) + 8*cap(c.keys) + 4*cap(c.parent)
}

// compile builds the matcher for the rules of the given groups.
func compile(r *Robots, members []uint32) *matcher {
	n := 0
	for _, gi := range members {
		n += int(r.groups[gi].rules[1] - r.groups[gi].rules[0])
	}
	c := compiler{m: &matcher{text: r.text}, prefixes: make([]exactEntry, 0, n)}
	for _, gi := range members {
		g := &r.groups[gi]
		for j := g.rules[0]; j < g.rules[1]; j++ {
			rl := &r.rules[j]
			ref := ruleRef{prio: int32(rl.pattern.n), idx: int32(j), allow: rl.allow}
			c.add(rl.pattern, ref)
			if r.dialect == Google && rl.allow {
				if dir, ok := indexHTMLDir(r.str(rl.pattern)); ok {
					// Google: "/d/index.html" also allows "/d/", as if
					// "/d/$" were written.
					ref.prio = int32(dir + 1)
					c.exact = append(c.exact, exactEntry{span{rl.pattern.off, uint32(dir)}, ref})
				}
			}
		}
	}
	c.build()
	return c.m
}

// indexHTMLDir reports whether the last path segment of the Allow pattern p
// starts with "index.htm", and the length of its directory ("/d/" for
// "/d/index.html").
func indexHTMLDir(p string) (int, bool) {
	slash := strings.LastIndexByte(p, '/')
	if slash < 0 || !strings.HasPrefix(p[slash:], "/index.htm") {
		return 0, false
	}
	return slash + 1, true
}

type compiler struct {
	m        *matcher
	prefixes []exactEntry // the literal of each prefix rule, with the rule
	exact    []exactEntry
	wild     []wildEntry
}

// add files the rule with pattern sp under the kind of rule it is.
func (c *compiler) add(sp span, ref ruleRef) {
	pat := c.m.str(sp)
	if pat == "" {
		return // an empty pattern matches nothing (RFC 9309 §2.2.2)
	}
	body, anchored := strings.CutSuffix(pat, "$")
	star := strings.IndexByte(body, '*')
	switch {
	case star < 0 && anchored:
		c.exact = append(c.exact, exactEntry{span{sp.off, uint32(len(body))}, ref})
	case star < 0:
		c.prefixes = append(c.prefixes, exactEntry{span{sp.off, uint32(len(body))}, ref})
	case strings.Trim(body[star:], "*") == "":
		// Only wildcards after the literal: a prefix rule ("/a*" and
		// "/a*$" match what "/a" matches), ranked by its own length.
		c.prefixes = append(c.prefixes, exactEntry{span{sp.off, uint32(star)}, ref})
	default:
		c.wild = append(c.wild, wildEntry{pat: span{sp.off, uint32(len(body))}, lit: int32(star), anchored: anchored, ref: ref})
	}
}

// sortBest sorts entries by literal, the best rule first among equal
// literals, and keeps that one.
func (c *compiler) sortBest(es []exactEntry) []exactEntry {
	m := c.m
	slices.SortFunc(es, func(a, b exactEntry) int {
		if c := strings.Compare(m.str(a.lit), m.str(b.lit)); c != 0 {
			return c
		}
		return compareRank(a.ref, b.ref)
	})
	return slices.CompactFunc(es, func(a, b exactEntry) bool { return m.str(a.lit) == m.str(b.lit) })
}

// build sorts the rules filed by add, drops repeated ones, links the
// literals into chains, and builds the automata of large wildcard groups.
func (c *compiler) build() {
	m := c.m
	m.exact = slices.Clone(c.sortBest(c.exact))

	prefixes := c.sortBest(c.prefixes)
	m.prefixes.lits = make([]span, len(prefixes))
	for i, e := range prefixes {
		m.prefixes.lits[i] = e.lit
	}
	m.prefixes.link(m.text)
	m.best = make([]ruleRef, len(prefixes))
	for i, e := range prefixes {
		m.best[i] = e.ref
		if p := m.prefixes.parent[i]; p >= 0 && m.best[p].beats(e.ref) {
			m.best[i] = m.best[p]
		}
	}

	// Wildcard rules: repeated ones dropped, then grouped by literal
	// prefix, best first within a group.
	slices.SortFunc(c.wild, func(a, b wildEntry) int {
		if c := strings.Compare(m.str(a.pat), m.str(b.pat)); c != 0 {
			return c
		}
		if a.anchored != b.anchored {
			if a.anchored {
				return 1
			}
			return -1
		}
		return compareRank(a.ref, b.ref)
	})
	wild := slices.CompactFunc(c.wild, func(a, b wildEntry) bool {
		return m.str(a.pat) == m.str(b.pat) && a.anchored == b.anchored
	})
	litOf := func(w wildEntry) string { return m.text[w.pat.off : w.pat.off+uint32(w.lit)] }
	slices.SortStableFunc(wild, func(a, b wildEntry) int {
		if c := strings.Compare(litOf(a), litOf(b)); c != 0 {
			return c
		}
		return compareRank(a.ref, b.ref)
	})
	m.wild = slices.Clone(wild)
	for i := 0; i < len(m.wild); {
		j := i + 1
		for j < len(m.wild) && litOf(m.wild[j]) == litOf(m.wild[i]) {
			j++
		}
		m.wilds.lits = append(m.wilds.lits, span{m.wild[i].pat.off, uint32(m.wild[i].lit)})
		g := wildGroup{lo: int32(i), hi: int32(j)}
		if j-i > wildLinear {
			g.buildFactors(m.text, m.wild[i:j])
		}
		m.groups = append(m.groups, g)
		i = j
	}
	m.wilds.link(m.text)
}

// buildFactors picks a required literal for every rule of the group (its
// longest literal after the first '*') and builds the automaton over them.
func (g *wildGroup) buildFactors(text string, rules []wildEntry) {
	ids := map[string]int32{}
	var factors []string
	of := make([]int32, len(rules))
	for i, w := range rules {
		f := factor(text[w.pat.off : w.pat.off+w.pat.n])
		id, ok := ids[f]
		if !ok {
			id = int32(len(factors))
			ids[f] = id
			factors = append(factors, f)
		}
		of[i] = id
	}
	// The rules of each factor, best first.
	g.factorLo = make([]int32, len(factors)+1)
	for _, f := range of {
		g.factorLo[f+1]++
	}
	for f := range factors {
		g.factorLo[f+1] += g.factorLo[f]
	}
	g.factorWild = make([]int32, len(rules))
	next := slices.Clone(g.factorLo[:len(factors)])
	for i, f := range of {
		g.factorWild[next[f]] = int32(i)
		next[f]++
	}
	g.ac = newACMachine(factors)
}

// factor returns the longest literal after the first '*' of a wildcard
// pattern. Every path the pattern matches contains it.
func factor(pat string) string {
	var best string
	rest := pat[strings.IndexByte(pat, '*')+1:]
	for rest != "" {
		seg, after, _ := strings.Cut(rest, "*")
		if len(seg) > len(best) {
			best = seg
		}
		rest = after
	}
	return best
}

// match returns the rule that decides path, or noRule.
func (m *matcher) match(path string) ruleRef {
	best := noRule
	if i := m.prefixes.deepest(m.text, path); i >= 0 {
		best = m.best[i]
	}
	if n := len(m.exact); n > 0 {
		lo, hi := 0, n
		for lo < hi {
			h := int(uint(lo+hi) >> 1)
			if m.str(m.exact[h].lit) < path {
				lo = h + 1
			} else {
				hi = h
			}
		}
		if lo < n && m.str(m.exact[lo].lit) == path && m.exact[lo].ref.beats(best) {
			best = m.exact[lo].ref
		}
	}
	for i := m.wilds.deepest(m.text, path); i >= 0; i = m.wilds.parent[i] {
		if g := &m.groups[i]; m.wild[g.lo].ref.beats(best) {
			best = m.matchGroup(g, path, best)
		}
	}
	return best
}

func commonPrefixLen(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i+8 <= n && a[i:i+8] == b[i:i+8] {
		i += 8
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// bitsPool holds bit sets for automata too large for matchGroup's stack
// buffer.
var bitsPool = sync.Pool{New: func() any { return new([]uint64) }}

// matchGroup returns the best of best and the rules of g that match path.
// Every rule of g has a literal prefix that starts path.
func (m *matcher) matchGroup(g *wildGroup, path string, best ruleRef) ruleRef {
	rules := m.wild[g.lo:g.hi]
	if g.ac == nil {
		for i := range rules {
			w := &rules[i]
			if !w.ref.beats(best) {
				break
			}
			if w.matches(m.str(w.pat), path) {
				return w.ref
			}
		}
		return best
	}

	nf := (len(g.factorLo) - 1 + 63) / 64
	nw := (len(rules) + 63) / 64
	var stack [64]uint64
	var set []uint64
	if nf+nw <= len(stack) {
		set = stack[:nf+nw]
	} else {
		p := bitsPool.Get().(*[]uint64)
		defer bitsPool.Put(p)
		if cap(*p) < nf+nw {
			*p = make([]uint64, nf+nw)
		}
		set = (*p)[:nf+nw]
		clear(set)
	}
	found, cand := set[:nf], set[nf:]
	g.ac.mark(path, found)
	for fw, word := range found {
		for word != 0 {
			f := fw*64 + bits.TrailingZeros64(word)
			word &= word - 1
			for _, w := range g.factorWild[g.factorLo[f]:g.factorLo[f+1]] {
				cand[w>>6] |= 1 << (w & 63)
			}
		}
	}
	// Candidates in index order are candidates best first.
	for cw, word := range cand {
		for word != 0 {
			w := &rules[cw*64+bits.TrailingZeros64(word)]
			word &= word - 1
			if !w.ref.beats(best) {
				return best
			}
			if w.matches(m.str(w.pat), path) {
				return w.ref
			}
		}
	}
	return best
}

// matches reports whether the wildcard pattern pat (w's) matches path: the
// literal before the first '*' is a prefix of path, the following literals
// occur in order, and with an anchor the last one ends the path.
func (w *wildEntry) matches(pat, path string) bool {
	star := int(w.lit)
	if !strings.HasPrefix(path, pat[:star]) {
		return false
	}
	pos := star
	rest := pat[star+1:]
	for {
		j := strings.IndexByte(rest, '*')
		if j < 0 {
			if w.anchored {
				return len(path)-pos >= len(rest) && path[len(path)-len(rest):] == rest
			}
			return strings.Contains(path[pos:], rest)
		}
		seg := rest[:j]
		rest = rest[j+1:]
		if seg == "" {
			continue
		}
		k := strings.Index(path[pos:], seg)
		if k < 0 {
			return false
		}
		pos += k + len(seg)
	}
}
