package acap

import (
	"fmt"
	"hash/maphash"
	"iter"
	"slices"
	"strings"
	"sync"

	"github.com/robotsguard/robotsguard/policy"
)

// A Query asks whether a crawler may use a resource for a usage.
type Query struct {
	// Agent is the crawler's name, or the whole User-Agent value it sends.
	// Records are matched on its product token (policy.ProductToken:
	// "NewsBot" of "Mozilla/5.0 (compatible; NewsBot/1.0)"; for names with
	// digits or dots, which RFC 9309 tokens lack, the first product's
	// name: "Bot8" of "Bot8/1.0"): a record applies when one of its
	// crawler names has that token ("NewsBot", "newsbot/2"), ignoring
	// case; a record for "*" applies to every agent. Section 2.3.1 lets crawlers match names as
	// substrings of their User-Agent; matching tokens, as RFC 9309 does
	// for the conventional records (read for the same token), keeps a
	// record named "compatible" or "Mozilla" from applying to every
	// crawler that sends such a header.
	Agent string
	// URL is the resource: an absolute URL or a path with an optional query.
	URL string
	// Usage is the usage asked about, e.g. Crawl or PresentSnippet: one of
	// the usage types of ACAP 1.1 (Usage.Valid). Any other is a caller's
	// error, decided as prohibited with Basis BasisInvalidUsage, never as
	// "no field applies".
	Usage Usage
	// Purpose is the usage purpose the crawler acts for (a name or URI,
	// section 2.3.3), or "" for none. Sub-records apply only to a query
	// whose Purpose their usage purpose patterns match.
	Purpose string
	// Honours reports whether the crawler can act as a qualifier requires.
	// A permission with a qualifier it cannot honour is read as a
	// prohibition of the same usage (section 2.4.3). Nil means the crawler
	// honours every qualifier, which Decision.Qualifiers lists.
	//
	// Decide asks Honours about the qualifiers of the permissions that
	// apply and count (those of usage other only when no field of another
	// usage applies; with Interprets, every permission of the records that
	// apply to the agent), each permission's once, and about 1024
	// qualifiers at most: when those permissions carry more in all, it
	// asks about none, and reads each of them as a permission the crawler
	// cannot honour. No crawler honours thousands of conditions on one
	// resource, and the bound keeps a decision on a file built to hold
	// them cheap.
	Honours func(Qualifier) bool
	// Interprets reports whether the crawler can act on a prohibition of a
	// usage. One it cannot act on is read as a prohibition of the basic
	// usage (present-snippet becomes present), and one of a basic or the
	// general usage as a prohibition of crawl (section 2.4.3). Nil means
	// every prohibition can be acted on.
	Interprets func(Usage) bool
}

// A Basis tells why a Decision came out as it did.
type Basis uint8

const (
	// BasisField: one field, or several that agree, had the narrowest
	// scope among those that apply; Decision.Field is one of them.
	BasisField Basis = iota + 1
	// BasisNone: no field applies to the usage of the resource, so it is
	// permitted (section 2.4.3, NOTE).
	BasisNone
	// BasisConflict: a permission and a prohibition apply and which has
	// the narrower scope cannot be decided, so the usage is prohibited
	// (section 2.4.6). Decision.Conflict lists the fields.
	BasisConflict
	// BasisInvalidUsage: Query.Usage is not a usage type of ACAP 1.1 (see
	// Usage.Valid), a caller's error: no field can be read for it, and
	// the usage is prohibited.
	BasisInvalidUsage
)

func (b Basis) String() string {
	switch b {
	case BasisField:
		return "field"
	case BasisNone:
		return "no field applies"
	case BasisConflict:
		return "undecidable conflict"
	case BasisInvalidUsage:
		return "not an ACAP 1.1 usage type"
	}
	return fmt.Sprintf("Basis(%d)", uint8(b))
}

// A Field is a permission or prohibition, as the decision applied it.
type Field struct {
	// Source is "" for the robots.txt itself, or the resource locator of
	// the ACAP-permissions-reference whose resource holds the field.
	Source string
	Line   int // 1-based line in Source
	// Text is the line as written, without its comment; for a conventional
	// rule, the rule as Allow or Disallow with its canonical pattern, e.g.
	// "Disallow: /caf%C3%A9/".
	Text string
	// Permission and Usage are what the field was applied as: after a
	// fallback of section 2.4.3 they differ from Text.
	Permission bool
	Usage      Usage
	// Pattern is the resource path pattern that matched, in canonical
	// lower-case form.
	Pattern string
	// Crawler is the record's crawler name that the agent matched, "*"
	// for a record addressed to any crawler, or the conventional group's
	// product token.
	Crawler string
	// Purpose is the usage purpose pattern that matched, for a field of a
	// sub-record.
	Purpose      string
	Conventional bool // a conventional Allow or Disallow line (section 2.10.2)
	FellBack     bool // read as a prohibition by the fallback of section 2.4.3
}

// String gives the field as written and where, e.g.
// `"ACAP-disallow-crawl: /private/" (line 12)`.
func (f Field) String() string {
	s := fmt.Sprintf("%q (line %d%s)", f.Text, f.Line, of(f.Source))
	if f.FellBack {
		s += fmt.Sprintf(" read as a prohibition of %s", f.Usage)
	}
	return s
}

// A Decision is the verdict on a Query, with what decided it.
type Decision struct {
	// Permitted is the verdict, in ACAP 1.1's words: a usage is permitted
	// or prohibited (its ACAP-allow- and ACAP-disallow- fields are
	// permissions and prohibitions), where policy.Decision.Allowed tells
	// whether a URL may be accessed, in RFC 9309's.
	Permitted bool
	Basis     Basis
	// Field is the field with the narrowest scope, when Basis is
	// BasisField.
	Field Field
	// Qualifiers restrict a permission: the crawler must honour them all.
	// They are those of every permission with the narrowest scope (section
	// 2.4.6), each listed once, in file order; the rules of section 2.5
	// for repeating a qualifier have been applied within each field. The
	// slice may be shared with other decisions on the same Policy (a list
	// of thousands is built once): read it, do not modify its elements.
	Qualifiers []Qualifier
	// Conflict lists the fields of narrowest scope that disagree, when
	// Basis is BasisConflict.
	Conflict []Field
}

// String explains the decision in one line, for logs and error messages.
func (d Decision) String() string {
	verdict := "prohibited"
	if d.Permitted {
		verdict = "permitted"
	}
	switch d.Basis {
	case BasisField:
		s := verdict + " by " + d.Field.String()
		for _, q := range d.Qualifiers {
			s += " " + q.String()
		}
		return s
	case BasisConflict:
		parts := make([]string, len(d.Conflict))
		for i, f := range d.Conflict {
			parts[i] = f.String()
		}
		return verdict + ": no narrowest scope among " + strings.Join(parts, ", ")
	}
	return verdict + ": " + d.Basis.String()
}

// Permitted reports whether agent may use target for usage u, with no
// usage purpose. Qualifiers that restrict a permission are ignored: use
// Decide to see them.
func (p *Policy) Permitted(agent, target string, u Usage) bool {
	return p.Decide(Query{Agent: agent, URL: target, Usage: u}).Permitted
}

// entry is what one part of a field says of a query: the field applies to
// the resource, and this is its verdict for one usage, after the fallback.
type entry struct {
	f        *field // nil for the conventional rule
	part     *part
	rec      *record
	conv     *Field       // the conventional rule, without its Text
	rule     *policy.Rule // the conventional rule
	crawler  string
	purpose  string
	ri       int32 // the position of rec among the records that apply
	list     *listIndex
	class    int32 // f's class in list
	next     int32 // the next entry of its group, or -1
	written  Usage // the part's usage, as written
	usage    Usage // after the fallback
	allow    bool  // after the fallback
	fellBack bool
	pending  bool       // allow is yet to be checked with Query.Honours (honourAll)
	agg      *aggregate // the parts of many classes it stands for, or nil
	pi       int32      // part's position in f.parts
	sub      bool       // the field belongs to a sub-record
	named    bool       // the record names the crawler
	relevant bool       // it concerns the usage asked about
	other    bool       // it concerns it as usage other
	disabled bool       // overridden (section 2.2.1)
	won      string     // the narrowest pattern its group won with
}

// field returns the entry as the decision reports it, with the pattern
// that matched.
func (e *entry) field(pattern string) Field {
	if e.conv != nil {
		f := *e.conv
		f.Text = e.rule.String()
		return f
	}
	return Field{
		Source: e.rec.source, Line: e.f.line, Text: e.f.text, Permission: e.allow, Usage: e.usage,
		Pattern: pattern, Crawler: e.crawler, Purpose: e.purpose, FellBack: e.fellBack,
	}
}

// orderKey sorts what a decision reports: ACAP fields in file order (and
// the parts of a field in order), then the conventional rule.
type orderKey struct {
	conventional bool
	source       string
	line, part   int
}

func (k orderKey) compare(o orderKey) int {
	switch {
	case k.conventional != o.conventional:
		return boolInt(k.conventional) - boolInt(o.conventional)
	case k.source != o.source:
		return strings.Compare(k.source, o.source)
	case k.line != o.line:
		return k.line - o.line
	}
	return k.part - o.part
}

func (e *entry) order() orderKey {
	if e.conv != nil {
		return orderKey{true, "", e.conv.Line, 0}
	}
	return orderKey{false, e.rec.source, e.f.line, int(e.pi)}
}

func compareEntries(a, b *entry) int { return a.order().compare(b.order()) }

// group is the entries whose patterns are the same resources: those of
// the fields that name one pattern or one resource set, or the
// conventional rule.
type group struct {
	res         *resources // nil for the conventional rule
	first, last int32      // its entries, linked by entry.next
	won         string     // the narrowest pattern it won with
	winner      bool       // of narrowest scope
	conv        [1]string  // the pattern of the conventional rule
}

// decider holds the state of one Decide call. Its slices are scratch
// space that deciders kept in deciderPool reuse.
type decider struct {
	p        *Policy
	q        Query
	plan     *agentPlan
	cased    string  // the canonical path of q.URL
	subj     subject // cased, lower-case, in scratch space of the decider's
	entries  []entry
	groups   []group
	es       []*entry
	cls      []int32
	cands    []candidate
	pats     []string
	groupMap map[*resources]int32
	sets     map[*resources]*setMatch // the patterns of each resource set that match
	fell     map[*part]fellBack       // the fallback of the parts of definitions
	aggPats  []int32                  // of classesOf
	// honourNone: the permissions Honours would be asked about carry
	// more than maxHonoursAsked qualifiers, and none is honoured.
	honourNone bool
	perClass   bool // read no aggregates (for tests)

	conv     Field       // the conventional rule's entry's
	convRule policy.Rule // the conventional rule
}

var deciderPool = sync.Pool{New: func() any { return new(decider) }}

// maxScratch is the number of entries beyond which a decider's scratch
// space is not kept for the next decision.
const maxScratch = 256

// release clears d of what it refers to, and keeps it for another
// decision unless its scratch space has grown large.
func (d *decider) release() {
	if cap(d.entries) > maxScratch || cap(d.groups) > maxScratch || cap(d.es) > 2*maxScratch ||
		cap(d.cls) > 2*maxScratch || cap(d.subj.path) > 4096 ||
		cap(d.cands) > maxScratch || cap(d.pats) > maxScratch || len(d.groupMap) > maxScratch {
		return
	}
	clear(d.entries)
	clear(d.groups)
	clear(d.es)
	clear(d.cands)
	clear(d.pats)
	clear(d.groupMap)
	*d = decider{subj: subject{path: d.subj.path[:0]}, aggPats: d.aggPats[:0], entries: d.entries[:0], groups: d.groups[:0], es: d.es[:0], cls: d.cls[:0],
		cands: d.cands[:0], pats: d.pats[:0], groupMap: d.groupMap}
	deciderPool.Put(d)
}

// fellBack is a part after the fallback.
type fellBack struct {
	allow, fellBack bool
	usage           Usage
}

// setMatch is what of a resource set matches the path: every pattern, and
// those of narrowest scope among them.
type setMatch struct{ all, narrowest []string }

// Decide returns the verdict on q: whether the usage is permitted, the
// qualifiers that restrict it, and the field that decided.
//
// The fields that apply are those of every ACAP record addressed to the
// agent or to any crawler, and of their sub-records whose usage purpose
// pattern matches q.Purpose, that match the URL; for crawl, the
// conventional rule that decides among the conventional records joins
// them. Sub-record fields override their record's fields, and fields of a
// record naming the agent override those of a record for any crawler, for
// the same usage as written (section 2.2.1). The fallback of section 2.4.3
// then turns the fields the crawler cannot act on into prohibitions; a
// field that falls back to another usage still applies to the usages it
// was written for. Of the fields that concern the usage asked about, those
// of narrowest scope decide (section 2.4.6). Fields of usage other count
// only when no field of the usage asked about applies.
//
// q.Usage is read without regard to case.
//
// The patterns of each record are compiled on the first decision that
// reads them, and the records that apply to an agent found once for the
// agent last asked about: a decision tries only the patterns whose
// literal prefix the path starts with, reads the fields of a pattern that
// many fields name as a few aggregates (see the package documentation,
// section Cost), and allocates nothing unless a field of a resource set,
// a conflict or qualifiers are involved.
func (p *Policy) Decide(q Query) (dec Decision) {
	if q.Usage != Crawl && !standard(q.Usage) {
		q.Usage = Usage(strings.ToLower(string(q.Usage)))
		if !q.Usage.Valid() {
			return Decision{Basis: BasisInvalidUsage}
		}
	}
	// The path in RFC 9309's canonical form, as the conventional records
	// compare it (convGroup.find), and lower-cased for the ACAP fields.
	if q.Purpose == "" && q.Honours == nil && q.Interprets == nil {
		var buf [192]byte
		cased, lower, lacks := canonicalLowerURL(buf[:0], q.URL)
		s := subject{path: lower, lacks: lacks}
		// The fast path writes the result in place: dec is zero.
		if p.decideFast(p.planFor(q.Agent), &q, cased, &s, &dec) {
			return dec
		}
		return p.decideGeneral(q, cased, &s)
	}
	return p.decideGeneral(q, policy.CanonicalPath(policy.PathOf(q.URL)), nil)
}

// standard reports whether u is a usage type of ACAP 1.1 as the constants
// spell it, in lower case.
func standard(u Usage) bool {
	switch u {
	case Crawl, Follow, Index, Preserve, Present, Other, PresentOriginal, PresentCurrentCopy, PresentOldCopy,
		PresentSnippet, PresentThumbnail, PresentOldSnippet, PresentOldThumbnail, PresentLink:
		return true
	}
	return false
}

// decideGeneral decides q, whose usage is valid, in every case. cased is
// the canonical path of q.URL; s, if not nil, holds it lower-cased.
func (p *Policy) decideGeneral(q Query, cased string, s *subject) Decision {
	d := deciderPool.Get().(*decider)
	d.cased = cased
	if s != nil {
		d.subj = subject{path: append(d.subj.path[:0], s.path...), lacks: s.lacks, set: s.set, found: s.found}
	} else {
		d.subj = subject{path: appendLower(d.subj.path[:0], cased)}
	}
	dec := d.run(p, q)
	d.release()
	return dec
}

// run decides q, whose usage is valid, and whose path d holds.
func (d *decider) run(p *Policy, q Query) Decision {
	d.p, d.q, d.plan = p, q, p.planFor(q.Agent)
	d.collect()
	if q.Usage == Crawl && d.plan.conv != nil {
		if e, ok := d.conventional(); ok {
			d.entries = append(d.entries, e)
		}
	}
	// Fields of usage other count only when nothing else does.
	direct := false
	for i := range d.entries {
		e := &d.entries[i]
		direct = direct || !e.disabled && e.relevant && !e.other
	}
	order := d.groups[:0]
	var groups map[*resources]int32 // when there are many
	for i := range d.entries {
		e := &d.entries[i]
		if e.disabled || !e.relevant || direct && e.other {
			continue
		}
		e.next = -1
		var res *resources // the conventional rule is a group of its own
		if e.conv == nil {
			res = e.f.res
		}
		gi := int32(-1)
		if groups != nil {
			if j, ok := groups[res]; ok {
				gi = j
			}
		} else if res != nil {
			for j := range order {
				if order[j].res == res {
					gi = int32(j)
					break
				}
			}
		}
		if gi < 0 {
			gi = int32(len(order))
			order = append(order, group{res: res, first: int32(i), last: int32(i)})
			if groups != nil {
				if res != nil {
					groups[res] = gi
				}
			} else if len(order) > 8 {
				if d.groupMap == nil {
					d.groupMap = make(map[*resources]int32, 2*len(order))
				}
				groups = d.groupMap
				for j, g := range order {
					if g.res != nil {
						groups[g.res] = int32(j)
					}
				}
			}
			continue
		}
		g := &order[gi]
		d.entries[g.last].next = int32(i)
		g.last = int32(i)
	}
	d.groups = order
	if len(order) == 0 {
		return Decision{Permitted: true, Basis: BasisNone}
	}
	var winBuf [8]int32
	return d.decide(order, d.narrowest(order, winBuf[:0]))
}

// patternsOf returns the patterns of a group that match the path and may
// be narrowest.
func (d *decider) patternsOf(g *group) []string {
	if g.res == nil {
		g.conv[0] = d.entries[g.first].conv.Pattern
		return g.conv[:]
	}
	if !g.res.set {
		return g.res.patterns
	}
	return d.setMatch(g.res).narrowest
}

// relevantUsages returns the usages as written whose fields concern a
// query for usage u, without the fallback: u, present for a present-*
// usage, and other for any usage but other.
func relevantUsages(u Usage) usageSet { return relevant[u.index()] }

// relevant holds relevantUsages by usage index.
var relevant = func() (out [len(usageList)]usageSet) {
	for i, u := range usageList {
		for _, w := range usageList {
			if w.covers(u) || w == Other && u != Other {
				out[i] = out[i].with(w)
			}
		}
	}
	return out
}()

// source is a field list that applies to the agent and purpose.
type source struct {
	ri      int32
	r       *record
	crawler string
	fields  []*field
	list    *fieldList
	usages  usageSet
	sub     bool
	purpose string
}

// collect gathers the entries of the fields that apply to the query's
// resource, and applies the overrides and the fallback.
//
// It keeps the entries that concern the query, and those that may override
// them: of the same usage as written. So it learns those usages first,
// then keeps the entries of those usages that match the resource, which
// are few.
func (d *decider) collect() {
	q, purpose := &d.q, strings.ToLower(d.q.Purpose)
	var buf [8]source
	sources := buf[:0]
	for ri, pr := range d.plan.recs {
		r := pr.r
		sources = append(sources, source{int32(ri), r, pr.crawler, r.fields, &r.list, r.usages, false, ""})
		if purpose == "" {
			continue
		}
		for _, s := range r.subs {
			for _, pp := range s.purposes {
				if policy.PatternMatches(pp, purpose) {
					sources = append(sources, source{int32(ri), r, pr.crawler, s.fields, &s.list, s.usages, true, pp})
					break
				}
			}
		}
	}
	// relevance reports whether a part concerns the usage asked about,
	// and whether as usage other.
	relevance := func(written, usage Usage, fellBack bool) (relevant, other bool) {
		switch {
		case usage.covers(q.Usage), fellBack && written.covers(q.Usage):
			return true, false
		case (usage == Other || fellBack && written == Other) && q.Usage != Other:
			// A field for other that fell back to crawl still counts
			// as one for other.
			return true, true
		}
		return false, false
	}
	var written usageSet // usages as written of the relevant parts
	if q.Interprets == nil {
		// Without the fallback to other usages, each part concerns the
		// query by its usage alone: a permission that falls back for
		// its qualifiers keeps its usage.
		rel := relevantUsages(q.Usage)
		for _, src := range sources {
			written |= src.usages & rel
		}
	} else {
		if q.Honours != nil {
			total := 0 // the qualifiers Honours would be asked about
			for _, src := range sources {
				for _, c := range src.list.index(src.fields).classes {
					for _, pt := range src.fields[c.rep].parts {
						if pt.allow {
							total += len(pt.qualifiers)
						}
					}
				}
			}
			d.honourNone = total > maxHonoursAsked
		}
		for _, src := range sources {
			x := src.list.index(src.fields)
			for _, c := range x.classes {
				f := src.fields[c.rep]
				for i := range f.parts {
					pt := &f.parts[i]
					_, usage, fellBack := d.fallback(pt, f.shared)
					if rel, _ := relevance(pt.usage, usage, fellBack); rel {
						written = written.with(pt.usage)
					}
				}
			}
		}
	}
	if written == 0 {
		return
	}
	for _, src := range sources {
		if src.usages&written == 0 {
			continue
		}
		x := src.list.index(src.fields)
		d.aggPats = d.aggPats[:0]
		d.cls = d.classesOf(x, written, d.cls[:0], q.Interprets == nil && !d.perClass)
		for _, c := range d.cls {
			f := src.fields[x.classes[c].rep]
			for j := range f.parts {
				pt := &f.parts[j]
				if !written.has(pt.usage) {
					continue
				}
				// Without Interprets, a permission that falls back keeps its
				// usage, and so what it concerns and what overrides it:
				// whether the crawler honours its qualifiers is asked once
				// the overrides are known (honourAll).
				var allow, fellBack bool
				var usage Usage
				pending := q.Interprets == nil && pt.allow && len(pt.qualifiers) > 0
				if pending {
					allow, usage, fellBack = pt.allow, pt.usage, pt.fellBack
				} else {
					allow, usage, fellBack = d.fallback(pt, f.shared)
				}
				e := entry{
					f: f, part: pt, pi: int32(j), rec: src.r, crawler: src.crawler, purpose: src.purpose, ri: src.ri, list: x, class: c, written: pt.usage,
					usage: usage, allow: allow, fellBack: fellBack, pending: pending && q.Honours != nil, sub: src.sub, named: !src.r.any,
				}
				e.relevant, e.other = relevance(pt.usage, usage, fellBack)
				d.entries = append(d.entries, e)
			}
		}
		// Without Interprets, nothing falls back to another usage: the
		// parts of a usage and verdict of a pattern's classes are one
		// entry.
		for _, id := range d.aggPats {
			for i := range x.aggs[id] {
				a := &x.aggs[id][i]
				if !written.has(a.usage) {
					continue
				}
				cp := a.parts[0]
				f := src.fields[x.classes[cp.class].rep]
				e := entry{
					f: f, part: &f.parts[cp.part], pi: cp.part, agg: a, rec: src.r, crawler: src.crawler, purpose: src.purpose, ri: src.ri, list: x, class: cp.class,
					written: a.usage, usage: a.usage, allow: a.allow, fellBack: a.fell, pending: q.Honours != nil && a.allow && a.quals > 0,
					sub: src.sub, named: !src.r.any,
				}
				e.relevant, e.other = relevance(a.usage, a.usage, a.fell)
				d.entries = append(d.entries, e)
			}
		}
	}
	override(d.entries, len(d.plan.recs))
	if q.Honours != nil && q.Interprets == nil {
		d.honourAll()
	}
}

// honourAll applies the fallback of section 2.4.3 to the permissions with
// qualifiers that apply and count (those of usage other only when no
// other field applies), as the crawler honours them or not, unless they
// carry more than maxHonoursAsked qualifiers in all: then none is
// honoured. An aggregate some of whose parts the crawler honours and some
// not gives way to two: the parts it honours, and the others. The
// permissions that do not count keep their verdict, which decides
// nothing.
func (d *decider) honourAll() {
	// Those that count: fields of usage other count only when no other
	// applies.
	direct := false
	for i := range d.entries {
		e := &d.entries[i]
		direct = direct || !e.disabled && e.relevant && !e.other
	}
	counts := func(e *entry) bool { return e.pending && !e.disabled && e.relevant && !(direct && e.other) }
	total := 0
	for i := range d.entries {
		if e := &d.entries[i]; counts(e) {
			if e.agg != nil {
				total += e.agg.quals
			} else {
				total += len(e.part.qualifiers)
			}
		}
	}
	d.honourNone = total > maxHonoursAsked
	for i, n := 0, len(d.entries); i < n; i++ {
		e := &d.entries[i]
		if !counts(e) {
			continue
		}
		e.pending = false
		if e.agg == nil {
			e.allow, e.usage, e.fellBack = d.fallback(e.part, e.f.shared)
			continue
		}
		if d.honourNone && e.agg.bare == 0 {
			e.allow, e.fellBack = false, true // none honoured
			continue
		}
		var yes, no []classPart // the parts the crawler honours, and the others
		for k, cp := range e.agg.parts {
			f := e.list.fields[e.list.classes[cp.class].rep]
			pt := &f.parts[cp.part]
			honoured := true
			if len(pt.qualifiers) > 0 {
				honoured, _, _ = d.fallback(pt, f.shared)
			}
			switch {
			case honoured && no != nil:
				yes = append(yes, cp)
			case !honoured && no == nil:
				yes, no = e.agg.parts[:k:k], []classPart{cp}
			case !honoured:
				no = append(no, cp)
			}
		}
		if no == nil {
			continue
		}
		// The parts it does not honour are prohibitions: an aggregate of
		// their own.
		out := *e
		out.agg = &aggregate{usage: e.agg.usage, fell: true, parts: no, scratch: true}
		out.allow, out.fellBack = false, true
		out.setFirst()
		if len(yes) == 0 {
			*e = out
			continue
		}
		e.agg = &aggregate{usage: e.agg.usage, allow: true, fell: e.agg.fell, parts: yes, quals: e.agg.quals, scratch: true}
		e.setFirst()
		d.entries = append(d.entries, out)
	}
}

// setFirst makes the first part of e's aggregate e's part.
func (e *entry) setFirst() {
	cp := e.agg.parts[0]
	e.f = e.list.fields[e.list.classes[cp.class].rep]
	e.part, e.pi, e.class = &e.f.parts[cp.part], cp.part, cp.class
}

// setMatch returns the patterns of a resource set that match the path, and
// the narrowest of them, computed once per Decide.
func (d *decider) setMatch(res *resources) *setMatch {
	if m := d.sets[res]; m != nil {
		return m
	}
	if d.sets == nil {
		d.sets = map[*resources]*setMatch{}
	}
	m := &setMatch{}
	res.idx.index(res).each(&d.subj, func(id int32) bool { m.all = append(m.all, res.patterns[id]); return true })
	m.narrowest = narrowestPatterns(slices.Clone(m.all), nil)
	d.sets[res] = m
	return m
}

// fallback is the package-level fallback for the query, computed once per
// part of a definition, which many fields may share (or of an aggregate,
// shared: true).
func (d *decider) fallback(pt *part, shared bool) (allow bool, u Usage, fell bool) {
	if d.q.Honours == nil && d.q.Interprets == nil {
		return pt.allow, pt.usage, pt.fellBack
	}
	if !shared {
		return d.fallbackOnce(pt)
	}
	if r, ok := d.fell[pt]; ok {
		return r.allow, r.usage, r.fellBack
	}
	allow, u, fell = d.fallbackOnce(pt)
	if d.fell == nil {
		d.fell = map[*part]fellBack{}
	}
	d.fell[pt] = fellBack{allow, fell, u}
	return allow, u, fell
}

// maxHonoursAsked is the number of qualifiers a decision asks
// Query.Honours about, at most: when the permissions it would ask about
// carry more, it asks about none, and reads each as one the crawler cannot
// honour.
const maxHonoursAsked = 1024

// fallbackOnce applies section 2.4.3 to a part for the crawler of d.q, as
// many times as it takes: a permission with qualifiers the crawler cannot
// honour becomes a prohibition of its usage; a prohibition the crawler
// cannot act on becomes one of the basic usage, then one of crawl. With
// d.honourNone, no qualifier is honoured.
func (d *decider) fallbackOnce(pt *part) (allow bool, u Usage, fellBack bool) {
	q := &d.q
	allow, u, fellBack = pt.allow, pt.usage, pt.fellBack
	if allow && q.Honours != nil && len(pt.qualifiers) > 0 {
		if d.honourNone {
			allow, fellBack = false, true
		}
		for _, x := range pt.qualifiers {
			if !allow || !q.Honours(x) {
				allow, fellBack = false, true
				break
			}
		}
	}
	for !allow && q.Interprets != nil && u != Crawl && !q.Interprets(u) {
		if b := u.Basic(); b != u {
			u = b
		} else {
			u = Crawl // reading 4: the third bullet prohibits crawling
		}
		fellBack = true
	}
	return allow, u, fellBack
}

// conventional returns the conventional rule that decides crawling the
// URL for the agent, as an entry (section 2.10.2), if there is one. A
// conventional rule whose pattern is that of an ACAP field for crawl with
// the opposite verdict is ignored, and the decision taken without it.
func (d *decider) conventional() (entry, bool) {
	g := d.plan.conv
	_, _, idx, ok := g.find(d.cased)
	if !ok {
		return entry{}, false
	}
	var verdicts map[string]uint8 // ACAP crawl patterns: 1 permits, 2 prohibits
	ignored := func(r policy.Rule) bool {
		if verdicts == nil {
			verdicts = d.crawlVerdicts()
		}
		want := uint8(1)
		if r.Allow {
			want = 2
		}
		return verdicts[strings.ToLower(r.Pattern)]&want != 0
	}
	rule := g.rule(idx)
	if len(d.entries) > 32 && ignored(rule) || len(d.entries) <= 32 && d.opposed(rule.Allow, strings.ToLower(rule.Pattern)) {
		// Decide again without the ignored rules: the longest match wins,
		// an Allow a tie (RFC 9309 §2.2.2).
		found := false
		for i := range int32(g.len()) {
			r := g.rule(i)
			if ignored(r) || !policy.PatternMatches(r.Pattern, d.cased) {
				continue
			}
			if !found || len(r.Pattern) > len(rule.Pattern) || len(r.Pattern) == len(rule.Pattern) && r.Allow {
				rule, found = r, true
			}
		}
		if !found {
			return entry{}, false
		}
	}
	d.convRule = rule
	d.conv = Field{
		Line: rule.Line, Permission: rule.Allow, Usage: Crawl,
		Pattern: strings.ToLower(rule.Pattern), Crawler: g.agent, Conventional: true,
	}
	return entry{conv: &d.conv, rule: &d.convRule, written: Crawl, usage: Crawl, allow: rule.Allow, relevant: true}, true
}

// opposed reports whether an ACAP crawl field that applies has a pattern
// that matched, with the verdict opposite to allow: what crawlVerdicts
// tells of one rule, without building it, for a few entries.
func (d *decider) opposed(allow bool, pattern string) bool {
	for i := range d.entries {
		e := &d.entries[i]
		if e.disabled || e.usage != Crawl {
			continue
		}
		if e.allow == allow {
			continue
		}
		pats := e.f.res.patterns
		if e.f.res.set {
			pats = d.setMatch(e.f.res).all
		}
		if slices.Contains(pats, pattern) {
			return true
		}
	}
	return false
}

// crawlVerdicts returns the patterns of the ACAP crawl fields that apply,
// with their verdicts.
func (d *decider) crawlVerdicts() map[string]uint8 {
	out := map[string]uint8{}
	type key struct {
		res   *resources
		allow bool
	}
	done := map[key]bool{}
	for i := range d.entries {
		e := &d.entries[i]
		if e.disabled || e.usage != Crawl {
			continue
		}
		if done[key{e.f.res, e.allow}] {
			continue
		}
		done[key{e.f.res, e.allow}] = true
		bit := uint8(2)
		if e.allow {
			bit = 1
		}
		pats := e.f.res.patterns
		if e.f.res.set {
			pats = d.setMatch(e.f.res).all
		}
		for _, pat := range pats {
			out[pat] |= bit
		}
	}
	return out
}

// override disables the entries that others override (section 2.2.1),
// comparing the usages as written: a record's fields for a usage when one
// of its sub-records has a field for that usage that applies; and a field
// of a record for any crawler when a record naming the crawler has a field
// for the same usage that applies, at the same level (record or
// sub-record), or in a sub-record against a record-level field, which it
// is more specific than in both respects. A named record-level field
// against a sub-record field of a record for any crawler overrides neither
// (reading 3). Every entry applies to the resource, so "matching the same
// resource" holds for each pair (reading 2). records is the number of
// records that apply, which entry.ri counts.
func override(entries []entry, records int) {
	var subsBuf [8]usageSet
	subs := subsBuf[:0]   // by record: the usages of its sub-record entries
	var named [2]usageSet // by level (sub-record or not): the usages of named entries
	any := false
	for i := range entries {
		e := &entries[i]
		if e.sub {
			if len(subs) == 0 {
				if records <= len(subsBuf) {
					subs = subsBuf[:records]
				} else {
					subs = make([]usageSet, records)
				}
			}
			subs[e.ri] = subs[e.ri].with(e.written)
		}
		if e.named {
			named[boolInt(e.sub)] = named[boolInt(e.sub)].with(e.written)
			any = true
		}
	}
	if len(subs) == 0 && !any {
		return
	}
	for i := range entries {
		e := &entries[i]
		byNamed := named[boolInt(e.sub)].has(e.written) || !e.sub && named[1].has(e.written)
		if !e.sub && len(subs) > 0 && subs[e.ri].has(e.written) || !e.named && byNamed {
			e.disabled = true
		}
	}
}

// maxConflict is the number of fields a Decision lists in Conflict.
const maxConflict = 16

// decide gives the verdict of the groups of narrowest scope, winners (by
// position in groups).
func (d *decider) decide(groups []group, winners []int32) Decision {
	es := d.es[:0]
	allow, deny := false, false
	for _, gi := range winners {
		g := &groups[gi]
		for i := g.first; i >= 0; i = d.entries[i].next {
			e := &d.entries[i]
			es = append(es, e)
			e.won = g.won
			allow = allow || e.allow
			deny = deny || !e.allow
			if i == g.last {
				break
			}
		}
	}
	d.es = es
	if !slices.IsSortedFunc(es, compareEntries) {
		slices.SortStableFunc(es, compareEntries)
	}
	if allow && deny {
		return Decision{Basis: BasisConflict, Conflict: d.conflict(es)}
	}
	dec := Decision{Permitted: allow, Basis: BasisField, Field: es[0].field(es[0].won)}
	if allow {
		dec.Qualifiers = d.qualifiers(es)
	}
	return dec
}

// conflictItem is a field that a conflict may list: the field of an
// entry, or another field of its class (which says the same).
type conflictItem struct {
	e  *entry
	f  *field // e.f, or another field of its class; nil for the conventional rule
	pi int32  // the position in the first field of its class of the part it stands for
}

func (c conflictItem) order() orderKey {
	if c.e.conv != nil {
		return orderKey{true, "", c.e.conv.Line, 0}
	}
	return orderKey{false, c.e.rec.source, c.f.line, int(c.pi)}
}

func compareItems(a, b conflictItem) int { return a.order().compare(b.order()) }

// same reports whether a and b list the same field with the same verdict.
func (c conflictItem) same(o conflictItem) bool {
	return c.f == o.f && c.e.conv == o.e.conv && c.e.allow == o.e.allow && c.e.usage == o.e.usage
}

// conflict returns the fields of a conflict between the entries es, sorted
// for reporting: those of the entries and the other fields of their
// classes, in order (ACAP fields in file order, then the conventional
// rule), each field with each verdict once, the first maxConflict of them.
// Only those are built: the fields are kept in order as they are found,
// and a class's fields, in file order, are read only while they come before
// the last kept.
func (d *decider) conflict(es []*entry) []Field {
	var buf [maxConflict + 1]conflictItem
	top := buf[:0]
	// add keeps c among the first maxConflict, after those that come
	// before it or with it, unless it is one of them; it reports whether c
	// comes before the last of them.
	add := func(c conflictItem) bool {
		i := len(top)
		for i > 0 && compareItems(top[i-1], c) > 0 {
			i--
		}
		for _, o := range top[:i] {
			if o.same(c) {
				return true
			}
		}
		if i == maxConflict {
			return false
		}
		top = slices.Insert(top, i, c)
		if len(top) > maxConflict {
			top = top[:maxConflict]
		}
		return true
	}
	// The entries (an aggregate's parts), sorted, then the other fields
	// of their classes: a stable sort of them all would list them in this
	// order.
	for _, e := range es {
		if e.agg == nil {
			add(conflictItem{e, e.f, e.pi})
			continue
		}
		for _, cp := range e.agg.parts {
			if !add(conflictItem{e, e.list.fields[e.list.classes[cp.class].rep], cp.part}) {
				break // its later parts come later still
			}
		}
	}
	dups := func(e *entry, class, pi int32) {
		c := &e.list.classes[class]
		for _, fi := range e.list.members[c.lo+1 : min(c.hi, c.lo+1+maxConflict)] {
			if !add(conflictItem{e, e.list.fields[fi], pi}) {
				break // the class's later fields come later still
			}
		}
	}
	for _, e := range es {
		switch {
		case e.list == nil:
		case e.agg == nil:
			dups(e, e.class, e.pi)
		default:
			for _, cp := range e.agg.parts {
				dups(e, cp.class, cp.part)
			}
		}
	}
	out := make([]Field, len(top))
	for i, c := range top {
		dup := *c.e
		dup.f = c.f
		out[i] = dup.field(c.e.won)
	}
	return out
}

// qualifierSet is a set of the qualifiers of a list, by open addressing:
// each slot holds the position in the list of a qualifier plus one, or 0.
type qualifierSet struct {
	slots []int32
	mask  uint64
}

var qualifierSeed = maphash.MakeSeed()

func newQualifierSet(n int) *qualifierSet {
	size := 64
	for size < 2*n {
		size *= 2
	}
	return &qualifierSet{slots: make([]int32, size), mask: uint64(size - 1)}
}

func qualifierHash(q Qualifier) uint64 {
	return maphash.String(qualifierSeed, q.Type)*31 ^ maphash.String(qualifierSeed, q.Value)
}

// add reports whether q is not in the set of the qualifiers of list, and
// adds it as the one that comes next in list.
func (s *qualifierSet) add(list []Qualifier, q Qualifier) bool {
	for i := qualifierHash(q) & s.mask; ; i = (i + 1) & s.mask {
		switch at := s.slots[i]; {
		case at == 0:
			s.slots[i] = int32(len(list)) + 1
			return true
		case list[at-1] == q:
			return false
		}
	}
}

// insert adds q, at position i of a list, which holds no other equal to it.
func (s *qualifierSet) insert(q Qualifier, i int) {
	h := qualifierHash(q) & s.mask
	for s.slots[h] != 0 {
		h = (h + 1) & s.mask
	}
	s.slots[h] = int32(i) + 1
}

// candidate is a pattern of a group that may be of narrowest scope.
type candidate struct {
	pat  string
	g    int32
	rank int32 // of pat among the patterns of a field list, when all are of one
}

// narrowest appends to out the groups of narrowest scope (section 2.4.6),
// by position: those with a pattern that no other pattern is narrower
// than.
func (d *decider) narrowest(groups []group, out []int32) []int32 {
	if len(groups) == 1 {
		g := &groups[0]
		g.won = d.patternsOf(g)[0]
		return append(out, 0)
	}
	cands := d.cands[:0]
	// When the groups are patterns of one field list, their order is
	// known: its rank of their patterns.
	var x *listIndex
	for i := range groups {
		g := &groups[i]
		if g.res == nil || g.res.set {
			x = nil
			break
		}
		if e := &d.entries[g.first]; i == 0 || e.list == x {
			x = e.list
		} else {
			x = nil
			break
		}
	}
	for i := range groups {
		g := &groups[i]
		if x != nil {
			rank := x.patRank[x.classes[d.entries[g.first].class].pat]
			cands = append(cands, candidate{g.res.patterns[0], int32(i), rank})
			continue
		}
		for _, pat := range d.patternsOf(g) {
			cands = append(cands, candidate{pat, int32(i), 0})
		}
	}
	// Sorted by pattern, the candidates of each winning pattern are found
	// by binary search, and the patterns come sorted to narrowestPatterns.
	if x != nil {
		slices.SortFunc(cands, func(a, b candidate) int { return int(a.rank - b.rank) })
	} else {
		slices.SortFunc(cands, func(a, b candidate) int { return strings.Compare(a.pat, b.pat) })
	}
	pats := d.pats[:0]
	for i, c := range cands {
		if i == 0 || c.pat != cands[i-1].pat {
			pats = append(pats, c.pat)
		}
	}
	d.cands, d.pats = cands, pats // kept for the next decision
	var winBuf [8]string
	for _, pat := range narrowestSorted(pats, winBuf[:0]) {
		i, _ := slices.BinarySearchFunc(cands, pat, func(c candidate, pat string) int { return strings.Compare(c.pat, pat) })
		for ; i < len(cands) && cands[i].pat == pat; i++ {
			if g := &groups[cands[i].g]; !g.winner {
				g.winner, g.won = true, pat
				out = append(out, cands[i].g)
			}
		}
	}
	return out
}

// narrowestPatterns appends to out the distinct patterns of pats that no other is
// narrower than (section 2.4.6). Patterns are compared character by
// character; where they first differ, a pattern that has run out is wider
// than any other, a final '$' wider than anything else, and '*' wider than
// a literal character. Two different literal characters leave both
// patterns in the running. pats is sorted in place.
//
// The patterns are sorted and walked as a trie, always into the narrowest
// branches, so the cost is that of the sort.
func narrowestPatterns(pats, out []string) []string {
	slices.Sort(pats)
	return narrowestSorted(slices.Compact(pats), out)
}

// narrowestSorted is narrowestPatterns for patterns sorted and distinct.
func narrowestSorted(pats, out []string) []string {
	if len(pats) <= 1 {
		return append(out, pats...)
	}
	type span struct{ lo, hi, depth int }
	var nextBuf, stackBuf [8]span
	next := nextBuf[:0]
	stack := append(stackBuf[:0], span{0, len(pats), 0})
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for {
			// pats[s.lo:s.hi] share their first s.depth bytes: find the
			// narrowest class of byte at s.depth, then the runs of
			// patterns of that class with the same byte.
			best := classEnd
			for i := s.lo; i < s.hi; i++ {
				if k, _ := class(pats[i], s.depth); k < best {
					best = k
				}
			}
			if best == classEnd { // the one pattern that ends here
				out = append(out, pats[s.lo])
				break
			}
			next = next[:0]
			for i := s.lo; i < s.hi; {
				kind, c := class(pats[i], s.depth)
				j := i + 1
				for j < s.hi {
					if k2, c2 := class(pats[j], s.depth); k2 != kind || c2 != c {
						break
					}
					j++
				}
				if kind == best {
					next = append(next, span{i, j, s.depth + 1})
				}
				i = j
			}
			if len(next) > 1 {
				stack = append(stack, next...)
				break
			}
			s = next[0]
		}
	}
	return out
}

// appliesTo reports whether the record applies to agent, and the crawler
// name that matched.
func (r *record) appliesTo(agent string) (string, bool) {
	agent = agentToken(agent)
	if r.parent != nil {
		if _, ok := r.parent.names(agent); !ok {
			return "", false
		}
	}
	return r.names(agent)
}

// recordsFor yields the records that apply to agent, in file order, with
// the crawler name that matched.
func (p *Policy) recordsFor(agent string) iter.Seq2[*record, string] {
	agent = agentToken(agent)
	return func(yield func(*record, string) bool) {
		var parents map[*record]bool // whether each referring record applies
		for _, r := range p.records {
			if r.parent != nil {
				ok, known := parents[r.parent]
				if !known {
					_, ok = r.parent.names(agent)
					if parents == nil {
						parents = map[*record]bool{}
					}
					parents[r.parent] = ok
				}
				if !ok {
					continue
				}
			}
			if crawler, ok := r.names(agent); ok && !yield(r, crawler) {
				return
			}
		}
	}
}

// names reports whether the record's crawler names match token, the
// lower-case product token of an agent (see agentToken), and which.
func (r *record) names(token string) (string, bool) {
	if r.any {
		return "*", true
	}
	if token == "" {
		return "", false
	}
	for i, t := range r.tokens {
		if t == token {
			return r.crawlers[i], true
		}
	}
	return "", false
}

const (
	classLiteral = iota
	classStar
	classDollar
	classEnd
)

// class classifies pattern's byte at i for narrowest.
func class(pattern string, i int) (int, byte) {
	switch {
	case i >= len(pattern):
		return classEnd, 0
	case pattern[i] == '$' && i == len(pattern)-1:
		return classDollar, 0
	case pattern[i] == '*':
		return classStar, 0
	}
	return classLiteral, pattern[i]
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
