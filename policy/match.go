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
	prefixes []prefixEntry // sorted by lit, distinct
	exact    []litEntry    // sorted by lit, distinct
	wild     []wildEntry   // best first
	ac       *acMachine    // over the factors of wild; nil when len(wild) <= wildLinear
	// factorWild[factorLo[f]:factorLo[f+1]] are the wild entries whose
	// factor is f.
	factorLo   []int32
	factorWild []int32
}

type litEntry struct {
	lit string
	ref ruleRef
}

type prefixEntry struct {
	lit    string
	parent int32   // the longest other entry that is a prefix of lit, or -1
	best   ruleRef // the best rule of this entry and its ancestors
}

type wildEntry struct {
	pat      string // pattern without its end anchor; holds a '*'
	anchored bool   // the pattern ended with '$'
	ref      ruleRef
}

// compile builds the matcher for the rules of the given groups.
func compile(r *Robots, members []uint32) *matcher {
	var c compiler
	for _, gi := range members {
		g := &r.groups[gi]
		for j := g.rules[0]; j < g.rules[1]; j++ {
			rl := &r.rules[j]
			pat := r.str(rl.pattern)
			c.add(pat, ruleRef{prio: int32(len(pat)), idx: int32(j), allow: rl.allow})
			if r.dialect == Google && rl.allow {
				if d := indexHTMLPattern(pat); d != "" {
					c.add(d, ruleRef{prio: int32(len(d)), idx: int32(j), allow: true})
				}
			}
		}
	}
	return c.build()
}

// indexHTMLPattern returns, for an Allow pattern whose last path segment
// starts with "index.htm", the pattern of its directory ("/d/index.html"
// gives "/d/$"), and "" otherwise. Google's library allows the directory
// URL too.
func indexHTMLPattern(p string) string {
	slash := strings.LastIndexByte(p, '/')
	if slash < 0 || !strings.HasPrefix(p[slash:], "/index.htm") {
		return ""
	}
	return p[:slash+1] + "$"
}

type compiler struct {
	prefixes []litEntry
	exact    []litEntry
	wild     []wildEntry
}

func (c *compiler) add(pat string, ref ruleRef) {
	if pat == "" {
		return // an empty pattern matches nothing (RFC 9309 §2.2.2)
	}
	body, anchored := strings.CutSuffix(pat, "$")
	star := strings.IndexByte(body, '*')
	switch {
	case star < 0 && anchored:
		c.exact = append(c.exact, litEntry{body, ref})
	case star < 0:
		c.prefixes = append(c.prefixes, litEntry{body, ref})
	case strings.Trim(body[star:], "*") == "":
		// Only wildcards after the literal: a prefix rule ("/a*" and
		// "/a*$" match what "/a" matches), ranked by its own length.
		c.prefixes = append(c.prefixes, litEntry{body[:star], ref})
	default:
		c.wild = append(c.wild, wildEntry{pat: body, anchored: anchored, ref: ref})
	}
}

// sortDistinct sorts entries by literal and keeps the best entry of each
// literal.
func sortDistinct(es []litEntry) []litEntry {
	slices.SortFunc(es, func(a, b litEntry) int {
		if c := strings.Compare(a.lit, b.lit); c != 0 {
			return c
		}
		return compareRank(a.ref, b.ref)
	})
	return slices.CompactFunc(es, func(a, b litEntry) bool { return a.lit == b.lit })
}

func (c *compiler) build() *matcher {
	m := &matcher{exact: slices.Clip(sortDistinct(c.exact))}

	lits := sortDistinct(c.prefixes)
	m.prefixes = make([]prefixEntry, len(lits))
	var chain []int32 // entries that are prefixes of the current one
	for i, e := range lits {
		for len(chain) > 0 && !strings.HasPrefix(e.lit, lits[chain[len(chain)-1]].lit) {
			chain = chain[:len(chain)-1]
		}
		p := prefixEntry{lit: e.lit, parent: -1, best: e.ref}
		if n := len(chain); n > 0 {
			p.parent = chain[n-1]
			if pb := m.prefixes[p.parent].best; pb.beats(p.best) {
				p.best = pb
			}
		}
		m.prefixes[i] = p
		chain = append(chain, int32(i))
	}

	// Drop repeated wildcard rules, then order them best first.
	slices.SortFunc(c.wild, func(a, b wildEntry) int {
		if c := strings.Compare(a.pat, b.pat); c != 0 {
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
	wild := slices.CompactFunc(c.wild, func(a, b wildEntry) bool { return a.pat == b.pat && a.anchored == b.anchored })
	slices.SortStableFunc(wild, func(a, b wildEntry) int { return compareRank(a.ref, b.ref) })
	m.wild = slices.Clip(wild)
	if len(m.wild) > wildLinear {
		m.buildFactors()
	}
	return m
}

// buildFactors picks a required literal for every wildcard rule (its
// longest literal after the first '*') and builds the automaton over them.
func (m *matcher) buildFactors() {
	ids := map[string]int32{}
	var factors []string
	of := make([]int32, len(m.wild))
	for i := range m.wild {
		f := factor(m.wild[i].pat)
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
			if m.prefixes[h].lit <= path {
				lo = h + 1
			} else {
				hi = h
			}
		}
		if i := int32(lo - 1); i >= 0 {
			l := commonPrefixLen(m.prefixes[i].lit, path)
			for i >= 0 && len(m.prefixes[i].lit) > l {
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
			if m.exact[h].lit < path {
				lo = h + 1
			} else {
				hi = h
			}
		}
		if lo < n && m.exact[lo].lit == path && m.exact[lo].ref.beats(best) {
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
			if w.matches(path) {
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
			if w.matches(path) {
				return w.ref
			}
		}
	}
	return best
}

// matches reports whether the wildcard pattern matches path: the literal
// before the first '*' is a prefix of path, the following literals occur in
// order, and with an anchor the last one ends the path.
func (w *wildEntry) matches(path string) bool {
	star := strings.IndexByte(w.pat, '*')
	if !strings.HasPrefix(path, w.pat[:star]) {
		return false
	}
	pos := star
	rest := w.pat[star+1:]
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
