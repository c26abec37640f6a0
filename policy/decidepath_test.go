package policy_test

import (
	"testing"

	"github.com/robotsguard/robotsguard/policy"
)

// TestDecidePath: for every file and URL of the seed corpus, deciding the
// canonical path gives Decide's verdict on the URL in the RFC9309 dialect;
// in the others, DecidePath is Decide. A match.Group compiled from the
// Group's rules, as package acap compiles one from the conventional
// records it pools with its own, finds DecidePath's rule on the same path
// (checkMatchGroup: in RFC9309 and Google, whose path forms a caller
// outside the package can give).
func TestDecidePath(t *testing.T) {
	bodies, urls := seedBodies(t), seedURLs(t)
	urls = append(urls, "https://example.com", "https://example.com/robots.txt", "/caf%c3%a9?q=%7e", "/a b", "/a%3Fb", "https://x.test?q", "//x.test/a")
	bodies = append(bodies, []byte("User-agent: *\nDisallow: /a?b\nDisallow: /caf%C3%A9\nAllow: /robots.txt\n"))
	for _, d := range []policy.Dialect{policy.RFC9309, policy.Google, policy.Koster1996} {
		for _, body := range bodies {
			r := policy.Parser{Dialect: d}.Parse(body)
			for _, agent := range []string{"FooBot", "Googlebot"} {
				g := r.Group(agent)
				for _, u := range urls {
					path := policy.CanonicalPath(policy.PathOf(u))
					want := g.Decide(u)
					if d != policy.RFC9309 {
						want = g.Decide(path)
					}
					if got := g.DecidePath(path); got != want {
						t.Fatalf("%v %s: DecidePath(%q) = %v; Decide(%q) = %v", d, agent, path, got, u, want)
					}
					// What package acap compiles from the rules,
					// for a path it made canonical itself, finds
					// DecidePath's rule.
					if diff := checkMatchGroup(g, d, path); diff != "" {
						t.Fatalf("%v %s: %s", d, agent, diff)
					}
				}
			}
		}
	}
}

// TestDecidePathRaw: a path that is not canonical is made so, not compared
// as given: DecidePath never allows what Decide refuses.
func TestDecidePathRaw(t *testing.T) {
	r := policy.Parse([]byte("User-agent: *\nDisallow: /admin\nDisallow: /a%20b\nDisallow: /caf%C3%A9\nDisallow: /*.pdf$\n"))
	g := r.Group("FooBot")
	for _, p := range []string{"/%61dmin", "/a b", "/café", "/caf%c3%a9", "/x.pdf#top", "/admin"} {
		if got, want := g.DecidePath(p), g.Decide(p); got != want || got.Allowed {
			t.Errorf("DecidePath(%q) = %v; Decide = %v, a refusal", p, got, want)
		}
	}
}
