package acap

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/robotsguard/robotsguard/internal/ascii"
	"github.com/robotsguard/robotsguard/internal/match"
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
	rare     uint8    // the rare bytes of segs (byteRare), which a path it matches holds
	need     byteSet  // the bytes of segs, which a path it matches holds
}

// A byteSet is a set of bytes, by their low six bits: a byte is in it
// when one with the same low bits was added.
type byteSet uint64

func (s *byteSet) add(c byte) { *s |= 1 << (c & 63) }

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
			g.rare |= pathBytes[c] & byteRare
		}
	}
	return g
}

// rejects reports, for a glob with a '*', that it does not match s for a
// reason found without searching the path: a literal after a '*' holds a
// byte the path lacks, or the path does not end with the last literal of
// an anchored glob. Each test is cheaper than the next: the rare bytes
// the path lacks are known, its end is read, and the set of its bytes is
// found when a glob first asks for it.
func (g *glob) rejects(s *subject) bool {
	return g.rare&s.lacks != 0 ||
		g.anchored && !bytes.HasSuffix(s.path, g.segs[len(g.segs)-1]) ||
		g.need&^s.bytes() != 0
}

// matchSegs reports whether a glob with a '*' matches path, whose first
// len(g.prefix) bytes are known to be its prefix, once the bytes of its
// literals are known to be in the path.
func (g *glob) matchSegs(path []byte) bool {
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
// found by narrowing a range of them, one byte of the path at a time (the
// rest of the prefix at once when one is left); only they are tried
// further.
type globIndex struct {
	globs []glob
	ids   []int32 // the position of each glob in the list it was built from
	// same holds, for each glob, the position past the last glob with
	// the same prefix (they are side by side).
	same []int32
	rare []uint8 // the rare bytes of each glob (glob.rare), side by side
	// runs holds, for a glob that starts a run of globs with the same
	// prefix of runMin to 32 of them, 1 + the index in cands of the
	// run's candidates, or 0.
	runs []int32
	// cands holds, for each run of runs, by the rare bytes a path lacks
	// (subject.lacks>>rareShift), the globs of the run (bit i for the
	// i-th) that do not ask for any of them.
	cands [][1 << rareCount]uint32
	// common is the length of the prefix that the prefixes of all the
	// globs share.
	common int
}

// runMin is the number of globs with the same prefix from which each
// finds those that the rare bytes of a path leave in a table.
const runMin = 8

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
	x.same = make([]int32, len(sorted))
	x.rare = make([]uint8, len(sorted))
	x.runs = make([]int32, len(sorted))
	for i := len(sorted) - 1; i >= 0; i-- {
		x.same[i] = int32(i + 1)
		if i+1 < len(sorted) && bytes.Equal(sorted[i].prefix, sorted[i+1].prefix) {
			x.same[i] = x.same[i+1]
		}
		x.rare[i] = sorted[i].rare
	}
	for i := 0; i < len(sorted); i = int(x.same[i]) {
		run := x.rare[i:x.same[i]]
		if len(run) < runMin || len(run) > 32 {
			continue
		}
		var t [1 << rareCount]uint32
		for lacks := range t {
			for j, r := range run {
				if r&(uint8(lacks)<<rareShift) == 0 {
					t[lacks] |= 1 << j
				}
			}
		}
		x.cands = append(x.cands, t)
		x.runs[i] = int32(len(x.cands))
	}
	if len(sorted) > 0 {
		first, last := sorted[0].prefix, sorted[len(sorted)-1].prefix
		for x.common < len(first) && x.common < len(last) && first[x.common] == last[x.common] {
			x.common++
		}
	}
	return x
}

// smallIndex is the number of globs up to which each narrows a range by
// a scan rather than binary searches.
const smallIndex = 8

// each calls fn with the position (in the list the index was built from)
// of every pattern that matches s, until fn returns false.
func (x *globIndex) each(s *subject, fn func(id int32) bool) {
	path := s.path
	gs := x.globs
	if len(gs) == 0 {
		return
	}
	// Every prefix starts with the common one, which only the first
	// glob's may end with.
	k := x.common
	switch {
	case len(path) < k:
		return
	case k == 1: // most often "/"
		if path[0] != gs[0].prefix[0] {
			return
		}
	case string(path[:k]) != string(gs[0].prefix[:k]):
		return
	}
	lacks := s.lacks
	lo, hi := 0, len(gs)
	for ; ; k++ {
		// gs[lo:hi] are the globs whose prefixes start with path[:k];
		// those that are path[:k], if any, come first.
		if len(gs[lo].prefix) == k {
			end := int(x.same[lo])
			if c := x.runs[lo]; c != 0 {
				// The globs that do not ask for a rare byte the path
				// lacks, from the table.
				for m := x.cands[c-1][lacks>>rareShift]; m != 0; m &= m - 1 {
					if i := lo + bits.TrailingZeros32(m); !x.try(i, k, s) && !fn(x.ids[i]) {
						return
					}
				}
			} else {
				for i, r := range x.rare[lo:end] {
					if r&lacks != 0 {
						continue // a literal after a '*' holds a rare byte the path lacks
					}
					if i += lo; !x.try(i, k, s) && !fn(x.ids[i]) {
						return
					}
				}
			}
			lo = end
		}
		if lo == hi || k == len(path) {
			return
		}
		// The globs of the range with byte c at k: the prefixes of those
		// left are longer than k.
		c := path[k]
		if hi-lo <= smallIndex {
			for lo < hi && gs[lo].prefix[k] < c {
				lo++
			}
			b := lo
			for b < hi && gs[b].prefix[k] == c {
				b++
			}
			hi = b
		} else {
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
		switch hi - lo {
		case 0:
			return
		case 1:
			// One glob left: the rest of its prefix is compared at once,
			// and the glob read at the next k.
			pre := gs[lo].prefix
			if !bytes.HasPrefix(path[k+1:], pre[k+1:]) {
				return
			}
			k = len(pre) - 1
		}
	}
}

// try reports whether the i-th glob, whose prefix is s.path[:k], does
// not match s.
func (x *globIndex) try(i, k int, s *subject) (fails bool) {
	g := &x.globs[i]
	if g.wild {
		return g.rejects(s) || !g.matchSegs(s.path)
	}
	return g.anchored && len(s.path) != k
}

// globIndexSize estimates the bytes an index of patterns takes: a glob,
// its position, run and rare bytes, and a share of a table of
// candidates, for each.
func globIndexSize(patterns []string) int {
	n := 72
	for _, p := range patterns {
		n += 144 + len(p) + 24*strings.Count(p, "*")
	}
	return n
}

// listIndex is the compiled form of a field list (a record's or a
// sub-record's fields).
//
// Its fields fall in classes: those that name the same resources with the
// same parts (usage, verdict, fallback and the very same qualifiers) say
// the same of every query, and differ only in where they are written.
// Decide reads the first field of each class, in file order; the others
// only join the fields of a conflict that Decision.Conflict lists. A file
// that repeats one field thousands of times costs a decision no more than
// one that holds it once.
//
// The classes of a pattern that has more than aggregateMin of them are
// read, when no usage falls back to another (Query.Interprets unset), in
// aggregates: the parts of one usage and verdict of all its classes, which
// say the same of every query but for their qualifiers. A file that writes
// one pattern in thousands of fields with different qualifiers costs a
// decision a few entries, not thousands.
type listIndex struct {
	fields   []*field
	pats     *globIndex   // the distinct patterns of the fields of one pattern
	classes  []fieldClass // numbered in the order of their first fields
	byPat    []int32      // the classes of each pattern: byPat[patStart[k]:patStart[k+1]]
	patStart []int32
	sets     []int32       // the classes of fields of resource sets
	members  []int32       // the fields of each class, in file order
	aggs     [][]aggregate // by pattern, for those with more than aggregateMin classes
	patRank  []int32       // by pattern, its position among the patterns sorted
}

// aggregateMin is the number of classes of a pattern past which a
// decision reads them in aggregates.
const aggregateMin = 8

// An aggregate is the parts of one usage, verdict and fallback of the
// classes of one pattern.
type aggregate struct {
	usage       Usage
	allow, fell bool
	parts       []classPart // in file order: by class, then by part
	quals       int         // the qualifiers of its parts, in all
	bare        int         // its parts without qualifiers
	scratch     bool        // made for one decision, of the parts of another
}

// classPart is a part of the first field of a class.
type classPart struct{ class, part int32 }

// aggregates returns the aggregates of the classes cs of one pattern, in
// the order of their first parts.
func aggregates(x *listIndex, cs []int32) []aggregate {
	type sig struct {
		usage       Usage
		allow, fell bool
	}
	var out []aggregate
	at := map[sig]int{}
	for _, c := range cs {
		f := x.fields[x.classes[c].rep]
		for j := range f.parts {
			pt := &f.parts[j]
			k := sig{pt.usage, pt.allow, pt.fellBack}
			i, ok := at[k]
			if !ok {
				i = len(out)
				at[k] = i
				out = append(out, aggregate{usage: pt.usage, allow: pt.allow, fell: pt.fellBack})
			}
			out[i].parts = append(out[i].parts, classPart{c, int32(j)})
			out[i].quals += len(pt.qualifiers)
			if len(pt.qualifiers) == 0 {
				out[i].bare++
			}
		}
	}
	return out
}

type fieldClass struct {
	rep    int32    // the class's first field
	mask   usageSet // the usages of its parts
	lo, hi int32    // its fields, members[lo:hi]
	pat    int32    // its pattern, or -1 for a resource set
}

// partKey is what of a part a decision reads: parts with the same key say
// the same. Qualifiers are compared by identity (the same elements of the
// same array), which parts that share a definition's qualifiers have.
type partKey struct {
	usage       Usage
	allow, fell bool
	quals       *Qualifier
	n           int
}

// fieldList is a list of fields, compiled on first use.
type fieldList struct {
	once sync.Once
	idx  *listIndex
}

func (l *fieldList) index(fields []*field) *listIndex {
	l.once.Do(func() { l.idx = compileList(fields) })
	return l.idx
}

func compileList(fields []*field) *listIndex {
	x := &listIndex{fields: fields}
	resIDs := map[*resources]int64{} // patterns from 0, sets from -1 down
	partIDs := map[partKey]uint64{}
	classIDs := map[string]int32{}
	var pats []string
	var members [][]int32
	var key []byte
	for i, f := range fields {
		id, ok := resIDs[f.res]
		if !ok {
			if f.res.set {
				id = -1 - int64(len(resIDs)-len(pats))
			} else {
				id = int64(len(pats))
				pats = append(pats, f.res.patterns[0])
			}
			resIDs[f.res] = id
		}
		key = binary.AppendVarint(key[:0], id)
		var mask usageSet
		for _, pt := range f.parts {
			mask = mask.with(pt.usage)
			k := partKey{usage: pt.usage, allow: pt.allow, fell: pt.fellBack, n: len(pt.qualifiers)}
			if k.n > 0 {
				k.quals = &pt.qualifiers[0]
			}
			pid, ok := partIDs[k]
			if !ok {
				pid = uint64(len(partIDs))
				partIDs[k] = pid
			}
			key = binary.AppendUvarint(key, pid)
		}
		c, ok := classIDs[string(key)]
		if !ok {
			c = int32(len(x.classes))
			classIDs[string(key)] = c
			x.classes = append(x.classes, fieldClass{rep: int32(i), mask: mask})
			members = append(members, nil)
		}
		members[c] = append(members[c], int32(i))
	}
	// The classes of each pattern, and the members of each class, flat.
	byPat := make([][]int32, len(pats))
	x.members = make([]int32, 0, len(fields))
	for c := range x.classes {
		cl := &x.classes[c]
		cl.lo = int32(len(x.members))
		x.members = append(x.members, members[c]...)
		cl.hi = int32(len(x.members))
		cl.pat = -1
		if id := resIDs[fields[cl.rep].res]; id >= 0 {
			byPat[id] = append(byPat[id], int32(c))
			cl.pat = int32(id)
		} else {
			x.sets = append(x.sets, int32(c))
		}
	}
	x.patStart = make([]int32, 0, len(pats)+1)
	for _, cs := range byPat {
		x.patStart = append(x.patStart, int32(len(x.byPat)))
		x.byPat = append(x.byPat, cs...)
	}
	x.patStart = append(x.patStart, int32(len(x.byPat)))
	for id, cs := range byPat {
		if len(cs) > aggregateMin {
			if x.aggs == nil {
				x.aggs = make([][]aggregate, len(pats))
			}
			x.aggs[id] = aggregates(x, cs)
		}
	}
	order := make([]int32, len(pats))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return strings.Compare(pats[a], pats[b]) })
	x.patRank = make([]int32, len(pats))
	for rank, id := range order {
		x.patRank[id] = int32(rank)
	}
	x.pats = newGlobIndex(pats)
	return x
}

// classesOf appends to cls the classes of the fields of x that may
// concern usages written and that apply to path, in file order; with
// aggregate, those of patterns with aggregates are left out, and the
// patterns appended to d.aggPats instead.
func (d *decider) classesOf(x *listIndex, written usageSet, cls []int32, aggregate bool) []int32 {
	x.pats.each(&d.subj, func(id int32) bool {
		if aggregate && x.aggs != nil && x.aggs[id] != nil {
			d.aggPats = append(d.aggPats, id)
			return true
		}
		for _, c := range x.byPat[x.patStart[id]:x.patStart[id+1]] {
			if x.classes[c].mask&written != 0 {
				cls = append(cls, c)
			}
		}
		return true
	})
	for _, c := range x.sets {
		if x.classes[c].mask&written != 0 && len(d.setMatch(x.fields[x.classes[c].rep].res).all) > 0 {
			cls = append(cls, c)
		}
	}
	slices.Sort(cls)
	return cls
}

// fieldListSize estimates the bytes the index of a field list takes.
func fieldListSize(fields []*field) int {
	n := 96 + 56*len(fields) // a class, a member, an aggregated part and a rank per field, at most
	prev := ""
	for _, f := range fields {
		// A glob per pattern: fields of one pattern side by side share one.
		if !f.res.set && (f.res.patterns[0] != prev || prev == "") {
			prev = f.res.patterns[0]
			n += 144 + len(prev) + 24*strings.Count(prev, "*")
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
	agent  string
	recs   []planRecord
	usages usageSet // of the parts of the records' fields (not of sub-records)
	sets   usageSet // of the parts of the records' fields that name resource sets
	// covered: usages for which a record-level field of a record naming
	// the agent has a pattern that matches every path, and so overrides
	// the record-level fields of the records for any crawler for every
	// resource (section 2.2.1).
	covered usageSet
	// conv is the agent's conventional group, or nil when it has no rule
	// with a pattern (and so decides nothing by a rule), or the
	// conventional records are ignored.
	conv *convGroup
	// convRepeated: the ACAP fields repeat every conventional rule (see
	// repeatsConventional), which a crawl decision need not look up.
	convRepeated bool
	// crawl is the fast path's crawl decision on every path that starts
	// with "/", when it is the same on all of them (see crawlEverywhere),
	// or nil. Many files write a record that shuts a crawler out, with
	// "/" as the only pattern that concerns it.
	crawl *Decision
}

type planRecord struct {
	r       *record
	crawler string // the record's crawler name that the agent matched
}

// planCache keeps the plans of the agents last asked about, most recent
// first: a crawler most often asks for one or two agents.
type planCache struct {
	last atomic.Pointer[[cachedPlans]*agentPlan]
}

// cachedPlans is the number of agents whose plans a Policy keeps.
const cachedPlans = 2

func (p *Policy) planFor(agent string) *agentPlan {
	if p.plans == nil {
		return p.newPlan(agent)
	}
	old := p.plans.last.Load()
	if old != nil {
		for _, pl := range old {
			if pl != nil && pl.agent == agent {
				return pl
			}
		}
	}
	pl := p.newPlan(agent)
	next := new([cachedPlans]*agentPlan)
	next[0] = pl
	if old != nil {
		copy(next[1:], old[:])
	}
	p.plans.last.Store(next)
	return pl
}

func (p *Policy) newPlan(agent string) *agentPlan {
	pl := &agentPlan{agent: agent}
	for r, crawler := range p.recordsFor(agent) {
		pl.recs = append(pl.recs, planRecord{r, crawler})
		pl.usages |= r.usages
		for _, f := range r.fields {
			if f.res.set {
				for _, pt := range f.parts {
					pl.sets = pl.sets.with(pt.usage)
				}
			} else if !r.any && matchesAll(f.res.patterns[0]) {
				for _, pt := range f.parts {
					pl.covered = pl.covered.with(pt.usage)
				}
			}
		}
	}
	if p.conventional != nil && !p.ignoreConventional {
		pl.conv = p.convFor(p.conventional.Group(agent))
		pl.convRepeated = pl.conv != nil && pl.repeatsConventional()
	}
	if pl.crawlEverywhere() {
		d := new(Decision)
		s := subject{path: []byte("/")}
		if p.decideFast(pl, &Query{Agent: agent, URL: "/", Usage: Crawl}, "/", &s, d) {
			pl.crawl = d
		}
	}
	return pl
}

// crawlEverywhere reports whether the fast path's crawl decision is the
// same on every path that starts with "/": the fields of the records
// that may count for crawl (those of usages relevant to it, but for the
// fields of records for any crawler that the agent's records override
// everywhere) all have patterns that match every path (matchesAll), none
// is of a resource set, and the conventional rules are none or need not
// be looked up. The fast path then reads the same entries for every such
// path.
func (pl *agentPlan) crawlEverywhere() bool {
	written := relevantUsages(Crawl) & pl.usages
	if len(pl.recs) == 0 || pl.sets&written != 0 || pl.conv != nil && !pl.convRepeated {
		return false
	}
	for _, pr := range pl.recs {
		w := written
		if pr.r.any {
			w &^= pl.covered
		}
		for _, f := range pr.r.fields {
			for _, pt := range f.parts {
				if w.has(pt.usage) && (f.res.set || !matchesAll(f.res.patterns[0])) {
					return false
				}
			}
		}
	}
	return true
}

// repeatsConventional reports whether the conventional rules never count
// in a crawl decision of the fast path beside the fields (section 2.10.2):
// every rule with a pattern is a plain prefix (no '*', '$' or '%', which
// the conventional records and the fields may compare differently), and
// is repeated, with its verdict, by a crawl field that applies wherever
// the rule matches (its pattern, without regard to case, is a prefix of
// the lower-cased path when the rule's is of the path) and is never
// overridden (of a record naming the agent, or of a record for any
// crawler when no record naming it writes crawl fields); and no crawl
// field has a rule's pattern with the other verdict. The rule that
// decides is then always repeated by a field that applies, so never
// joins the fields, and never makes one ignored.
func (pl *agentPlan) repeatsConventional() bool {
	namedCrawl := false
	for _, pr := range pl.recs {
		if !pr.r.any && pr.r.usages.has(Crawl) {
			namedCrawl = true
		}
	}
	for i := range int32(pl.conv.len()) {
		rl := pl.conv.rule(i)
		if rl.Pattern == "" {
			continue // it matches nothing
		}
		if strings.ContainsAny(rl.Pattern, "*$%") {
			return false
		}
		repeated := false
		for _, pr := range pl.recs {
			for _, f := range pr.r.fields {
				if f.res.set || !ascii.EqualFold(rl.Pattern, f.res.patterns[0]) {
					continue
				}
				for _, pt := range f.parts {
					if pt.usage != Crawl {
						continue
					}
					if pt.allow != rl.Allow {
						return false
					}
					repeated = repeated || !pr.r.any || !namedCrawl
				}
			}
		}
		if !repeated {
			return false
		}
	}
	return true
}

// matchesAll reports whether a resource path pattern matches every path:
// "/", or stars after an optional "/".
func matchesAll(pattern string) bool {
	rest := strings.TrimLeft(strings.TrimPrefix(pattern, "/"), "*")
	return rest == "" && pattern != ""
}

// A subject is the path a decision matches patterns against, in
// canonical form and lower-cased, with the set of its bytes, which
// patterns with a '*' ask for and which is found when one first does.
type subject struct {
	path []byte
	// lacks holds the rare bytes (byteRare) that path does not hold, as
	// canonicalLower finds them; zero, which rejects no glob, when they
	// are not known.
	lacks uint8
	set   byteSet
	found bool // set holds the bytes of path
}

// bytes returns the set of the bytes of s.path.
func (s *subject) bytes() byteSet {
	if !s.found {
		s.set, s.found = bytesOf(s.path), true
	}
	return s.set
}

// ones has 1 in each byte of a word.
const ones = 0x0101010101010101

// upperBits returns the high bit of each byte of w that is in 'A'..'Z':
// h+0x3f reaches 0x80 from 'A' on, h+0x25 from '[' on, and neither
// carries into the next byte, h being below 0x80 in each.
func upperBits(w uint64) uint64 {
	h := w & (0x7f * ones)
	return (h + 0x3f*ones) &^ (h + 0x25*ones) &^ w & (0x80 * ones)
}

// Classes of bytes for canonicalLower, by bit.
const (
	byteUpper   = 1 << iota // in 'A'..'Z'
	byteRewrite             // one that policy.CanonicalPath rewrites, or may in some context
	// The rare bytes, each its own bit: bytes that patterns write after
	// a '*' and that most paths lack, such as those of a query.
	// canonicalLower finds, in the pass it makes anyway, which of them a
	// path lacks, so that a glob that asks for one is rejected before the
	// set of the path's bytes is found.
	byteEquals   // '='
	byteQuestion // '?'
	byteAmp      // '&'
	byteUnder    // '_'
	bytePercent  // '%'
	byteDot      // '.'

	byteRare = byteEquals | byteQuestion | byteAmp | byteUnder | bytePercent | byteDot

	rareShift = 2 // the bit of the first rare byte
	rareCount = 6 // the number of rare bytes
)

// rareBytes are the rare bytes, in the order of their bits.
const rareBytes = "=?&_%."

// pathBytes classifies each byte for canonicalLower. A byte is byteRewrite
// when policy.CanonicalPath changes a path that holds it, in its middle or
// at its end ('%', '*', '$', spaces, controls, non-ASCII and the
// characters a URI may not hold unencoded). The canonical form rewrites
// nothing else (TestCanonicalLower checks it on every byte in context):
// a path of other bytes only is canonical.
var pathBytes = func() (t [256]uint8) {
	for c := range 256 {
		mid, end := "/a"+string([]byte{byte(c)})+"b", "/a"+string([]byte{byte(c)})
		if policy.CanonicalPath(mid) != mid || policy.CanonicalPath(end) != end {
			t[c] |= byteRewrite
		}
		if 'A' <= c && c <= 'Z' {
			t[c] |= byteUpper
		}
		if i := strings.IndexByte(rareBytes, byte(c)); i >= 0 {
			t[c] |= byteEquals << i
		}
	}
	return t
}()

// canonicalLower returns the canonical form of path (policy.CanonicalPath),
// and that form lower-cased (ASCII): path's own bytes, which must not be
// modified, when it holds no upper-case letter, or else a copy, appended to
// buf[:0]; and the rare bytes (byteRare) that the form lacks. One pass
// over path finds whether it is canonical, whether it holds upper-case
// letters, and its rare bytes.
func canonicalLower(buf []byte, path string) (cased string, lower []byte, lacks uint8) {
	return lowerClassified(buf, path, classesOf(path))
}

// canonicalLowerURL is canonicalLower of policy.PathOf(url). The path of
// a URL of the common forms (match.PathStart) that needs no rewriting
// and holds no fragment is read once, as canonicalLower reads it; others
// take policy.PathOf.
func canonicalLowerURL(buf []byte, url string) (cased string, lower []byte, lacks uint8) {
	if begin, ok := match.PathStart(url); ok && begin >= 0 {
		path := url[begin:]
		if classes := classesOf(path); classes&byteRewrite == 0 {
			return lowerClassified(buf, path, classes)
		}
	}
	return canonicalLower(buf, policy.PathOf(url))
}

// classesOf returns the classes (pathBytes) of the bytes of path, eight
// at a time.
func classesOf(path string) uint8 {
	var classes uint8
	if n := len(path); n >= 8 {
		for i := 0; i+8 <= n; i += 8 {
			b := path[i : i+8]
			classes |= pathBytes[b[0]] | pathBytes[b[1]] | pathBytes[b[2]] | pathBytes[b[3]] |
				pathBytes[b[4]] | pathBytes[b[5]] | pathBytes[b[6]] | pathBytes[b[7]]
		}
		b := path[n-8:] // the last eight, again in part
		classes |= pathBytes[b[0]] | pathBytes[b[1]] | pathBytes[b[2]] | pathBytes[b[3]] |
			pathBytes[b[4]] | pathBytes[b[5]] | pathBytes[b[6]] | pathBytes[b[7]]
	} else {
		for i := range n {
			classes |= pathBytes[path[i]]
		}
	}
	return classes
}

// lowerClassified is canonicalLower of a path whose classes are known.
func lowerClassified(buf []byte, path string, classes uint8) (cased string, lower []byte, lacks uint8) {
	if classes&byteRewrite != 0 {
		path = policy.CanonicalPath(path)
		classes = 0
		for i := range len(path) {
			classes |= pathBytes[path[i]]
		}
		return path, appendLower(buf[:0], path), ^classes & byteRare
	}
	if classes&byteUpper != 0 {
		return path, appendLower(buf[:0], path), ^classes & byteRare
	}
	return path, unsafe.Slice(unsafe.StringData(path), len(path)), ^classes & byteRare
}

// appendLower appends s, lower-cased (ASCII), to b. It reads eight bytes
// at a time.
func appendLower(b []byte, s string) []byte {
	n := len(b)
	b = slices.Grow(b, len(s))[:n+len(s)]
	dst := b[n:]
	src := unsafe.Slice(unsafe.StringData(s), len(s))
	if len(src) < 8 {
		for i, c := range src {
			dst[i] = ascii.Lower(c)
		}
		return b
	}
	for i := 0; i+8 <= len(src); i += 8 {
		w := binary.LittleEndian.Uint64(src[i:])
		binary.LittleEndian.PutUint64(dst[i:], w|upperBits(w)>>2) // 0x20: lower case
	}
	// The last word, overlapping: its bytes lower-cased again are the same.
	w := binary.LittleEndian.Uint64(src[len(src)-8:])
	binary.LittleEndian.PutUint64(dst[len(dst)-8:], w|upperBits(w)>>2)
	return b
}

// bytesOf returns the set of the bytes of b. It reads eight bytes at a
// time, into two sets.
func bytesOf(b []byte) byteSet {
	var set, set2 uint64
	n := len(b)
	if n < 8 {
		for _, c := range b {
			set |= 1 << (c & 63)
		}
		return byteSet(set)
	}
	for i := 0; i+8 <= n; i += 8 {
		w := b[i : i+8]
		set |= 1<<(w[0]&63) | 1<<(w[1]&63) | 1<<(w[2]&63) | 1<<(w[3]&63)
		set2 |= 1<<(w[4]&63) | 1<<(w[5]&63) | 1<<(w[6]&63) | 1<<(w[7]&63)
	}
	w := b[n-8:] // the last eight, again in part
	set |= 1<<(w[0]&63) | 1<<(w[1]&63) | 1<<(w[2]&63) | 1<<(w[3]&63)
	set2 |= 1<<(w[4]&63) | 1<<(w[5]&63) | 1<<(w[6]&63) | 1<<(w[7]&63)
	return byteSet(set | set2)
}
