package policy_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/robotsguard/robotsguard/policy"
)

// TestGroupLazyIndex: Groups are built on first use, concurrently, and
// past the number kept they are still right: each token follows its own
// groups, tokens named by the same groups share them, and unknown tokens
// follow "*".
func TestGroupLazyIndex(t *testing.T) {
	name := func(i int) string { return "bot" + string(rune('a'+i/26)) + string(rune('a'+i%26)) }
	var b strings.Builder
	for i := 0; i < 50; i++ {
		fmt.Fprintf(&b, "User-agent: %s\nDisallow: /only%d\n\n", name(i), i)
	}
	b.WriteString("User-agent: *\nUser-agent: twin\nDisallow: /star\nCrawl-delay: 2\n")
	r := policy.Parse([]byte(b.String()))
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 60; i++ {
				ua := strings.ToUpper(name(i)) + "/1.0"
				g := r.Group(ua)
				own := fmt.Sprintf("/only%d", i)
				if i < 50 {
					if g.Agent() != name(i) || g.Decide(own).Allowed || !g.Decide("/star").Allowed {
						t.Errorf("%s: group %q, %s allowed %v, /star allowed %v", ua, g.Agent(), own, g.Decide(own).Allowed, g.Decide("/star").Allowed)
					}
				} else if g.Agent() != "*" || g.Decide("/star").Allowed {
					t.Errorf("%s: group %q, /star allowed %v", ua, g.Agent(), g.Decide("/star").Allowed)
				}
			}
		}()
	}
	wg.Wait()
	if r.Group("botad") != r.Group("BOTAD") {
		t.Error("a token's Group is not reused")
	}
	if d, _ := r.Group("twin").CrawlDelay(); d.Seconds() != 2 || r.Group("twin").Decide("/star").Allowed {
		t.Errorf("twin: delay %v", d)
	}
	if r.MemSize() <= 0 {
		t.Error("MemSize")
	}
}
