package acap

import (
	"slices"
	"sync"
)

// This file lists the qualifiers of a permitting decision: those of every
// permission of narrowest scope, each once. Lists that many decisions
// read are built once and shared.

// qualifierUnion lists the qualifiers of lists of them, each once, in the
// order they come; a list read before (the same elements of the same
// array, which the parts of many fields may share with a definition) is
// not read again. Both are found by map when there are many.
type qualifierUnion struct {
	out      []Qualifier
	total    int // the qualifiers of the lists, at most
	lists    []qualifierList
	seenList map[qualifierList]bool
	seen     *qualifierSet
}

type qualifierList struct {
	first *Qualifier
	n     int
}

// add lists the qualifiers of qs that are not listed yet.
func (u *qualifierUnion) add(qs []Qualifier) {
	if len(qs) == 0 {
		return
	}
	l := qualifierList{&qs[0], len(qs)}
	if u.seenList != nil {
		if u.seenList[l] {
			return
		}
		u.seenList[l] = true
	} else if slices.Contains(u.lists, l) {
		return
	} else if u.lists = append(u.lists, l); len(u.lists) > 16 {
		u.seenList = make(map[qualifierList]bool, 2*len(u.lists))
		for _, l := range u.lists {
			u.seenList[l] = true
		}
	}
	for _, q := range qs {
		if u.seen != nil {
			if !u.seen.add(u.out, q) {
				continue
			}
		} else if slices.Contains(u.out, q) {
			continue
		} else if len(u.out) >= 16 {
			u.seen = newQualifierSet(u.total)
			for i, x := range u.out {
				u.seen.insert(x, i)
			}
			u.seen.add(u.out, q)
		}
		if u.out == nil {
			u.out = make([]Qualifier, 0, u.total)
		}
		u.out = append(u.out, q)
	}
}

// qualifiers returns the qualifiers of the permissions es, which decide,
// sorted for reporting (by field, then by part).
//
// When they are those of one aggregate, the list is that of the Policy's
// unionCache, built once and shared by the decisions that read it.
func (d *decider) qualifiers(es []*entry) []Qualifier {
	var only *entry
	n, total := 0, 0 // entries with qualifiers, and their qualifiers
	for _, e := range es {
		switch {
		case e.agg != nil && e.agg.quals > 0:
			total += e.agg.quals
		case e.agg == nil && e.part != nil && len(e.part.qualifiers) > 0:
			total += len(e.part.qualifiers)
		default:
			continue
		}
		only = e
		n++
	}
	if n == 0 {
		return nil
	}
	if n == 1 && only.agg != nil && !only.agg.scratch && d.p.unions != nil {
		return d.p.unions.get(only.list, only.agg, d.p)
	}
	u := qualifierUnion{total: total}
	if n == 1 {
		if only.agg == nil {
			u.add(only.part.qualifiers)
		} else {
			only.list.unionOf(only.agg, &u)
		}
		return u.out
	}
	// The parts of aggregates and entries, in order.
	type item struct {
		e  *entry
		f  *field
		pi int32
	}
	var items []item
	for _, e := range es {
		if e.agg == nil {
			if e.part != nil && len(e.part.qualifiers) > 0 {
				items = append(items, item{e, e.f, e.pi})
			}
			continue
		}
		for _, cp := range e.agg.parts {
			if f := e.list.fields[e.list.classes[cp.class].rep]; len(f.parts[cp.part].qualifiers) > 0 {
				items = append(items, item{e, f, cp.part})
			}
		}
	}
	slices.SortStableFunc(items, func(a, b item) int {
		return orderKey{false, a.e.rec.source, a.f.line, int(a.pi)}.compare(orderKey{false, b.e.rec.source, b.f.line, int(b.pi)})
	})
	for _, it := range items {
		u.add(it.f.parts[it.pi].qualifiers)
	}
	return u.out
}

// unionOf adds to u the qualifiers of the parts of a, in order.
func (x *listIndex) unionOf(a *aggregate, u *qualifierUnion) {
	for _, cp := range a.parts {
		u.add(x.fields[x.classes[cp.class].rep].parts[cp.part].qualifiers)
	}
}

// unionCache keeps the qualifiers of the parts of the aggregates that
// decisions read, as many as fit in a budget of qualifiers: as many as the
// file holds (counting each list of them once, as MemSize does, which
// counts their places in the cache too). A union past the budget is built
// again by each decision that reads it.
type unionCache struct {
	mu     sync.Mutex // guards what follows
	m      map[*aggregate][]Qualifier
	budget int // the qualifiers the cache may still keep; < 0 before the first use
}

func newUnionCache() *unionCache { return &unionCache{budget: -1} }

// get returns the qualifiers of the parts of a, an aggregate of x, each
// once, in order: from the cache or built.
func (c *unionCache) get(x *listIndex, a *aggregate, p *Policy) []Qualifier {
	c.mu.Lock()
	defer c.mu.Unlock()
	if u, ok := c.m[a]; ok {
		return u
	}
	if c.budget < 0 {
		c.budget = p.qualifierCount()
	}
	u := qualifierUnion{total: a.quals}
	x.unionOf(a, &u)
	quals := slices.Clip(u.out)
	if len(quals) <= c.budget {
		c.budget -= len(quals)
		if c.m == nil {
			c.m = map[*aggregate][]Qualifier{}
		}
		c.m[a] = quals
	}
	return quals
}
