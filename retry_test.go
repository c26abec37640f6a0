package robotsguard_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-retryablehttp"

	"github.com/robotsguard/robotsguard"
)

// retryClient is a go-retryablehttp client over h's Transport, as the
// README sets one up, counting its attempts.
func retryClient(h *harness, attempts *int) *retryablehttp.Client {
	var mu sync.Mutex
	return &retryablehttp.Client{
		HTTPClient:   &http.Client{Transport: h.tr, Timeout: 10 * time.Second},
		RetryWaitMin: time.Millisecond,
		RetryWaitMax: 10 * time.Millisecond,
		RetryMax:     4,
		CheckRetry:   robotsguard.RetryPolicy(nil),
		Backoff:      robotsguard.Backoff(nil),
		RequestLogHook: func(retryablehttp.Logger, *http.Request, int) {
			mu.Lock()
			*attempts++
			mu.Unlock()
		},
	}
}

// TestRetryPolicyRefusals: a refused URL, or a redirect into a refused
// path, is tried once: the allowed first hop is not sent again.
func TestRetryPolicyRefusals(t *testing.T) {
	s := newSite(t, robotsTxt("User-agent: *\nDisallow: /private\n"))
	s.pages = func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/r" {
			http.Redirect(w, r, "/private/x", http.StatusFound)
		}
	}
	h := newHarness(t)
	for _, path := range []string{"/private/a", "/r"} {
		var attempts int
		_, err := retryClient(h, &attempts).Get(s.URL + path)
		if !errors.Is(err, robotsguard.ErrDisallowed) {
			t.Errorf("GET %s: %v, want ErrDisallowed", path, err)
		}
		if attempts != 1 {
			t.Errorf("GET %s: %d attempts, want 1", path, attempts)
		}
	}
	if n := s.count("/r"); n != 1 {
		t.Errorf("the redirecting page was requested %d times, want once", n)
	}
	if n := s.count("/private/x"); n != 0 {
		t.Errorf("the disallowed page was requested %d times", n)
	}
}

// TestRetryPolicyPacing: a request whose deadline comes before its turn
// is not retried: it fails with the *PacingError for the caller to
// requeue.
func TestRetryPolicyPacing(t *testing.T) {
	s := newSite(t, robotsTxt("User-agent: *\nCrawl-delay: 15\n"))
	h := newHarness(t)
	var attempts int
	c := retryClient(h, &attempts)
	resp, err := c.Get(s.URL + "/1")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	attempts = 0
	_, err = c.Get(s.URL + "/2")
	var pe *robotsguard.PacingError
	if !errors.As(err, &pe) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v, want a *PacingError", err)
	}
	if attempts != 1 {
		t.Errorf("%d attempts, want 1", attempts)
	}
}

// TestRetryBackoffOnce: after a 503 with Retry-After, the retry waits
// once, in the Transport (on its clock), not also in the client; a
// Retry-After beyond MaxBackoff is capped.
func TestRetryBackoffOnce(t *testing.T) {
	s := newSite(t, robotsTxt("User-agent: *\nDisallow: /private\n"))
	var mu sync.Mutex
	answers := []string{"7", "45"}
	s.pages = func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if len(answers) > 0 {
			w.Header().Set("Retry-After", answers[0])
			answers = answers[1:]
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}
	h := newHarness(t, func(tr *robotsguard.Transport) { tr.MaxThrottle = 30 * time.Second })
	var attempts int
	c := retryClient(h, &attempts)
	c.HTTPClient.Timeout = 0 // the harness's clock waits the back-off
	var clientWaits []time.Duration
	c.Backoff = func(min, max time.Duration, n int, resp *http.Response) time.Duration {
		d := robotsguard.Backoff(nil)(min, max, n, resp)
		clientWaits = append(clientWaits, d)
		return d
	}
	resp, err := c.Get(s.URL + "/page")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || attempts != 3 {
		t.Errorf("status %d after %d attempts, want 200 after 3", resp.StatusCode, attempts)
	}
	if got := h.sleeps(); !slices.Equal(got, []time.Duration{7 * time.Second, 30 * time.Second}) {
		t.Errorf("the Transport waited %v, want [7s 30s]", got)
	}
	if !slices.Equal(clientWaits, []time.Duration{0, 0}) {
		t.Errorf("the client waited %v itself too: the waits add up", clientWaits)
	}
}

// TestRetryPolicyLongRetryAfter: a 429 whose Retry-After asks for more
// than a minute is returned at once, for the caller to requeue, rather
// than each attempt waiting up to MaxBackoff.
func TestRetryPolicyLongRetryAfter(t *testing.T) {
	s := newSite(t, robotsTxt("User-agent: *\nDisallow: /private\n"))
	s.pages = func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "31536000")
		w.WriteHeader(http.StatusTooManyRequests)
	}
	h := newHarness(t)
	var attempts int
	resp, err := retryClient(h, &attempts).Get(s.URL + "/page")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusTooManyRequests || attempts != 1 {
		t.Errorf("status %d after %d attempts, want the 429 after 1", resp.StatusCode, attempts)
	}
	if got := h.sleeps(); len(got) != 0 {
		t.Errorf("waited %v", got)
	}
}
