package robotsguard_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/policy"
)

// robotsOf returns the Snapshot of the origin at rawURL.
func robotsOf(t *testing.T, h *harness, rawURL string) *robotsguard.Snapshot {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	s, err := h.tr.Robots(context.Background(), u)
	if err != nil {
		t.Fatalf("Robots(%s): %v", rawURL, err)
	}
	return s
}

// TestCheck: Check gives RoundTrip's verdict without pacing or sending
// anything but the robots.txt fetch.
func TestCheck(t *testing.T) {
	s := newSite(t, robotsTxt("User-agent: *\nDisallow: /private\nCrawl-delay: 30\n"))
	h := newHarness(t)
	check := func(path string) error {
		req, _ := http.NewRequest(http.MethodGet, s.URL+path, nil)
		return h.tr.Check(req)
	}
	for range 3 {
		if err := check("/public"); err != nil {
			t.Errorf("Check(/public): %v", err)
		}
	}
	err := check("/private/x")
	var d *robotsguard.DisallowedError
	if !errors.As(err, &d) || d.Reason != robotsguard.ReasonRule || d.Decision.Rule.Line != 2 {
		t.Errorf("Check(/private/x) = %v, want a refusal by line 2", err)
	}
	if err := check("/robots.txt"); err != nil {
		t.Errorf("Check(/robots.txt): %v", err)
	}
	req, _ := http.NewRequest(http.MethodGet, "ftp://example.com/file", nil)
	if err := h.tr.Check(req); !errors.Is(err, robotsguard.ErrUnsupportedURL) {
		t.Errorf("Check(ftp URL) = %v, want ErrUnsupportedURL", err)
	}
	if got := s.seen(); !slices.Equal(got, []string{"/robots.txt"}) {
		t.Errorf("origin saw %q, want the robots.txt fetch only", got)
	}
	if got := h.sleeps(); len(got) != 0 {
		t.Errorf("Check paused %v", got)
	}
}

// TestUnsupportedURLError: URLs that have no robots.txt fail with
// ErrUnsupportedURL, unsent.
func TestUnsupportedURLError(t *testing.T) {
	h := newHarness(t)
	for _, u := range []*url.URL{
		{Scheme: "ftp", Host: "example.com", Path: "/x"},
		{Scheme: "http", Path: "/x"},
		{Scheme: "http", Host: "example.com", Opaque: "//other.example/x"},
		{Scheme: "file", Path: "/etc/passwd"},
	} {
		_, err := h.tr.RoundTrip(&http.Request{Method: "GET", URL: u, Header: http.Header{}})
		if !errors.Is(err, robotsguard.ErrUnsupportedURL) || errors.Is(err, robotsguard.ErrDisallowed) {
			t.Errorf("%s: %v, want ErrUnsupportedURL", u, err)
		}
	}
}

// TestRobotsSnapshot: Robots returns an origin's rules as the Transport
// holds them, fetched once.
func TestRobotsSnapshot(t *testing.T) {
	s := newSite(t, robotsTxt("User-agent: *\nDisallow: /private\n\nUser-agent: TestBot\nCrawl-delay: 4\nDisallow: /tb\n\nSitemap: https://example.com/sitemap.xml\n", "Cache-Control: max-age=600"))
	h := newHarness(t)
	snap := robotsOf(t, h, s.URL+"/any/page")
	if snap.Origin != s.URL || snap.URL != s.URL+"/robots.txt" || snap.Access != robotsguard.UseRules || snap.Status != 200 {
		t.Errorf("snapshot %+v", snap)
	}
	if !slices.Equal(snap.Robots.Sitemaps(), []string{"https://example.com/sitemap.xml"}) || snap.Delay != 4*time.Second {
		t.Errorf("sitemaps %q, delay %v", snap.Robots.Sitemaps(), snap.Delay)
	}
	if got := snap.FreshUntil.Sub(snap.Received); got != 10*time.Minute {
		t.Errorf("fresh for %v, want 10m", got)
	}
	h.refused(s.URL+"/tb", robotsguard.ReasonRule)
	if n := s.count("/robots.txt"); n != 1 {
		t.Errorf("robots.txt fetched %d times", n)
	}

	down := newSite(t, status(503))
	h2 := newHarness(t, func(tr *robotsguard.Transport) { tr.RetryMax = -1 })
	snap = robotsOf(t, h2, down.URL)
	var fe *robotsguard.FetchError
	if snap.Access != robotsguard.Unreachable || !errors.As(snap.Err, &fe) || fe.Status != 503 {
		t.Errorf("unreachable origin: access %v, err %v", snap.Access, snap.Err)
	}
	if _, err := h.tr.Robots(context.Background(), &url.URL{Scheme: "mailto", Opaque: "a@b"}); !errors.Is(err, robotsguard.ErrUnsupportedURL) {
		t.Errorf("Robots(mailto:) = %v", err)
	}
}

// TestPrefetch: Prefetch fetches each origin's robots.txt once, at most
// PrefetchConcurrency at once, and later requests use them.
func TestPrefetch(t *testing.T) {
	var inFlight, peak atomic.Int32
	base := &countingRoundTripper{robots: "User-agent: *\nDisallow: /no\n"}
	gate := roundTripFunc(func(req *http.Request) (*http.Response, error) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		return base.RoundTrip(req)
	})
	h := newHarness(t, func(tr *robotsguard.Transport) { tr.Base = gate; tr.PrefetchConcurrency = 3 })
	var origins []string
	for i := range 20 {
		origins = append(origins, fmt.Sprintf("http://site%d.example", i), fmt.Sprintf("http://site%d.example/page", i))
	}
	err := h.tr.Prefetch(context.Background(), append(origins, "ftp://x.example", "::")...)
	if err == nil || !errors.Is(err, robotsguard.ErrUnsupportedURL) {
		t.Errorf("Prefetch error %v, want the bad arguments", err)
	}
	for i := range 20 {
		if n := base.robotsFetches(fmt.Sprintf("site%d.example", i)); n != 1 {
			t.Errorf("site%d fetched %d times", i, n)
		}
	}
	if p := peak.Load(); p > 3 {
		t.Errorf("%d fetches at once, want at most 3", p)
	}
	h.refused("http://site7.example/no", robotsguard.ReasonRule)
	if n := base.robotsFetches("site7.example"); n != 1 {
		t.Errorf("site7 fetched %d times after Prefetch", n)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := h.tr.Prefetch(ctx, "http://late.example"); !errors.Is(err, context.Canceled) {
		t.Errorf("Prefetch with a cancelled context: %v", err)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// TestBasePanics: a panic in Base while it fetches a robots.txt fails the
// fetch: the requests waiting on it are refused, and the process lives.
func TestBasePanics(t *testing.T) {
	var calls atomic.Int32
	h := newHarness(t, func(tr *robotsguard.Transport) {
		tr.Base = roundTripFunc(func(req *http.Request) (*http.Response, error) {
			calls.Add(1)
			panic("base exploded")
		})
	})
	d := h.refused("http://example.com/page", robotsguard.ReasonUnreachable)
	var pe *robotsguard.PanicError
	var fe *robotsguard.FetchError
	if !errors.As(d.Err, &fe) || !errors.As(d.Err, &pe) || pe.Value != "base exploded" || len(pe.Stack) == 0 {
		t.Errorf("refusal %v: want a FetchError holding the PanicError", d)
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("a panicking Base was called %d times, want once (no retries)", n)
	}
}

// closeIdler records CloseIdleConnections.
type closeIdler struct {
	http.RoundTripper
	closed atomic.Bool
}

func (c *closeIdler) CloseIdleConnections() { c.closed.Store(true) }

func TestCloseIdleConnections(t *testing.T) {
	base := &closeIdler{RoundTripper: http.DefaultTransport}
	client := &http.Client{Transport: &robotsguard.Transport{Base: base}}
	client.CloseIdleConnections()
	if !base.closed.Load() {
		t.Error("http.Client.CloseIdleConnections did not reach Base")
	}
}

// TestDialectTable: the dialect picks the Transport's status and cache
// defaults, and explicit settings win.
func TestDialectTable(t *testing.T) {
	s := newSite(t, status(401))
	h := newHarness(t, func(tr *robotsguard.Transport) { tr.Parser.Dialect = policy.Google })
	h.allowed(s.URL + "/page")
	h2 := newHarness(t, func(tr *robotsguard.Transport) {
		tr.Parser.Dialect = policy.Koster1996
		tr.StatusPolicy = robotsguard.DefaultStatusPolicy
	})
	h2.allowed(s.URL + "/page")
}

// TestACAPStateCached: a file with ACAP records is read once while
// fresh, with or without permissions references.
func TestACAPStateCached(t *testing.T) {
	s := newSite(t, robotsTxt(acapRules, "Cache-Control: max-age=600"))
	h := newHarness(t, acapOn)
	for i := range 5 {
		h.allowed(fmt.Sprintf("%s/p%d", s.URL, i))
	}
	if st := h.tr.Stats(); st.CacheMisses != 1 {
		t.Errorf("%d cache misses for 5 requests to a fresh origin, want 1", st.CacheMisses)
	}
}
