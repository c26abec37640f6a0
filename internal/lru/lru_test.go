package lru

import (
	"hash/maphash"
	"strconv"
	"testing"
)

// val is a value of a test Cache: a key and a size.
type val[K comparable] struct {
	Node[*val[K]]
	k K
	n int64
}

// newCache returns a Cache of vals bounded to max, hashed by hash (nil
// for the default).
func newCache[K comparable](max int64, hash func(K) uint64) *Cache[K, *val[K]] {
	return New(max, func(v *val[K]) int64 { return v.n }, hash, func(v *val[K], k K) bool { return v.k == k })
}

// set sets a value of size n under k.
func set[K comparable](c *Cache[K, *val[K]], k K, n int64) { c.Set(k, &val[K]{k: k, n: n}) }

// size returns the size of the value of k, or -1.
func size[K comparable](c *Cache[K, *val[K]], k K) int64 {
	if v, ok := c.Get(k); ok {
		return v.n
	}
	return -1
}

func TestCache(t *testing.T) {
	c := newCache[string](10, nil)
	set(c, "a", 4)
	set(c, "b", 4)
	c.Get("a") // a is now the most recently used
	set(c, "c", 4)
	if _, ok := c.Get("b"); ok {
		t.Error("b should have been evicted")
	}
	if _, ok := c.Get("a"); !ok {
		t.Error("a was used more recently than b")
	}
	if n, size, ev := c.Stats(); n != 2 || size != 8 || ev != 1 {
		t.Errorf("Stats() = %d, %d, %d; want 2, 8, 1", n, size, ev)
	}
	set(c, "a", 6) // replace
	if v := size(c, "a"); v != 6 {
		t.Errorf("replace: %v", v)
	}
	if _, size, _ := c.Stats(); size != 10 {
		t.Errorf("size %d after replacing, want 10", size)
	}
	set(c, "huge", 11)
	if _, ok := c.Get("huge"); ok {
		t.Error("a value larger than the bound is not kept")
	}
	c.Delete("a")
	if n, size, _ := c.Stats(); n != 1 || size != 4 {
		t.Errorf("after Delete: %d values, size %d", n, size)
	}
}

// TestCacheShardsBound: with many shards, the bound is global: a Set
// evicts from other shards when its own holds nothing else, and the total
// never passes the bound.
func TestCacheShardsBound(t *testing.T) {
	const mb = 1 << 20
	c := newCache[int](64*mb, nil)
	if len(c.shards) != maxShards {
		t.Fatalf("%d shards, want %d", len(c.shards), maxShards)
	}
	for i := 0; i < 1000; i++ {
		set(c, i, mb)
		if _, size, _ := c.Stats(); size > 64*mb {
			t.Fatalf("after %d Sets: %d bytes held, bound %d", i+1, size, 64*mb)
		}
	}
	n, size, ev := c.Stats()
	if n != 64 || size != 64*mb || ev != 1000-64 {
		t.Errorf("Stats() = %d, %d, %d; want 64, %d, %d", n, size, ev, 64*mb, 1000-64)
	}
	if _, ok := c.Get(999); !ok {
		t.Error("the last value Set was evicted")
	}
	set(c, -1, 64*mb) // as large as the bound: everything else goes
	if n, size, _ := c.Stats(); n != 1 || size != 64*mb {
		t.Errorf("after a Set of the bound's size: %d values, %d bytes", n, size)
	}
}

// TestCacheShardsOrder: the hand goes round the values of every shard:
// across shards, the oldest value not used since goes first.
func TestCacheShardsOrder(t *testing.T) {
	const mb = 1 << 20
	c := newCache[int](64*mb, nil)
	for i := 0; i < 64; i++ {
		set(c, i, mb)
	}
	c.Get(0)
	set(c, 64, mb)
	set(c, 65, mb)
	if _, ok := c.Get(0); !ok {
		t.Error("the value used last among the first was evicted")
	}
	for _, k := range []int{1, 2} {
		if _, ok := c.Get(k); ok {
			t.Errorf("%d, the least recently used, is still held", k)
		}
	}
}

// TestCacheConcurrent runs Gets, Sets and Deletes at once (with -race).
func TestCacheConcurrent(t *testing.T) {
	c := newCache[int](32<<20, nil)
	done := make(chan bool)
	for g := 0; g < 4; g++ {
		go func() {
			for i := 0; i < 2000; i++ {
				k := (i*7 + g) % 300
				switch i % 3 {
				case 0:
					set(c, k, 1<<17)
				case 1:
					c.Get(k)
				default:
					c.Delete(k + 1)
				}
			}
			done <- true
		}()
	}
	for g := 0; g < 4; g++ {
		<-done
	}
	n, size, _ := c.Stats()
	if size > 32<<20 || int64(n)*(1<<17) != size {
		t.Errorf("%d values of 128 KiB hold %d bytes (bound %d)", n, size, 32<<20)
	}
}

func TestGetAllocs(t *testing.T) {
	type key struct{ a, b string }
	c := newCache[key](64<<20, nil)
	k := key{"https", "example.com:443"}
	set(c, k, 1)
	if n := testing.AllocsPerRun(100, func() { c.Get(k) }); n != 0 {
		t.Errorf("Get allocates %v times", n)
	}
}

// BenchmarkGet is a Get of a held key from every goroutine at once
// (-cpu 1,2 shows how it scales), with the default hash of the whole key
// and with a hash of a part of it.
func BenchmarkGet(b *testing.B) {
	seed := maphash.MakeSeed()
	b.Run("hash=key", func(b *testing.B) { benchmarkGet(b, newCache[key](64<<20, nil)) })
	b.Run("hash=part", func(b *testing.B) {
		benchmarkGet(b, newCache(64<<20, func(k key) uint64 { return maphash.String(seed, k.b) }))
	})
}

type key struct{ a, b string }

func benchmarkGet(b *testing.B, c *Cache[key, *val[key]]) {
	keys := make([]key, 10000)
	for i := range keys {
		keys[i] = key{"https", "o" + string(rune('a'+i%26)) + string(rune('a'+i/26%26)) + string(rune('a'+i/676)) + ".test"}
		set(c, keys[i], 100)
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			c.Get(keys[i%len(keys)])
			i += 7
		}
	})
}

// TestCacheSharedHash: keys whose hashes are equal are told apart, kept,
// replaced, evicted and deleted each on its own.
func TestCacheSharedHash(t *testing.T) {
	c := newCache(12, func(string) uint64 { return 7 })
	for _, k := range []string{"a", "b", "c"} {
		set(c, k, 3)
	}
	for _, k := range []string{"a", "b", "c"} {
		if v := size(c, k); v != 3 {
			t.Errorf("Get(%q) has size %d, want 3", k, v)
		}
	}
	set(c, "b", 4) // replace the middle of the chain
	c.Delete("c")  // the head of the chain
	if _, ok := c.Get("c"); ok {
		t.Error("c is held after Delete")
	}
	if v := size(c, "b"); v != 4 {
		t.Errorf("b = %d after replacing it, want 4", v)
	}
	set(c, "d", 6) // 3+4+6: a, the least recently used, goes
	if _, ok := c.Get("a"); ok {
		t.Error("a, the least recently used, is still held")
	}
	if n, size, ev := c.Stats(); n != 2 || size != 10 || ev != 1 {
		t.Errorf("Stats() = %d, %d, %d; want 2, 10, 1", n, size, ev)
	}
	for _, k := range []string{"b", "d"} {
		c.Delete(k)
	}
	if n, size, _ := c.Stats(); n != 0 || size != 0 || len(c.shards[0].items) != 0 {
		t.Errorf("after deleting every key: %d values, %d bytes, %d hashes filed", n, size, len(c.shards[0].items))
	}
}

// TestCacheLastHit: a Get of its shard's last value, which takes no lock,
// still marks it used, so that the hand passes it by, and finds nothing
// once it is deleted or evicted.
func TestCacheLastHit(t *testing.T) {
	const kb = 1 << 10
	c := newCache(2<<20, func(k int) uint64 { return uint64(k) })
	if len(c.shards) != 4 {
		t.Fatalf("%d shards, want 4", len(c.shards))
	}
	set(c, 0, 512*kb) // shard 0, alone: its last value from now on
	c.Get(0)          // marked used, without the lock
	for _, k := range []int{1, 5, 9} {
		set(c, k, 512*kb) // shard 1: the cache is full
	}
	set(c, 13, 512*kb) // one value goes: 1, the oldest not used
	if _, ok := c.Get(0); !ok {
		t.Error("0, used, was evicted before 1, 5 and 9, which were not")
	}
	if _, ok := c.Get(1); ok {
		t.Error("1, the least recently used, is still held")
	}
	c.Delete(0)
	if _, ok := c.Get(0); ok {
		t.Error("0 is found after Delete")
	}
	set(c, 4, 512*kb)
	c.Get(4)
	set(c, 8, 2<<20) // the bound's size: everything else goes
	if _, ok := c.Get(4); ok {
		t.Error("4 is found after it was evicted")
	}
}

// TestCacheHotKey: Gets of one key from many goroutines at once, while
// others Set and Delete it and other keys (with -race), find only its
// values, and the bound holds.
func TestCacheHotKey(t *testing.T) {
	const max = 8 << 20
	c := newCache[int](max, nil)
	set(c, -1, 1<<17)
	done := make(chan bool)
	for g := 0; g < 6; g++ {
		go func() {
			for i := 0; i < 3000; i++ {
				switch {
				case g < 4:
					if v, ok := c.Get(-1); ok && v.k != -1 {
						t.Errorf("Get(-1) found the value of %d", v.k)
					}
				case i%50 == 0:
					c.Delete(-1)
					set(c, -1, 1<<17)
				default:
					set(c, (i*7+g)%200, 1<<17)
				}
			}
			done <- true
		}()
	}
	for g := 0; g < 6; g++ {
		<-done
	}
	n, size, _ := c.Stats()
	if size > max || int64(n)*(1<<17) != size {
		t.Errorf("%d values of 128 KiB hold %d bytes (bound %d)", n, size, max)
	}
}

// TestCacheSecondChance: when a value must go, the hand takes the oldest
// value not got since it last passed, and clears the marks of those it
// passes, got with the lock or (the shard's last value) without.
func TestCacheSecondChance(t *testing.T) {
	c := newCache[string](4, nil)
	for _, k := range []string{"a", "b", "c", "d"} {
		set(c, k, 1)
	}
	c.Get("b") // with the lock
	c.Get("d") // the shard's last value: without
	held := func(step string, want map[string]bool) {
		t.Helper()
		for k, w := range want {
			if _, ok := c.Get(k); ok != w {
				t.Errorf("after %s: %s held %v, want %v", step, k, ok, w)
			}
		}
	}
	set(c, "e", 1) // a, the oldest not got, goes
	if _, ok := c.Get("a"); ok {
		t.Error("a, the oldest value not got, is held after e was set")
	}
	set(c, "f", 1) // the hand passes b (got: kept, unmarked), and takes c
	set(c, "g", 1) // it passes d (got), and takes e, set after b and d were got, but never got
	held("f and g", map[string]bool{"c": false, "e": false})
	// The hand is on f, and b, passed once, comes next: with f got, b
	// goes.
	c.Get("f")
	set(c, "h", 1)
	held("h", map[string]bool{"b": false, "d": true, "f": true, "g": true, "h": true})
	if n, size, ev := c.Stats(); n != 4 || size != 4 || ev != 4 {
		t.Errorf("Stats() = %d, %d, %d; want 4, 4, 4", n, size, ev)
	}
}

// BenchmarkGetChurn is Gets of many values in turn, with a new value Set
// (and deleted) every 16 Gets, as in a crawl that keeps finding new
// origins: values of 1,400 bytes, about an origin's state, far apart in
// memory at n=100000.
func BenchmarkGetChurn(b *testing.B) {
	type state struct {
		Node[*state]
		k   int
		pad [1400 - 48]byte
	}
	for _, n := range []int{1000, 100000} {
		b.Run("n="+strconv.Itoa(n), func(b *testing.B) {
			c := New(1<<40, func(*state) int64 { return 1400 }, func(k int) uint64 { return uint64(k) * 0x9e3779b97f4a7c15 }, func(v *state, k int) bool { return v.k == k })
			for i := range n {
				c.Set(i, &state{k: i})
			}
			const stride = 7919 // prime: each value once a round, in an order far from the Sets'
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if v, ok := c.Get(i * stride % n); !ok || v.pad[700] != 0 {
					b.Fatal("a value is missing")
				}
				if i%16 == 0 {
					c.Set(n+i, &state{k: n + i})
					c.Delete(n + i)
				}
			}
		})
	}
}

// TestCacheSweepBounded: when every value is marked, an eviction clears
// the marks of maxSweep values and one more at most, not the whole ring's,
// and evicts the oldest of them.
func TestCacheSweepBounded(t *testing.T) {
	const n = 1000
	c := newCache[int](n, nil)
	for i := range n {
		set(c, i, 1)
	}
	for i := range n {
		c.Get(i) // every value marked
	}
	set(c, n, 1)
	if n, _, ev := c.Stats(); n != 1000 || ev != 1 {
		t.Fatalf("%d values, %d evicted; want 1000, 1", n, ev)
	}
	// The marks, read off the ring (no Get, which would mark again).
	cleared := 0
	v := c.hand
	for range c.n {
		if v.k == 0 {
			t.Error("0, the oldest, is held: the eviction took another")
		}
		if v.k != n && v.used.Load() == 0 {
			cleared++
		}
		v = v.next
	}
	if cleared != maxSweep {
		t.Errorf("the eviction cleared %d marks besides the evicted value's, want %d", cleared, maxSweep)
	}
}

// TestCacheHandOnReplaced: a value replaced while the hand is on it
// takes the hand's place to the next, and the new value goes where the
// hand comes last: the next eviction takes the oldest value not used.
func TestCacheHandOnReplaced(t *testing.T) {
	c := newCache[string](3, nil)
	for _, k := range []string{"a", "b", "c"} {
		set(c, k, 1)
		c.Get(k)
	}
	set(c, "d", 1) // the hand clears a, b and c, and takes a
	if c.hand.k != "b" {
		t.Fatalf("the hand is on %s after a was evicted, want b", c.hand.k)
	}
	set(c, "b", 1) // replace the value the hand is on
	checkCache(t, c)
	if c.hand.k != "c" {
		t.Errorf("the hand is on %s after b was replaced, want c", c.hand.k)
	}
	set(c, "e", 1)
	checkCache(t, c)
	for k, want := range map[string]bool{"c": false, "d": true, "b": true, "e": true} {
		if _, ok := c.Get(k); ok != want {
			t.Errorf("%s held %v, want %v", k, ok, want)
		}
	}
}

// TestCacheTinyBounds: a Cache bounded to nothing keeps nothing, and one
// bounded to one value keeps the last one Set, used or not.
func TestCacheTinyBounds(t *testing.T) {
	c := newCache[string](0, nil)
	set(c, "a", 1)
	if _, ok := c.Get("a"); ok {
		t.Error("a Cache bounded to 0 holds a value of size 1")
	}
	checkCache(t, c)
	c = newCache[string](1, nil)
	for _, k := range []string{"a", "b", "b", "c"} {
		set(c, k, 1)
		if c.Get(k); c.hand.k != k {
			t.Errorf("after Set(%s), the hand is on %s", k, c.hand.k)
		}
		checkCache(t, c)
		if n, _, _ := c.Stats(); n != 1 {
			t.Errorf("after Set(%s): %d values held, want 1", k, n)
		}
	}
	c.Delete("c")
	if c.hand != nil {
		t.Errorf("the hand is on %s in an empty Cache", c.hand.k)
	}
	checkCache(t, c)
	set(c, "d", 1)
	if _, ok := c.Get("d"); !ok {
		t.Error("d is not held in an emptied Cache")
	}
	if _, _, ev := c.Stats(); ev != 2 {
		t.Errorf("%d evicted, want 2 (a and b)", ev)
	}
}
