package robotsguard_test

// What the tests of the package share, and robotstest must not offer:
//
//   - harness: a Transport set up as these tests want it, with the retry
//     waits of robots.txt fetches shortened through a hook of the
//     package's own tests (SetRetryWait, export_test.go), which no user
//     has; and assertions on the Transport's own verdicts (allowed,
//     refused for a Reason; robotsOf, its Snapshot), which are
//     robotsguard's business, not a test site's. Its time is a
//     robotstest.Clock, and its sites (origin, newOrigin) are
//     robotstest.Origins on that Clock.
//   - overruled: the testing.TB of an Origin whose verdicts a test
//     overrules, asserting its Disallowed list instead. A test kit whose
//     point is to fail the test on a disallowed request must not offer a
//     way to keep it quiet.
//   - seen, count and lastRobots: what these tests ask of an Origin's
//     record, in a line, over Origin.Requests.
//   - Bases that answer without a network (staticRoundTripper,
//     roundTripFunc, countingRoundTripper): for allocation counts, and
//     for origins by the thousand or by any host name, which no local
//     server gives.

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/robotstest"
)

// harnessStart is when a harness's clock starts.
var harnessStart = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// newAutoClock returns a robotstest.Clock that reads harnessStart, and
// whose sleeps move it and return at once.
func newAutoClock() *robotstest.Clock {
	c := robotstest.NewClock(harnessStart)
	c.SetAutoAdvance(true)
	return c
}

// harness is a Transport on a robotstest.Clock whose pauses move the
// clock instead of sleeping, and are recorded.
type harness struct {
	t      *testing.T
	clock  *robotstest.Clock
	tr     *robotsguard.Transport
	client *http.Client

	mu    sync.Mutex
	taken int // the clock's sleeps that sleeps has returned
}

func newHarness(t *testing.T, configure ...func(*robotsguard.Transport)) *harness {
	h := &harness{t: t, clock: newAutoClock()}
	base := &http.Transport{}
	t.Cleanup(base.CloseIdleConnections)
	h.tr = &robotsguard.Transport{
		Base:      base,
		UserAgent: "TestBot/1.0 (+https://example.com/bot)",
		Clock:     h.clock,
		Delay:     -1,
	}
	robotsguard.SetRetryWait(h.tr, time.Millisecond, 5*time.Millisecond)
	for _, c := range configure {
		c(h.tr)
	}
	h.client = &http.Client{Transport: h.tr}
	return h
}

// origin starts a robotstest.Origin on h's clock (see newOrigin) that
// serves robots as its robots.txt.
func (h *harness) origin(robots string) *robotstest.Origin {
	h.t.Helper()
	return newOrigin(h.t, h.clock, robots, nil)
}

// newOrigin starts a robotstest.Origin that serves robots as its
// robots.txt, and pages (when not nil) at every other path, on clock: the
// Date of its answers, and so the age of what a Transport on clock gets
// from it, and the Time of its record keep that Transport's time. It fails
// the test, at the line of the test that called newOrigin (or a helper
// that did), on every request that its robots.txt disallows.
func newOrigin(t testing.TB, clock *robotstest.Clock, robots string, pages http.HandlerFunc) *robotstest.Origin {
	t.Helper()
	o := robotstest.NewUnstartedOrigin(t, robots)
	o.Clock = clock
	if pages != nil {
		o.Handler = pages
	}
	o.Start()
	return o
}

// sleeps returns the pauses taken since it was last called.
func (h *harness) sleeps() []time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	all := h.clock.Sleeps()
	s := all[h.taken:]
	h.taken = len(all)
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

// robotsOf returns the Snapshot of the origin at rawURL.
func robotsOf(t *testing.T, h *harness, rawURL string) *robotsguard.Snapshot {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	s, err := h.tr.Snapshot(context.Background(), u)
	if err != nil {
		t.Fatalf("Robots(%s): %v", rawURL, err)
	}
	return s
}

// overruled is the testing.TB of an Origin whose verdicts the test
// overrules: for a request that the Transport sends on grounds the Origin
// does not see (ACAP records that permit what a conventional rule
// disallows, a file another process put in the Store), the Origin, which
// judges by what its agent fetched and RFC 9309, would fail the test. It
// fails nothing through an overruled TB; the test asserts its Disallowed
// list, which names such requests, instead.
type overruled struct{ *testing.T }

func (overruled) Fail()                 {}
func (overruled) Errorf(string, ...any) {}
func (overruled) Logf(string, ...any)   {}

// seen returns the request URIs the Origin received, in order.
func seen(o *robotstest.Origin) []string { return uris(o.Requests()) }

// uris returns the request URIs of rs.
func uris(rs []robotstest.Request) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.URL)
	}
	return out
}

// count returns how many requests for uri (a path and its query) the
// Origin received.
func count(o *robotstest.Origin, uri string) int {
	n := 0
	for _, u := range seen(o) {
		if u == uri {
			n++
		}
	}
	return n
}

// lastRobots returns the last robots.txt request the Origin received.
func lastRobots(t *testing.T, o *robotstest.Origin) robotstest.Request {
	t.Helper()
	rs := o.Requests()
	for i := len(rs) - 1; i >= 0; i-- {
		if u, _, _ := strings.Cut(rs[i].URL, "?"); u == "/robots.txt" {
			return rs[i]
		}
	}
	t.Fatal("no robots.txt request")
	return robotstest.Request{}
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

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// countingRoundTripper is a staticRoundTripper that counts robots.txt
// requests by host.
type countingRoundTripper struct {
	robots string
	mu     sync.Mutex
	counts map[string]int
}

func (c *countingRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Path == "/robots.txt" {
		c.mu.Lock()
		if c.counts == nil {
			c.counts = map[string]int{}
		}
		c.counts[req.URL.Host]++
		c.mu.Unlock()
	}
	return staticRoundTripper{c.robots}.RoundTrip(req)
}

func (c *countingRoundTripper) robotsFetches(host string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.counts[host]
}
