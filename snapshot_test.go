package robotsguard_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/robotstest"
)

// TestRobotsSnapshot: Robots gives an origin's rules as the Transport
// holds them, fetched once, and an unreachable robots.txt as a Snapshot,
// not an error.
func TestRobotsSnapshot(t *testing.T) {
	h := newHarness(t)
	s := h.origin("User-agent: *\nDisallow: /no\n\nUser-agent: TestBot\nCrawl-delay: 3\n\nSitemap: https://example.com/sitemap.xml\n")
	s.Fault("/robots.txt", robotstest.Status(200, "Cache-Control: max-age=600"))
	u, _ := url.Parse(s.URL + "/any/page")
	snap, err := h.tr.Snapshot(context.Background(), u)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Origin != s.URL || snap.URL != s.URL+"/robots.txt" || snap.Access != robotsguard.AccessRules || snap.Status != 200 ||
		snap.Delay != 3*time.Second || snap.Err != nil || !snap.Received.Equal(h.clock.Now()) ||
		!snap.FreshUntil.Equal(h.clock.Now().Add(10*time.Minute)) {
		t.Errorf("snapshot %+v", snap)
	}
	if got := snap.Rules.Sitemaps(); !slices.Equal(got, []string{"https://example.com/sitemap.xml"}) {
		t.Errorf("sitemaps %q", got)
	}
	h.allowed(s.URL + "/no/1") // TestBot follows only its group
	if n := count(s, "/robots.txt"); n != 1 {
		t.Errorf("robots.txt fetched %d times, want once for Robots and RoundTrip", n)
	}

	h = newHarness(t, func(tr *robotsguard.Transport) { tr.RetryMax = -1 })
	down := h.origin("")
	down.Fault("/robots.txt", robotstest.Status(503))
	u, _ = url.Parse(down.URL)
	snap, err = h.tr.Snapshot(context.Background(), u)
	var fe *robotsguard.FetchError
	if err != nil || snap.Access != robotsguard.AccessUnreachable || !errors.As(snap.Err, &fe) || fe.Status != 503 {
		t.Errorf("unreachable: %+v, %v; want Access Unreachable and the FetchError", snap, err)
	}

	h = newHarness(t, func(tr *robotsguard.Transport) { tr.Delay = 2 * time.Second })
	gone := h.origin("")
	gone.Fault("/robots.txt", robotstest.Status(404))
	u, _ = url.Parse(gone.URL)
	if snap, err = h.tr.Snapshot(context.Background(), u); err != nil || snap.Access != robotsguard.AccessAllowAll || snap.Status != 404 || snap.Delay != 2*time.Second {
		t.Errorf("404: %+v, %v; want AllowAll, status 404 and Delay", snap, err)
	}

	if _, err := h.tr.Snapshot(context.Background(), &url.URL{Scheme: "ftp", Host: "example.com"}); !errors.Is(err, robotsguard.ErrUnsupportedURL) {
		t.Errorf("ftp URL: %v, want ErrUnsupportedURL", err)
	}
}

// TestPrefetch: Prefetch fetches each origin's robots.txt once, whatever
// URL of it is given; later requests use them; arguments that are not
// http or https URLs are reported, and do not stop the others.
func TestPrefetch(t *testing.T) {
	h := newHarness(t)
	a := h.origin("User-agent: *\nDisallow: /no\n")
	b := h.origin("")
	b.Fault("/robots.txt", robotstest.Status(404))
	err := h.tr.Prefetch(context.Background(), a.URL, a.URL+"/page", b.URL+"/", "ftp://example.com", "::")
	if !errors.Is(err, robotsguard.ErrUnsupportedURL) {
		t.Errorf("Prefetch: %v, want ErrUnsupportedURL among the errors", err)
	}
	if err == nil || !strings.Contains(err.Error(), "ftp://example.com") || !strings.Contains(err.Error(), `"::"`) {
		t.Errorf("Prefetch: %v, want both bad arguments named", err)
	}
	if na, nb := count(a, "/robots.txt"), count(b, "/robots.txt"); na != 1 || nb != 1 {
		t.Errorf("robots.txt fetched %d and %d times, want once each", na, nb)
	}
	h.refused(a.URL+"/no", robotsguard.ReasonRule)
	h.allowed(b.URL + "/no")
	if st := h.tr.Stats(); st.Fetches != 2 {
		t.Errorf("%d fetches, want the prefetched files used", st.Fetches)
	}
	// Fresh origins are not fetched again.
	if err := h.tr.Prefetch(context.Background(), a.URL, b.URL); err != nil {
		t.Errorf("Prefetch again: %v", err)
	}
	if na, nb := count(a, "/robots.txt"), count(b, "/robots.txt"); na != 1 || nb != 1 {
		t.Errorf("robots.txt fetched %d and %d times, want once each", na, nb)
	}
}

// TestPrefetchBounded: Prefetch fetches each origin's robots.txt once, at
// most PrefetchConcurrency at once, and later requests use them.
func TestPrefetchBounded(t *testing.T) {
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

func TestSnapshotUsageNilWithoutLines(t *testing.T) {
	h := newHarness(t)
	s := h.origin("User-agent: *\nDisallow: /x\nX-Other: 1\n")
	snap, err := h.tr.Snapshot(context.Background(), mustParse(t, s.URL))
	if err != nil || snap.Usage != nil {
		t.Errorf("Snapshot.Usage of a file without usage lines: %v %v", snap.Usage, err)
	}
}
