package robotsguard_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/robotstest"
)

// blockingPages returns pages that hold every request for a path under /p
// until the test lets it answer: each one is announced on the returned
// channel, and answers when a value is sent on gate. It also counts the
// requests under way at once, at most.
func blockingPages() (pages http.HandlerFunc, arrived <-chan string, gate chan<- struct{}, most *atomic.Int32) {
	arr := make(chan string, 100)
	g := make(chan struct{})
	var inflight atomic.Int32
	most = new(atomic.Int32)
	pages = func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/p") {
			return
		}
		n := inflight.Add(1)
		defer inflight.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		arr <- r.URL.Path
		select {
		case <-g:
		case <-r.Context().Done():
		}
	}
	return pages, arr, g, most
}

// holdPlace sends a request for path (under /p) to s in the background,
// and returns once s holds it: the origin's one place is taken until
// release is called, which waits for the request to end.
func holdPlace(t *testing.T, h *harness, s *robotstest.Origin, arrived <-chan string, gate chan<- struct{}, path string) (release func()) {
	t.Helper()
	errs := make(chan error, 1)
	go func() {
		_, err := h.get(s.URL + path)
		errs <- err
	}()
	<-arrived
	return func() {
		gate <- struct{}{}
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

// TestOneRequestAtATimePerOrigin: eight goroutines crawling one origin
// whose server takes 3 s to answer: one request is under way at a time,
// and each waits the Crawl-delay after the previous response ended.
func TestOneRequestAtATimePerOrigin(t *testing.T) {
	pages, arrived, gate, most := blockingPages()
	h := newHarness(t)
	s := newOrigin(t, h.clock, "User-agent: *\nCrawl-delay: 0.5\n", pages)
	h.allowed(s.URL + "/warm")
	h.sleeps()
	errs := make(chan error, 8)
	for i := range 8 {
		go func() {
			_, err := h.get(fmt.Sprintf("%s/p%d", s.URL, i))
			errs <- err
		}()
	}
	for range 8 {
		<-arrived
		h.clock.Advance(3 * time.Second) // the server takes its time
		gate <- struct{}{}
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if n := most.Load(); n != 1 {
		t.Errorf("%d requests under way at once, want 1", n)
	}
	want := slices.Repeat([]time.Duration{500 * time.Millisecond}, 8)
	if got := h.sleeps(); !slices.Equal(got, want) {
		t.Errorf("pauses %v, want the Crawl-delay after each response, %v", got, want)
	}
}

// TestMaxRequestsPerOrigin: a higher limit lets that many requests go at
// once, still spaced by the interval; a negative one sets none.
func TestMaxRequestsPerOrigin(t *testing.T) {
	for _, tc := range []struct{ limit, want int32 }{{3, 3}, {-1, 6}} {
		t.Run(fmt.Sprint(tc.limit), func(t *testing.T) {
			pages, arrived, gate, most := blockingPages()
			h := newHarness(t, func(tr *robotsguard.Transport) { tr.MaxRequestsPerOrigin = int(tc.limit) })
			s := newOrigin(t, h.clock, "User-agent: *\nCrawl-delay: 1\n", pages)
			errs := make(chan error, 6)
			for i := range 6 {
				go func() {
					_, err := h.get(fmt.Sprintf("%s/p%d", s.URL, i))
					errs <- err
				}()
			}
			for range tc.want {
				<-arrived // that many arrive before any answers
			}
			for range 6 {
				gate <- struct{}{}
			}
			for range 6 {
				if err := <-errs; err != nil {
					t.Error(err)
				}
			}
			if n := most.Load(); n != tc.want {
				t.Errorf("%d requests under way at once, want %d", n, tc.want)
			}
		})
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

// TestPacingErrorWhileQueued: a request queued behind one under way fails
// at once when no place can come before its deadline.
func TestPacingErrorWhileQueued(t *testing.T) {
	pages, arrived, gate, _ := blockingPages()
	h := newHarness(t)
	s := newOrigin(t, h.clock, "User-agent: *\nCrawl-delay: 2\n", pages)
	h.allowed(s.URL + "/warm")
	release := holdPlace(t, h, s, arrived, gate, "/p1")
	now := h.clock.Now()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_, err := h.do(ctx, s.URL+"/p2")
	var pe *robotsguard.PacingError
	if !errors.As(err, &pe) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v, want a *PacingError", err)
	}
	if !pe.NotBefore.Equal(now.Add(2 * time.Second)) {
		t.Errorf("NotBefore %v, want %v: the Crawl-delay after a response that ends now at the earliest", pe.NotBefore, now.Add(2*time.Second))
	}
	release()
	h.allowed(s.URL + "/3") // the place given back
}

// TestPacingErrorBeforeClientTimeout: a request queued behind one that
// does not end gives up an interval before its deadline, while the
// deadline has not passed, so that an http.Client with a Timeout returns
// the *PacingError rather than its own time-out error.
func TestPacingErrorBeforeClientTimeout(t *testing.T) {
	pages, arrived, gate, _ := blockingPages()
	h := newHarness(t)
	s := newOrigin(t, h.clock, "User-agent: *\nCrawl-delay: 0.1\n", pages)
	h.allowed(s.URL + "/warm")
	release := holdPlace(t, h, s, arrived, gate, "/p1")
	client := &http.Client{Transport: h.tr, Timeout: 300 * time.Millisecond}
	_, err := client.Get(s.URL + "/p2") // queued: /p1 holds the place
	var pe *robotsguard.PacingError
	if !errors.As(err, &pe) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err %v, want a *PacingError", err)
	}
	release()
	h.allowed(s.URL + "/3") // the queue is left as it was
}

// TestQueuedPacingErrorWithoutInterval: with no pause between requests,
// a request queued behind one that does not end still gets its
// *PacingError through an http.Client with a Timeout.
func TestQueuedPacingErrorWithoutInterval(t *testing.T) {
	pages, arrived, gate, _ := blockingPages()
	h := newHarness(t) // Delay: -1
	s := newOrigin(t, h.clock, "User-agent: *\nDisallow: /private\n", pages)
	release := holdPlace(t, h, s, arrived, gate, "/p1")
	client := &http.Client{Transport: h.tr, Timeout: 300 * time.Millisecond}
	_, err := client.Get(s.URL + "/p2")
	var pe *robotsguard.PacingError
	if !errors.As(err, &pe) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err %v, want a *PacingError", err)
	}
	release()
}

// TestNoSendAtTheDeadline: a request whose turn would leave it less than a
// moment before its deadline is not sent, to time out on its way: it
// fails with a *PacingError.
func TestNoSendAtTheDeadline(t *testing.T) {
	h := newHarness(t)
	s := h.origin("User-agent: *\nCrawl-delay: 0.5\n")
	h.allowed(s.URL + "/1")
	ctx, cancel := context.WithTimeout(context.Background(), 520*time.Millisecond)
	defer cancel()
	_, err := h.do(ctx, s.URL+"/2")
	var pe *robotsguard.PacingError
	if !errors.As(err, &pe) {
		t.Fatalf("err %v, want a *PacingError", err)
	}
	if got := seen(s); !slices.Equal(got, []string{"/robots.txt", "/1"}) {
		t.Errorf("origin saw %q", got)
	}
}

// TestMaxHold: a request that holds its place past MaxHold while another
// waits loses it.
func TestMaxHold(t *testing.T) {
	lp := &robotsguard.LocalPacer{MaxHold: 10 * time.Millisecond}
	r := robotsguard.PaceRequest{Origin: "https://example.com", Limit: 1}
	first, err := lp.Acquire(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	second, err := lp.Acquire(ctx, r)
	if err != nil {
		t.Fatalf("the second request waited for the first's place until: %v", err)
	}
	first.Release() // too late: nothing to give back
	second.Release()
	third, err := lp.Acquire(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	third.Release()
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

// TestPacingErrorNamesOpenBody: a request that gives up behind a response
// whose body was left open says so, rather than only that the origin
// paces its requests: a body neither read to its end nor closed is the
// common cause.
func TestPacingErrorNamesOpenBody(t *testing.T) {
	o := robotstest.NewOrigin(t, "User-agent: *\nDisallow: /private\n")
	tr := &robotsguard.Transport{UserAgent: "FooBot/1.0", Delay: -1, MinResponseTime: -1, Pacer: &robotsguard.LocalPacer{MaxHold: time.Hour}}
	client := &http.Client{Transport: tr}
	resp, err := client.Get(o.URL + "/a") // its body is left open
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 1200*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, o.URL+"/b", nil)
	_, err = client.Do(req)
	var pe *robotsguard.PacingError
	if !errors.As(err, &pe) || !strings.Contains(pe.Error(), "for a response to it that is not over, until its deadline: context deadline exceeded (a body not read to its end nor closed keeps the origin's place until MaxHold)") {
		t.Errorf("error %v: want a *PacingError that names the response left open", err)
	}
}
