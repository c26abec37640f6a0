package robotsguard_test

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/robotsguard/robotsguard"
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
