package robotsguard_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/robotsguard/robotsguard"
)

// TestHostSpellings: spellings of one host are one origin: one fetch, one
// cache entry, one pacer. IPv6 addresses take their RFC 5952 form, and
// trailing dots are dropped (example.com. is the fully qualified spelling
// of example.com); the file is fetched from the canonical spelling.
func TestHostSpellings(t *testing.T) {
	for _, tc := range []struct {
		spellings []string
		origin    string
	}{
		{[]string{"http://[::1]:8080/a", "http://[0:0:0:0:0:0:0:1]:8080/b", "http://[0000::0001]:8080/c"}, "http://[::1]:8080"},
		{[]string{"http://[2001:DB8::1]/a", "http://[2001:db8:0:0:0:0:0:1]:80/b"}, "http://[2001:db8::1]"},
		{[]string{"http://[::ffff:192.0.2.1]/a", "http://[::FFFF:c000:0201]/b"}, "http://[::ffff:192.0.2.1]"},
		{[]string{"http://example.com/a", "http://example.com./b", "http://EXAMPLE.com.:80/c"}, "http://example.com"},
		{[]string{"https://bücher.example./a", "https://xn--bcher-kva.example/b"}, "https://xn--bcher-kva.example"},
	} {
		var mu sync.Mutex
		var fetched []string
		h := newHarness(t, func(tr *robotsguard.Transport) {
			tr.Delay = time.Second
			tr.Base = roundTripFunc(func(req *http.Request) (*http.Response, error) {
				if req.URL.Path == "/robots.txt" {
					mu.Lock()
					fetched = append(fetched, req.URL.String())
					mu.Unlock()
				}
				return staticRoundTripper{"User-agent: *\nDisallow: /private\n"}.RoundTrip(req)
			})
		})
		for _, s := range tc.spellings {
			o, err := robotsguard.OriginOf(s)
			if err != nil || o != tc.origin {
				t.Errorf("OriginOf(%q) = %q, %v; want %q", s, o, err, tc.origin)
			}
			h.allowed(s)
			h.refused(strings.Replace(s, "/"+s[strings.LastIndexByte(s, '/')+1:], "/private", 1), robotsguard.ReasonRule)
		}
		if len(fetched) != 1 || fetched[0] != tc.origin+"/robots.txt" {
			t.Errorf("%q: robots.txt fetched as %q, want once from %s/robots.txt", tc.spellings, fetched, tc.origin)
		}
		if n := robotsguard.Pacers(h.tr); n != 1 {
			t.Errorf("%q: %d pacers, want one", tc.spellings, n)
		}
	}
	for _, bad := range []string{"http://[::1%25]/", "http://[1::2::3]/"} {
		if o, err := robotsguard.OriginOf(bad); err == nil {
			t.Errorf("OriginOf(%q) = %q, want an error", bad, o)
		}
	}
}

// TestHostHeaderSpellings: a Host header names the origin; one that could
// not be a URL's host (spaces, a bad port, a broken IPv6 literal) makes
// the request unsupported rather than fetching a robots.txt from an URL
// that does not parse.
func TestHostHeaderSpellings(t *testing.T) {
	h := newHarness(t, func(tr *robotsguard.Transport) { tr.Base = staticRoundTripper{"User-agent: *\nDisallow: /private\n"} })
	for _, host := range []string{" ", "a b", "0:A", ":]", "[::1", "example.com:80x"} {
		req, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1/page", nil)
		req.Host = host
		if err := h.tr.Check(req); !errorsIsUnsupported(err) {
			t.Errorf("Host %q: Check = %v, want ErrUnsupportedURL", host, err)
		}
	}
	req, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1/private", nil)
	req.Host = "Example.COM."
	if err := h.tr.Check(req); err == nil {
		t.Error("Host Example.COM.: /private allowed")
	}
}

func errorsIsUnsupported(err error) bool {
	return err != nil && strings.Contains(err.Error(), robotsguard.ErrUnsupportedURL.Error())
}

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
