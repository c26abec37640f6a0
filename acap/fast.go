package acap

import (
	"strings"

	"github.com/robotsguard/robotsguard/internal/ascii"
	"github.com/robotsguard/robotsguard/policy"
)

// This file decides the common queries (no usage purpose, no Honours or
// Interprets) of the common files (no resource sets, a few fields that
// apply, no conflict, no qualifiers) as Decide's general path does, on the
// stack. Anything else it leaves to the general path, which
// TestFastPathAgrees checks it against.

// fastEntries is the number of entries the fast path holds.
const fastEntries = 8

// fastEntry is an entry of the fast path: a part of a field that applies,
// or the conventional rule (f nil).
type fastEntry struct {
	f        *field
	pt       *part
	ri       int32 // the position of the record among the plan's
	named    bool
	other    bool // of usage other, for another usage
	disabled bool // overridden by a record naming the crawler
}

// pattern returns the pattern of the entry's field, or conv, that of the
// conventional rule (as written: compared without regard to case).
func (e *fastEntry) pattern(conv string) string {
	if e.f == nil {
		return conv
	}
	return e.f.res.patterns[0]
}

// decideFast decides q, whose usage is valid and whose Purpose, Honours
// and Interprets are unset, into dec, which is zero, if it can (ok). pl
// is the plan of q.Agent, cased is the canonical path of q.URL, and s
// holds it lower-cased.
func (p *Policy) decideFast(pl *agentPlan, q *Query, cased string, s *subject, dec *Decision) (ok bool) {
	if pl.crawl != nil && q.Usage == Crawl && len(s.path) > 0 && s.path[0] == '/' {
		*dec = *pl.crawl
		return true
	}
	written := relevantUsages(q.Usage) & pl.usages
	var es [fastEntries + 1]fastEntry
	n := 0
	var named usageSet // of the entries of records naming the crawler
	if written != 0 {
		if pl.sets&written != 0 {
			return false
		}
		var clsBuf [fastEntries]int32
		for ri, pr := range pl.recs {
			r := pr.r
			w := written
			if r.any {
				w &^= pl.covered // its fields of those usages are overridden
			}
			if r.usages&w == 0 {
				continue
			}
			x := r.list.index(r.fields)
			cls, full := x.classesFast(s, w, clsBuf[:0])
			if full {
				return false
			}
			for _, c := range cls {
				f := r.fields[x.classes[c].rep]
				for j := range f.parts {
					pt := &f.parts[j]
					if !w.has(pt.usage) {
						continue
					}
					if n == fastEntries {
						return false
					}
					es[n] = fastEntry{f: f, pt: pt, ri: int32(ri), named: !r.any, other: !pt.usage.covers(q.Usage)}
					n++
					if !r.any {
						named = named.with(pt.usage)
					}
				}
			}
		}
	}
	// The conventional rule that decides, if any (conv): its verdict,
	// pattern and index. Its line and text are read only if it wins.
	var rule policy.Rule
	var ruleIdx int32
	conv := false // the conventional rule joins the entries
	// Where the fields repeat every conventional rule, the rule that
	// decides is repeated by an entry and need not be looked up.
	if q.Usage == Crawl && pl.conv != nil && !pl.convRepeated {
		rule.Allow, rule.Pattern, ruleIdx, conv = pl.conv.find(cased)
	}
	// Without sub-records, a record naming the crawler overrides one for
	// any crawler, for the same usage as written.
	direct := conv
	repeated := false // a crawl field that counts has the rule's pattern and verdict
	for i := range es[:n] {
		e := &es[i]
		e.disabled = !e.named && named.has(e.pt.usage)
		if e.disabled {
			continue
		}
		direct = direct || !e.other
		if conv && e.pt.usage == Crawl && ascii.EqualFold(rule.Pattern, e.f.res.patterns[0]) {
			if e.pt.allow != rule.Allow {
				return false // an ignored conventional rule
			}
			// A field that repeats the rule says what it says, and
			// decides before it: the rule need not be compared.
			repeated = true
		}
	}
	if conv && !repeated {
		es[n] = fastEntry{}
		n++
	}
	// The entries that count, moved to the front, by the patterns they
	// matched with: each pattern is compared with the others.
	k := 0
	for i := range es[:n] {
		if e := &es[i]; !e.disabled && !(direct && e.other) {
			if k != i {
				es[k] = *e
			}
			k++
		}
	}
	if k == 0 {
		dec.Permitted, dec.Basis = true, BasisNone
		return true
	}
	kept := es[:k]
	allow, deny := false, false
	best := -1 // the winning entry first in file order
	for i := range kept {
		e := &kept[i]
		pat := e.pattern(rule.Pattern)
		narrowest := true
		for j := range kept {
			if j == i {
				continue
			}
			// The same pattern, as a conventional rule and a field that
			// repeats it often have, is not narrower.
			if o := kept[j].pattern(rule.Pattern); o != pat && narrower(o, pat) {
				narrowest = false
				break
			}
		}
		if !narrowest {
			continue
		}
		a := rule.Allow
		if e.f != nil {
			a = e.pt.allow
			if a && len(e.pt.qualifiers) > 0 {
				return false
			}
		}
		allow, deny = allow || a, deny || !a
		if best < 0 || e.f != nil && (kept[best].f == nil || earlier(pl, e, &kept[best])) {
			best = i
		}
	}
	if allow && deny {
		return false
	}
	dec.Permitted, dec.Basis = allow, BasisField
	e := &kept[best]
	if e.f == nil {
		// Member by member: dec is zero, and a composite literal would be
		// built aside and copied.
		rule = pl.conv.rule(ruleIdx)
		f := &dec.Field
		f.Line, f.Text, f.Permission, f.Usage = rule.Line, rule.String(), rule.Allow, Crawl
		f.Pattern, f.Crawler, f.Conventional = strings.ToLower(rule.Pattern), pl.conv.agent, true
		return true
	}
	pr := &pl.recs[e.ri]
	f := &dec.Field
	f.Source, f.Line, f.Text, f.Permission, f.Usage = pr.r.source, e.f.line, e.f.text, e.pt.allow, e.pt.usage
	f.Pattern, f.Crawler, f.FellBack = e.f.res.patterns[0], pr.crawler, e.pt.fellBack
	return true
}

// earlier reports whether the field of a is before that of b: in an
// earlier source, or on an earlier line.
func earlier(pl *agentPlan, a, b *fastEntry) bool {
	as, bs := pl.recs[a.ri].r.source, pl.recs[b.ri].r.source
	return as < bs || as == bs && a.f.line < b.f.line
}

// narrower reports whether pattern a is narrower than b (section 2.4.6),
// as narrowestPatterns compares them, lower-cased: where they first
// differ, a pattern
// that has run out is wider than any other, a final '$' wider than
// anything else, and '*' wider than a literal character; two different
// literal characters leave neither narrower.
func narrower(a, b string) bool {
	// Skip the literal characters they share.
	i := 0
	for i < len(a) && i < len(b) && a[i] != '*' && a[i] != '$' && ascii.Lower(a[i]) == ascii.Lower(b[i]) {
		i++
	}
	for ; ; i++ {
		ka, ca := class(a, i)
		kb, cb := class(b, i)
		ca, cb = ascii.Lower(ca), ascii.Lower(cb)
		switch {
		case ka != kb:
			return ka < kb
		case ka == classEnd, ka == classLiteral && ca != cb:
			return false
		}
	}
}

// classesFast appends to cls the classes of the fields of x that may
// concern usages written and that apply to s, in file order, unless
// there are more than cap(cls) (full), or fields of resource sets.
func (x *listIndex) classesFast(s *subject, written usageSet, cls []int32) (out []int32, full bool) {
	x.pats.each(s, func(id int32) bool {
		for _, c := range x.byPat[x.patStart[id]:x.patStart[id+1]] {
			if x.classes[c].mask&written == 0 {
				continue
			}
			if len(cls) == cap(cls) {
				full = true
				return false
			}
			cls = append(cls, c)
		}
		return true
	})
	if full {
		return nil, true
	}
	// Insertion sort: they are few.
	for i := 1; i < len(cls); i++ {
		for j := i; j > 0 && cls[j] < cls[j-1]; j-- {
			cls[j], cls[j-1] = cls[j-1], cls[j]
		}
	}
	return cls, false
}
