package lru

import "testing"

func TestCache(t *testing.T) {
	c := New[string](10, func(v int) int64 { return int64(v) })
	c.Set("a", 4)
	c.Set("b", 4)
	c.Get("a") // a is now the most recently used
	c.Set("c", 4)
	if _, ok := c.Get("b"); ok {
		t.Error("b should have been evicted")
	}
	if _, ok := c.Get("a"); !ok {
		t.Error("a was used more recently than b")
	}
	if n, size, ev := c.Stats(); n != 2 || size != 8 || ev != 1 {
		t.Errorf("Stats() = %d, %d, %d; want 2, 8, 1", n, size, ev)
	}
	c.Set("a", 6) // replace
	if v, _ := c.Get("a"); v != 6 {
		t.Errorf("replace: %v", v)
	}
	if _, size, _ := c.Stats(); size != 10 {
		t.Errorf("size %d after replacing, want 10", size)
	}
	c.Set("huge", 11)
	if _, ok := c.Get("huge"); ok {
		t.Error("a value larger than the bound is not kept")
	}
	c.Delete("a")
	if n, size, _ := c.Stats(); n != 1 || size != 4 {
		t.Errorf("after Delete: %d values, size %d", n, size)
	}
}
