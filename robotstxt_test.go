package robotsguard_test

import (
	"net/http"
	"slices"
	"testing"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/robotstest"
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

// TestRobotsTxtFromCache: requests for /robots.txt are not checked, even
// when the file disallows everything; a plain GET is answered from the
// cache, so a client that reads robots.txt itself (colly's own check)
// costs the site one fetch in all.
func TestRobotsTxtFromCache(t *testing.T) {
	h := newHarness(t)
	s := h.origin("User-agent: *\nDisallow: /\n")
	for range 2 {
		body, err := h.get(s.URL + "/robots.txt")
		if err != nil || body != "User-agent: *\nDisallow: /\n" {
			t.Fatalf("GET /robots.txt: %q, %v", body, err)
		}
	}
	h.refused(s.URL+"/", robotsguard.ReasonRule)
	if got := seen(s); !slices.Equal(got, []string{"/robots.txt"}) {
		t.Errorf("origin saw %q, want one robots.txt fetch", got)
	}
	// A conditional request and a HEAD are the client's own: sent.
	req, _ := http.NewRequest(http.MethodGet, s.URL+"/robots.txt", nil)
	req.Header.Set("If-None-Match", `"x"`)
	resp, err := h.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp, err := h.client.Head(s.URL + "/robots.txt"); err != nil {
		t.Fatal(err)
	} else {
		resp.Body.Close()
	}
	if got := seen(s); !slices.Equal(got, []string{"/robots.txt", "/robots.txt", "/robots.txt"}) {
		t.Errorf("origin saw %q, want the conditional GET and the HEAD sent", got)
	}
}

// TestRobotsTxtUnavailablePassesThrough: a robots.txt the cache does not
// hold as a usable file (a 5xx) is fetched for the client as it is, so
// that it sees the server's answer.
func TestRobotsTxtUnavailablePassesThrough(t *testing.T) {
	h := newHarness(t, func(tr *robotsguard.Transport) { tr.RetryMax = -1 })
	s := h.origin("")
	s.Fault("/robots.txt", robotstest.Status(http.StatusServiceUnavailable))
	resp, err := h.client.Get(s.URL + "/robots.txt")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("status %d, want the server's 503", resp.StatusCode)
	}
}
