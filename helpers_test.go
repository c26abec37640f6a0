package robotsguard_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/robotsguard/robotsguard"
)

// clock is a manual clock for the Transport: Sleep calls sleep, which by
// default advances the clock.
type clock struct {
	mu    sync.Mutex
	now   time.Time
	sleep func(ctx context.Context, d time.Duration) error
}

var _ robotsguard.Clock = (*clock)(nil)

func newClock() *clock { return &clock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)} }

func (c *clock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	sleep := c.sleep
	c.mu.Unlock()
	if sleep != nil {
		return sleep(ctx, d)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	c.Advance(d)
	return nil
}

// setSleep makes Sleep call f.
func (c *clock) setSleep(f func(ctx context.Context, d time.Duration) error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sleep = f
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// site is an origin: an httptest server that serves /robots.txt through a
// handler, answers "ok" on every other path, and records every request it
// receives.
type site struct {
	*httptest.Server
	mu       sync.Mutex
	requests []*http.Request // clones, in arrival order
	robots   http.HandlerFunc
	pages    http.HandlerFunc // nil: 200 "ok"
}

func newSite(t *testing.T, robots http.HandlerFunc) *site {
	s := &site{robots: robots}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.requests = append(s.requests, r.Clone(context.Background()))
		s.mu.Unlock()
		switch {
		case r.URL.Path == "/robots.txt" && s.robots != nil:
			s.robots(w, r)
		case s.pages != nil:
			s.pages(w, r)
		default:
			io.WriteString(w, "ok")
		}
	}))
	t.Cleanup(s.Close)
	return s
}

// seen returns the request URIs the site received, in order.
func (s *site) seen() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, r := range s.requests {
		out = append(out, r.URL.RequestURI())
	}
	return out
}

// count returns how many requests for path (with its query) the site got.
func (s *site) count(uri string) int {
	n := 0
	for _, u := range s.seen() {
		if u == uri {
			n++
		}
	}
	return n
}

// lastRobotsRequest returns the last robots.txt request the site got.
func (s *site) lastRobotsRequest() *http.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := len(s.requests) - 1; i >= 0; i-- {
		if s.requests[i].URL.Path == "/robots.txt" {
			return s.requests[i]
		}
	}
	return nil
}

// robotsTxt serves body with the given header fields ("Key: value").
func robotsTxt(body string, fields ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for _, f := range fields {
			k, v, _ := strings.Cut(f, ": ")
			w.Header().Add(k, v)
		}
		io.WriteString(w, body)
	}
}

func status(code int, fields ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for _, f := range fields {
			k, v, _ := strings.Cut(f, ": ")
			w.Header().Add(k, v)
		}
		w.WriteHeader(code)
	}
}

// harness is a Transport on a manual clock, whose pauses are recorded and
// advance the clock instead of sleeping.
type harness struct {
	t      *testing.T
	clock  *clock
	tr     *robotsguard.Transport
	client *http.Client

	mu    sync.Mutex
	slept []time.Duration
}

func newHarness(t *testing.T, configure ...func(*robotsguard.Transport)) *harness {
	h := &harness{t: t, clock: newClock()}
	base := &http.Transport{}
	t.Cleanup(base.CloseIdleConnections)
	h.tr = &robotsguard.Transport{
		Base:      base,
		UserAgent: "TestBot/1.0 (+https://example.com/bot)",
		Clock:     h.clock,
		Delay:     -1,
	}
	h.clock.setSleep(func(ctx context.Context, d time.Duration) error {
		h.mu.Lock()
		h.slept = append(h.slept, d)
		h.mu.Unlock()
		if err := ctx.Err(); err != nil {
			return err
		}
		h.clock.Advance(d)
		return nil
	})
	robotsguard.SetRetryWait(h.tr, time.Millisecond, 5*time.Millisecond)
	for _, c := range configure {
		c(h.tr)
	}
	h.client = &http.Client{Transport: h.tr}
	return h
}

// sleeps returns the pauses taken so far, and forgets them.
func (h *harness) sleeps() []time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.slept
	h.slept = nil
	return s
}

// get fetches url and returns the response body.
func (h *harness) get(url string) (string, error) {
	return h.do(context.Background(), url)
}

func (h *harness) do(ctx context.Context, url string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		h.t.Fatal(err)
	}
	resp, err := h.client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

// allowed asserts that url is fetched.
func (h *harness) allowed(url string) {
	h.t.Helper()
	if _, err := h.get(url); err != nil {
		h.t.Fatalf("GET %s: %v, want it allowed", url, err)
	}
}

// refused asserts that url is refused for reason, and returns the refusal.
func (h *harness) refused(url string, reason robotsguard.Reason) *robotsguard.DisallowedError {
	h.t.Helper()
	_, err := h.get(url)
	if !errors.Is(err, robotsguard.ErrDisallowed) {
		h.t.Fatalf("GET %s: error %v, want ErrDisallowed", url, err)
	}
	var d *robotsguard.DisallowedError
	if !errors.As(err, &d) {
		h.t.Fatalf("GET %s: %v is no *DisallowedError", url, err)
	}
	if d.Reason != reason {
		h.t.Fatalf("GET %s: refused for %v (%v), want %v", url, d.Reason, err, reason)
	}
	return d
}

// staticRoundTripper answers every request with the same small response,
// without any I/O, and /robots.txt with robots.
type staticRoundTripper struct{ robots string }

func (s staticRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	body := "ok"
	if req.URL.Path == "/robots.txt" {
		body = s.robots
	}
	return &http.Response{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(body)), Request: req}, nil
}
