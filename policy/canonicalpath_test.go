package policy_test

import (
	"testing"

	"github.com/robotsguard/robotsguard/policy"
)

// decidePath returns g's Decision on path, a path with its query that
// starts with "/": on a URL of that path, as Decide reads a target that
// starts with "//" as a scheme-relative URL.
func decidePath(g *policy.Group, path string) policy.Decision {
	return g.Decide("https://example.com" + path)
}

// TestDecideCanonicalPath: for every file and URL of the seed corpus,
// deciding the canonical path gives Decide's verdict on the URL in the
// RFC9309 dialect. A match.Group compiled from the Group's rules, as
// package acap compiles one from the conventional records it pools with
// its own, finds the same rule on the same path (checkMatchGroup: in
// RFC9309, and in Google, whose path form a caller outside the package can
// give).
func TestDecideCanonicalPath(t *testing.T) {
	bodies, urls := seedBodies(t), seedURLs(t)
	urls = append(urls, "https://example.com", "https://example.com/robots.txt", "/caf%c3%a9?q=%7e", "/a b", "/a%3Fb", "https://x.test?q", "//x.test/a", "https://x.test//a/b")
	bodies = append(bodies, []byte("User-agent: *\nDisallow: /a?b\nDisallow: /caf%C3%A9\nAllow: /robots.txt\n"))
	for _, d := range []policy.Dialect{policy.RFC9309, policy.Google, policy.Koster1996} {
		for _, body := range bodies {
			r := policy.Parser{Dialect: d}.Parse(body)
			for _, agent := range []string{"FooBot", "Googlebot"} {
				g := r.Group(agent)
				for _, u := range urls {
					path := policy.CanonicalPath(policy.PathOf(u))
					if got, want := decidePath(g, path), g.Decide(u); d == policy.RFC9309 && got != want {
						t.Fatalf("%v %s: Decide on the path %q = %v; Decide(%q) = %v", d, agent, path, got, u, want)
					}
					// What package acap compiles from the rules,
					// for a path it made canonical itself, finds
					// Decide's rule.
					if diff := checkMatchGroup(g, d, path); diff != "" {
						t.Fatalf("%v %s: %s", d, agent, diff)
					}
				}
			}
		}
	}
}

// TestDecideRawPath: a path that is not canonical is made so, not compared
// as given: Decide refuses each of these.
func TestDecideRawPath(t *testing.T) {
	r := policy.Parse([]byte("User-agent: *\nDisallow: /admin\nDisallow: /a%20b\nDisallow: /caf%C3%A9\nDisallow: /*.pdf$\n"))
	g := r.Group("FooBot")
	for _, p := range []string{"/%61dmin", "/a b", "/café", "/caf%c3%a9", "/x.pdf#top", "/admin"} {
		if d := g.Decide(p); d.Allowed || d.Basis != policy.BasisRule {
			t.Errorf("Decide(%q) = %v, want a refusal by a rule", p, d)
		}
	}
}
