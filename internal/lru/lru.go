// Package lru is a map bounded by the total size of its values, evicting
// the least recently used ones first.
package lru

import "sync"

// A Cache holds values whose sizes add up to at most its bound. It is safe
// for concurrent use.
type Cache[K comparable, V any] struct {
	max  int64
	size func(V) int64

	mu        sync.Mutex // guards the fields below
	total     int64
	evictions int64
	items     map[K]*item[K, V]
	head      item[K, V] // sentinel: head.next is the most recently used
}

type item[K comparable, V any] struct {
	key        K
	value      V
	size       int64
	prev, next *item[K, V]
}

// New returns a Cache that holds values whose sizes, as size reports them,
// add up to at most maxSize. A value larger than maxSize is not kept.
func New[K comparable, V any](maxSize int64, size func(V) int64) *Cache[K, V] {
	c := &Cache[K, V]{max: maxSize, size: size, items: map[K]*item[K, V]{}}
	c.head.next, c.head.prev = &c.head, &c.head
	return c
}

// Get returns the value of key and marks it most recently used.
func (c *Cache[K, V]) Get(key K) (v V, ok bool) {
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
func (c *Cache[K, V]) Set(key K, v V) {
	size := c.size(v)
	c.mu.Lock()
	defer c.mu.Unlock()
	if it := c.items[key]; it != nil {
		c.remove(it)
	}
	if size > c.max {
		return
	}
	it := &item[K, V]{key: key, value: v, size: size}
	c.items[key] = it
	c.pushFront(it)
	c.total += size
	for c.total > c.max {
		c.remove(c.head.prev)
		c.evictions++
	}
}

// Delete removes key.
func (c *Cache[K, V]) Delete(key K) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if it := c.items[key]; it != nil {
		c.remove(it)
	}
}

// Stats returns the number of values held, their total size, and the
// number of values evicted to make room so far.
func (c *Cache[K, V]) Stats() (n int, size, evictions int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.items), c.total, c.evictions
}

func (c *Cache[K, V]) remove(it *item[K, V]) {
	c.unlink(it)
	delete(c.items, it.key)
	c.total -= it.size
}

func (c *Cache[K, V]) unlink(it *item[K, V]) {
	it.prev.next, it.next.prev = it.next, it.prev
}

func (c *Cache[K, V]) pushFront(it *item[K, V]) {
	it.prev, it.next = &c.head, c.head.next
	c.head.next.prev = it
	c.head.next = it
}
