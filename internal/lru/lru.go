// Package lru is a map bounded by the total size of its values, evicting
// the least recently used ones first.
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
// keeps what it needs to find, order and evict them: a value costs the
// Cache its Node and a map slot, and a Get reads the value and not a
// separate item. A value is held under one key at a time, and is told
// from others by the function is, which must read only what does not
// change while the value is held (a Get calls it under no lock); its Node
// is the Cache's, read and written only under its locks, used aside.
//
// It is split into shards by the hash of the key, each with its own lock
// and its own recency list, so that concurrent Gets of different keys
// rarely wait for each other. The bound is global: a Set that takes the
// total past it evicts, one at a time, the least recently used value of
// the shard whose least recently used value is the oldest. Values are
// stamped with the number of Sets so far when they are used, so the
// order across shards is exact up to the Sets between two uses.
//
// A Get of a value already used since the last Set moves nothing, and
// takes no lock when the value is its shard's last hit: many goroutines
// asking for one key (one origin, a crawl of one's own site) read shared
// cache lines and write none.
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
	sets      atomic.Uint64 // Sets so far: the stamp of a use
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
// unless keys share a hash or it moves the value to the front: used comes
// last, so that a value whose key follows its Node is read in as few cache
// lines as can be.
type Node[V any] struct {
	prev, next V             // towards the most and the least recently used
	same       V             // the next value whose key has the same hash
	hash       uint64        // of the value's key
	used       atomic.Uint64 // Cache.sets when it was last used: written under the lock, read under none by a Get
}

func (n *Node[V]) node() *Node[V] { return n }

type shard[K comparable, V Value[V]] struct {
	mu sync.Mutex // guards the fields below and the Nodes of the values held
	// items holds the values by the hash of their key, those whose keys
	// share a hash chained (Node.same). A map of small keys keeps a probe
	// to one or two cache lines at any size, where a map of the keys
	// themselves would read a slot of their size and then their strings.
	items map[uint64]V
	n     int
	head  V // the most recently used; the zero V when empty
	tail  V // the least recently used
	// last is the value of the shard's last Get or Set (a V; nil until
	// one), held: a Get of its key, used since the last Set, takes no
	// lock. It is written under the lock, only when it changes, and
	// cleared when its value is removed.
	last atomic.Value
	_    [40]byte // 128 bytes a shard: shards' locks on separate cache lines
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

// Get returns the value of key and marks it most recently used.
func (c *Cache[K, V]) Get(key K) (v V, ok bool) {
	s, h := c.shard(key)
	var none V
	// A value already used since the last Set is ahead of every value
	// used before it: it stays where it is. When it is the shard's last,
	// it is found, and known to be held, without the lock. (used is read
	// before sets: a used equal to a later reading of sets, which only
	// grows, was still current then.)
	if v, _ = s.last.Load().(V); v != none && c.is(v, key) && v.node().used.Load() == c.sets.Load() {
		return v, true
	}
	s.mu.Lock()
	v = c.find(s, key, h)
	if v == none {
		s.mu.Unlock()
		return v, false
	}
	if n, now := v.node(), c.sets.Load(); n.used.Load() != now {
		n.used.Store(now)
		s.unlink(v)
		s.pushFront(v)
	}
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

// Set stores v under key, replacing any value there, and evicts least
// recently used values until the total size fits. v must not be held
// under another key.
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
	n.used.Store(c.sets.Add(1))
	n.same = s.items[h]
	s.items[h] = v
	s.n++
	s.pushFront(v)
	s.setLast(v)
	c.total.Add(size)
	s.mu.Unlock()
	for c.total.Load() > c.max {
		if !c.evictOldest(v) {
			break
		}
	}
}

// evictOldest evicts the least recently used value of the shard whose
// least recently used value is the oldest, unless that is keep, and
// reports whether it found one. It takes one shard's lock at a time.
func (c *Cache[K, V]) evictOldest(keep V) bool {
	var none V
	var oldest *shard[K, V]
	var stamp uint64
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		if t := s.tail; t != none && t != keep && (oldest == nil || t.node().used.Load() < stamp) {
			oldest, stamp = s, t.node().used.Load()
		}
		s.mu.Unlock()
	}
	if oldest == nil {
		return false
	}
	oldest.mu.Lock()
	if t := oldest.tail; t != none && t != keep {
		c.remove(oldest, t)
		c.evictions.Add(1)
	}
	oldest.mu.Unlock()
	return true
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
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		n += s.n
		s.mu.Unlock()
	}
	return n, c.total.Load(), c.evictions.Load()
}

// remove drops v from s, whose lock is held.
func (c *Cache[K, V]) remove(s *shard[K, V], v V) {
	var none V
	s.unlink(v)
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
	if last, _ := s.last.Load().(V); last == v {
		s.last.Store(none)
	}
	s.n--
	c.total.Add(-c.size(v))
}

func (s *shard[K, V]) unlink(v V) {
	var none V
	n := v.node()
	if n.prev != none {
		n.prev.node().next = n.next
	} else {
		s.head = n.next
	}
	if n.next != none {
		n.next.node().prev = n.prev
	} else {
		s.tail = n.prev
	}
	n.prev, n.next = none, none
}

func (s *shard[K, V]) pushFront(v V) {
	var none V
	n := v.node()
	n.prev, n.next = none, s.head
	if s.head != none {
		s.head.node().prev = v
	} else {
		s.tail = v
	}
	s.head = v
}
