package match

import (
	"slices"
	"strings"
)

// acMachine is an Aho-Corasick automaton: one pass over a text finds every
// occurrence of a set of strings. The matcher uses it to find which
// wildcard rules can match a path.
//
// States are the nodes of the trie of the strings. When the transition
// table fits in maxDFA entries it is precomputed (a DFA over byte classes);
// otherwise transitions follow trie edges (binary-searched) and failure
// links.
type acMachine struct {
	nodes []acNode // nil with a DFA, which needs only outs
	outs  []acOut  // per state, what it emits
	edges []acEdge // transitions; nil with a DFA
	root  []int32  // the 256 transitions of the root (state 0), 0 where none; nil with a DFA

	// DFA: delta[s*nclass+class[c]] is the state after byte c in state s,
	// with emitsFlag set when that state ends some string.
	class  [256]uint8
	nclass int
	delta  []uint16
}

// emitsFlag marks DFA transitions into states that end a string.
const emitsFlag = 1 << 15

type acNode struct {
	fail           int32 // longest proper suffix of this state that is a state
	dict           int32 // nearest state on the fail chain that ends a string; 0 if none
	out            int32 // id of the string ending here, or -1
	edgeLo, edgeHi int32 // its transitions in edges, sorted by byte
}

// acOut is what a state emits: the id of the string ending there, or -1,
// and the nearest state on its fail chain that ends a string, or 0.
type acOut struct{ out, dict int32 }

type acEdge struct {
	to int32
	c  byte
}

// maxDFA bounds the size of the DFA transition table, in entries (two bytes
// each).
const maxDFA = 1 << 14

// newACMachine builds the automaton for strs, which must be distinct and
// not empty; the id of strs[i] is i.
func newACMachine(strs []string) *acMachine {
	ids := make([]int32, len(strs))
	size := 1
	for i, s := range strs {
		ids[i] = int32(i)
		size += len(s)
	}
	// Build the trie with sibling lists first. Inserting the strings in
	// sorted order creates siblings in byte order, and a string shares
	// the path of the previous one up to their common prefix.
	type tnode struct {
		child, sibling int32
		c              byte
	}
	trie := make([]tnode, 1, size)
	a := &acMachine{nodes: make([]acNode, 1, size)}
	a.nodes[0].out = -1
	slices.SortFunc(ids, func(x, y int32) int { return strings.Compare(strs[x], strs[y]) })
	var path []int32 // path[d] is the node at depth d+1 of the previous string
	prev := ""
	for _, id := range ids {
		s := strs[id]
		common := commonPrefixLen(prev, s)
		path = path[:common]
		n := int32(0)
		if common > 0 {
			n = path[common-1]
		}
		for i := common; i < len(s); i++ {
			next := int32(len(trie))
			trie = append(trie, tnode{c: s[i]})
			a.nodes = append(a.nodes, acNode{out: -1})
			if last := trie[n].child; last == 0 {
				trie[n].child = next
			} else {
				for trie[last].sibling != 0 {
					last = trie[last].sibling
				}
				trie[last].sibling = next
			}
			path = append(path, next)
			n = next
		}
		a.nodes[n].out = id
		prev = s
	}

	// Lay the transitions out per node, breadth first.
	bfs := make([]int32, 1, len(trie))
	a.edges = make([]acEdge, 0, len(trie)-1)
	for i := 0; i < len(bfs); i++ {
		u := bfs[i]
		a.nodes[u].edgeLo = int32(len(a.edges))
		for v := trie[u].child; v != 0; v = trie[v].sibling {
			a.edges = append(a.edges, acEdge{to: v, c: trie[v].c})
			bfs = append(bfs, v)
		}
		a.nodes[u].edgeHi = int32(len(a.edges))
	}
	a.root = make([]int32, 256)
	for _, e := range a.edges[a.nodes[0].edgeLo:a.nodes[0].edgeHi] {
		a.root[e.c] = e.to
	}

	// Failure and dictionary links, breadth first.
	for _, u := range bfs {
		for _, e := range a.edges[a.nodes[u].edgeLo:a.nodes[u].edgeHi] {
			v := e.to
			if u == 0 {
				continue // fail = dict = 0
			}
			f := a.nodes[u].fail
			for f != 0 && a.next(f, e.c) == 0 {
				f = a.nodes[f].fail
			}
			if f == 0 {
				f = a.root[e.c]
			} else {
				f = a.next(f, e.c)
			}
			a.nodes[v].fail = f
			if a.nodes[f].out >= 0 {
				a.nodes[v].dict = f
			} else {
				a.nodes[v].dict = a.nodes[f].dict
			}
		}
	}
	a.outs = make([]acOut, len(a.nodes))
	for i, n := range a.nodes {
		a.outs[i] = acOut{n.out, n.dict}
	}
	if a.buildDFA(bfs) {
		a.root, a.edges, a.nodes = nil, nil, nil
	}
	return a
}

// next returns the transition of state n (not the root) on c, or 0.
func (a *acMachine) next(n int32, c byte) int32 {
	es := a.edges[a.nodes[n].edgeLo:a.nodes[n].edgeHi]
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

// buildDFA fills the DFA tables when they fit in maxDFA entries, and
// reports whether it did. Bytes that appear in no string share class 0.
func (a *acMachine) buildDFA(bfs []int32) bool {
	rep := []byte{0} // a byte of each class
	for _, e := range a.edges {
		if a.class[e.c] == 0 {
			if len(rep) == 256 {
				a.class = [256]uint8{}
				return false // every byte is used: no class is left for the others
			}
			a.class[e.c] = uint8(len(rep))
			rep = append(rep, e.c)
		}
	}
	n, nc := len(a.nodes), len(rep)
	if n >= emitsFlag || n*nc > maxDFA {
		a.class = [256]uint8{}
		return false
	}
	for c := 0; c < 256; c++ {
		if a.class[c] == 0 {
			rep[0] = byte(c)
			break
		}
	}
	a.nclass = nc
	a.delta = make([]uint16, n*nc)
	for _, s := range bfs {
		for k, c := range rep {
			var t int32
			if s == 0 {
				t = a.root[c]
			} else if t = a.next(s, c); t == 0 {
				t = int32(a.delta[int(a.nodes[s].fail)*nc+k] &^ emitsFlag) // the fail state came earlier
			}
			v := uint16(t)
			if a.nodes[t].out >= 0 || a.nodes[t].dict != 0 {
				v |= emitsFlag
			}
			a.delta[int(s)*nc+k] = v
		}
	}
	return true
}

// mark sets bit id in found for every string id that occurs in s.
func (a *acMachine) mark(s string, found []uint64) {
	if a.delta != nil {
		st, nc := 0, a.nclass
		for i := 0; i < len(s); i++ {
			v := a.delta[st*nc+int(a.class[s[i]])]
			st = int(v &^ emitsFlag)
			if v&emitsFlag != 0 {
				a.emit(int32(st), found)
			}
		}
		return
	}
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
		a.emit(st, found)
	}
}

// emit marks the strings that end at state st: its own, and those of the
// states on its dictionary chain. A string already marked had its chain
// marked with it, so the walk stops there: each string is marked once,
// whatever the length of the chains.
func (a *acMachine) emit(st int32, found []uint64) {
	for ; st != 0; st = a.outs[st].dict {
		if id := a.outs[st].out; id >= 0 {
			if found[id>>6]&(1<<(id&63)) != 0 {
				return
			}
			found[id>>6] |= 1 << (id & 63)
		}
	}
}
