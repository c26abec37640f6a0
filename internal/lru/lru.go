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
// It is split into shards by the hash of the key, each with its own lock
// and its own recency list, so that concurrent Gets of different keys
// rarely wait for each other. The bound is global: a Set that takes the
// total past it evicts, one at a time, the least recently used value of
// the shard whose least recently used value is the oldest. Values are
// stamped with the number of Sets so far when they are used, so the
// order across shards is exact up to the Sets between two uses.
type Cache[K comparable, V any] struct {
	max    int64
	size   func(V) int64
	hash   func(K) uint64 // nil: maphash.Comparable with seed
	seed   maphash.Seed
	shards []shard[K, V]
	mask   uint64

	total     atomic.Int64 // sum of the sizes held by the shards
	evictions atomic.Int64
	sets      atomic.Uint64 // Sets so far: the stamp of a use
}

type shard[K comparable, V any] struct {
	mu sync.Mutex // guards the fields below
	// items holds the items by the hash of their key, those whose keys
	// share a hash chained (item.same). A map of small keys keeps a probe
	// to one or two cache lines at any size, where a map of the keys
	// themselves would read a slot of their size and then their strings.
	items map[uint64]*item[K, V]
	n     int        // items held
	head  item[K, V] // sentinel: head.next is the most recently used
	_     [32]byte   // keeps shards' locks on separate cache lines
}

type item[K comparable, V any] struct {
	key        K
	value      V // its size is size(value): values do not change size
	hash       uint64
	used       uint64      // Cache.sets when it was last used
	same       *item[K, V] // the next item whose key has the same hash
	prev, next *item[K, V]
}

// maxShards is the number of shards of a large cache. Smaller caches have
// fewer, so that each shard holds a few values at least.
const maxShards = 16

// New returns a Cache that holds values whose sizes, as size reports them,
// add up to at most maxSize. A value larger than maxSize is not kept. The
// size of a value must not change while the Cache holds it.
func New[K comparable, V any](maxSize int64, size func(V) int64) *Cache[K, V] {
	return NewHashed[K](maxSize, size, nil)
}

// NewHashed is New with the hash that spreads keys over the shards and
// files them in their shard: any function of the key will do, but keys
// with the same hash are chained, so a hash of part of a key costs a walk
// along the keys that share that part; nil means a hash of
// the whole key (maphash.Comparable), which costs about as much as the
// map lookup that follows it.
func NewHashed[K comparable, V any](maxSize int64, size func(V) int64, hash func(K) uint64) *Cache[K, V] {
	n := 1
	for n < maxShards && maxSize/int64(n) >= 1<<20 {
		n *= 2
	}
	c := &Cache[K, V]{max: maxSize, size: size, hash: hash, seed: maphash.MakeSeed(), shards: make([]shard[K, V], n), mask: uint64(n - 1)}
	for i := range c.shards {
		s := &c.shards[i]
		s.items = map[uint64]*item[K, V]{}
		s.head.next, s.head.prev = &s.head, &s.head
	}
	return c
}

// shard returns the shard of key and key's hash.
func (c *Cache[K, V]) shard(key K) (*shard[K, V], uint64) {
	h := c.hashOf(key)
	return &c.shards[h&c.mask], h
}

// find returns the item of key, whose hash is h, or nil.
func (s *shard[K, V]) find(key K, h uint64) *item[K, V] {
	it := s.items[h]
	for it != nil && it.key != key {
		it = it.same
	}
	return it
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
	s.mu.Lock()
	it := s.find(key, h)
	if it == nil {
		s.mu.Unlock()
		return v, false
	}
	// A value already used since the last Set is ahead of every value
	// used before it: it stays where it is.
	if now := c.sets.Load(); it.used != now {
		it.used = now
		s.unlink(it)
		s.pushFront(it)
	}
	v = it.value
	s.mu.Unlock()
	return v, true
}

// Set stores v under key, replacing any value there, and evicts least
// recently used values until the total size fits.
func (c *Cache[K, V]) Set(key K, v V) {
	size := c.size(v)
	s, h := c.shard(key)
	s.mu.Lock()
	if it := s.find(key, h); it != nil {
		c.remove(s, it)
	}
	if size > c.max {
		s.mu.Unlock()
		return
	}
	it := &item[K, V]{key: key, value: v, hash: h, used: c.sets.Add(1)}
	it.same = s.items[h]
	s.items[h] = it
	s.n++
	s.pushFront(it)
	c.total.Add(size)
	s.mu.Unlock()
	for c.total.Load() > c.max {
		if !c.evictOldest(it) {
			break
		}
	}
}

// evictOldest evicts the least recently used value of the shard whose
// least recently used value is the oldest, unless that is keep, and
// reports whether it found one. It takes one shard's lock at a time.
func (c *Cache[K, V]) evictOldest(keep *item[K, V]) bool {
	var oldest *shard[K, V]
	var stamp uint64
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		if t := s.head.prev; t != &s.head && t != keep && (oldest == nil || t.used < stamp) {
			oldest, stamp = s, t.used
		}
		s.mu.Unlock()
	}
	if oldest == nil {
		return false
	}
	oldest.mu.Lock()
	if t := oldest.head.prev; t != &oldest.head && t != keep {
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
	if it := s.find(key, h); it != nil {
		c.remove(s, it)
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

// remove drops it from s, whose lock is held.
func (c *Cache[K, V]) remove(s *shard[K, V], it *item[K, V]) {
	s.unlink(it)
	switch p := s.items[it.hash]; {
	case p == it && it.same == nil:
		delete(s.items, it.hash)
	case p == it:
		s.items[it.hash] = it.same
	default:
		for p.same != it {
			p = p.same
		}
		p.same = it.same
	}
	s.n--
	c.total.Add(-c.size(it.value))
}

func (s *shard[K, V]) unlink(it *item[K, V]) {
	it.prev.next, it.next.prev = it.next, it.prev
}

func (s *shard[K, V]) pushFront(it *item[K, V]) {
	it.prev, it.next = &s.head, s.head.next
	s.head.next.prev = it
	s.head.next = it
}
