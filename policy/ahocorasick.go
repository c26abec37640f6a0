package policy

import "slices"

// acMachine is an Aho-Corasick automaton: one pass over a text finds every
// occurrence of a set of strings. The matcher uses it to find which
// wildcard rules can match a path.
type acMachine struct {
	root  [256]int32 // transitions of the root (state 0); 0 where none
	nodes []acNode
	edges []acEdge // outgoing transitions, sorted by byte within a node
	outs  []int32  // ids of the strings that end at a node
}

type acNode struct {
	fail           int32 // longest proper suffix of this state that is a state
	dict           int32 // nearest state on the fail chain with outputs; 0 if none
	edgeLo, edgeHi int32
	outLo, outHi   int32
}

type acEdge struct {
	to int32
	c  byte
}

// newACMachine builds the automaton for strs; the id of strs[i] is i. The
// strings must not be empty.
func newACMachine(strs []string) *acMachine {
	// Build the trie with per-node child lists first.
	type tnode struct {
		next []acEdge
		out  []int32
	}
	trie := []tnode{{}}
	child := func(n int32, c byte) int32 {
		for _, e := range trie[n].next {
			if e.c == c {
				return e.to
			}
		}
		return 0
	}
	for id, s := range strs {
		n := int32(0)
		for i := 0; i < len(s); i++ {
			next := child(n, s[i])
			if next == 0 {
				next = int32(len(trie))
				trie = append(trie, tnode{})
				trie[n].next = append(trie[n].next, acEdge{to: next, c: s[i]})
			}
			n = next
		}
		trie[n].out = append(trie[n].out, int32(id))
	}

	a := &acMachine{nodes: make([]acNode, len(trie))}
	for n := range trie {
		slices.SortFunc(trie[n].next, func(x, y acEdge) int { return int(x.c) - int(y.c) })
		nd := &a.nodes[n]
		nd.edgeLo = int32(len(a.edges))
		a.edges = append(a.edges, trie[n].next...)
		nd.edgeHi = int32(len(a.edges))
		nd.outLo = int32(len(a.outs))
		a.outs = append(a.outs, trie[n].out...)
		nd.outHi = int32(len(a.outs))
	}
	for _, e := range trie[0].next {
		a.root[e.c] = e.to
	}

	// Failure and dictionary links, breadth first.
	queue := make([]int32, 0, len(trie))
	for _, e := range trie[0].next {
		queue = append(queue, e.to) // fail = 0, dict = 0
	}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		for _, e := range trie[u].next {
			v := e.to
			f := a.nodes[u].fail
			for f != 0 && a.next(f, e.c) == 0 {
				f = a.nodes[f].fail
			}
			if f == 0 {
				f = a.root[e.c]
			} else {
				f = a.next(f, e.c)
			}
			if f == v {
				f = 0
			}
			a.nodes[v].fail = f
			if fn := &a.nodes[f]; fn.outHi > fn.outLo {
				a.nodes[v].dict = f
			} else {
				a.nodes[v].dict = fn.dict
			}
			queue = append(queue, v)
		}
	}
	return a
}

// next returns the transition of state n (not the root) on c, or 0.
func (a *acMachine) next(n int32, c byte) int32 {
	nd := &a.nodes[n]
	es := a.edges[nd.edgeLo:nd.edgeHi]
	if len(es) <= 8 {
		for _, e := range es {
			if e.c == c {
				return e.to
			}
		}
		return 0
	}
	lo, hi := 0, len(es)
	for lo < hi {
		h := int(uint(lo+hi) >> 1)
		if es[h].c < c {
			lo = h + 1
		} else {
			hi = h
		}
	}
	if lo < len(es) && es[lo].c == c {
		return es[lo].to
	}
	return 0
}

// mark sets bit id in found for every string id that occurs in s.
func (a *acMachine) mark(s string, found []uint64) {
	st := int32(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		for {
			if st == 0 {
				st = a.root[c]
				break
			}
			if t := a.next(st, c); t != 0 {
				st = t
				break
			}
			st = a.nodes[st].fail
		}
		for o := st; o != 0; o = a.nodes[o].dict {
			nd := &a.nodes[o]
			for _, id := range a.outs[nd.outLo:nd.outHi] {
				found[id>>6] |= 1 << (id & 63)
			}
		}
	}
}
