package policy

import (
	"math/bits"
	"slices"
	"strings"
	"sync"
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
//     kept best first. When there are many, an Aho-Corasick automaton over
//     one required literal of each ("factor") finds, in one pass over the
//     path, the few that can match; only those are tried, best first, and
//     the first that matches decides. A rule that cannot beat the best
//     prefix or exact match is never tried.
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

// wildLinear is the number of wildcard rules up to which they are tried one
// by one instead of through the automaton.
const wildLinear = 8

type matcher struct {
	text     string        // Robots.text: every literal is a span of it
	prefixes []prefixEntry // sorted by literal, distinct
	exact    []exactEntry  // sorted by literal, distinct
	wild     []wildEntry   // best first
	ac       *acMachine    // over the factors of wild; nil when len(wild) <= wildLinear
	// factorWild[factorLo[f]:factorLo[f+1]] are the wild entries whose
	// factor is f.
	factorLo   []int32
	factorWild []int32
}

type prefixEntry struct {
	lit    span
	parent int32   // the longest other entry that is a prefix of lit, or -1
	best   ruleRef // the best rule of this entry and its ancestors
}

type exactEntry struct {
	lit span
	ref ruleRef
}

type wildEntry struct {
	pat      span // pattern without its end anchor; holds a '*'
	anchored bool // the pattern ended with '$'
	ref      ruleRef
}

func (m *matcher) str(s span) string { return m.text[s.off : s.off+s.n] }

// compile builds the matcher for the rules of the given groups.
func compile(r *Robots, members []uint32) *matcher {
	n := 0
	for _, gi := range members {
		n += int(r.groups[gi].rules[1] - r.groups[gi].rules[0])
	}
	m := &matcher{text: r.text, prefixes: make([]prefixEntry, 0, n)}
	for _, gi := range members {
		g := &r.groups[gi]
		for j := g.rules[0]; j < g.rules[1]; j++ {
			rl := &r.rules[j]
			ref := ruleRef{prio: int32(rl.pattern.n), idx: int32(j), allow: rl.allow}
			m.add(rl.pattern, ref)
			if r.dialect == Google && rl.allow {
				if dir, ok := indexHTMLDir(r.str(rl.pattern)); ok {
					// Google: "/d/index.html" also allows "/d/", as if
					// "/d/$" were written.
					ref.prio = int32(dir + 1)
					m.exact = append(m.exact, exactEntry{span{rl.pattern.off, uint32(dir)}, ref})
				}
			}
		}
	}
	m.build()
	return m
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

// add files the rule with pattern sp under the kind of rule it is.
func (m *matcher) add(sp span, ref ruleRef) {
	pat := m.str(sp)
	if pat == "" {
		return // an empty pattern matches nothing (RFC 9309 §2.2.2)
	}
	body, anchored := strings.CutSuffix(pat, "$")
	star := strings.IndexByte(body, '*')
	switch {
	case star < 0 && anchored:
		m.exact = append(m.exact, exactEntry{span{sp.off, uint32(len(body))}, ref})
	case star < 0:
		m.prefixes = append(m.prefixes, prefixEntry{lit: span{sp.off, uint32(len(body))}, best: ref})
	case strings.Trim(body[star:], "*") == "":
		// Only wildcards after the literal: a prefix rule ("/a*" and
		// "/a*$" match what "/a" matches), ranked by its own length.
		m.prefixes = append(m.prefixes, prefixEntry{lit: span{sp.off, uint32(star)}, best: ref})
	default:
		m.wild = append(m.wild, wildEntry{pat: span{sp.off, uint32(len(body))}, anchored: anchored, ref: ref})
	}
}

// build sorts the rules filed by add, drops repeated ones, links prefix
// rules into chains, and builds the automaton over wildcard rules.
func (m *matcher) build() {
	// Exact and prefix rules: sorted by literal, the best rule of each
	// literal kept.
	slices.SortFunc(m.exact, func(a, b exactEntry) int {
		if c := strings.Compare(m.str(a.lit), m.str(b.lit)); c != 0 {
			return c
		}
		return compareRank(a.ref, b.ref)
	})
	m.exact = slices.Clip(slices.CompactFunc(m.exact, func(a, b exactEntry) bool { return m.str(a.lit) == m.str(b.lit) }))
	slices.SortFunc(m.prefixes, func(a, b prefixEntry) int {
		if c := strings.Compare(m.str(a.lit), m.str(b.lit)); c != 0 {
			return c
		}
		return compareRank(a.best, b.best)
	})
	m.prefixes = slices.CompactFunc(m.prefixes, func(a, b prefixEntry) bool { return m.str(a.lit) == m.str(b.lit) })
	if len(m.prefixes) < cap(m.prefixes)*3/4 {
		m.prefixes = slices.Clone(m.prefixes) // do not keep room sized for every rule
	}

	// Each prefix rule links to its longest proper prefix among them, and
	// carries the best rule of its chain.
	var chain []int32 // entries that are prefixes of the current one
	for i := range m.prefixes {
		p := &m.prefixes[i]
		lit := m.str(p.lit)
		for len(chain) > 0 && !strings.HasPrefix(lit, m.str(m.prefixes[chain[len(chain)-1]].lit)) {
			chain = chain[:len(chain)-1]
		}
		p.parent = -1
		if n := len(chain); n > 0 {
			p.parent = chain[n-1]
			if pb := m.prefixes[p.parent].best; pb.beats(p.best) {
				p.best = pb
			}
		}
		chain = append(chain, int32(i))
	}

	// Wildcard rules: repeated ones dropped, then best first.
	slices.SortFunc(m.wild, func(a, b wildEntry) int {
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
	m.wild = slices.CompactFunc(m.wild, func(a, b wildEntry) bool {
		return m.str(a.pat) == m.str(b.pat) && a.anchored == b.anchored
	})
	slices.SortStableFunc(m.wild, func(a, b wildEntry) int { return compareRank(a.ref, b.ref) })
	m.wild = slices.Clip(m.wild)
	if len(m.wild) > wildLinear {
		m.buildFactors()
	}
}

// buildFactors picks a required literal for every wildcard rule (its
// longest literal after the first '*') and builds the automaton over them.
func (m *matcher) buildFactors() {
	ids := map[string]int32{}
	var factors []string
	of := make([]int32, len(m.wild))
	for i := range m.wild {
		f := factor(m.str(m.wild[i].pat))
		id, ok := ids[f]
		if !ok {
			id = int32(len(factors))
			ids[f] = id
			factors = append(factors, f)
		}
		of[i] = id
	}
	// Group the wildcard rules by factor, best first within each.
	m.factorLo = make([]int32, len(factors)+1)
	for _, f := range of {
		m.factorLo[f+1]++
	}
	for f := range factors {
		m.factorLo[f+1] += m.factorLo[f]
	}
	m.factorWild = make([]int32, len(m.wild))
	next := slices.Clone(m.factorLo[:len(factors)])
	for i, f := range of {
		m.factorWild[next[f]] = int32(i)
		next[f]++
	}
	m.ac = newACMachine(factors)
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
	if n := len(m.prefixes); n > 0 {
		// i is the last entry not after path.
		lo, hi := 0, n
		for lo < hi {
			h := int(uint(lo+hi) >> 1)
			if m.str(m.prefixes[h].lit) <= path {
				lo = h + 1
			} else {
				hi = h
			}
		}
		if i := int32(lo - 1); i >= 0 {
			l := commonPrefixLen(m.str(m.prefixes[i].lit), path)
			for i >= 0 && int(m.prefixes[i].lit.n) > l {
				i = m.prefixes[i].parent
			}
			if i >= 0 {
				best = m.prefixes[i].best
			}
		}
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
	if len(m.wild) > 0 && m.wild[0].ref.beats(best) {
		best = m.matchWild(path, best)
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

// bitsPool holds bit sets for automata too large for matchWild's stack
// buffer.
var bitsPool = sync.Pool{New: func() any { return new([]uint64) }}

// matchWild returns the best of best and the wildcard rules that match path.
func (m *matcher) matchWild(path string, best ruleRef) ruleRef {
	if m.ac == nil {
		for i := range m.wild {
			w := &m.wild[i]
			if !w.ref.beats(best) {
				break
			}
			if w.matches(m.str(w.pat), path) {
				return w.ref
			}
		}
		return best
	}

	nf := (len(m.factorLo) - 1 + 63) / 64
	nw := (len(m.wild) + 63) / 64
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
	m.ac.mark(path, found)
	for fw, word := range found {
		for word != 0 {
			f := fw*64 + bits.TrailingZeros64(word)
			word &= word - 1
			for _, w := range m.factorWild[m.factorLo[f]:m.factorLo[f+1]] {
				cand[w>>6] |= 1 << (w & 63)
			}
		}
	}
	// Candidates in index order are candidates best first.
	for cw, word := range cand {
		for word != 0 {
			w := &m.wild[cw*64+bits.TrailingZeros64(word)]
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

// matches reports whether the wildcard pattern pat (w's) matches path: the literal
// before the first '*' is a prefix of path, the following literals occur in
// order, and with an anchor the last one ends the path.
func (w *wildEntry) matches(pat, path string) bool {
	star := strings.IndexByte(pat, '*')
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
