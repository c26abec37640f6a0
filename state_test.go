package robotsguard_test

import (
	"slices"
	"testing"

	"github.com/robotsguard/robotsguard"
)

// TestRobotsTxtAfterPages: a request for /robots.txt of an origin whose
// file the Transport holds only as parsed rules (pages were requested
// first) gets the file all the same, from the site; the rules still decide.
func TestRobotsTxtAfterPages(t *testing.T) {
	const rules = "User-agent: *\nDisallow: /private\n"
	h := newHarness(t)
	s := h.origin(rules)
	h.allowed(s.URL + "/")
	body, err := h.get(s.URL + "/robots.txt")
	if err != nil || body != rules {
		t.Fatalf("GET /robots.txt: %q, %v; want the file", body, err)
	}
	h.refused(s.URL+"/private", robotsguard.ReasonRule)
	if got := seen(s); !slices.Equal(got, []string{"/robots.txt", "/", "/robots.txt"}) {
		t.Errorf("origin saw %q, want the client's own robots.txt request sent", got)
	}
}
