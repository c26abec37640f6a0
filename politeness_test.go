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
	"sync/atomic"
	"testing"
	"testing/iotest"
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

// TestRefuseAboveMaxDelay: a Crawl-delay or Request-rate above MaxDelay is
// capped by default; with RefuseAboveMaxDelay the origin is refused, with
// a reason of its own.
func TestRefuseAboveMaxDelay(t *testing.T) {
	for _, tc := range []struct {
		robots string
		want   time.Duration
	}{
		{"User-agent: *\nCrawl-delay: 3600\n", time.Hour},
		{"User-agent: *\nRequest-rate: 1/2h\n", 2 * time.Hour},
	} {
		h := newHarness(t, func(tr *robotsguard.Transport) { tr.RefuseAboveMaxDelay = true })
		s := h.origin(tc.robots)
		d := h.refused(s.URL+"/page", robotsguard.ReasonDelay)
		if d.Delay != tc.want {
			t.Errorf("%q: Delay %v, want %v", tc.robots, d.Delay, tc.want)
		}
		if want := fmt.Sprintf("asks for %v between requests, more than MaxDelay allows", tc.want); !strings.Contains(d.Error(), want) {
			t.Errorf("message %q, want it to say %q", d.Error(), want)
		}
	}
	h := newHarness(t, func(tr *robotsguard.Transport) { tr.RefuseAboveMaxDelay = true })
	s := h.origin("User-agent: *\nCrawl-delay: 20\n")
	h.allowed(s.URL + "/page") // within the default MaxDelay of 30 s
}

// TestUserAgentSent: the Transport decides for UserAgent, and the site
// sees it: a request without a User-Agent, or with another product's, is
// sent with UserAgent; one with UserAgent's product token is sent as it
// is. The caller's request is left as it was.
func TestUserAgentSent(t *testing.T) {
	for _, tc := range []struct{ carried, sent string }{
		{"", "TestBot/1.0 (+https://example.com/bot)"},
		{"colly - https://github.com/gocolly/colly", "TestBot/1.0 (+https://example.com/bot)"},
		{"Go-http-client/1.1", "TestBot/1.0 (+https://example.com/bot)"},
		{"testbot/2.0 (mobile)", "testbot/2.0 (mobile)"},
	} {
		h := newHarness(t)
		s := h.origin("User-agent: *\nDisallow: /private\n")
		req, _ := http.NewRequest(http.MethodGet, s.URL+"/page", nil)
		if tc.carried != "" {
			req.Header.Set("User-Agent", tc.carried)
		}
		resp, err := h.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		rs := s.Requests()
		got := rs[len(rs)-1].Header.Get("User-Agent")
		if got != tc.sent {
			t.Errorf("a request carrying %q was sent as %q, want %q", tc.carried, got, tc.sent)
		}
		if ua := req.Header.Get("User-Agent"); ua != tc.carried {
			t.Errorf("the caller's request was changed: User-Agent %q, was %q", ua, tc.carried)
		}
	}
}

// TestQuickStartUserAgent: the quick start as a newcomer writes it, a
// plain http.Client whose requests carry no User-Agent, against a site
// that lets FooBot in and every other agent out: the site sees FooBot.
func TestQuickStartUserAgent(t *testing.T) {
	o := robotstest.NewOrigin(t, "User-agent: *\nDisallow: /\n\nUser-agent: FooBot\nAllow: /\n")
	client := &http.Client{Transport: &robotsguard.Transport{UserAgent: "FooBot/1.0 (+https://example.com/bot)", NoPacing: true}}
	for _, p := range []string{"/page", "/other"} {
		resp, err := client.Get(o.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	for _, r := range o.Requests() {
		if r.UserAgent != "FooBot/1.0 (+https://example.com/bot)" {
			t.Errorf("%s sent as %q", r.URL, r.UserAgent)
		}
	}
}

// TestCollyDefaultUserAgent: colly's default User-Agent names colly (RFC
// 9110: products separated by whitespace), so a site's colly group
// applies, not "*".
func TestCollyDefaultUserAgent(t *testing.T) {
	h := newHarness(t, func(tr *robotsguard.Transport) { tr.UserAgent = "colly - https://github.com/gocolly/colly" })
	s := h.origin("User-agent: colly\nDisallow: /b\n\nUser-agent: *\nDisallow: /a\n")
	if d := h.refused(s.URL+"/b", robotsguard.ReasonRule); d.Agent != "colly" || d.Decision.GroupAgent != "colly" {
		t.Errorf("refused for agent %q by group %q, want colly's", d.Agent, d.Decision.GroupAgent)
	}
	h.allowed(s.URL + "/a")
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
