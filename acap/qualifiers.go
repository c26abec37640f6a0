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

// sharedUnion is the number of permissions with qualifiers past which a
// decision looks for their list among those built before.
const sharedUnion = 16

// qualifiers returns the qualifiers of the permissions es, which decide,
// sorted for reporting.
//
// When they are many and are all the permissions with qualifiers of one
// pattern (or resource set) and usage in one field list, as when a file
// repeats a pattern in many fields, the list is that of the Policy's
// unionCache, built once and shared by the decisions that read it.
func (d *decider) qualifiers(es []*entry) []Qualifier {
	var first *entry
	n, total := 0, 0
	one := true // one list, pattern and usage
	for _, e := range es {
		if e.part == nil || len(e.part.qualifiers) == 0 {
			continue
		}
		if first == nil {
			first = e
		} else if e.list != first.list || e.f.res != first.f.res || e.written != first.written {
			one = false
		}
		n++
		total += len(e.part.qualifiers)
	}
	if n == 0 {
		return nil
	}
	if one && n > sharedUnion && d.p.unions != nil {
		if u := d.p.unions.get(unionKey{first.list, first.f.res, first.written}, d.p); u.parts == n {
			return u.quals
		}
	}
	u := qualifierUnion{total: total}
	for _, e := range es {
		if e.part != nil {
			u.add(e.part.qualifiers)
		}
	}
	return u.out
}

// unionKey names the permissions with qualifiers of a field list whose
// fields have one resource specification and whose parts one usage.
type unionKey struct {
	list  *listIndex
	res   *resources
	usage Usage
}

// union is the qualifiers of the permissions a unionKey names, each once,
// in file order (the order of the classes of the list, then of the parts of
// each), and the number of those permissions.
type union struct {
	quals []Qualifier
	parts int
}

// unionCache keeps the unions that decisions read, as many as fit in a
// budget of qualifiers: as many as the file holds (counting each list of
// them once, as MemSize does), and unionSlack more. A union past the
// budget is built again by each decision that reads it.
type unionCache struct {
	mu     sync.Mutex // guards what follows
	m      map[unionKey]*union
	budget int // the qualifiers the cache may still keep; < 0 before the first use
}

// unionSlack is the number of qualifiers a unionCache may keep beyond
// those of its file.
const unionSlack = 4096

func newUnionCache() *unionCache { return &unionCache{budget: -1} }

// get returns the union k names, from the cache or built.
func (c *unionCache) get(k unionKey, p *Policy) *union {
	c.mu.Lock()
	defer c.mu.Unlock()
	if u := c.m[k]; u != nil {
		return u
	}
	if c.budget < 0 {
		c.budget = p.qualifierCount() + unionSlack
	}
	u := buildUnion(k)
	if len(u.quals) <= c.budget {
		c.budget -= len(u.quals)
		if c.m == nil {
			c.m = map[unionKey]*union{}
		}
		c.m[k] = u
	}
	return u
}

// buildUnion builds the union k names.
func buildUnion(k unionKey) *union {
	x := k.list
	var u qualifierUnion
	var parts []*part
	for _, c := range x.classes {
		f := x.fields[c.rep]
		if f.res != k.res {
			continue
		}
		for i := range f.parts {
			if pt := &f.parts[i]; pt.usage == k.usage && pt.allow && len(pt.qualifiers) > 0 {
				parts = append(parts, pt)
				u.total += len(pt.qualifiers)
			}
		}
	}
	for _, pt := range parts {
		u.add(pt.qualifiers)
	}
	return &union{quals: slices.Clip(u.out), parts: len(parts)}
}
