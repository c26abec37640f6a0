package robotsguard_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/cache"
	"github.com/robotsguard/robotsguard/robotstest"
)

// panicReader is a body that panics when read.
type panicReader struct{}

func (panicReader) Read([]byte) (int, error) { panic("body exploded") }

func response(req *http.Request, status int, body io.Reader) *http.Response {
	return &http.Response{StatusCode: status, Header: http.Header{"Cache-Control": {"max-age=60"}},
		Body: io.NopCloser(body), Request: req}
}

// TestPanicDuringRefreshKeepsRules: a panic while a stale robots.txt is
// fetched again (here, reading its body) fails that fetch; the last rules
// stand in, as for any failure, and keep refusing what they refuse.
func TestPanicDuringRefreshKeepsRules(t *testing.T) {
	var fetches, pages atomic.Int32
	h := newHarness(t, func(tr *robotsguard.Transport) {
		tr.RetryMax = -1
		tr.Base = roundTripFunc(func(req *http.Request) (*http.Response, error) {
			if req.URL.Path != "/robots.txt" {
				pages.Add(1)
				return response(req, 200, strings.NewReader("page")), nil
			}
			if fetches.Add(1) == 1 {
				return response(req, 200, strings.NewReader("User-agent: *\nDisallow: /secret\n")), nil
			}
			return response(req, 200, panicReader{}), nil
		})
	})
	h.refused("http://example.com/secret", robotsguard.ReasonRule)
	h.clock.Advance(2 * time.Minute) // stale: fetched again, and the body panics
	h.refused("http://example.com/secret", robotsguard.ReasonRule)
	h.allowed("http://example.com/open")
	if n := fetches.Load(); n != 2 {
		t.Errorf("robots.txt fetched %d times, want 2", n)
	}
	if n := pages.Load(); n != 1 {
		t.Errorf("%d pages sent, want only /open", n)
	}
	snap := robotsOf(t, h, "http://example.com/")
	var pe *robotsguard.PanicError
	if !errors.As(snap.Err, &pe) || pe.Value != "body exploded" {
		t.Errorf("the failure %v does not hold the panic", snap.Err)
	}
}

// TestObserverPanics: a panic in the Observer's Fetched, which runs for
// every request waiting on a fetch, neither kills the process nor the
// fetch.
func TestObserverPanics(t *testing.T) {
	h := newHarness(t, func(tr *robotsguard.Transport) {
		tr.Observer = &robotsguard.Observer{Fetched: func(robotsguard.FetchEvent) { panic("observer bug") }}
	})
	s := h.origin("User-agent: *\nDisallow: /no\n")
	h.allowed(s.URL + "/yes")
	h.refused(s.URL+"/no", robotsguard.ReasonRule)
}

// TestBaseIgnoresContext: a Base that never answers a robots.txt request,
// whatever its context says, holds requests for a little more than
// FetchTimeout; they are then refused (no copy stands in).
func TestBaseIgnoresContext(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	h := newHarness(t, func(tr *robotsguard.Transport) {
		tr.FetchTimeout = 40 * time.Millisecond
		tr.Base = roundTripFunc(func(req *http.Request) (*http.Response, error) {
			<-release
			return nil, errors.New("released")
		})
	})
	done := make(chan *robotsguard.DisallowedError, 1)
	go func() {
		done <- h.refused("http://example.com/page", robotsguard.ReasonUnreachable)
	}()
	select {
	case d := <-done:
		var fe *robotsguard.FetchError
		if !errors.As(d.Err, &fe) {
			t.Errorf("refusal %v: want a FetchError", d)
		}
	case <-time.After(time.Minute):
		t.Fatal("a Base that ignores its context held the request for a minute")
	}
}

// TestHangingStoreBounded: a Store whose calls never return costs a
// bounded number of goroutines, however many origins are crawled.
func TestHangingStoreBounded(t *testing.T) {
	store := newFakeStore()
	store.hang = make(chan struct{})
	before := runtime.NumGoroutine()
	h := newHarness(t, func(tr *robotsguard.Transport) {
		tr.Store = store
		tr.FetchTimeout = 20 * time.Millisecond
		tr.Base = staticRoundTripper{"User-agent: *\nDisallow: /no\n"}
	})
	var origins []string
	for i := range 300 {
		origins = append(origins, fmt.Sprintf("http://site%d.example", i))
	}
	if err := h.tr.Prefetch(context.Background(), origins...); err != nil {
		t.Fatal(err)
	}
	if n := runtime.NumGoroutine() - before; n > 64+16 {
		t.Errorf("%d goroutines more after 300 origins with a hanging Store", n)
	}
	h.refused("http://site299.example/no", robotsguard.ReasonRule)
	close(store.hang)
}

// TestStoredFailureHonoured: a failure another process stored, with its
// back-off, holds this process's fetches back too.
func TestStoredFailureHonoured(t *testing.T) {
	store := cache.NewMemoryStore(1 << 20)
	h1 := newHarness(t, func(tr *robotsguard.Transport) { tr.Store = store; tr.RetryMax = -1 })
	s := h1.origin("") // a failure's Date is not read: h2 may fetch from it too
	s.Fault("/robots.txt", robotstest.Status(503))
	h1.refused(s.URL+"/page", robotsguard.ReasonUnreachable)
	h2 := newHarness(t, func(tr *robotsguard.Transport) { tr.Store = store; tr.RetryMax = -1 })
	d := h2.refused(s.URL+"/page", robotsguard.ReasonUnreachable)
	if !strings.Contains(d.Error(), "503") {
		t.Errorf("refusal %v does not say why", d)
	}
	if n := count(s, "/robots.txt"); n != 1 {
		t.Errorf("robots.txt fetched %d times, want once: the second process backs off too", n)
	}
	h2.clock.Advance(2 * time.Minute)
	h2.refused(s.URL+"/page", robotsguard.ReasonUnreachable)
	if n := count(s, "/robots.txt"); n != 2 {
		t.Errorf("robots.txt fetched %d times, want again after the back-off", n)
	}
}

// TestStoredSuccessOverFailure: a process whose fetch fails while another
// stores a newer success uses that success.
func TestStoredSuccessOverFailure(t *testing.T) {
	store := cache.NewMemoryStore(1 << 20)
	h := newHarness(t, func(tr *robotsguard.Transport) { tr.Store = store; tr.RetryMax = -1 })
	s := newOrigin(overruled{t}, h.clock, "", nil) // it sees no other process's fetch
	s.Fault("/robots.txt", robotstest.Handler(func(w http.ResponseWriter, r *http.Request) {
		// Another process's fetch succeeds meanwhile, and stores it.
		now := h.clock.Now()
		e := &cache.Entry{Status: 200, Body: []byte("User-agent: *\nDisallow: /no\n"), Requested: now, Received: now}
		b, _ := e.MarshalBinary()
		store.Set(r.Context(), cache.Key(s.URL+"/robots.txt"), b, time.Hour)
		w.WriteHeader(http.StatusBadGateway)
	}))
	h.refused(s.URL+"/no", robotsguard.ReasonRule)
	h.allowed(s.URL + "/yes")
	if n := count(s, "/robots.txt"); n != 1 {
		t.Errorf("robots.txt fetched %d times", n)
	}
	if got := uris(s.Disallowed()); !slices.Equal(got, []string{"/yes"}) {
		t.Errorf("the Origin disallows %q of what it got, want only /yes, which the stored file allows", got)
	}
}
