package acap

import (
	"bytes"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/robotsguard/robotsguard/policy"
)

// This file compiles what Decide reads of a Policy, once: the patterns of
// each field list and resource set, indexed by their literal prefixes, and
// the records that apply to the agent last asked about.

// glob is a compiled resource path pattern: a literal prefix, then, if
// the pattern holds a '*', the literals between (and after) its stars.
// It matches as policy.PatternMatches does: greedily, each literal at its
// leftmost place, in time linear in the lengths.
type glob struct {
	prefix   []byte   // the literal before the first '*' (the whole body without one)
	segs     [][]byte // the literals after each '*'; nil without a '*'
	anchored bool     // the pattern ended with '$'
	wild     bool     // the pattern holds a '*'
	need     byteSet  // the bytes of segs, which a path it matches holds
}

// A byteSet is a set of bytes.
type byteSet [4]uint64

func (s *byteSet) add(c byte) { s[c>>6] |= 1 << (c & 63) }

// within reports whether every byte of s is in t.
func (s *byteSet) within(t *byteSet) bool {
	return s[0]&^t[0]|s[1]&^t[1]|s[2]&^t[2]|s[3]&^t[3] == 0
}

// pathBytes is the set of bytes of a path, computed when first needed.
type pathBytes struct {
	set  byteSet
	done bool
}

func (pb *pathBytes) of(path []byte) *byteSet {
	if !pb.done {
		for _, c := range path {
			pb.set.add(c)
		}
		pb.done = true
	}
	return &pb.set
}

func compileGlob(pattern string) glob {
	body, anchored := strings.CutSuffix(pattern, "$")
	b := []byte(body)
	star := bytes.IndexByte(b, '*')
	if star < 0 {
		return glob{prefix: b, anchored: anchored}
	}
	g := glob{prefix: b[:star], anchored: anchored, wild: true}
	for _, s := range bytes.Split(b[star+1:], []byte("*")) {
		g.segs = append(g.segs, s)
		for _, c := range s {
			g.need.add(c)
		}
	}
	return g
}

// matchRest reports whether the glob matches path, whose first
// len(g.prefix) bytes are known to be its prefix, and whose bytes pb
// holds.
func (g *glob) matchRest(path []byte, pb *pathBytes) bool {
	if !g.wild {
		return !g.anchored || len(path) == len(g.prefix)
	}
	if !g.need.within(pb.of(path)) {
		return false
	}
	pos, end := len(g.prefix), len(path)
	last := len(g.segs) - 1
	tail := g.segs[last]
	if g.anchored {
		if end-len(tail) < pos || !bytes.HasSuffix(path, tail) {
			return false
		}
		end -= len(tail)
	}
	for _, seg := range g.segs[:last] {
		if len(seg) == 0 {
			continue
		}
		k := bytes.Index(path[pos:end], seg)
		if k < 0 {
			return false
		}
		pos += k + len(seg)
	}
	if g.anchored {
		return pos <= end
	}
	return bytes.Contains(path[pos:], tail)
}

// globIndex finds the patterns of a list that match a path: they are
// sorted by literal prefix, so those whose prefix the path starts with are
// found by narrowing a range of them, one byte of the path at a time; only
// they are tried further.
type globIndex struct {
	globs []glob
	ids   []int32 // the position of each glob in the list it was built from
}

func newGlobIndex(patterns []string) *globIndex {
	x := &globIndex{globs: make([]glob, len(patterns)), ids: make([]int32, len(patterns))}
	for i, p := range patterns {
		x.globs[i] = compileGlob(p)
		x.ids[i] = int32(i)
	}
	slices.SortStableFunc(x.ids, func(a, b int32) int { return bytes.Compare(x.globs[a].prefix, x.globs[b].prefix) })
	sorted := make([]glob, len(x.globs))
	for i, id := range x.ids {
		sorted[i] = x.globs[id]
	}
	x.globs = sorted
	return x
}

// each calls fn with the position (in the list the index was built from)
// of every pattern that matches path.
func (x *globIndex) each(path []byte, fn func(id int32)) {
	gs := x.globs
	var pb pathBytes
	lo, hi := 0, len(gs)
	for k := 0; ; k++ {
		// gs[lo:hi] are the globs whose prefixes start with path[:k];
		// those of length k, which path starts with, come first.
		for lo < hi && len(gs[lo].prefix) == k {
			if gs[lo].matchRest(path, &pb) {
				fn(x.ids[lo])
			}
			lo++
		}
		if lo == hi || k == len(path) {
			return
		}
		c := path[k]
		// The first glob of the range with byte c at k, then the first
		// with a greater byte.
		a, b := lo, hi
		for a < b {
			m := int(uint(a+b) >> 1)
			if gs[m].prefix[k] < c {
				a = m + 1
			} else {
				b = m
			}
		}
		lo = a
		b = hi
		for a < b {
			m := int(uint(a+b) >> 1)
			if gs[m].prefix[k] <= c {
				a = m + 1
			} else {
				b = m
			}
		}
		hi = a
	}
}

// memSize estimates the bytes an index of patterns takes.
func globIndexSize(patterns []string) int {
	n := 48
	for _, p := range patterns {
		n += 104 + len(p) + 24*strings.Count(p, "*")
	}
	return n
}

// listIndex is the compiled form of a field list (a record's or a
// sub-record's fields): the distinct patterns of its fields of one
// pattern, and what each field reads.
type listIndex struct {
	pats  *globIndex
	npats int
	pat   []int32    // per field: the position of its pattern, or -1 for a resource set
	mask  []usageSet // per field: the usages of its parts
}

// fieldList is a list of fields, compiled on first use.
type fieldList struct {
	once sync.Once
	idx  *listIndex
}

func (l *fieldList) index(fields []*field) *listIndex {
	l.once.Do(func() {
		x := &listIndex{pat: make([]int32, len(fields)), mask: make([]usageSet, len(fields))}
		ids := map[*resources]int32{}
		var pats []string
		for i, f := range fields {
			for _, pt := range f.parts {
				x.mask[i] = x.mask[i].with(pt.usage)
			}
			if f.res.set {
				x.pat[i] = -1
				continue
			}
			id, ok := ids[f.res]
			if !ok {
				id = int32(len(pats))
				ids[f.res] = id
				pats = append(pats, f.res.patterns[0])
			}
			x.pat[i] = id
		}
		x.pats, x.npats = newGlobIndex(pats), len(pats)
		l.idx = x
	})
	return l.idx
}

// fieldListSize estimates the bytes the index of a field list takes.
func fieldListSize(fields []*field) int {
	n := 64 + 6*len(fields)
	for _, f := range fields {
		if !f.res.set {
			n += 104 + len(f.res.patterns[0]) + 24*strings.Count(f.res.patterns[0], "*")
		}
	}
	return n
}

// setIndex is the compiled form of a resource set, built on first use.
type setIndex struct {
	once sync.Once
	idx  *globIndex
}

func (s *setIndex) index(res *resources) *globIndex {
	s.once.Do(func() { s.idx = newGlobIndex(res.patterns) })
	return s.idx
}

// agentPlan is what Decide reads of a Policy for one agent: the records
// that apply to it, in file order, and its conventional group.
type agentPlan struct {
	agent string
	recs  []planRecord
	conv  *policy.Group
	// lowered holds the lower-case patterns of the conventional group's
	// rules that have upper-case letters, by line.
	lowered []loweredRule
}

type loweredRule struct {
	line    int
	pattern string
}

// lower returns the pattern of a rule of the plan's conventional group,
// lower-cased.
func (pl *agentPlan) lower(r policy.Rule) string {
	if i, ok := slices.BinarySearchFunc(pl.lowered, r.Line, func(l loweredRule, line int) int { return l.line - line }); ok {
		return pl.lowered[i].pattern
	}
	return strings.ToLower(r.Pattern)
}

type planRecord struct {
	r       *record
	crawler string // the record's crawler name that the agent matched
}

// planCache keeps the plan of the agent last asked about, which is most
// often the next one asked about.
type planCache struct{ last atomic.Pointer[agentPlan] }

func (p *Policy) planFor(agent string) *agentPlan {
	if p.plans == nil {
		return p.newPlan(agent)
	}
	if pl := p.plans.last.Load(); pl != nil && pl.agent == agent {
		return pl
	}
	pl := p.newPlan(agent)
	p.plans.last.Store(pl)
	return pl
}

func (p *Policy) newPlan(agent string) *agentPlan {
	pl := &agentPlan{agent: agent}
	for r, crawler := range p.recordsFor(agent) {
		pl.recs = append(pl.recs, planRecord{r, crawler})
	}
	if p.conventional != nil && !p.ignoreConventional {
		pl.conv = p.conventional.Group(agent)
		for _, r := range pl.conv.Rules() {
			if l := strings.ToLower(r.Pattern); l != r.Pattern {
				pl.lowered = append(pl.lowered, loweredRule{r.Line, l})
			}
		}
		slices.SortFunc(pl.lowered, func(a, b loweredRule) int { return a.line - b.line })
	}
	return pl
}

// appendLower appends s, lower-cased (ASCII), to b.
func appendLower(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	return b
}
