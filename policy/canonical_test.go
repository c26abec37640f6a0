package policy_test

import (
	"testing"

	"github.com/robotsguard/robotsguard/internal/canonical"
	"github.com/robotsguard/robotsguard/policy"
)

// decideCanonical is what package acap calls to decide a path it made
// canonical itself.
var decideCanonical = canonical.DecidePath.(func(*policy.Group, string) policy.Decision)

// TestDecideCanonical: for every file and URL of the seed corpus, in every
// dialect, deciding the canonical path without scanning it again gives
// DecidePath's decision, and so never allows what Decide refuses; in a
// dialect that compares paths in another form (Koster1996 decodes "%3F"),
// the path is still brought to that form.
func TestDecideCanonical(t *testing.T) {
	bodies, urls := seedBodies(t), seedURLs(t)
	urls = append(urls, "https://example.com", "https://example.com/robots.txt", "/caf%c3%a9?q=%7e", "/a b", "/a%3Fb", "https://x.test?q", "//x.test/a")
	bodies = append(bodies, []byte("User-agent: *\nDisallow: /a?b\nDisallow: /caf%C3%A9\nAllow: /robots.txt\n"))
	for _, d := range []policy.Dialect{policy.RFC9309, policy.Google, policy.Koster1996} {
		for _, body := range bodies {
			r := policy.ParseWith(body, d)
			for _, agent := range []string{"FooBot", "Googlebot"} {
				g := r.Group(agent)
				for _, u := range urls {
					path := policy.CanonicalPath(policy.PathOf(u))
					if got, want := decideCanonical(g, path), g.DecidePath(path); got != want {
						t.Fatalf("%v %s: decideCanonical(%q) = %v; DecidePath = %v", d, agent, path, got, want)
					}
				}
			}
		}
	}
}
