package robotsguard_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/robotstest"
)

func TestRobotsFetchSendsUserAgent(t *testing.T) {
	h := newHarness(t)
	s := h.origin(rules)
	h.allowed(s.URL + "/")
	if ua := lastRobots(t, s).Header.Get("User-Agent"); ua != h.tr.UserAgent {
		t.Errorf("robots.txt fetched with User-Agent %q, want %q", ua, h.tr.UserAgent)
	}
}

func TestUnreachableErrors(t *testing.T) {
	t.Run("network error", func(t *testing.T) {
		h := newHarness(t)
		s := h.origin("")
		url := s.URL
		s.Close()
		d := h.refused(url+"/page", robotsguard.ReasonUnreachable)
		var fe *robotsguard.FetchError
		if !errors.As(d.Err, &fe) || fe.URL != url+"/robots.txt" || fe.Err == nil {
			t.Errorf("refusal %v: want a FetchError with the network error", d)
		}
	})
	t.Run("truncated body", func(t *testing.T) {
		h := newHarness(t, func(tr *robotsguard.Transport) { tr.RetryMax = -1 })
		s := h.origin("")
		s.Fault("/robots.txt", robotstest.Handler(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "1000")
			io.WriteString(w, "User-agent: *\nAllow: /\n") // then the connection closes
		}))
		d := h.refused(s.URL+"/page", robotsguard.ReasonUnreachable)
		if !errors.Is(d.Err, io.ErrUnexpectedEOF) {
			t.Errorf("refusal %v: want io.ErrUnexpectedEOF inside", d)
		}
		if got := seen(s); !slices.Equal(got, []string{"/robots.txt"}) {
			t.Errorf("origin saw %q", got)
		}
	})
	t.Run("timeout", func(t *testing.T) {
		release := make(chan struct{})
		defer close(release)
		h := newHarness(t, func(tr *robotsguard.Transport) {
			tr.FetchTimeout = 500 * time.Millisecond // its quarter more is the margin the fetch has to report its time-out, on a busy machine too
			tr.RetryMax = -1
		})
		s := h.origin("")
		s.Fault("/robots.txt", robotstest.Handler(func(w http.ResponseWriter, r *http.Request) { <-release }))
		d := h.refused(s.URL+"/page", robotsguard.ReasonUnreachable)
		if !errors.Is(d.Err, context.DeadlineExceeded) || errors.Is(d, context.DeadlineExceeded) {
			t.Errorf("refusal %v: want context.DeadlineExceeded in Err, and not matched by the refusal", d)
		}
	})
}

// TestRedirects: the robots.txt fetch follows up to five redirects, across
// hosts, and the rules found apply to the original origin; more, a loop,
// or a redirect out of HTTP make the file unavailable.
func TestRedirects(t *testing.T) {
	target := newOrigin(t, newAutoClock(), "User-agent: *\nDisallow: /blocked\n", nil)
	chain := func(hops int, last string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			n := 0
			fmt.Sscan(r.URL.Query().Get("hop"), &n)
			if n < hops-1 {
				http.Redirect(w, r, fmt.Sprintf("/robots.txt?hop=%d", n+1), http.StatusFound)
				return
			}
			http.Redirect(w, r, last, http.StatusMovedPermanently)
		}
	}
	tests := []struct {
		name    string
		robots  http.HandlerFunc
		blocked bool // whether /blocked is refused: the target's rules apply
		fetches int  // robots.txt requests to the first origin
	}{
		{"one hop to another host", chain(1, target.URL+"/robots.txt"), true, 1},
		{"five hops", chain(5, target.URL+"/robots.txt"), true, 5},
		{"six hops: unavailable", chain(6, target.URL+"/robots.txt"), false, 6},
		{"loop: unavailable", chain(1, "/robots.txt"), false, 6},
		{"to ftp: unavailable", chain(1, "ftp://example.com/robots.txt"), false, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			s := h.origin("")
			s.Fault("/robots.txt", robotstest.Handler(tc.robots))
			if tc.blocked {
				d := h.refused(s.URL+"/blocked", robotsguard.ReasonRule)
				if d.RobotsURL != s.URL+"/robots.txt" {
					t.Errorf("rules attributed to %s, want the original origin", d.RobotsURL)
				}
			} else {
				h.allowed(s.URL + "/blocked")
			}
			if got := countQuery(s, "/robots.txt"); got != tc.fetches {
				t.Errorf("origin saw %q, want %d robots.txt requests", seen(s), tc.fetches)
			}
		})
	}
}

// countQuery counts the requests whose URI starts with prefix (a path and
// any query).
func countQuery(s *robotstest.Origin, prefix string) int {
	n := 0
	for _, u := range seen(s) {
		if strings.HasPrefix(u, prefix) {
			n++
		}
	}
	return n
}

// TestPanicInBase: a panic in Base while it fetches a robots.txt fails the
// fetch, and the requests waiting on it are refused; the process lives.
func TestPanicInBase(t *testing.T) {
	h := newHarness(t, func(tr *robotsguard.Transport) {
		tr.Base = panickingRoundTripper{}
		tr.RetryMax = -1
	})
	d := h.refused("http://example.com/page", robotsguard.ReasonUnreachable)
	var fe *robotsguard.FetchError
	var pe *robotsguard.PanicError
	if !errors.As(d.Err, &fe) || !errors.As(d.Err, &pe) || pe.Value != "base is broken" || len(pe.Stack) == 0 {
		t.Errorf("refusal %v: want a FetchError holding the PanicError", d)
	}
	if st := h.tr.Stats(); st.Fetches != 1 || st.Failures != 1 {
		t.Errorf("stats %+v, want one failed fetch", st)
	}
}

type panickingRoundTripper struct{}

func (panickingRoundTripper) RoundTrip(*http.Request) (*http.Response, error) {
	panic("base is broken")
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
