package robotsguard_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sync/atomic"
	"testing"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/robotstest"
)

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

// TestACAPStateCached: a file with ACAP records is read once while
// fresh, with or without permissions references.
func TestACAPStateCached(t *testing.T) {
	h := newHarness(t, acapOn)
	s := h.origin(acapRules)
	s.Fault("/robots.txt", robotstest.Status(200, "Cache-Control: max-age=600"))
	for i := range 5 {
		h.allowed(fmt.Sprintf("%s/p%d", s.URL, i))
	}
	if st := h.tr.Stats(); st.CacheMisses != 1 {
		t.Errorf("%d cache misses for 5 requests to a fresh origin, want 1", st.CacheMisses)
	}
}
