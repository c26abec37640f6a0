package robotscolly_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/robotsguard/robotsguard/policy"
)

// A page of a test site: links to other pages, or a redirect.
type page struct {
	links    []string
	redirect string
}

// site is a local origin that serves a robots.txt and linked pages, and
// records every request it receives, checking each against its robots.txt
// for agent.
type site struct {
	srv    *httptest.Server
	robots string
	rules  *policy.Robots
	agent  string
	pages  map[string]page

	mu         sync.Mutex
	robotsDown int            // requests for robots.txt still to answer 503
	hits       map[string]int // request URI → requests
	violations []string       // request URIs the robots.txt disallows for agent
}

func newSite(t testing.TB, agent, robots string, pages map[string]page) *site {
	t.Helper()
	s := &site{robots: robots, rules: policy.Parse([]byte(robots)), agent: agent, pages: pages, hits: map[string]int{}}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *site) serve(w http.ResponseWriter, r *http.Request) {
	uri := r.URL.RequestURI()
	s.mu.Lock()
	s.hits[uri]++
	if uri != "/robots.txt" && !s.rules.Allowed(s.agent, uri) {
		s.violations = append(s.violations, uri)
	}
	down := uri == "/robots.txt" && s.robotsDown > 0
	if down {
		s.robotsDown--
	}
	s.mu.Unlock()
	if down {
		http.Error(w, "down", http.StatusServiceUnavailable)
		return
	}
	if uri == "/robots.txt" {
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("Cache-Control", "max-age=3600")
		fmt.Fprint(w, s.robots)
		return
	}
	p, ok := s.pages[uri]
	switch {
	case !ok:
		http.NotFound(w, r)
	case p.redirect != "":
		http.Redirect(w, r, p.redirect, http.StatusFound)
	default:
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		var b strings.Builder
		b.WriteString("<html><body>")
		for _, l := range p.links {
			fmt.Fprintf(&b, "<a href=%q>%s</a>\n", l, l)
		}
		b.WriteString("</body></html>")
		fmt.Fprint(w, b.String())
	}
}

// served returns the requests received for uri.
func (s *site) served(uri string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[uri]
}

// check fails t on any request robots.txt disallows, and on any page of
// want not requested exactly once; it returns the requests received.
func (s *site) check(t testing.TB, want []string) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.violations) > 0 {
		t.Errorf("the origin served %d disallowed requests: %v", len(s.violations), s.violations)
	}
	for _, uri := range want {
		if n := s.hits[uri]; n != 1 {
			t.Errorf("%s requested %d times, want 1", uri, n)
		}
	}
	for uri := range s.hits {
		if uri != "/robots.txt" && !slices.Contains(want, uri) && s.rules.Allowed(s.agent, uri) {
			t.Errorf("%s requested, not in the pages expected", uri)
		}
	}
}
