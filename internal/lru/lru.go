// Package lru is a map bounded by the total size of its values, evicting
// the values least recently used first, in the CLOCK approximation of that
// order.
package lru

import (
	"hash/maphash"
	"sync"
	"sync/atomic"
)

// A Cache holds values whose sizes add up to at most its bound. It is safe
// for concurrent use.
//
// Its values are pointers to structs that embed a Node, where the Cache
// keeps what it needs to find and evict them: a value costs the Cache its
// Node and a map slot, and a Get reads the value and not a separate item.
// A value is held under one key at a time, and is told from others by the
// function is, which must read only what does not change while the value
// is held (a Get calls it under no lock); its Node is the Cache's, used
// aside.
//
// Values are found through shards, split by the hash of the key, each
// with its own lock, so that concurrent Gets of different keys rarely wait
// for each other. They are evicted by CLOCK (second chance): a Get marks
// its value used, and writes nothing else; when the total passes the
// bound, a hand goes round the ring of all the values held, clearing the
// marks it passes, and evicts the first value that has none (or, when it
// has passed maxSweep marked values, the first of them: an eviction never
// reads the whole ring). A value used since the hand last passed it stays;
// of those that were not, the hand reaches the oldest first, as a new
// value is put where the hand comes last. A Get thus reads and writes its
// value alone, where a list kept in order of use would rewrite two other
// values at each Get, its neighbours in the list, which in a large cache
// lie far apart in memory: the ring is changed by Sets, Deletes and
// evictions only.
//
// A Get of its shard's last value, already marked, takes no lock and
// writes nothing: many goroutines asking for one key (one origin, a crawl
// of one's own site) read shared cache lines and write none.
type Cache[K comparable, V Value[V]] struct {
	max    int64
	size   func(V) int64
	hash   func(K) uint64 // nil: maphash.Comparable with seed
	is     func(V, K) bool
	seed   maphash.Seed
	shards []shard[K, V]
	mask   uint64

	total     atomic.Int64 // sum of the sizes held by the shards
	evictions atomic.Int64

	// The ring links the values held (Node.prev, Node.next) in the order
	// the hand visits them, from hand on: one for the whole Cache, so that
	// the oldest value not used goes first whatever its shard. Its lock
	// is taken by Sets, Deletes and evictions (for an origin's state, a
	// fetch each), for a few pointer writes, and by Stats, never by a
	// Get. A shard's lock is taken before ringMu, never after.
	ringMu sync.Mutex // guards hand, n and the Nodes' prev and next
	hand   V          // the next value the hand looks at; the zero V when empty
	n      int        // the values in the ring
}

// A Value is a pointer to a struct that embeds Node[V].
type Value[V any] interface {
	comparable
	node() *Node[V]
}

// A Node is the part of a value that its Cache keeps. Embed it in the
// value's struct; its zero value is ready.
//
// A Get reads used and the value's key, and nothing else of the Node
// unless keys share a hash: used comes last, so that a value whose key
// follows its Node is read in as few cache lines as can be.
type Node[V any] struct {
	prev, next V      // the ring's, towards the hand's past and its future (ringMu)
	same       V      // the next value whose key has the same hash (shard's lock)
	hash       uint64 // of the value's key: set before it enters the ring
	// used is 1 when the value was got since the hand last passed it:
	// set by a Get under no lock, only when it is 0, and cleared by the
	// hand.
	used atomic.Uint32
}

func (n *Node[V]) node() *Node[V] { return n }

// mark marks n used, unless it is: a value many goroutines get stays
// clean in their caches.
func (n *Node[V]) mark() {
	if n.used.Load() == 0 {
		n.used.Store(1)
	}
}

type shard[K comparable, V Value[V]] struct {
	mu sync.Mutex // guards items, and the Nodes' same
	// items holds the values by the hash of their key, those whose keys
	// share a hash chained (Node.same). A map of small keys keeps a probe
	// to one or two cache lines at any size, where a map of the keys
	// themselves would read a slot of their size and then their strings.
	items map[uint64]V
	// last is the value of the shard's last Get or Set (a V; nil until
	// one), held: a Get of its key takes no lock. It is written under the
	// lock, only when it changes, and cleared when its value is removed.
	last atomic.Value
	_    [32]byte // 64 bytes a shard: shards' locks on separate cache lines
}

// maxShards is the number of shards of a large cache. Smaller caches have
// fewer, so that each shard holds a few values at least.
const maxShards = 16

// New returns a Cache that holds values whose sizes, as size reports them,
// add up to at most maxSize. A value larger than maxSize is not kept. The
// size of a value must not change while the Cache holds it. is reports
// whether a value is that of a key.
//
// hash spreads keys over the shards and files them in their shard: any
// function of the key will do, but keys with the same hash are chained, so
// a hash of part of a key costs a walk along the keys that share that
// part; nil means a hash of the whole key (maphash.Comparable), which
// costs about as much as the map lookup that follows it.
func New[K comparable, V Value[V]](maxSize int64, size func(V) int64, hash func(K) uint64, is func(V, K) bool) *Cache[K, V] {
	n := 1
	for n < maxShards && maxSize/int64(n) >= 1<<20 {
		n *= 2
	}
	c := &Cache[K, V]{max: maxSize, size: size, hash: hash, is: is, seed: maphash.MakeSeed(), shards: make([]shard[K, V], n), mask: uint64(n - 1)}
	for i := range c.shards {
		c.shards[i].items = map[uint64]V{}
	}
	return c
}

// shard returns the shard of key and key's hash.
func (c *Cache[K, V]) shard(key K) (*shard[K, V], uint64) {
	h := c.hashOf(key)
	return &c.shards[h&c.mask], h
}

// find returns the value of key, whose hash is h, or the zero V.
func (c *Cache[K, V]) find(s *shard[K, V], key K, h uint64) V {
	var none V
	v := s.items[h]
	for v != none && !c.is(v, key) {
		v = v.node().same
	}
	return v
}

func (c *Cache[K, V]) hashOf(key K) uint64 {
	if c.hash != nil {
		return c.hash(key)
	}
	return maphash.Comparable(c.seed, key)
}

// Get returns the value of key and marks it used.
func (c *Cache[K, V]) Get(key K) (v V, ok bool) {
	s, h := c.shard(key)
	var none V
	// The shard's last value is held (it is cleared when removed): it is
	// found without the lock.
	if v, _ = s.last.Load().(V); v != none && c.is(v, key) {
		v.node().mark()
		return v, true
	}
	s.mu.Lock()
	v = c.find(s, key, h)
	if v == none {
		s.mu.Unlock()
		return v, false
	}
	v.node().mark()
	s.setLast(v)
	s.mu.Unlock()
	return v, true
}

// setLast makes v s's last value; s's lock is held.
func (s *shard[K, V]) setLast(v V) {
	if last, _ := s.last.Load().(V); last != v {
		s.last.Store(v)
	}
}

// Set stores v under key, replacing any value there, and evicts values
// not used recently until the total size fits. v must not be held under
// another key.
func (c *Cache[K, V]) Set(key K, v V) {
	size := c.size(v)
	s, h := c.shard(key)
	s.mu.Lock()
	var none V
	if old := c.find(s, key, h); old != none {
		c.remove(s, old)
	}
	if size > c.max {
		s.mu.Unlock()
		return
	}
	n := v.node()
	n.hash = h
	n.used.Store(0) // where the hand comes last: it stays a turn unused
	n.same = s.items[h]
	s.items[h] = v
	c.ringAdd(v)
	s.setLast(v)
	c.total.Add(size)
	s.mu.Unlock()
	for c.total.Load() > c.max {
		if !c.evict(v) {
			break
		}
	}
}

// ringAdd puts v in the ring where the hand comes last: just before it.
func (c *Cache[K, V]) ringAdd(v V) {
	var none V
	c.ringMu.Lock()
	defer c.ringMu.Unlock()
	c.n++
	n := v.node()
	if c.hand == none {
		n.prev, n.next, c.hand = v, v, v
		return
	}
	h := c.hand.node()
	n.prev, n.next = h.prev, c.hand
	h.prev.node().next = v
	h.prev = v
}

// ringRemove takes v out of the ring; the hand moves past it if it was on
// it.
func (c *Cache[K, V]) ringRemove(v V) {
	var none V
	c.ringMu.Lock()
	defer c.ringMu.Unlock()
	c.n--
	n := v.node()
	switch {
	case n.next == v:
		c.hand = none
	default:
		n.prev.node().next = n.next
		n.next.node().prev = n.prev
		if c.hand == v {
			c.hand = n.next
		}
	}
	n.prev, n.next = none, none
}

// evict evicts one value other than keep, and reports whether it found one.
func (c *Cache[K, V]) evict(keep V) bool {
	var none V
	c.ringMu.Lock()
	v := c.victim(keep)
	var h uint64
	if v != none {
		h = v.node().hash
	}
	c.ringMu.Unlock()
	if v == none {
		return false
	}
	s := &c.shards[h&c.mask]
	s.mu.Lock()
	if c.holds(s, v) { // else another goroutine removed it first
		c.remove(s, v)
		c.evictions.Add(1)
	}
	s.mu.Unlock()
	return true
}

// victim moves the hand round the ring to the first value not marked used
// but keep, clearing the marks it passes, and returns it, or the zero V
// when the ring holds no value but keep. It passes maxSweep marked values
// at most: should they all be marked (every value got since the hand last
// came round), it returns the first of them, now unmarked, the oldest it
// saw. An eviction thus reads a bounded number of values, never the whole
// ring. ringMu is held.
func (c *Cache[K, V]) victim(keep V) V {
	var none, first V
	for range min(2*c.n+1, maxSweep+1) {
		v := c.hand
		if v == none {
			break
		}
		n := v.node()
		if v != keep {
			if n.used.Load() == 0 {
				return v // the hand stays on it
			}
			n.used.Store(0)
			if first == none {
				first = v
			}
		}
		c.hand = n.next
	}
	return first
}

// maxSweep is the number of marked values an eviction passes at most.
const maxSweep = 64

// holds reports whether s holds v; s's lock is held.
func (c *Cache[K, V]) holds(s *shard[K, V], v V) bool {
	var none V
	p := s.items[v.node().hash]
	for p != none && p != v {
		p = p.node().same
	}
	return p == v
}

// Delete removes key.
func (c *Cache[K, V]) Delete(key K) {
	s, h := c.shard(key)
	s.mu.Lock()
	var none V
	if v := c.find(s, key, h); v != none {
		c.remove(s, v)
	}
	s.mu.Unlock()
}

// Stats returns the number of values held, their total size, and the
// number of values evicted to make room so far.
func (c *Cache[K, V]) Stats() (n int, size, evictions int64) {
	c.ringMu.Lock()
	n = c.n
	c.ringMu.Unlock()
	return n, c.total.Load(), c.evictions.Load()
}

// remove drops v from s, whose lock is held, and from the ring.
func (c *Cache[K, V]) remove(s *shard[K, V], v V) {
	var none V
	n := v.node()
	switch p := s.items[n.hash]; {
	case p == v && n.same == none:
		delete(s.items, n.hash)
	case p == v:
		s.items[n.hash] = n.same
	default:
		for p.node().same != v {
			p = p.node().same
		}
		p.node().same = n.same
	}
	n.same = none
	c.ringRemove(v)
	if last, _ := s.last.Load().(V); last == v {
		s.last.Store(none)
	}
	c.total.Add(-c.size(v))
}
