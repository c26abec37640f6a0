package robotsguard_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"time"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/robotstest"
)

// The harness records pauses instead of sleeping, and moves its clock by
// them, so these tests assert the exact pauses between requests.

func TestPacing(t *testing.T) {
	tests := []struct {
		name      string
		robots    string
		configure func(*robotsguard.Transport)
		want      []time.Duration // pauses taken by three requests
	}{
		{"crawl-delay of the agent's group", "User-agent: *\nCrawl-delay: 9\n\nUser-agent: TestBot\nCrawl-delay: 2\n",
			nil, []time.Duration{2 * time.Second, 2 * time.Second}},
		{"fractional crawl-delay", "User-agent: *\nCrawl-delay: 0.5\n", nil, []time.Duration{500 * time.Millisecond, 500 * time.Millisecond}},
		{"request-rate", "User-agent: *\nRequest-rate: 1/5s\n", nil, []time.Duration{5 * time.Second, 5 * time.Second}},
		{"crawl-delay capped by MaxDelay", "User-agent: *\nCrawl-delay: 3600\n",
			func(tr *robotsguard.Transport) { tr.MaxDelay = 10 * time.Second }, []time.Duration{10 * time.Second, 10 * time.Second}},
		{"crawl-delay capped by the default MaxDelay", "User-agent: *\nCrawl-delay: 3600\n",
			nil, []time.Duration{30 * time.Second, 30 * time.Second}},
		{"Delay when the file sets none", "User-agent: *\nDisallow: /x\n",
			func(tr *robotsguard.Transport) { tr.Delay = 3 * time.Second }, []time.Duration{3 * time.Second, 3 * time.Second}},
		{"default Delay", "User-agent: *\nDisallow: /x\n",
			func(tr *robotsguard.Transport) { tr.Delay = 0 }, []time.Duration{time.Second, time.Second}},
		{"negative Delay: no pause", "User-agent: *\nDisallow: /x\n", nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var cfg []func(*robotsguard.Transport)
			if tc.configure != nil {
				cfg = append(cfg, tc.configure)
			}
			h := newHarness(t, cfg...)
			s := h.origin(tc.robots)
			for i := range 3 {
				h.allowed(fmt.Sprintf("%s/p%d", s.URL, i))
			}
			if got := h.sleeps(); !slices.Equal(got, tc.want) {
				t.Errorf("pauses %v, want %v", got, tc.want)
			}
		})
	}
}

// TestWaitOutlivesRules: a request whose wait for its turn outlives the
// robots.txt it was decided by is decided again when its turn comes, as a
// request made then would be: a rule the site added meanwhile refuses it,
// unsent; a file that still allows it lets it go, in the turn it gave
// back while the file was fetched, with no second pause. A file still
// fresh after the wait is not fetched again.
func TestWaitOutlivesRules(t *testing.T) {
	for _, tc := range []struct {
		name    string
		delay   string // the files' Crawl-delay; they live a minute
		rule    string // the second file's
		fetches int
		sent    bool
	}{
		{"rule added", "90", "Disallow: /a", 2, false},
		{"rules kept", "90", "Disallow: /b", 2, true},
		{"fresh", "30", "Disallow: /a", 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, func(tr *robotsguard.Transport) { tr.MaxDelay = 2 * time.Minute })
			s := h.origin("")
			fetches := 0
			s.Fault("/robots.txt", robotstest.Handler(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "max-age=60")
				fetches++
				if fetches == 1 {
					fmt.Fprintf(w, "User-agent: *\nCrawl-delay: %s\n", tc.delay)
					return
				}
				fmt.Fprintf(w, "User-agent: *\nCrawl-delay: %s\n%s\n", tc.delay, tc.rule)
			}))
			h.allowed(s.URL + "/a")
			if tc.sent {
				h.allowed(s.URL + "/a")
			} else {
				h.refused(s.URL+"/a", robotsguard.ReasonRule)
			}
			if got := h.sleeps(); len(got) != 1 {
				t.Errorf("pauses %v, want one, the Crawl-delay", got)
			}
			want := 1
			if tc.sent {
				want = 2
			}
			if n := count(s, "/a"); n != want || s.RobotsFetches() != tc.fetches {
				t.Errorf("the site got /a %d times and robots.txt %d times, want %d and %d", n, s.RobotsFetches(), want, tc.fetches)
			}
		})
	}
}

// TestPacingPerOrigin: origins are paced independently.
func TestPacingPerOrigin(t *testing.T) {
	h := newHarness(t)
	a := h.origin("User-agent: *\nCrawl-delay: 4\n")
	b := h.origin("User-agent: *\nCrawl-delay: 4\n")
	h.allowed(a.URL + "/1")
	h.allowed(b.URL + "/1")
	h.clock.Advance(time.Second)
	h.allowed(a.URL + "/2")
	if got := h.sleeps(); !slices.Equal(got, []time.Duration{3 * time.Second}) {
		t.Errorf("pauses %v, want one of 3s for a's second request", got)
	}
}

func TestBackoffAfter429And503(t *testing.T) {
	var answer []int // statuses to answer, in order; then 200
	var retryAfter string
	var mu sync.Mutex
	h := newHarness(t, func(tr *robotsguard.Transport) { tr.MaxThrottle = time.Minute })
	s := newOrigin(t, h.clock, "User-agent: *\nCrawl-delay: 1\n", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if len(answer) > 0 {
			if retryAfter != "" {
				w.Header().Set("Retry-After", retryAfter)
			}
			w.WriteHeader(answer[0])
			answer = answer[1:]
		}
	})
	set := func(ra string, codes ...int) {
		mu.Lock()
		retryAfter, answer = ra, codes
		mu.Unlock()
	}
	run := func(n int) []time.Duration {
		for i := range n {
			h.allowed(fmt.Sprintf("%s/p%d", s.URL, i))
		}
		return h.sleeps()
	}
	run(1)

	set("7", 429)
	if got := run(2); !slices.Equal(got, []time.Duration{time.Second, 7 * time.Second}) {
		t.Errorf("after a 429 with Retry-After: 7, pauses %v, want [1s 7s]", got)
	}
	set("", 503, 503, 503)
	if got := run(4); !slices.Equal(got, []time.Duration{time.Second, time.Second, 2 * time.Second, 4 * time.Second}) {
		t.Errorf("after three 503s, pauses %v, want doubling [1s 1s 2s 4s]", got)
	}
	if got := run(1); !slices.Equal(got, []time.Duration{time.Second}) {
		t.Errorf("after a success, pause %v, want the crawl-delay again", got)
	}
	set("86400", 429)
	if got := run(2); !slices.Equal(got, []time.Duration{time.Second, time.Minute}) {
		t.Errorf("Retry-After beyond MaxThrottle: pauses %v, want [1s 1m]", got)
	}
	date := h.clock.Now().Add(30 * time.Second).Format(http.TimeFormat)
	set(date, 503)
	if got := run(2); !slices.Equal(got, []time.Duration{time.Second, 29 * time.Second}) {
		t.Errorf("Retry-After as a date 30s ahead: pauses %v, want [1s 29s]", got)
	}
}

// TestPacedRequestAllocs: a cached, allowed request paced by the
// Transport's own pacer allocates once more than the bare transport (its
// place, with the body that ends it), and not at all more without pacing,
// when it carries the Transport's User-Agent; one that carries none is
// sent as a copy that does, which costs two more (the request, its header).
func TestPacedRequestAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip("counts allocations")
	}
	base := staticRoundTripper{"User-agent: *\nDisallow: /private/\n"}
	req, _ := http.NewRequest(http.MethodGet, "http://example.com/articles/1", nil)
	req.Header.Set("User-Agent", "TestBot/1.0")
	anonymous, _ := http.NewRequest(http.MethodGet, "http://example.com/articles/1", nil)
	send := func(rt http.RoundTripper, req *http.Request) {
		resp, err := rt.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	bare := testing.AllocsPerRun(200, func() { send(base, req) })
	allocs := map[string]float64{}
	for _, tc := range []struct {
		name  string
		tr    *robotsguard.Transport
		req   *http.Request
		extra float64
	}{
		{"paced", &robotsguard.Transport{Base: base, UserAgent: "TestBot/1.0", Delay: -1}, req, 1},
		{"unpaced", &robotsguard.Transport{Base: base, UserAgent: "TestBot/1.0", NoPacing: true}, req, 0},
		// Each request waits its turn, a second on the clock.
		{"waited", &robotsguard.Transport{Base: base, UserAgent: "TestBot/1.0", Delay: time.Second, Clock: newAutoClock()}, req, 1},
		{"without a User-Agent", &robotsguard.Transport{Base: base, UserAgent: "TestBot/1.0", NoPacing: true}, anonymous, 2},
	} {
		send(tc.tr, tc.req) // fetch the robots.txt
		n := testing.AllocsPerRun(200, func() { send(tc.tr, tc.req) })
		if n > bare+tc.extra {
			t.Errorf("%s: %v allocations per request, the bare transport %v", tc.name, n, bare)
		}
		allocs[tc.name] = n
	}
	// A WaitEvent that no Observer asked for costs nothing.
	if allocs["waited"] > allocs["paced"] {
		t.Errorf("a request that waited its turn made %v allocations, one that did not %v", allocs["waited"], allocs["paced"])
	}
}

// TestPacingError: a request whose deadline comes before its turn (an
// http.Client's Timeout shorter than the Crawl-delay) fails at once with a
// *PacingError that names the origin and the time a request may go, and
// matches context.DeadlineExceeded, not ErrDisallowed: a scheduler can
// requeue the URL for then.
func TestPacingError(t *testing.T) {
	h := newHarness(t)
	s := h.origin("User-agent: *\nCrawl-delay: 15\n")
	client := &http.Client{Transport: h.tr, Timeout: 10 * time.Second}
	resp, err := client.Get(s.URL + "/1")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	ended := h.clock.Now()
	_, err = client.Get(s.URL + "/2")
	var pe *robotsguard.PacingError
	if !errors.As(err, &pe) {
		t.Fatalf("err %v, want a *PacingError", err)
	}
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, robotsguard.ErrDisallowed) {
		t.Errorf("err %v: want it to match context.DeadlineExceeded and not ErrDisallowed", err)
	}
	if pe.Origin != s.URL || !pe.NotBefore.Equal(ended.Add(15*time.Second)) || pe.Throttled {
		t.Errorf("%+v: want origin %s, NotBefore %v", pe, s.URL, ended.Add(15*time.Second))
	}
	// A person reads how long, not a timestamp: "in 15s".
	if want := "robotsguard: " + s.URL + " paces its requests: the next request may go in 15s, after this request's deadline: context deadline exceeded"; pe.Error() != want || pe.Wait != 15*time.Second {
		t.Errorf("message %q, Wait %v\nwant %q, 15s", pe.Error(), pe.Wait, want)
	}
	if got := h.sleeps(); len(got) != 0 {
		t.Errorf("slept %v before failing", got)
	}
	if got := seen(s); !slices.Equal(got, []string{"/robots.txt", "/1"}) {
		t.Errorf("origin saw %q", got)
	}
}

// TestTurnEndsWithContext: a response whose body is never read nor
// closed ends its turn when its request's context ends.
func TestTurnEndsWithContext(t *testing.T) {
	h := newHarness(t)
	s := h.origin("User-agent: *\nCrawl-delay: 1\n")
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+"/1", nil)
	resp, err := h.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp // body left open
	cancel()
	h.allowed(s.URL + "/2")
	if got := seen(s); !slices.Equal(got, []string{"/robots.txt", "/1", "/2"}) {
		t.Errorf("origin saw %q", got)
	}
}

// TestTurnEndsWithContentLength: a response is over once its whole
// Content-Length is read, even if its body stays open and its reader never
// sees EOF: a crawler that decodes a page and follows its links before it
// closes the body does not wait for its own response.
func TestTurnEndsWithContentLength(t *testing.T) {
	const page = `{"links":["/a","/b"]}`
	h := newHarness(t, func(tr *robotsguard.Transport) {
		tr.Base = roundTripFunc(func(req *http.Request) (*http.Response, error) {
			if req.URL.Path == "/robots.txt" {
				return staticRoundTripper{"User-agent: *\nCrawl-delay: 1\n"}.RoundTrip(req)
			}
			// A body that gives one byte a Read, and EOF only when
			// asked once more.
			body := io.NopCloser(iotest.OneByteReader(strings.NewReader(page)))
			return &http.Response{StatusCode: 200, Header: http.Header{}, Body: body, ContentLength: int64(len(page)), Request: req}, nil
		})
	})
	resp, err := h.client.Get("http://example.com/index.json")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var index struct{ Links []string }
	if err := json.NewDecoder(resp.Body).Decode(&index); err != nil {
		t.Fatal(err)
	}
	for _, l := range index.Links { // the body is still open
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_, err := h.do(ctx, "http://example.com"+l)
		cancel()
		if err != nil {
			t.Fatalf("GET %s while the index's body is open: %v", l, err)
		}
	}
}

// TestNoPacing: one setting turns pacing off: no pause for a Crawl-delay
// or Delay, none after a 429, no limit on requests under way.
func TestNoPacing(t *testing.T) {
	blocking, arrived, gate, most := blockingPages()
	h := newHarness(t, func(tr *robotsguard.Transport) {
		tr.NoPacing = true
		tr.Delay = time.Minute
	})
	s := newOrigin(t, h.clock, "User-agent: *\nCrawl-delay: 5\nDisallow: /private\n", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/busy" {
			w.Header().Set("Retry-After", "100")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		blocking(w, r)
	})
	for i := range 3 {
		h.allowed(fmt.Sprintf("%s/%d", s.URL, i))
	}
	h.allowed(s.URL + "/busy")
	h.allowed(s.URL + "/after")
	h.refused(s.URL+"/private", robotsguard.ReasonRule)
	errs := make(chan error, 2)
	for i := range 2 {
		go func() {
			_, err := h.get(fmt.Sprintf("%s/p%d", s.URL, i))
			errs <- err
		}()
	}
	<-arrived
	<-arrived // both under way before either answers
	gate <- struct{}{}
	gate <- struct{}{}
	for range 2 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if got := h.sleeps(); len(got) != 0 {
		t.Errorf("pauses %v, want none", got)
	}
	if n := most.Load(); n != 2 {
		t.Errorf("%d requests under way at once, want 2", n)
	}
}

// TestMinResponseTime: a request that waited for its turn goes only with
// MinResponseTime left before its deadline, for its response; one whose
// turn comes later fails at once, unsent, with a *PacingError. A request
// that does not wait goes whatever its deadline.
func TestMinResponseTime(t *testing.T) {
	for _, tc := range []struct {
		min  time.Duration
		sent bool
	}{
		{0, false},                      // the default, a second: 4.5 s of wait leaves 0.5 s of 5
		{-1, true},                      // 50 ms
		{200 * time.Millisecond, true},  // 0.5 s left is enough
		{600 * time.Millisecond, false}, // it is not
	} {
		h := newHarness(t, func(tr *robotsguard.Transport) { tr.MinResponseTime = tc.min })
		s := h.origin("User-agent: *\nCrawl-delay: 4.5\n")
		// The first request does not wait: a short deadline is its own.
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		if _, err := h.do(ctx, s.URL+"/1"); err != nil {
			t.Fatalf("MinResponseTime %v: a request that did not wait: %v", tc.min, err)
		}
		cancel()
		ctx, cancel = context.WithTimeout(context.Background(), 5*time.Second)
		_, err := h.do(ctx, s.URL+"/2")
		cancel()
		var pe *robotsguard.PacingError
		switch {
		case tc.sent && err != nil:
			t.Errorf("MinResponseTime %v: %v, want the request sent", tc.min, err)
		case !tc.sent && (!errors.As(err, &pe) || count(s, "/2") != 0):
			t.Errorf("MinResponseTime %v: %v (sent %d times), want a *PacingError, unsent", tc.min, err, count(s, "/2"))
		}
	}
}
