package robotsguard_test

import (
	"context"
	"net/http"
	"sync"
	"testing"

	"github.com/robotsguard/robotsguard"
)

// TestNormalizePaths: dot segments and repeated slashes are matched as
// written by default, as RFC 9309 says; with NormalizePaths the path is
// also decided with them resolved, as a server that normalises it would
// serve it, and refused when either is disallowed.
func TestNormalizePaths(t *testing.T) {
	tricky := []string{"//private", "/./private", "/a/../private", "/%2e/private", "/a/%2E%2E/private", "///private/x", "/a/b/../../private"}
	var mu sync.Mutex
	var got []string
	base := roundTripFunc(func(req *http.Request) (*http.Response, error) {
		if req.URL.Path != "/robots.txt" {
			mu.Lock()
			got = append(got, req.URL.EscapedPath())
			mu.Unlock()
		}
		return staticRoundTripper{"User-agent: *\nDisallow: /private\nDisallow: /*/b/c$\n"}.RoundTrip(req)
	})
	rfc := newHarness(t, func(tr *robotsguard.Transport) { tr.Base = base })
	strict := newHarness(t, func(tr *robotsguard.Transport) { tr.Base = base; tr.NormalizePaths = true })
	for _, p := range tricky {
		rfc.allowed("http://example.com" + p)
		strict.refused("http://example.com"+p, robotsguard.ReasonRule)
	}
	if len(got) != len(tricky) {
		t.Errorf("sent %q, want only the RFC harness's", got)
	}
	// Paths that normalise to allowed ones, or hold nothing to normalise,
	// are allowed, and sent as written.
	got = nil
	for _, p := range []string{"/a/./b", "/a//b", "/public/../public/x", "/a/b/c/..", "/x.y/..z", "/%2e%2e%2e/"} {
		strict.allowed("http://example.com" + p)
	}
	strict.refused("http://example.com/private?x", robotsguard.ReasonRule)
	strict.refused("http://example.com/x/b/./c", robotsguard.ReasonRule)
	if want := "/a/./b"; len(got) == 0 || got[0] != want {
		t.Errorf("sent %q, want %q first, as written", got, want)
	}
	// Check answers as RoundTrip does.
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, "http://example.com/a/../private", nil)
	if err := strict.tr.Check(req); err == nil {
		t.Error("Check allowed /a/../private with NormalizePaths")
	}
}
