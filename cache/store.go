package cache

import "sync"

// A Store keeps encoded entries (see Entry.MarshalBinary) by key, for
// sharing them between processes or keeping them across restarts. Its
// method set is that of github.com/gregjones/httpcache's Cache, so that
// httpcache's backends (diskcache, leveldbcache, memcache, redis) can serve
// as a Store. Implementations must be safe for concurrent use; a Store may
// forget entries at any time.
type Store interface {
	// Get returns the value stored under key, if any.
	Get(key string) (value []byte, ok bool)
	// Set stores value under key. The Store may keep value; the caller
	// does not change it afterwards.
	Set(key string, value []byte)
	// Delete removes the value stored under key, if any.
	Delete(key string)
}

// An LRU is a cache of values bounded by their total size: adding a value
// evicts the least recently used ones until the total fits. It is safe for
// concurrent use.
type LRU[K comparable, V any] struct {
	max  int64
	size func(V) int64

	mu    sync.Mutex // guards the fields below
	total int64
	items map[K]*lruItem[K, V]
	head  lruItem[K, V] // sentinel: head.next is the most recently used
}

type lruItem[K comparable, V any] struct {
	key        K
	value      V
	size       int64
	prev, next *lruItem[K, V]
}

// NewLRU returns an LRU that holds values whose sizes, as size reports them,
// add up to at most maxSize. A value larger than maxSize is not kept.
func NewLRU[K comparable, V any](maxSize int64, size func(V) int64) *LRU[K, V] {
	c := &LRU[K, V]{max: maxSize, size: size, items: map[K]*lruItem[K, V]{}}
	c.head.next, c.head.prev = &c.head, &c.head
	return c
}

// Get returns the value of key and marks it most recently used.
func (c *LRU[K, V]) Get(key K) (v V, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	it := c.items[key]
	if it == nil {
		return v, false
	}
	c.unlink(it)
	c.pushFront(it)
	return it.value, true
}

// Set stores v under key, replacing any value there, and evicts least
// recently used values until the total size fits.
func (c *LRU[K, V]) Set(key K, v V) {
	size := c.size(v)
	c.mu.Lock()
	defer c.mu.Unlock()
	if it := c.items[key]; it != nil {
		c.remove(it)
	}
	if size > c.max {
		return
	}
	it := &lruItem[K, V]{key: key, value: v, size: size}
	c.items[key] = it
	c.pushFront(it)
	c.total += size
	for c.total > c.max {
		c.remove(c.head.prev)
	}
}

// Delete removes key.
func (c *LRU[K, V]) Delete(key K) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if it := c.items[key]; it != nil {
		c.remove(it)
	}
}

// Len returns the number of values held.
func (c *LRU[K, V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.items)
}

// Size returns the total size of the values held.
func (c *LRU[K, V]) Size() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total
}

func (c *LRU[K, V]) remove(it *lruItem[K, V]) {
	c.unlink(it)
	delete(c.items, it.key)
	c.total -= it.size
}

func (c *LRU[K, V]) unlink(it *lruItem[K, V]) {
	it.prev.next, it.next.prev = it.next, it.prev
}

func (c *LRU[K, V]) pushFront(it *lruItem[K, V]) {
	it.prev, it.next = &c.head, c.head.next
	c.head.next.prev = it
	c.head.next = it
}

// NewMemoryStore returns an in-memory Store bounded to maxBytes of keys and
// values, evicting the least recently used entries.
func NewMemoryStore(maxBytes int64) Store {
	return memoryStore{NewLRU[string](maxBytes, func(b []byte) int64 { return int64(len(b)) + lruOverhead })}
}

// lruOverhead approximates the memory an LRU spends per item besides the
// value: the item, its map slot and its key.
const lruOverhead = 96

type memoryStore struct{ *LRU[string, []byte] }
