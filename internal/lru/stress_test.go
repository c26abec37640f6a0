package lru

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
)

// TestCacheStress: goroutines Set, Get and Delete keys at once, some
// shared by all of them and some each its own, over several shards and
// keys that share a hash (run it with -race). Every Get finds a value Set
// for its key; a goroutine's own keys give back the value it Set last, or
// nothing once it was deleted, evicted or too large to keep, never an
// older one nor one evicted; the total held stays within the bound but
// for the values whose Sets are still evicting. Between rounds, with no
// call under way, the Cache is whole (see checkCache) and holds no more
// than its bound.
func TestCacheStress(t *testing.T) {
	const unit = 1 << 17 // 64 units: 8 shards
	for _, bound := range []int64{0, 1, 3, 64} {
		t.Run(fmt.Sprintf("bound=%d", bound), func(t *testing.T) {
			stress(t, bound*unit, unit)
		})
	}
}

func stress(t *testing.T, max, unit int64) {
	const (
		workers = 8
		shared  = 48   // keys 0..shared-1, every worker's
		own     = 16   // keys base(w)..base(w)+own-1, worker w's alone
		ops     = 3000 // per worker and round
		maxSize = 3    // units
	)
	base := func(w int) int { return 1000 + 100*w }
	// A hash that files a few keys under each hash, spread over shards.
	c := New(max, func(v *val[int]) int64 { return v.n }, func(k int) uint64 { return (uint64(k%29) * 0x9e3779b97f4a7c15) >> 8 },
		func(v *val[int], k int) bool { return v.k == k })
	// last[w][i]: the value worker w Set last under its key base(w)+i and
	// that may still be held (nil: none).
	last := make([][own]*val[int], workers)
	rounds := 10
	if testing.Short() {
		rounds = 3
	}
	for round := range rounds {
		var wg sync.WaitGroup
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rng := rand.New(rand.NewPCG(uint64(round), uint64(w)))
				mine := &last[w]
				for range ops {
					switch r := rng.IntN(100); {
					case r < 40:
						k := rng.IntN(shared)
						if v, ok := c.Get(k); ok && (v.k != k || v.n < unit || v.n > maxSize*unit) {
							t.Errorf("Get(%d) = a value of key %d, size %d", k, v.k, v.n)
							return
						}
					case r < 60:
						k := rng.IntN(shared)
						c.Set(k, &val[int]{k: k, n: (1 + rng.Int64N(maxSize)) * unit})
					case r < 70:
						c.Delete(rng.IntN(shared))
					case r < 85:
						i := rng.IntN(own)
						v := &val[int]{k: base(w) + i, n: (1 + rng.Int64N(maxSize)) * unit}
						c.Set(v.k, v)
						mine[i] = v
						if v.n > max {
							mine[i] = nil // not kept, and the old value went
						}
					case r < 95:
						i := rng.IntN(own)
						v, ok := c.Get(base(w) + i)
						if ok && v != mine[i] {
							t.Errorf("Get(%d) by its only writer = a value of key %d, size %d; want the last Set (%p) or none, got %p", base(w)+i, v.k, v.n, mine[i], v)
							return
						}
						if !ok {
							mine[i] = nil // evicted: it never comes back
						}
					default:
						i := rng.IntN(own)
						c.Delete(base(w) + i)
						mine[i] = nil
					}
					// Sets under way may each hold one value above the
					// bound until they evict.
					if total := c.total.Load(); total > max+workers*maxSize*unit {
						t.Errorf("%d bytes held, bound %d", total, max)
						return
					}
				}
			}()
		}
		wg.Wait()
		if t.Failed() {
			return
		}
		checkCache(t, c)
	}
	n, size, ev := c.Stats()
	t.Logf("%d values, %d bytes held, %d evicted", n, size, ev)
}

// checkCache reports what is amiss in c, on which no call is under way:
// its ring links each value held once, both ways; its shards hold the
// values of the ring and no other, each filed under its key's hash in the
// shard that hash names; each shard's last value is held; and the total is
// the sum of their sizes, within the bound.
func checkCache[K comparable](t *testing.T, c *Cache[K, *val[K]]) {
	t.Helper()
	ring := map[*val[K]]bool{}
	var sum int64
	if v := c.hand; v != nil {
		for {
			if ring[v] {
				t.Fatalf("the ring goes round in %d values, and holds %d", len(ring), c.n)
			}
			ring[v] = true
			sum += v.n
			if v.next.prev != v {
				t.Fatalf("%v: next's prev is not it", v.k)
			}
			if v = v.next; v == c.hand {
				break
			}
		}
	}
	if len(ring) != c.n {
		t.Errorf("the ring links %d values, and counts %d", len(ring), c.n)
	}
	filed := 0
	for i := range c.shards {
		s := &c.shards[i]
		for h, v := range s.items {
			if h&c.mask != uint64(i) {
				t.Errorf("hash %x filed in shard %d", h, i)
			}
			for ; v != nil; v = v.same {
				filed++
				if v.hash != h || c.hashOf(v.k) != h {
					t.Errorf("%v filed under hash %x, its own %x", v.k, h, c.hashOf(v.k))
				}
				if !ring[v] {
					t.Errorf("%v is filed, and not in the ring", v.k)
				}
			}
		}
		if last, _ := s.last.Load().(*val[K]); last != nil && !c.holds(s, last) {
			t.Errorf("shard %d's last value, %v, is not held", i, last.k)
		}
	}
	if filed != len(ring) {
		t.Errorf("%d values filed in the shards, %d in the ring", filed, len(ring))
	}
	if total := c.total.Load(); total != sum || total > c.max {
		t.Errorf("total %d, the values held add up to %d, bound %d", total, sum, c.max)
	}
}
