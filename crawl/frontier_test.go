package crawl_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/crawl"
	"github.com/robotsguard/robotsguard/robotstest"
)

// sites is a Base that serves many origins in process: each host's
// robots.txt from robots (404 when it has none), and a page for every
// other path, recording when (on clock) each page was asked for.
type sites struct {
	clock  *robotstest.Clock
	robots map[string]string
	status map[string]int // a page's status by path; 200 when absent
	header http.Header    // sent with each page
	// down holds the hosts whose robots.txt answers 503 until a time
	// (on clock), and counts the fetches of theirs that failed.
	down     map[string]time.Time
	failures map[string]int

	mu    sync.Mutex
	hits  []hit
	waits []robotsguard.WaitEvent // the Transport's pauses
}

type hit struct {
	host, path string
	at         time.Duration // since start
}

var start = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

func (s *sites) RoundTrip(req *http.Request) (*http.Response, error) {
	resp := &http.Response{StatusCode: http.StatusOK, Header: http.Header{}, Request: req, Body: io.NopCloser(strings.NewReader("page"))}
	if req.URL.Path == "/robots.txt" {
		s.mu.Lock()
		until, down := s.down[req.URL.Host]
		if down = down && s.clock.Now().Before(until); down {
			s.failures[req.URL.Host]++
		}
		s.mu.Unlock()
		if down {
			resp.StatusCode = http.StatusServiceUnavailable
			return resp, nil
		}
		r, ok := s.robots[req.URL.Host]
		if !ok {
			resp.StatusCode = http.StatusNotFound
		}
		resp.Body = io.NopCloser(strings.NewReader(r))
		return resp, nil
	}
	s.mu.Lock()
	s.hits = append(s.hits, hit{req.URL.Host, req.URL.Path, s.clock.Now().Sub(start)})
	s.mu.Unlock()
	if c, ok := s.status[req.URL.Path]; ok {
		resp.StatusCode = c
	}
	for k, v := range s.header {
		resp.Header[k] = v
	}
	return resp, nil
}

// times returns when each host's pages were asked for.
func (s *sites) times() map[string][]time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := map[string][]time.Duration{}
	for _, h := range s.hits {
		m[h.host] = append(m[h.host], h.at)
	}
	return m
}

// setup returns a Frontier over a Transport on a fake clock that sends
// to sites serving robots (host to robots.txt), which record the pauses
// the Transport takes.
func setup(robots map[string]string) (*crawl.Frontier, *robotsguard.Transport, *robotstest.Clock, *sites) {
	clock := robotstest.NewClock(start)
	s := &sites{clock: clock, robots: robots, down: map[string]time.Time{}, failures: map[string]int{}}
	t := &robotsguard.Transport{Base: s, UserAgent: "FooBot/1.0", Clock: clock, Observer: &robotsguard.Observer{
		Waited: func(e robotsguard.WaitEvent) {
			s.mu.Lock()
			s.waits = append(s.waits, e)
			s.mu.Unlock()
		},
	}}
	return &crawl.Frontier{Transport: t}, t, clock, s
}

// tryNext is Next that does not wait: a URL whose turn has come, or an
// error.
func tryNext(f *crawl.Frontier) (crawl.Item, error) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return f.Next(ctx)
}

func siteOrder(hosts []string, pages int) []string {
	var urls []string
	for _, h := range hosts {
		for p := range pages {
			urls = append(urls, fmt.Sprintf("http://%s/p%d", h, p))
		}
	}
	return urls
}

// fakeTimers are the Frontier's timers in a test: each waits for the
// clock to reach its time, and the test moves the clock (step).
type fakeTimers struct {
	clock   *robotstest.Clock
	mu      sync.Mutex
	waiting map[chan struct{}]time.Time
	changed chan struct{} // receives when a timer starts waiting
}

func newFakeTimers(c *robotstest.Clock) *fakeTimers {
	return &fakeTimers{clock: c, waiting: map[chan struct{}]time.Time{}, changed: make(chan struct{}, 1)}
}

func (ft *fakeTimers) sleepTill(ctx context.Context, at time.Time) error {
	ch := make(chan struct{})
	ft.mu.Lock()
	if !at.After(ft.clock.Now()) {
		ft.mu.Unlock()
		return nil
	}
	ft.waiting[ch] = at
	ft.mu.Unlock()
	select {
	case ft.changed <- struct{}{}:
	default:
	}
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		ft.mu.Lock()
		delete(ft.waiting, ch)
		ft.mu.Unlock()
		return ctx.Err()
	}
}

// advanceTo moves the clock to at once a timer waits for at, and wakes the
// timers due.
func (ft *fakeTimers) advanceTo(t *testing.T, at time.Time) {
	for {
		ft.mu.Lock()
		found := false
		for _, w := range ft.waiting {
			found = found || w.Equal(at)
		}
		if found {
			ft.clock.Advance(at.Sub(ft.clock.Now()))
			for ch, w := range ft.waiting {
				if !w.After(at) {
					close(ch)
					delete(ft.waiting, ch)
				}
			}
			ft.mu.Unlock()
			return
		}
		ft.mu.Unlock()
		select {
		case <-ft.changed:
		case <-time.After(10 * time.Second):
			t.Fatalf("no timer waits for %v", at.Sub(start))
		}
	}
}

// runCrawl runs f with workers until it is over, moving the clock from
// one turn to the next each time every worker waits in Next.
func runCrawl(t *testing.T, f *crawl.Frontier, clock *robotstest.Clock, client *http.Client, workers int, fn func(context.Context, crawl.Item, *http.Response, error) error) error {
	t.Helper()
	ft := newFakeTimers(clock)
	f.SleepTill(ft.sleepTill)
	quiet := make(chan struct{}, 1)
	f.OnWait(func(n int) {
		if n == workers {
			select {
			case quiet <- struct{}{}:
			default:
			}
		}
	})
	done := make(chan error, 1)
	go func() { done <- f.Run(context.Background(), client, workers, fn) }()
	for {
		select {
		case err := <-done:
			return err
		case <-quiet:
			if at := f.TimerAt(); !at.IsZero() {
				ft.advanceTo(t, at)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("the crawl is stuck: %+v", f.Stats())
		}
	}
}

func ok(context.Context, crawl.Item, *http.Response, error) error { return nil }

// The stall: 8 workers, 3 sites with a Crawl-delay of 2 s, the
// URLs in site order. Every site is asked at once, and then every 2 s,
// and no request waits inside the Transport: the crawl takes the time of
// one site's pages, not of all three in a row.
func TestSiteOrderNoStall(t *testing.T) {
	hosts := []string{"a.test", "b.test", "c.test"}
	robots := map[string]string{}
	for _, h := range hosts {
		robots[h] = "User-agent: *\nCrawl-delay: 2\n"
	}
	f, tr, clock, s := setup(robots)
	const pages = 5
	for _, u := range siteOrder(hosts, pages) {
		if err := f.Add(context.Background(), u); err != nil {
			t.Fatal(err)
		}
	}
	if err := runCrawl(t, f, clock, &http.Client{Transport: tr}, 8, ok); err != nil {
		t.Fatal(err)
	}
	want := []time.Duration{0, 2 * time.Second, 4 * time.Second, 6 * time.Second, 8 * time.Second}
	for _, h := range hosts {
		if got := s.times()[h]; !slices.Equal(got, want) {
			t.Errorf("%s asked at %v, want %v", h, got, want)
		}
	}
	if len(s.waits) > 0 {
		t.Errorf("%d requests waited in the Transport, first %+v", len(s.waits), s.waits[0])
	}
	if st := f.Stats(); st.Done != 3*pages || st.Queued != 0 || st.InFlight != 0 {
		t.Errorf("Stats %+v", st)
	}
}

// Next gives the URL of the origin whose turn comes first, and of those
// whose turns have come, of the one with most work left: a (3 URLs, a
// Crawl-delay of 3 s) before b (3 URLs, 1 s) though b's came first; then
// b, whose turns come sooner, twice.
func TestNextSoonestOrigin(t *testing.T) {
	f, _, clock, _ := setup(map[string]string{
		"a.test": "User-agent: *\nCrawl-delay: 3\n", "b.test": "User-agent: *\nCrawl-delay: 1\n",
	})
	for _, u := range siteOrder([]string{"b.test", "a.test"}, 3) {
		if err := f.Add(context.Background(), u); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for range 6 {
		it, err := tryNext(f)
		for err != nil {
			clock.Advance(time.Second)
			it, err = tryNext(f)
		}
		got = append(got, fmt.Sprintf("%s@%v", strings.TrimPrefix(it.URL, "http://"), clock.Now().Sub(start)))
		f.Done(it, &http.Response{StatusCode: 200}, nil)
	}
	want := []string{"a.test/p0@0s", "b.test/p0@0s", "b.test/p1@1s", "b.test/p2@2s", "a.test/p1@3s", "a.test/p2@6s"}
	if !slices.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
}

// With MaxRequestsPerOrigin 2, no more than two URLs of an origin are in
// flight: the third goes to the next origin.
func TestPlacesPerOrigin(t *testing.T) {
	f, tr, _, _ := setup(map[string]string{})
	tr.MaxRequestsPerOrigin, tr.Delay = 2, -1
	for _, u := range append(siteOrder([]string{"a.test"}, 4), "http://b.test/p0") {
		if err := f.Add(context.Background(), u); err != nil {
			t.Fatal(err)
		}
	}
	var items []crawl.Item
	for {
		it, err := tryNext(f)
		if err != nil {
			break
		}
		items = append(items, it)
	}
	var got []string
	for _, it := range items {
		got = append(got, it.URL)
	}
	if want := []string{"http://a.test/p0", "http://a.test/p1", "http://b.test/p0"}; !slices.Equal(got, want) {
		t.Fatalf("handed out %v, want %v", got, want)
	}
	f.Done(items[0], &http.Response{StatusCode: 200}, nil)
	if it, err := tryNext(f); err != nil || it.URL != "http://a.test/p2" {
		t.Errorf("after one is done: %q, %v; want a.test/p2", it.URL, err)
	}
}

// A URL whose request could not go in time is queued again, first of its
// origin's, and handed out at the PacingError's NotBefore.
func TestRequeuePacingError(t *testing.T) {
	f, _, clock, _ := setup(map[string]string{"a.test": "User-agent: *\nCrawl-delay: 1\n"})
	for _, u := range siteOrder([]string{"a.test"}, 2) {
		f.Add(context.Background(), u)
	}
	it, err := tryNext(f)
	if err != nil {
		t.Fatal(err)
	}
	pe := &robotsguard.PacingError{Origin: "http://a.test", NotBefore: start.Add(5 * time.Second), Err: context.DeadlineExceeded}
	f.Done(it, nil, fmt.Errorf("Get %q: %w", it.URL, pe))
	clock.Advance(4 * time.Second)
	if it, err := tryNext(f); err == nil {
		t.Fatalf("%s handed out before NotBefore", it.URL)
	}
	clock.Advance(time.Second)
	again, err := tryNext(f)
	if err != nil || again.URL != it.URL || again.Tries != 1 {
		t.Fatalf("at NotBefore: %+v, %v; want %s again, Tries 1", again, err, it.URL)
	}
	if st := f.Stats(); st.Requeued != 1 || st.Done != 0 || st.InFlight != 1 || st.Queued != 1 {
		t.Errorf("Stats %+v", st)
	}
}

// A 429 with Retry-After holds the origin's next URL for that long; one
// without doubles the pause from a second.
func TestThrottle(t *testing.T) {
	f, tr, clock, _ := setup(map[string]string{})
	tr.Delay = -1
	for _, u := range siteOrder([]string{"a.test"}, 5) {
		f.Add(context.Background(), u)
	}
	for _, tc := range []struct {
		header http.Header
		wait   time.Duration
	}{
		{http.Header{"Retry-After": {"7"}}, 7 * time.Second},
		{nil, 2 * time.Second}, // the second in a row: 1 s doubled
		{http.Header{"Retry-After": {start.Add(5 * time.Minute).Format(http.TimeFormat)}}, 0}, // a date: until then
		{http.Header{"Retry-After": {"3600"}}, robotsguard.DefaultMaxThrottle},                // capped
	} {
		it, err := tryNext(f)
		if err != nil {
			t.Fatal(err)
		}
		at := clock.Now()
		f.Done(it, &http.Response{StatusCode: http.StatusTooManyRequests, Header: tc.header}, nil)
		wait := tc.wait
		if wait == 0 {
			wait = start.Add(5 * time.Minute).Sub(at)
		}
		clock.Advance(wait - time.Millisecond)
		if it, err := tryNext(f); err == nil {
			t.Fatalf("%s handed out %v after a 429, want %v", it.URL, wait-time.Millisecond, wait)
		}
		clock.Advance(time.Millisecond)
	}
}

// peeker is a Pacer that is a Peeker: it says every origin waits wait.
type peeker struct {
	robotsguard.LocalPacer
	wait time.Duration
}

func (p *peeker) Peek(context.Context, string) (time.Duration, error) { return p.wait, nil }

// A Pacer that is a Peeker is asked after each response: the turn it
// tells (another process's request, say) holds the origin's next URL.
func TestPeeker(t *testing.T) {
	f, tr, clock, _ := setup(map[string]string{"a.test": "User-agent: *\nCrawl-delay: 1\n"})
	tr.Pacer = &peeker{LocalPacer: robotsguard.LocalPacer{Clock: clock}, wait: 4 * time.Second}
	for _, u := range siteOrder([]string{"a.test"}, 2) {
		f.Add(context.Background(), u)
	}
	it, _ := tryNext(f)
	f.Done(it, &http.Response{StatusCode: 200}, nil)
	clock.Advance(3 * time.Second) // past the Crawl-delay, not the Peeker's turn
	if it, err := tryNext(f); err == nil {
		t.Fatalf("%s handed out before the Peeker's turn", it.URL)
	}
	clock.Advance(time.Second)
	if _, err := tryNext(f); err != nil {
		t.Fatalf("at the Peeker's turn: %v", err)
	}
}

// Disallowed URLs are not queued: Add says why.
func TestAddDisallowed(t *testing.T) {
	f, _, _, _ := setup(map[string]string{"a.test": "User-agent: *\nDisallow: /private/\n"})
	ctx := context.Background()
	if err := f.Add(ctx, "http://a.test/private/x"); !errors.Is(err, robotsguard.ErrDisallowed) {
		t.Errorf("Add of a disallowed URL: %v, want ErrDisallowed", err)
	}
	if err := f.Add(ctx, "mailto:a@a.test"); !errors.Is(err, robotsguard.ErrUnsupportedURL) {
		t.Errorf("Add of a mailto URL: %v, want ErrUnsupportedURL", err)
	}
	if err := f.Add(ctx, "http://a.test/"+strings.Repeat("x", crawl.MaxURLLength)); !errors.Is(err, crawl.ErrURLTooLong) {
		t.Errorf("Add of a long URL: %v, want ErrURLTooLong", err)
	}
	if err := f.Add(ctx, "http://a.test/public"); err != nil {
		t.Errorf("Add of an allowed URL: %v", err)
	}
	if st := f.Stats(); st.Queued != 1 || st.Refused != 3 || st.Added != 1 {
		t.Errorf("Stats %+v", st)
	}
	it, _ := tryNext(f)
	if it.URL != "http://a.test/public" {
		t.Errorf("handed out %q", it.URL)
	}
}

// Past MaxQueued URLs queued or in flight, Add fails with ErrFull; a URL
// done makes room.
func TestFull(t *testing.T) {
	f, _, _, _ := setup(map[string]string{})
	f.MaxQueued = 3
	urls := siteOrder([]string{"a.test", "b.test"}, 2)
	for _, u := range urls[:3] {
		if err := f.Add(context.Background(), u); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Add(context.Background(), urls[3]); !errors.Is(err, crawl.ErrFull) {
		t.Fatalf("Add past MaxQueued: %v, want ErrFull", err)
	}
	it, _ := tryNext(f)
	if err := f.Add(context.Background(), urls[3]); !errors.Is(err, crawl.ErrFull) {
		t.Fatalf("Add with one in flight: %v, want ErrFull", err)
	}
	f.Done(it, &http.Response{StatusCode: 200}, nil)
	if err := f.Add(context.Background(), urls[3]); err != nil {
		t.Fatalf("Add after one was done: %v", err)
	}
}

// The state of origins with nothing queued or in flight is dropped once
// their turn has come: a crawl of many origins keeps the ones in use.
func TestIdleOriginsDropped(t *testing.T) {
	f, _, clock, _ := setup(map[string]string{})
	for i := range 100 {
		f.Add(context.Background(), fmt.Sprintf("http://o%d.test/", i))
	}
	for range 100 {
		it, err := tryNext(f)
		if err != nil {
			t.Fatal(err)
		}
		f.Done(it, &http.Response{StatusCode: 200}, nil)
	}
	if n := f.Stats().Origins; n < 50 {
		t.Fatalf("%d origins held before their turns came", n)
	}
	clock.Advance(robotsguard.DefaultDelay)
	for range 30 {
		f.Add(context.Background(), "http://busy.test/")
		it, _ := tryNext(f)
		f.Done(it, &http.Response{StatusCode: 200}, nil)
		clock.Advance(robotsguard.DefaultDelay)
	}
	if n := f.Stats().Origins; n > 1 {
		t.Errorf("%d origins held, want 1 (busy.test)", n)
	}
}

// Next waits for a turn, and stops when its context ends, the URL kept;
// a worker waiting when the last URL is done gets ErrEmpty.
func TestNextWaits(t *testing.T) {
	f, _, clock, _ := setup(map[string]string{})
	ft := newFakeTimers(clock)
	f.SleepTill(ft.sleepTill)
	waiting := make(chan struct{}, 1)
	f.OnWait(func(int) { waiting <- struct{}{} })
	for _, u := range siteOrder([]string{"a.test"}, 3) {
		f.Add(context.Background(), u)
	}
	next := func(ctx context.Context) <-chan error {
		res := make(chan error, 1)
		go func() {
			it, err := f.Next(ctx)
			if err == nil {
				f.Done(it, &http.Response{StatusCode: 200}, nil)
			}
			res <- err
		}()
		<-waiting
		return res
	}
	first, _ := tryNext(f)
	f.Done(first, &http.Response{StatusCode: 200}, nil)

	res := next(context.Background())
	ft.advanceTo(t, start.Add(robotsguard.DefaultDelay))
	if err := <-res; err != nil {
		t.Fatalf("Next at the turn: %v", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	res = next(ctx)
	cancel()
	if err := <-res; !errors.Is(err, context.Canceled) {
		t.Fatalf("Next after cancel: %v", err)
	}
	if st := f.Stats(); st.Queued != 1 {
		t.Fatalf("the URL was lost: %+v", st)
	}

	clock.Advance(robotsguard.DefaultDelay)
	last, err := tryNext(f)
	if err != nil {
		t.Fatal(err)
	}
	res = next(context.Background())
	f.Done(last, &http.Response{StatusCode: 200}, nil)
	if err := <-res; !errors.Is(err, crawl.ErrEmpty) {
		t.Fatalf("Next when the last URL is done: %v, want ErrEmpty", err)
	}
}

// Run hands fn each response, requeues pacing errors unseen, and goes on
// while fn adds links; fn's error ends it.
func TestRun(t *testing.T) {
	f, tr, clock, _ := setup(map[string]string{"a.test": "User-agent: *\nDisallow: /no\n"})
	tr.Delay = -1
	f.Add(context.Background(), "http://a.test/0")
	var mu sync.Mutex
	var seen []string
	fn := func(ctx context.Context, it crawl.Item, resp *http.Response, err error) error {
		if err != nil {
			return err
		}
		mu.Lock()
		seen = append(seen, it.URL)
		mu.Unlock()
		var n int
		fmt.Sscanf(it.URL, "http://a.test/%d", &n)
		if n < 5 {
			f.Add(ctx, fmt.Sprintf("http://a.test/%d", n+1))
			f.Add(ctx, "http://a.test/no") // dropped
		}
		return nil
	}
	if err := runCrawl(t, f, clock, &http.Client{Transport: tr}, 3, fn); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 6 {
		t.Errorf("fn saw %v, want /0 to /5", seen)
	}
	stop := errors.New("stop")
	f.Add(context.Background(), "http://a.test/9")
	err := runCrawl(t, f, clock, &http.Client{Transport: tr}, 3, func(context.Context, crawl.Item, *http.Response, error) error { return stop })
	if !errors.Is(err, stop) {
		t.Errorf("Run: %v, want fn's error", err)
	}
}

// An origin's interval counts from when a request is handed out, and
// from when it is Done: with two places and a Crawl-delay of 2 s, the
// second URL waits 2 s though a place is free, and after a response that
// took 1.5 s, the next waits 2 s from its end.
func TestIntervalFromStartAndEnd(t *testing.T) {
	f, tr, clock, _ := setup(map[string]string{"a.test": "User-agent: *\nCrawl-delay: 2\n"})
	tr.MaxRequestsPerOrigin = 2
	for _, u := range siteOrder([]string{"a.test"}, 3) {
		f.Add(context.Background(), u)
	}
	first, _ := tryNext(f)
	clock.Advance(2*time.Second - time.Millisecond)
	if it, err := tryNext(f); err == nil {
		t.Fatalf("%s handed out within the interval of the first", it.URL)
	}
	clock.Advance(time.Millisecond)
	second, err := tryNext(f)
	if err != nil {
		t.Fatalf("an interval after the first: %v", err)
	}
	f.Done(first, &http.Response{StatusCode: 200}, nil)
	clock.Advance(1500 * time.Millisecond) // the second response is slow
	f.Done(second, &http.Response{StatusCode: 200}, nil)
	clock.Advance(2*time.Second - time.Millisecond)
	if it, err := tryNext(f); err == nil {
		t.Fatalf("%s handed out within the interval of the end of a response", it.URL)
	}
	clock.Advance(time.Millisecond)
	if _, err := tryNext(f); err != nil {
		t.Fatalf("an interval after the end: %v", err)
	}
}

// A URL refused because its origin's robots.txt could not be fetched (a
// transient refusal) is not dropped: Add queues it, and Done queues it
// again, for the refusal's NotBefore, when the Transport fetches the file
// again; once the file is read, the URL is sent.
func TestTransientRefusalWaits(t *testing.T) {
	f, tr, clock, s := setup(map[string]string{"down.test": "User-agent: *\nDisallow: /private\n"})
	tr.Delay = -1                                    // the Transport sleeps no pause on the test's clock
	tr.RetryMax = -1                                 // a failed fetch is one request
	s.down["down.test"] = start.Add(2 * time.Minute) // two failed fetches: now, and a minute later
	ctx := context.Background()
	for _, u := range []string{"http://down.test/a", "http://down.test/b"} {
		if err := f.Add(ctx, u); err != nil {
			t.Fatalf("Add(%s) while the robots.txt is down: %v, want it queued", u, err)
		}
	}
	if st := f.Stats(); st.Queued != 2 || st.Deferred != 2 || st.Refused != 0 {
		t.Errorf("Stats after Add %+v", st)
	}
	if it, err := tryNext(f); err == nil {
		t.Fatalf("%s handed out while the robots.txt is backed off from", it.URL)
	}
	client := &http.Client{Transport: tr}
	send := func(it crawl.Item) (*http.Response, error) {
		resp, err := client.Get(it.URL)
		if resp != nil {
			resp.Body.Close()
		}
		return resp, err
	}
	clock.Advance(time.Minute) // the back-off after the first failure
	it, err := tryNext(f)
	if err != nil || it.URL != "http://down.test/a" {
		t.Fatalf("after the back-off: %+v, %v; want /a", it, err)
	}
	resp, err := send(it)
	var d *robotsguard.DisallowedError
	if !errors.As(err, &d) || d.Reason != robotsguard.ReasonUnreachable {
		t.Fatalf("sent while the robots.txt is down: %v, want a refusal, ReasonUnreachable", err)
	}
	f.Done(it, resp, err)
	if st := f.Stats(); st.Requeued != 1 || st.Done != 0 || st.Queued != 2 {
		t.Errorf("Stats after the second failure %+v", st)
	}
	clock.Advance(d.NotBefore.Sub(clock.Now()) - time.Millisecond)
	if it, err := tryNext(f); err == nil {
		t.Fatalf("%s handed out before the refusal's NotBefore", it.URL)
	}
	clock.Advance(time.Millisecond) // the file is back
	for _, want := range []string{"http://down.test/a", "http://down.test/b"} {
		it, err := tryNext(f)
		for err != nil && clock.Now().Before(start.Add(time.Hour)) {
			clock.Advance(time.Second) // the origin's interval
			it, err = tryNext(f)
		}
		if err != nil || it.URL != want {
			t.Fatalf("once the robots.txt is back: %+v, %v; want %s", it, err, want)
		}
		resp, err := send(it)
		if err != nil {
			t.Fatalf("%s: %v", it.URL, err)
		}
		f.Done(it, resp, err)
	}
	if got := s.times()["down.test"]; len(got) != 2 {
		t.Errorf("pages sent %v, want /a and /b", got)
	}
	if n := s.failures["down.test"]; n != 2 {
		t.Errorf("%d failed fetches of the robots.txt, want 2", n)
	}
	if st := f.Stats(); st.Done != 2 || st.Queued != 0 || st.InFlight != 0 {
		t.Errorf("Stats at the end %+v", st)
	}
}

// Past Retries failed fetches in a row, an origin's URLs are refused as
// disallowed ones are: by Add, and by Done; the refusals of one failed
// fetch count once. Negative Retries refuses them at once.
func TestTransientRefusalRetries(t *testing.T) {
	f, tr, clock, s := setup(map[string]string{})
	tr.Delay, tr.RetryMax = -1, -1
	f.Retries = 1
	s.down["down.test"] = start.Add(24 * time.Hour)
	ctx := context.Background()
	for _, u := range []string{"http://down.test/a", "http://down.test/b", "http://down.test/c"} {
		if err := f.Add(ctx, u); err != nil { // one failed fetch
			t.Fatalf("Add(%s): %v", u, err)
		}
	}
	clock.Advance(time.Minute)
	it, err := tryNext(f)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := (&http.Client{Transport: tr}).Get(it.URL) // the second failed fetch
	if resp != nil {
		resp.Body.Close()
	}
	f.Done(it, resp, err)
	if st := f.Stats(); st.Done != 1 || st.Requeued != 0 {
		t.Errorf("past Retries, Done queued the URL again: %+v", st)
	}
	if err := f.Add(ctx, "http://down.test/d"); !errors.Is(err, robotsguard.ErrDisallowed) {
		t.Errorf("Add past Retries: %v, want the refusal", err)
	}
	if n := s.failures["down.test"]; n != 2 {
		t.Errorf("%d failed fetches, want 2", n)
	}

	f, tr, _, s = setup(map[string]string{})
	tr.RetryMax = -1
	f.Retries = -1
	s.down["down.test"] = start.Add(time.Hour)
	if err := f.Add(ctx, "http://down.test/a"); !errors.Is(err, robotsguard.ErrDisallowed) {
		t.Errorf("Add with Retries -1: %v, want the refusal", err)
	}
	if st := f.Stats(); st.Refused != 1 || st.Queued != 0 {
		t.Errorf("Stats %+v", st)
	}
}

// Run sends a URL whose robots.txt was down again once it is back, and fn
// sees its response, not the refusals before.
func TestRunTransientRefusal(t *testing.T) {
	f, tr, clock, s := setup(map[string]string{})
	tr.Delay, tr.RetryMax = -1, -1
	s.down["down.test"] = start.Add(90 * time.Second)
	f.Add(context.Background(), "http://down.test/a")
	var mu sync.Mutex
	var seen []string
	fn := func(ctx context.Context, it crawl.Item, resp *http.Response, err error) error {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, fmt.Sprintf("%s %v", it.URL, err))
		return nil
	}
	if err := runCrawl(t, f, clock, &http.Client{Transport: tr}, 2, fn); err != nil {
		t.Fatal(err)
	}
	if want := []string{"http://down.test/a <nil>"}; !slices.Equal(seen, want) {
		t.Errorf("fn saw %q, want %q", seen, want)
	}
	if st := f.Stats(); st.Requeued != 1 || st.Done != 1 {
		t.Errorf("Stats %+v", st)
	}
}
