package robotsguard_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/robotsguard/robotsguard"
)

// TestCacheSizeBound: the in-memory cache holds at most CacheSize bytes of
// parsed files (at least MinCacheSize); an origin not used recently is
// dropped and fetched again when needed.
func TestCacheSizeBound(t *testing.T) {
	var sb strings.Builder
	sb.WriteString("User-agent: *\n")
	for i := 0; sb.Len() < 400<<10; i++ {
		fmt.Fprintf(&sb, "Disallow: /section-%d/page\n", i)
	}
	base := &countingRoundTripper{robots: sb.String()}
	h := newHarness(t, func(tr *robotsguard.Transport) { tr.Base = base; tr.CacheSize = 1 })
	// Each parsed file holds over a MiB: 30 origins overflow 16 MiB.
	for i := range 30 {
		h.allowed(fmt.Sprintf("http://site%d.example/", i))
	}
	h.allowed("http://site29.example/again")
	h.allowed("http://site0.example/again")
	if n := base.robotsFetches("site29.example"); n != 1 {
		t.Errorf("the most recent origin was fetched %d times, want once", n)
	}
	if n := base.robotsFetches("site0.example"); n != 2 {
		t.Errorf("the oldest origin was fetched %d times, want again after eviction", n)
	}
}
