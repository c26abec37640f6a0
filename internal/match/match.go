package match

import (
	"encoding/binary"
	"math"
	"math/bits"
	"slices"
	"strings"
	"sync"
	"unsafe"
)

// This file is the compiled matcher: given the rules of a group, it finds
// the rule that decides a path (RFC 9309 §2.2.2: the longest pattern that
// matches, an Allow winning a tie) without looking at every rule.
//
// A group of up to FlatMax rules is not compiled: most groups are that
// small (see Flat). Their rules are tried through a Plan, best first, or
// as parsed (MatchRun), at the cost of a few comparisons and no memory
// but the Plan's 80 bytes.
//
// Rules of larger groups are split three ways when the group is compiled
// (Compile):
//
//   - prefix rules, whose pattern is a literal, possibly followed by '*'s
//     ("/a/b", "/a/b*"): every one that matches is a prefix of the path.
//     They are kept sorted; the last one not after the path is found by
//     binary search, and all prefixes of the path are on its chain of
//     ancestors (each entry links to its longest proper prefix), whose best
//     rule is precomputed. Cost: O(log n + chain) comparisons. In a large
//     set, the search covers only the literals that start with the path's
//     first two bytes, and a path whose first three bytes none of them has
//     is decided without one (see firstIndex).
//   - exact rules, a literal followed by '$' ("/a/b$"): binary search for
//     the path itself.
//   - wildcard rules, with a literal after a '*' ("/*.php", "/a/*/b$"):
//     kept best first. Past wildLinear rules, those whose literal before
//     the first '*' is longer than "/" and shared by at most prefixShare
//     rules are filed under that literal, in a chain like that of the
//     prefix rules: only those filed under a prefix of the path are
//     tried. For the others, a path can only match a rule if it contains
//     every literal of the rule. Past wildLinear rules, an Aho-Corasick
//     automaton over all their literals finds, in one pass over the path,
//     which literals it contains; each rule is filed under its rarest
//     literal ("factor"), so only the rules whose factor occurs are looked
//     at, and only those with all their literals present are tried. Rules
//     are tried best first; one that cannot beat the best match so far is
//     never tried, and the first that matches decides.
//
// Trying one wildcard rule is linear in the path: its literals are found
// left to right, each at its first occurrence, which is how a '*'-only
// pattern matches if it matches at all. There is no backtracking, so
// patterns like "/*a*a*a*a*$" cost no more than their length.

// wildLinear is the number of wildcard rules up to which they are tried
// one by one instead of through the automaton, which costs a few
// kilobytes: a group that few rules hold stays small. Past wildFilter
// rules, those tried one by one are first screened by the bytes and pairs
// of bytes of their literals (see wildEntry.need): one pass over the path
// rules most of them out.
const (
	wildLinear = 32
	wildFilter = 4
)

// A Matcher finds the rule of a large group that decides a path: see
// Compile. It is safe for concurrent use.
type Matcher struct {
	text     string       // Set.Text: literal rules are spans of it
	vtext    string       // the variants of patterns made at compile time
	prefixes chain        // literals of the prefix rules
	exact    []exactEntry // sorted by literal, distinct
	wild     []wildEntry  // best first
	index    *wildIndex   // with more than wildLinear wildcard rules
}

// wildIndex finds the wildcard rules that can match a path, in a group
// with more than wildLinear of them.
//
// Rules filed by the literal before their first '*' (see fileByPrefix)
// are out of Matcher.wild: wpre holds those literals, each with the best of
// its rules, and the rules of wpre[i] are pwild[wlo[i]:wlo[i+1]], best
// first.
//
// When more than wildLinear rules are left in Matcher.wild, ac is the
// automaton over their literals, the literals of rule i are
// segs[segLo[i]:segLo[i+1]], and the rules filed under each literal as
// their factor are byFactor[factorLo[f]:factorLo[f+1]], best first.
// Otherwise ac is nil, and the rules left are tried one by one.
type wildIndex struct {
	wpre  chain
	wlo   []int32
	pwild []wildEntry

	ac       *acMachine
	nlits    int
	segLo    []int32
	segs     []int32
	factorLo []int32
	byFactor []int32
}

// chain is a sorted set of distinct literals, each linked to the longest
// other literal of the set that is a prefix of it.
type chain struct {
	lits []prefixEntry
	// first, in a set of at least firstMin literals, narrows the search
	// for a path that starts with '/' to the literals that share its
	// first bytes; nil in smaller sets.
	first *firstIndex
}

type prefixEntry struct {
	key    uint64 // key8 of the literal: ordered as the literals are
	lit    span
	parent int32 // -1: none
	best   Ref   // best rule of the literal and its ancestors (in wildIndex.wpre, of the literal alone)
}

// firstMin is the number of literals from which a chain has a firstIndex:
// the index saves the binary search (eleven steps in a thousand literals)
// for most paths, and costs about as much memory as 40 literals.
const firstMin = 128

// firstIndex files the literals of a chain by their first bytes when the
// first is '/', as paths start. A literal that is a prefix of such a path
// "/b…" is "", "/", "/b", or starts with the path's first three bytes, and
// all those that start with "/b" are next to one another: lo gives them,
// and three tells which first three bytes none of them has. A path whose
// first three bytes no literal has (or that is shorter) is decided without
// a search: by "/b" if the set holds it, else by slash.
type firstIndex struct {
	lo    [257]int32 // the literals that start with '/' and byte b are lits[lo[b]:lo[b+1]]
	three [32]uint64 // bit threeBit(b, c) is set when a literal starts with '/', b, c
	slash int32      // the longest of the literals "" and "/" in the set, or -1
}

// threeBit returns the bit of firstIndex.three of the literals that start
// with '/', b, c: one of 2,048, shared by pairs with the same hash.
func threeBit(b, c byte) (word int, bit uint64) {
	h := (uint32(b)<<8 | uint32(c)) * 0x9E3779B1 >> 21
	return int(h >> 6), 1 << (h & 63)
}

// key8 returns the first eight bytes of s, zero-padded, as a big-endian
// number. When key8(a) < key8(b), a < b: comparing keys orders literals
// with one integer comparison, and strings are compared only among
// literals with the same key.
func key8(s string) uint64 {
	if len(s) >= 8 {
		return binary.BigEndian.Uint64(unsafe.Slice(unsafe.StringData(s), 8))
	}
	var k uint64
	for i := 0; i < 8; i++ {
		k <<= 8
		if i < len(s) {
			k |= uint64(s[i])
		}
	}
	return k
}

// newChain returns the chain of the literals lits, which must be sorted
// and distinct: it computes their keys and parent links, and the index of
// a set of at least firstMin literals.
func newChain(text string, lits []prefixEntry) chain {
	c := chain{lits: lits}
	var stack []int32 // literals that are prefixes of the current one
	for i := range lits {
		e := &lits[i]
		lit := text[e.lit.off : e.lit.off+e.lit.n]
		e.key = key8(lit)
		for len(stack) > 0 {
			top := lits[stack[len(stack)-1]].lit
			if strings.HasPrefix(lit, text[top.off:top.off+top.n]) {
				break
			}
			stack = stack[:len(stack)-1]
		}
		e.parent = -1
		if n := len(stack); n > 0 {
			e.parent = stack[n-1]
		}
		stack = append(stack, int32(i))
	}
	if len(lits) >= firstMin {
		f := &firstIndex{slash: c.deepest(text, "/")}
		for _, e := range lits {
			if lit := text[e.lit.off : e.lit.off+e.lit.n]; len(lit) > 2 && lit[0] == '/' {
				w, bit := threeBit(lit[1], lit[2])
				f.three[w] |= bit
			}
		}
		i := 0
		for b := range f.lo {
			bound := "0" // the byte after '/'
			if b < 256 {
				bound = string([]byte{'/', byte(b)})
			}
			for i < len(lits) && text[lits[i].lit.off:lits[i].lit.off+lits[i].lit.n] < bound {
				i++
			}
			f.lo[b] = int32(i)
		}
		c.first = f
	}
	return c
}

// memSize estimates the memory the chain holds.
func (c *chain) memSize() int {
	n := cap(c.lits) * int(unsafe.Sizeof(prefixEntry{}))
	if c.first != nil {
		n += int(unsafe.Sizeof(firstIndex{}))
	}
	return n
}

// deepest returns the longest literal of the set that is a prefix of path,
// or -1; the others that are are its ancestors. The last literal not after
// path has every literal that is a prefix of path among its prefixes, so
// they are on its chain, at most as long as their common prefix.
func (c *chain) deepest(text, path string) int32 {
	// The literals that can be prefixes of path, other than none and its
	// ancestors: lits, from lits[lo] on.
	lits, lo, none := c.lits, int32(0), int32(-1)
	if f := c.first; f != nil && len(path) > 0 && path[0] == '/' {
		if len(path) == 1 {
			return f.slash
		}
		var hi int32
		lo, hi = f.lo[path[1]], f.lo[int(path[1])+1]
		if lo == hi {
			return f.slash
		}
		if w, bit := threeBit(path[1], path[min(2, len(path)-1)]); len(path) == 2 || f.three[w]&bit == 0 {
			// No literal longer than two bytes is a prefix of path:
			// "/b", if the set holds it, is the first of lits[lo:hi].
			if lits[lo].lit.n == 2 {
				return lo
			}
			return f.slash
		}
		lits, none = lits[lo:hi], f.slash
	}

	// Literals with a smaller key come before path, those with a larger
	// one after it; among those with path's key, compare strings.
	// The searches on keys are branch-free: their steps are not
	// predictable.
	pk := key8(path)
	end := countKeys(lits, pk) // literals with keys up to pk: lits[:end]
	i := end - 1               // the last literal not after path
	if end > 0 && lits[end-1].key == pk {
		// Literals with path's key: lits[i+1:end].
		if pk > 0 {
			i = countKeys(lits[:end], pk-1) - 1
		} else {
			i = -1
		}
		for hi := end; i+1 < hi; {
			h := int(uint(i+1+hi) >> 1)
			if sp := lits[h].lit; text[sp.off:sp.off+sp.n] <= path {
				i = h
			} else {
				hi = h
			}
		}
	}
	if i < 0 {
		return none
	}
	return c.up(text, path, lo+int32(i))
}

// countKeys returns the number of literals of lits whose key is at most k,
// by a binary search without branches on the keys: its steps are not
// predictable.
func countKeys(lits []prefixEntry, k uint64) int {
	base, n := 0, len(lits)
	if n == 0 || k == math.MaxUint64 {
		return n
	}
	k1 := k + 1
	for n > 1 {
		half := n >> 1
		_, atMost := bits.Sub64(lits[base+half].key, k1, 0) // 1 when the key is at most k
		base += half & -int(atMost)
		n -= half
	}
	if lits[base].key <= k {
		base++
	}
	return base
}

// up returns the longest literal of the set that is a prefix of path,
// given the last literal i not after path, or -1.
func (c *chain) up(text, path string, i int32) int32 {
	if i < 0 {
		return -1
	}
	lits := c.lits
	sp := lits[i].lit
	l := commonPrefixLen(text[sp.off:sp.off+sp.n], path)
	for i >= 0 && int(lits[i].lit.n) > l {
		i = lits[i].parent
	}
	return i
}

type exactEntry struct {
	lit span
	ref Ref
}

type wildEntry struct {
	pat  span // pattern without its end anchor; holds a '*' (see Matcher.str)
	ref  Ref
	lit  int32 // length of the literal before the first '*'
	last int32 // index of the last '*'
	// need is what the signature of every path the pattern matches holds:
	// the bytes and pairs of adjacent bytes of its literals.
	need pathSig
	// head is the first bytes of the literal before the first '*', up to
	// four, as key8 reads them (in its high bytes, see headKey); a path
	// whose first bytes differ does not match the pattern.
	head     uint32
	nhead    uint8
	anchored bool // the pattern ended with '$'
}

// headKey returns the first four bytes of s, at most n of them,
// zero-padded, as a big-endian number.
func headKey(s string, n int) uint32 { return uint32(key8(s[:min(len(s), n)]) >> 32) }

// headMatches reports whether the path whose key8 is pk may start with
// the literal before w's first '*', judging by its first bytes. ph is
// uint32(pk>>32).
func (w *wildEntry) headMatches(ph uint32) bool {
	return (ph^w.head)&headMasks[w.nhead&7] == 0
}

// headMasks holds, for each number of bytes of wildEntry.head, the bits
// that hold them.
var headMasks = [8]uint32{0, 0xff000000, 0xffff0000, 0xffffff00, 0xffffffff}

// pathSig is a signature of a path: the set of its bytes (by their six low
// bits) and of the hashes of its pairs of adjacent bytes. A wildcard rule
// whose need is not in a path's signature does not match the path (see
// lazySig.holds).
type pathSig struct{ bytes, pairs uint64 }

// pairBit returns the bit of the pair of bytes a, b in pathSig.pairs.
func pairBit(a, b byte) uint64 { return pairBit16(uint32(a) | uint32(b)<<8) }

// pairBit16 is pairBit of the bytes of w, the first in the low byte, as
// a 16-bit little-endian load gives them.
func pairBit16(w uint32) uint64 { return 1 << (w * 0x9E3779B1 >> 26) }

// sigOf returns the signature of path. It reads path two bytes at a time,
// at each offset: each pair, and its first byte.
func sigOf(path string) pathSig {
	var s pathSig
	if len(path) == 0 {
		return s
	}
	for i := 1; i < len(path); i++ {
		w := uint32(path[i-1]) | uint32(path[i])<<8
		s.bytes |= 1 << (w & 63)
		s.pairs |= pairBit16(w)
	}
	s.bytes |= 1 << (path[len(path)-1] & 63)
	return s
}

// lazySig is the signature of a path, computed on first use.
type lazySig struct {
	sig pathSig
	ok  bool
}

// holds reports whether the signature of path holds every bit of need.
func (l *lazySig) holds(path string, need pathSig) bool {
	if !l.ok {
		l.fill(path)
	}
	return need.bytes&^l.sig.bytes|need.pairs&^l.sig.pairs == 0
}

// fill is not inlined, so that holds is.
//
//go:noinline
func (l *lazySig) fill(path string) { l.sig, l.ok = sigOf(path), true }

// needOf returns what the signature of every path the wildcard pattern pat
// matches holds: the bytes and pairs of bytes of its literals.
func needOf(pat string) pathSig {
	var s pathSig
	inLiteral := false // pat[i-1] is a byte of the same literal as pat[i]
	for i := 0; i < len(pat); i++ {
		c := pat[i]
		if c == '*' {
			inLiteral = false
			continue
		}
		s.bytes |= 1 << (c & 63)
		if inLiteral {
			s.pairs |= pairBit(pat[i-1], c)
		}
		inLiteral = true
	}
	return s
}

// vtextBit marks the spans of Matcher.vtext.
const vtextBit = 1 << 31

// str returns the text at s: in Set.Text, or with vtextBit set in
// the matcher's own.
func (m *Matcher) str(s span) string {
	if s.off&vtextBit != 0 {
		return m.vtext[s.off&^vtextBit : s.off&^vtextBit+s.n]
	}
	return m.text[s.off : s.off+s.n]
}

// MemSize estimates the memory m holds (its text is the caller's).
func (m *Matcher) MemSize() int {
	n := int(unsafe.Sizeof(*m)) +
		m.prefixes.memSize() +
		cap(m.exact)*int(unsafe.Sizeof(exactEntry{})) +
		cap(m.wild)*int(unsafe.Sizeof(wildEntry{}))
	n += len(m.vtext) // variants, made at compile time
	if x := m.index; x != nil {
		n += int(unsafe.Sizeof(*x)) + 4*(cap(x.segLo)+cap(x.segs)+cap(x.factorLo)+cap(x.byFactor)) +
			cap(x.pwild)*int(unsafe.Sizeof(wildEntry{})) + x.wpre.memSize() + 4*cap(x.wlo)
		if a := x.ac; a != nil {
			n += int(unsafe.Sizeof(*a)) + cap(a.nodes)*int(unsafe.Sizeof(acNode{})) + cap(a.outs)*int(unsafe.Sizeof(acOut{})) +
				cap(a.edges)*int(unsafe.Sizeof(acEdge{})) + 4*cap(a.root) + 2*cap(a.delta)
		}
	}
	return n
}

// Compile builds the Matcher of the rules of s in runs, those of the
// groups a crawler follows. Its cost and size grow with their number and
// length; it is built once per group, and then read by any number of
// goroutines.
func Compile(s Set, runs []Run) *Matcher {
	n := 0
	for _, run := range runs {
		n += int(run.Hi - run.Lo)
	}
	opts := s.Opts
	c := compiler{m: &Matcher{text: s.Text}, prefixes: make([]exactEntry, 0, n)}
	for _, run := range runs {
		for j := run.Lo; j < run.Hi; j++ {
			rl := &s.Rules[j]
			prio := int32(rl.pattern.n)
			sp := rl.pattern
			if sp.n == 0 {
				continue // an empty pattern matches nothing (RFC 9309 §2.2.2)
			}
			if opts.FirstMatch {
				// The first rule that matches decides: rank the
				// earlier higher.
				prio = int32(len(s.Rules)) - int32(j)
			}
			ref := makeRef(prio, int32(j), rl.allow)
			if !opts.Wildcards {
				c.prefixes = append(c.prefixes, exactEntry{sp, ref})
				continue
			}
			anchored := s.Text[sp.off+sp.n-1] == '$'
			if anchored {
				sp.n--
			}
			c.add(sp, anchored, ref)
			if opts.QueryVariants && rl.kind == kindWild { // the others have no query variants
				p := c.m.str(sp)
				vs, ok := queryVariants(p)
				if !ok && !rl.allow {
					// Too many variants to spell out: the Disallow
					// also applies where widenQueryDelims matches, a
					// superset of what they match. (An Allow keeps
					// only its written form, a subset.)
					vs = []string{widenQueryDelims(p)}
				}
				for _, v := range vs {
					c.addWild(c.variant(v), anchored, ref)
				}
			}
			if opts.IndexHTML && rl.allow {
				if dir, ok := indexHTMLDir(rl.Pattern(s.Text)); ok {
					// "/d/index.html" also allows "/d/", as if "/d/$"
					// were written.
					if !opts.FirstMatch {
						ref = makeRef(int32(dir+1), int32(j), rl.allow)
					}
					c.add(span{rl.pattern.off, uint32(dir)}, true, ref)
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
	m        *Matcher
	vtext    []byte       // becomes m.vtext
	prefixes []exactEntry // the literal of each prefix rule, with the rule
	exact    []exactEntry
}

// add files the rule whose pattern, without any end anchor, is the text at
// sp, under the kind of rule it is.
func (c *compiler) add(sp span, anchored bool, ref Ref) {
	body := c.m.str(sp)
	star := strings.IndexByte(body, '*')
	switch {
	case star < 0 && anchored:
		c.exact = append(c.exact, exactEntry{sp, ref})
	case star < 0:
		c.prefixes = append(c.prefixes, exactEntry{sp, ref})
	case strings.Trim(body[star:], "*") == "":
		// Only wildcards after the literal: a prefix rule ("/a*" and
		// "/a*$" match what "/a" matches), ranked by its own length.
		c.prefixes = append(c.prefixes, exactEntry{span{sp.off, uint32(star)}, ref})
	default:
		c.addWild(sp, anchored, ref)
	}
}

// addWild files the wildcard rule whose pattern, without any end anchor,
// is the text at sp.
func (c *compiler) addWild(sp span, anchored bool, ref Ref) {
	pat := c.str(sp)
	lit := strings.IndexByte(pat, '*')
	c.m.wild = append(c.m.wild, wildEntry{
		pat: sp, ref: ref, anchored: anchored, need: needOf(pat),
		lit: int32(lit), last: int32(strings.LastIndexByte(pat, '*')),
		head: headKey(pat, min(lit, 4)), nhead: uint8(min(lit, 4)),
	})
}

// variant adds the pattern p to the matcher's own text, and returns its
// span there.
func (c *compiler) variant(p string) span {
	sp := span{uint32(len(c.vtext)) | vtextBit, uint32(len(p))}
	c.vtext = append(c.vtext, p...)
	return sp
}

// str is Matcher.str while the matcher's own text is being made.
func (c *compiler) str(s span) string {
	if s.off&vtextBit != 0 {
		return string(c.vtext[s.off&^vtextBit : s.off&^vtextBit+s.n])
	}
	return c.m.text[s.off : s.off+s.n]
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
// prefix literals into chains, and builds the automaton over the wildcard
// rules.
func (c *compiler) build() {
	m := c.m
	m.vtext = string(c.vtext)
	m.exact = slices.Clone(c.sortBest(c.exact))

	prefixes := c.sortBest(c.prefixes)
	lits := make([]prefixEntry, len(prefixes))
	for i, e := range prefixes {
		lits[i].lit = e.lit
	}
	m.prefixes = newChain(m.text, lits)
	for i, e := range prefixes {
		best := e.ref
		if p := lits[i].parent; p >= 0 && lits[p].best.beats(best) {
			best = lits[p].best
		}
		lits[i].best = best
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
	m.wild = slices.CompactFunc(m.wild, func(a, b wildEntry) bool { return m.str(a.pat) == m.str(b.pat) && a.anchored == b.anchored })
	slices.SortStableFunc(m.wild, func(a, b wildEntry) int { return compareRank(a.ref, b.ref) })
	m.wild = slices.Clone(m.wild)
	if len(m.wild) > wildLinear {
		m.index = new(wildIndex)
		m.fileByPrefix()
		if len(m.wild) > wildLinear {
			m.buildAutomaton()
		}
	}
}

// prefixShare is the number of wildcard rules up to which those whose
// literal before the first '*' is the same (and longer than "/") are filed
// under that literal, in wildIndex.wpre, instead of in the automaton: a path
// that does not start with the literal skips them at no cost, and one that
// does tries at most prefixShare rules per literal.
const prefixShare = 16

// wildPrefix returns the literal before the first '*' of w, or "" when w
// is not filed by it: when that literal is "/" or empty, or is a variant
// (see Compile).
func (m *Matcher) wildPrefix(w *wildEntry) string {
	if w.lit <= 1 || w.pat.off&vtextBit != 0 {
		return ""
	}
	return m.text[w.pat.off : w.pat.off+uint32(w.lit)]
}

// fileByPrefix moves the wildcard rules that prefixShare allows from
// m.wild to m.index.pwild, sorted by literal, best first within one, and
// links their literals into m.index.wpre.
func (m *Matcher) fileByPrefix() {
	x := m.index
	count := map[string]int32{}
	for i := range m.wild {
		if p := m.wildPrefix(&m.wild[i]); p != "" {
			count[p]++
		}
	}
	var keep, pw []wildEntry
	for i := range m.wild {
		if p := m.wildPrefix(&m.wild[i]); p != "" && count[p] <= prefixShare {
			pw = append(pw, m.wild[i])
		} else {
			keep = append(keep, m.wild[i])
		}
	}
	if len(pw) == 0 {
		return
	}
	m.wild = slices.Clone(keep)
	// Stable: rules with the same literal stay best first.
	slices.SortStableFunc(pw, func(a, b wildEntry) int { return strings.Compare(m.wildPrefix(&a), m.wildPrefix(&b)) })
	x.pwild = slices.Clone(pw)
	n := 0
	for i := range pw {
		if i == 0 || m.wildPrefix(&pw[i]) != m.wildPrefix(&pw[i-1]) {
			n++
		}
	}
	wpre := make([]prefixEntry, 0, n)
	x.wlo = make([]int32, 0, n+1)
	for i := range x.pwild {
		w := &x.pwild[i]
		if i == 0 || m.wildPrefix(w) != m.wildPrefix(&x.pwild[i-1]) {
			wpre = append(wpre, prefixEntry{lit: span{w.pat.off, uint32(w.lit)}, best: w.ref})
			x.wlo = append(x.wlo, int32(i))
		}
	}
	x.wlo = append(x.wlo, int32(len(x.pwild)))
	x.wpre = newChain(m.text, wpre)
}

// matchPrefixed returns the best of best and the rules of x.pwild that
// match path: those filed under the literals of x.wpre that are prefixes
// of path.
//
// Rules are screened by the signature of path, as matchWild's are, past
// wildFilter rules under one literal or wildFilter rules tried: a path
// that starts with many literals tries few rules in full.
func (m *Matcher) matchPrefixed(x *wildIndex, path string, best Ref, sig *lazySig) Ref {
	tried := 0
	wpre := x.wpre.lits
	for i := x.wpre.deepest(m.text, path); i >= 0; i = wpre[i].parent {
		if !wpre[i].best.beats(best) {
			continue
		}
		lo, hi := x.wlo[i], x.wlo[i+1]
		filter := hi-lo > wildFilter
		for j := lo; j < hi; j++ {
			w := &x.pwild[j]
			if !w.ref.beats(best) {
				break
			}
			if filter || tried >= wildFilter {
				if !sig.holds(path, w.need) {
					continue
				}
			}
			tried++
			if m.wildPat(w).matches(path) {
				best = w.ref
				break
			}
		}
	}
	return best
}

// literals returns the literals a path must contain for the wildcard
// pattern pat to match: the literal before the first '*', unless it is
// only "/" or empty, and the non-empty literals between and after the
// '*'s.
func literals(pat string, lit int32) []string {
	var out []string
	if lit > 1 {
		out = append(out, pat[:lit])
	}
	for _, seg := range strings.Split(pat[lit+1:], "*") {
		if seg != "" {
			out = append(out, seg)
		}
	}
	return out
}

// buildAutomaton files every wildcard rule under its rarest literal (the
// one fewest rules hold; the longest of those) and builds the automaton
// over all the literals.
func (m *Matcher) buildAutomaton() {
	x := m.index
	ids := map[string]int32{}
	var lits []string
	var freq []int32
	var last []int32 // per literal, the last rule that holds it, +1
	x.segLo = make([]int32, len(m.wild)+1)
	for i := range m.wild {
		w := &m.wild[i]
		x.segLo[i] = int32(len(x.segs))
		for _, l := range literals(m.str(w.pat), w.lit) {
			id, ok := ids[l]
			if !ok {
				id = int32(len(lits))
				ids[l] = id
				lits = append(lits, l)
				freq = append(freq, 0)
				last = append(last, 0)
			}
			if last[id] != int32(i)+1 { // each literal once per rule
				last[id] = int32(i) + 1
				x.segs = append(x.segs, id)
				freq[id]++
			}
		}
	}
	x.segLo[len(m.wild)] = int32(len(x.segs))
	factorOf := make([]int32, len(m.wild))
	x.factorLo = make([]int32, len(lits)+1)
	for i := range m.wild {
		f := x.segs[x.segLo[i]]
		for _, id := range x.segs[x.segLo[i]+1 : x.segLo[i+1]] {
			if freq[id] < freq[f] || freq[id] == freq[f] && len(lits[id]) > len(lits[f]) {
				f = id
			}
		}
		factorOf[i] = f
		x.factorLo[f+1]++
	}
	for f := range lits {
		x.factorLo[f+1] += x.factorLo[f]
	}
	x.byFactor = make([]int32, len(m.wild))
	next := slices.Clone(x.factorLo[:len(lits)])
	for i, f := range factorOf { // in rule order: best first within a factor
		x.byFactor[next[f]] = int32(i)
		next[f]++
	}
	x.nlits = len(lits)
	x.ac = newACMachine(lits)
}

// Match returns the rule that decides path, or NoRule. path is in the
// form the patterns are (see Options).
func (m *Matcher) Match(path string) Ref {
	best := NoRule
	if i := m.prefixes.deepest(m.text, path); i >= 0 {
		best = m.prefixes.lits[i].best
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
	var sig lazySig
	if x := m.index; x != nil && len(x.wpre.lits) > 0 {
		best = m.matchPrefixed(x, path, best, &sig)
	}
	if len(m.wild) > 0 && m.wild[0].ref.beats(best) {
		best = m.matchWild(path, best, &sig)
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

// bitsPool holds bit sets too large for matchWild's stack buffer.
var bitsPool = sync.Pool{New: func() any { return new([]uint64) }}

// matchWild returns the best of best and the wildcard rules that match
// path.
func (m *Matcher) matchWild(path string, best Ref, sig *lazySig) Ref {
	x := m.index
	if x == nil || x.ac == nil {
		return m.matchLinear(path, best, sig)
	}

	nl := (x.nlits + 63) / 64
	nw := (len(m.wild) + 63) / 64
	var stack [16]uint64 // zeroed on each call: kept small
	var set []uint64
	if nl+nw <= len(stack) {
		set = stack[:nl+nw]
	} else {
		p := bitsPool.Get().(*[]uint64)
		defer bitsPool.Put(p)
		if cap(*p) < nl+nw {
			*p = make([]uint64, nl+nw)
		}
		set = (*p)[:nl+nw]
		clear(set)
	}
	found, cand := set[:nl], set[nl:]
	x.ac.mark(path, found)
	has := func(id int32) bool { return found[id>>6]&(1<<(id&63)) != 0 }
	for fw, word := range found {
		for word != 0 {
			f := fw*64 + bits.TrailingZeros64(word)
			word &= word - 1
			for _, wi := range x.byFactor[x.factorLo[f]:x.factorLo[f+1]] {
				w := &m.wild[wi]
				if !w.ref.beats(best) {
					break // the rest of this factor's rules rank lower
				}
				all := true
				for _, id := range x.segs[x.segLo[wi]:x.segLo[wi+1]] {
					if !has(id) {
						all = false
						break
					}
				}
				if all {
					cand[wi>>6] |= 1 << (wi & 63)
				}
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
			if m.wildPat(w).matches(path) {
				return w.ref
			}
		}
	}
	return best
}

// matchLinear is matchWild for a Matcher without an automaton: the
// wildcard rules are tried one by one.
func (m *Matcher) matchLinear(path string, best Ref, sig *lazySig) Ref {
	wild := m.wild
	filter := len(wild) > wildFilter
	ph := uint32(key8(path) >> 32)
	for i := range wild {
		w := &wild[i]
		if !w.ref.beats(best) {
			break
		}
		// The first bytes of the literal before the first '*' first:
		// they rule out most rules without reading the pattern.
		if !w.headMatches(ph) || filter && !sig.holds(path, w.need) {
			continue
		}
		if m.wildPat(w).matches(path) {
			return w.ref
		}
	}
	return best
}

// wildPat is a wildcard pattern as matches reads it.
type wildPat struct {
	pat       string // without its end anchor; holds a '*'
	lit, last int32  // indexes of the first and last '*'
	anchored  bool   // the pattern ended with '$'
}

func newWildPat(pat string, anchored bool) wildPat {
	return wildPat{pat: pat, anchored: anchored, lit: int32(strings.IndexByte(pat, '*')), last: int32(strings.LastIndexByte(pat, '*'))}
}

func (m *Matcher) wildPat(w *wildEntry) wildPat {
	return wildPat{pat: m.str(w.pat), lit: w.lit, last: w.last, anchored: w.anchored}
}

// matches reports whether the wildcard pattern matches path: the literal
// before the first '*' is a prefix of path, the following literals occur
// in order, and with an anchor the last one ends the path. The cheap tests
// (the prefix, the anchored end) come first.
func (w wildPat) matches(path string) bool {
	pat := w.pat
	if !strings.HasPrefix(path, pat[:w.lit]) {
		return false
	}
	last := int(w.last)
	tail := pat[last+1:]
	end := len(path)
	if w.anchored {
		if len(path)-len(tail) < int(w.lit) || !strings.HasSuffix(path, tail) {
			return false
		}
		end -= len(tail)
	}
	pos := int(w.lit)
	for rest := pat[w.lit+1 : last+1]; rest != ""; {
		j := strings.IndexByte(rest, '*')
		seg := rest[:j]
		rest = rest[j+1:]
		if seg == "" {
			continue
		}
		k := strings.Index(path[pos:end], seg)
		if k < 0 {
			return false
		}
		pos += k + len(seg)
	}
	if w.anchored {
		return pos <= end
	}
	return strings.Contains(path[pos:], tail)
}

// matchesWritten reports whether the wildcard pattern p, as written (with
// its end anchor, if any), matches path, as wildPat.matches does. Most
// patterns of small groups have no anchor and one or two literals
// ("/*?", "/*.pdf", "/*?sort=*"): those are matched in one pass over the
// pattern, each literal at its first occurrence in what is left of path.
func matchesWritten(p, path string) bool {
	if p[len(p)-1] == '$' {
		return newWildPat(p[:len(p)-1], true).matches(path)
	}
	lit := strings.IndexByte(p, '*')
	if len(path) < lit || path[:lit] != p[:lit] {
		return false
	}
	pos := lit
	for rest := p[lit+1:]; rest != ""; {
		seg := rest
		j := strings.IndexByte(rest, '*')
		if j >= 0 {
			seg, rest = rest[:j], rest[j+1:]
		} else {
			rest = ""
		}
		if seg != "" {
			k := strings.Index(path[pos:], seg)
			if k < 0 {
				return false
			}
			pos += k + len(seg)
		}
	}
	return true
}

// PatternMatches reports whether a robots.txt pattern matches path, both in
// the same form (see policy.CanonicalPattern and CanonicalPath): the pattern is
// anchored at the start of path, '*' matches any sequence of bytes and a
// final '$' the end of path. It takes time linear in their lengths.
func PatternMatches(pattern, path string) bool {
	body, anchored := strings.CutSuffix(pattern, "$")
	star := strings.IndexByte(body, '*')
	switch {
	case star < 0 && anchored:
		return path == body
	case star < 0:
		return strings.HasPrefix(path, body)
	}
	return newWildPat(body, anchored).matches(path)
}
