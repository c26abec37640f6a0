package robotsguard_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
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

// TestConcurrentRequestsSpaced: requests to one origin sent at once leave
// one interval apart.
func TestConcurrentRequestsSpaced(t *testing.T) {
	var mu sync.Mutex
	var pauses []time.Duration
	h := newHarness(t, func(tr *robotsguard.Transport) {
		tr.Clock = sleepClock{tr.Clock.(*robotstest.Clock), func(ctx context.Context, d time.Duration) error {
			mu.Lock()
			pauses = append(pauses, d)
			mu.Unlock()
			return nil // the clock stands still: every request is scheduled at the same instant
		}}
	})
	s := h.origin("User-agent: *\nCrawl-delay: 2\n")
	h.allowed(s.URL + "/warm")
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h.allowed(fmt.Sprintf("%s/p%d", s.URL, i))
		}()
	}
	wg.Wait()
	slices.Sort(pauses)
	if want := []time.Duration{2 * time.Second, 4 * time.Second, 6 * time.Second, 8 * time.Second}; !slices.Equal(pauses, want) {
		t.Errorf("pauses %v, want %v", pauses, want)
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
		t.Errorf("Retry-After beyond MaxBackoff: pauses %v, want [1s 1m]", got)
	}
	date := h.clock.Now().Add(30 * time.Second).Format(http.TimeFormat)
	set(date, 503)
	if got := run(2); !slices.Equal(got, []time.Duration{time.Second, 29 * time.Second}) {
		t.Errorf("Retry-After as a date 30s ahead: pauses %v, want [1s 29s]", got)
	}
}

// TestPacingDeadline: a request whose deadline comes before its turn
// fails at once, without sleeping, and gives its turn back.
func TestPacingDeadline(t *testing.T) {
	h := newHarness(t)
	s := h.origin("User-agent: *\nCrawl-delay: 10\n")
	h.allowed(s.URL + "/1")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := h.do(ctx, s.URL+"/2")
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, robotsguard.ErrDisallowed) {
		t.Fatalf("err %v, want context.DeadlineExceeded", err)
	}
	if got := h.sleeps(); len(got) != 0 {
		t.Errorf("slept %v before failing", got)
	}
	h.allowed(s.URL + "/3")
	if got := h.sleeps(); !slices.Equal(got, []time.Duration{10 * time.Second}) {
		t.Errorf("pauses %v: the failed request's turn was not given back", got)
	}
	if got := seen(s); !slices.Equal(got, []string{"/robots.txt", "/1", "/3"}) {
		t.Errorf("origin saw %q", got)
	}
}

// TestPacingCancelled: a request cancelled during its pause returns the
// context's error, unsent.
func TestPacingCancelled(t *testing.T) {
	h := newHarness(t)
	s := h.origin("User-agent: *\nCrawl-delay: 10\n")
	h.allowed(s.URL + "/1")
	h.clock.SetAutoAdvance(false) // the pause holds the request until cancelled
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := h.do(ctx, s.URL+"/2")
		done <- err
	}()
	if err := h.clock.WaitForSleepers(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	if got := seen(s); !slices.Equal(got, []string{"/robots.txt", "/1"}) {
		t.Errorf("origin saw %q", got)
	}
}

// TestPacersEvicted: pacing state of idle origins is dropped, so it does
// not grow with the number of origins crawled, and dropping it changes no
// pause.
func TestPacersEvicted(t *testing.T) {
	h := newHarness(t, func(tr *robotsguard.Transport) {
		tr.Base = staticRoundTripper{"User-agent: *\nCrawl-delay: 2\n"}
	})
	for i := range 5000 {
		h.allowed(fmt.Sprintf("http://host%d.example/", i))
		h.clock.Advance(time.Second)
	}
	if n := robotsguard.Pacers(h.tr); n > 1100 {
		t.Errorf("%d pacers after crawling 5000 origins one after another", n)
	}
	if got := h.sleeps(); len(got) != 0 {
		t.Errorf("pauses %v, want none: each origin was requested once", got)
	}
	// An evicted origin is paced as a new one; a recent one still waits.
	h.allowed("http://host0.example/again")
	h.allowed("http://host4999.example/again")
	if got := h.sleeps(); !slices.Equal(got, []time.Duration{time.Second}) {
		t.Errorf("pauses %v, want 1s for host4999 only", got)
	}
}

// TestBackoffHoldsWaitingRequests: a 429 or 503 answered while other
// requests wait for their turn pushes those back too.
func TestBackoffHoldsWaitingRequests(t *testing.T) {
	// Two requests under way at once: a waits for its pause while b goes.
	var calls atomic.Int32
	sleeping := make(chan struct{}) // closed when a starts its pause
	release := make(chan struct{})
	free := sync.OnceFunc(func() { close(release) })
	t.Cleanup(free)
	var mu sync.Mutex
	var pauses []time.Duration
	h := newHarness(t, func(tr *robotsguard.Transport) {
		tr.MaxRequestsPerOrigin = 2
		clock := tr.Clock.(*robotstest.Clock)
		tr.Clock = sleepClock{clock, func(ctx context.Context, d time.Duration) error {
			mu.Lock()
			pauses = append(pauses, d)
			mu.Unlock()
			if calls.Add(1) == 1 {
				close(sleeping)
				<-release // request a waits here while b goes out
				return nil
			}
			clock.Advance(d)
			return nil
		}}
	})
	s := newOrigin(t, h.clock, "User-agent: *\nCrawl-delay: 1\n", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/b" {
			w.Header().Set("Retry-After", "10")
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	})
	h.allowed(s.URL + "/warm")
	start := h.clock.Now()
	done := make(chan error, 1)
	go func() {
		_, err := h.get(s.URL + "/a")
		done <- err
	}()
	select {
	case <-sleeping:
	case err := <-done:
		t.Fatalf("a returned without a pause: %v", err)
	}
	h.allowed(s.URL + "/b") // waits 2s, then gets the 503
	free()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	got := pauses
	mu.Unlock()
	if !slices.Equal(got, []time.Duration{time.Second, 2 * time.Second, 10 * time.Second}) {
		t.Errorf("pauses %v, want a's 1s, b's 2s, then a held for the 10s back-off", got)
	}
	if got := seen(s); !slices.Equal(got, []string{"/robots.txt", "/warm", "/b", "/a"}) {
		t.Errorf("origin saw %q", got)
	}
	if at := h.clock.Now().Sub(start); at != 12*time.Second {
		t.Errorf("a went out %v after the start, want 12s: b's slot at 2s plus 10s", at)
	}
}

// TestPacerFarTimes: a back-off to the far future holds every request
// (none wraps round to go at once), and a Clock that goes back before
// its first reading still paces.
func TestPacerFarTimes(t *testing.T) {
	c := &rewoundClock{Clock: newAutoClock()}
	lp := &robotsguard.LocalPacer{Clock: c}
	r := robotsguard.PaceRequest{Origin: "https://example.com", Interval: time.Second, Limit: 1}
	lp.Throttle(context.Background(), r.Origin, math.MaxInt64)
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	for range 2 {
		_, err := lp.Acquire(ctx, r)
		var pe *robotsguard.PacingError
		if !errors.As(err, &pe) || !pe.Throttled || pe.NotBefore.Before(c.Now().AddDate(200, 0, 0)) {
			t.Fatalf("a request during a back-off to year 9999: %v", err)
		}
	}

	c = &rewoundClock{Clock: newAutoClock()}
	lp = &robotsguard.LocalPacer{Clock: c}
	r.Origin = "https://example.org"
	turn, err := lp.Acquire(ctx, r)
	if err != nil || turn.Waited != 0 {
		t.Fatalf("first request: waited %v, %v", turn.Waited, err)
	}
	turn.Release()
	c.back.Store(int64(100 * 365 * 24 * time.Hour)) // a century before the pacer's first reading
	if turn, err = lp.Acquire(context.Background(), r); err != nil || turn.Waited < 100*365*24*time.Hour {
		t.Fatalf("a request a century before the previous one waited %v, %v", turn.Waited, err)
	}
}

// rewoundClock is a robotstest.Clock read as far back as back says: a
// robotstest.Clock never goes back, as a clock should not, and
// TestPacerFarTimes shows what the pacer does with one that does.
type rewoundClock struct {
	*robotstest.Clock
	back atomic.Int64 // a time.Duration
}

func (c *rewoundClock) Now() time.Time { return c.Clock.Now().Add(-time.Duration(c.back.Load())) }

// sleepClock is a robotstest.Clock whose Sleep is the test's own, for the
// pauses that a fake clock does not take by itself: a pause that leaves
// the clock where it is, or one held while another request goes out.
type sleepClock struct {
	*robotstest.Clock
	sleep func(ctx context.Context, d time.Duration) error
}

func (c sleepClock) Sleep(ctx context.Context, d time.Duration) error { return c.sleep(ctx, d) }

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
