package robotscolly_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gocolly/colly/v2"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/robotscolly"
	"github.com/robotsguard/robotsguard/robotstest"
)

// pacedSite is a page of 80 links on an origin whose Crawl-delay is 10 ms:
// with a request timeout of 250 ms, about twenty requests of an async
// crawl get their turn in time, as with colly's 10 s timeout and a
// Crawl-delay of 0.2 s, at a fraction of the time.
func pacedSite(t *testing.T) (*site, []string) {
	pages := map[string]page{"/": {}}
	want := []string{"/"}
	for i := range 80 {
		p := fmt.Sprintf("/p/%d", i)
		pages["/"] = page{links: append(pages["/"].links, p)}
		pages[p] = page{}
		want = append(want, p)
	}
	return newSite(t, "colly", "User-agent: *\nCrawl-delay: 0.01\n", pages), want
}

// pacedCrawl crawls s asynchronously, with Guard.Requeue when requeue is
// set, and returns the pacing refusals that reached OnError (or Requeue's
// next) and the requests that timed out once sent: their turn came just
// before their deadline.
func pacedCrawl(t *testing.T, s *site, requeue bool) (paced, timedOut []string) {
	t.Helper()
	c := colly.NewCollector(colly.Async(true))
	c.SetRequestTimeout(250 * time.Millisecond)
	g, err := robotscolly.Attach(c, &robotsguard.Transport{})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	c.OnHTML("a[href]", func(e *colly.HTMLElement) { e.Request.Visit(e.Attr("href")) })
	onError := func(r *colly.Response, err error) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case g.PacingError(r, err) != nil:
			paced = append(paced, r.Request.URL.Path)
		case errors.Is(err, context.DeadlineExceeded):
			timedOut = append(timedOut, r.Request.URL.Path)
		default:
			t.Errorf("OnError: %s: %v, want a pacing refusal or a timeout", r.Request.URL, err)
		}
	}
	if requeue {
		onError = g.Requeue(onError)
	}
	c.OnError(onError)
	if err := c.Visit(s.srv.URL + "/"); err != nil {
		t.Fatal(err)
	}
	c.Wait()
	return paced, timedOut
}

// TestPacedCrawlLosesPages reproduces the loss Requeue prevents: the
// requests whose turn comes after their deadline fail, already marked
// visited, with a *robotsguard.PacingError.
func TestPacedCrawlLosesPages(t *testing.T) {
	s, want := pacedSite(t)
	paced, timedOut := pacedCrawl(t, s, false)
	reached := 0
	for _, p := range want {
		n := s.served(p)
		reached += n
		lost := slices.Contains(paced, p) || slices.Contains(timedOut, p)
		if n > 1 || n == 0 && !lost {
			t.Errorf("%s requested %d times, and neither refused for its pace nor timed out", p, n)
		}
	}
	t.Logf("%d pages requested, %d refused for their pace, %d timed out once sent", reached, len(paced), len(timedOut))
	if len(paced) == 0 {
		t.Error("no request refused for its pace: the test no longer reproduces the loss")
	}
}

// TestRequeue: with Requeue, an async crawl loses no page of the paced
// origin to its pace: every page is reached once, but for those whose turn
// came so close to their deadline that they timed out once sent (a timeout
// like any other, which Requeue leaves alone).
func TestRequeue(t *testing.T) {
	s, want := pacedSite(t)
	paced, timedOut := pacedCrawl(t, s, true)
	if len(paced) != 0 {
		t.Errorf("pacing refusals of %v reached OnError's next, want none", paced)
	}
	if len(timedOut) > 0 {
		t.Logf("timed out once sent: %v", timedOut)
	}
	for _, p := range want {
		n, late := s.served(p), slices.Contains(timedOut, p)
		if n != 1 && !(late && n == 0) {
			t.Errorf("%s requested %d times, want 1", p, n)
		}
	}
	if n := s.served("/robots.txt"); n != 1 {
		t.Errorf("robots.txt fetched %d times, want 1", n)
	}
}

// TestRequeueCanceled: a collector whose Context ends stops waiting, and
// the pacing refusal goes to next.
func TestRequeueCanceled(t *testing.T) {
	s := newSite(t, "colly", "User-agent: *\nCrawl-delay: 20\n", map[string]page{"/": {links: []string{"/a"}}, "/a": {}})
	ctx, cancel := context.WithCancel(context.Background())
	c := colly.NewCollector(colly.StdlibContext(ctx))
	c.SetRequestTimeout(time.Second)
	g, err := robotscolly.Attach(c, &robotsguard.Transport{})
	if err != nil {
		t.Fatal(err)
	}
	c.OnHTML("a[href]", func(e *colly.HTMLElement) {
		cancel() // before /a is refused: Requeue does not wait
		e.Request.Visit(e.Attr("href"))
	})
	var got []error
	c.OnError(g.Requeue(func(_ *colly.Response, err error) { got = append(got, err) }))
	if err := c.Visit(s.srv.URL + "/"); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || !errors.Is(got[0], context.Canceled) {
		t.Fatalf("OnError's next saw %v, want one error matching context.Canceled", got)
	}
	if n := s.served("/a"); n != 0 {
		t.Errorf("/a requested %d times, want 0", n)
	}
}

// TestRequeueSync: in a synchronous crawl, a request refused for its pace
// waits for its turn and is sent again; when that fails, next hears of the
// failure once.
func TestRequeueSync(t *testing.T) {
	s := newSite(t, "colly", "User-agent: *\nCrawl-delay: 0.3\n", map[string]page{"/": {links: []string{"/broken", "/a"}}, "/a": {}})
	c := colly.NewCollector()
	c.SetRequestTimeout(200 * time.Millisecond)
	g, err := robotscolly.Attach(c, &robotsguard.Transport{})
	if err != nil {
		t.Fatal(err)
	}
	c.OnHTML("a[href]", func(e *colly.HTMLElement) { e.Request.Visit(e.Attr("href")) })
	var got []error
	c.OnError(g.Requeue(func(_ *colly.Response, err error) { got = append(got, err) }))
	if err := c.Visit(s.srv.URL + "/"); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || g.PacingError(nil, got[0]) != nil || errors.Is(got[0], context.DeadlineExceeded) {
		t.Errorf("OnError's next saw %v, want the 404 of /broken alone", got)
	}
	for _, p := range []string{"/", "/broken", "/a"} {
		if n := s.served(p); n != 1 {
			t.Errorf("%s requested %d times, want 1", p, n)
		}
	}
}

// unreachableCrawl crawls s synchronously on a clock that moves as it is
// slept on, its robots.txt answering 503 to the first down fetches, with
// Requeue, and returns what reached OnError's next.
func unreachableCrawl(t *testing.T, down int) (*site, []error) {
	t.Helper()
	s := newSite(t, "colly", "User-agent: *\nDisallow: /private\n", map[string]page{"/": {}})
	s.robotsDown = down
	clock := robotstest.NewClock(time.Now())
	clock.SetAutoAdvance(true) // Requeue's wait for NotBefore moves it
	c := colly.NewCollector()
	g, err := robotscolly.Attach(c, &robotsguard.Transport{Clock: clock, RetryMax: -1})
	if err != nil {
		t.Fatal(err)
	}
	var got []error
	c.OnError(g.Requeue(func(_ *colly.Response, err error) { got = append(got, err) }))
	// A synchronous Visit returns its first request's error, the refusal
	// that Requeue then sends again for.
	if err := c.Visit(s.srv.URL + "/"); err != nil && !errors.Is(err, robotsguard.ErrDisallowed) {
		t.Fatal(err)
	}
	return s, got
}

// TestRequeueUnreachable: a request refused because its origin's
// robots.txt could not be fetched (transient) is sent again when the
// Transport fetches the file again, once the file is back; past
// TransientRetries failed fetches in a row, the refusal goes to next.
func TestRequeueUnreachable(t *testing.T) {
	s, got := unreachableCrawl(t, 2)
	if len(got) != 0 {
		t.Errorf("OnError's next saw %v, want nothing", got)
	}
	if n, r := s.served("/"), s.served("/robots.txt"); n != 1 || r != 3 {
		t.Errorf("/ requested %d times, robots.txt %d; want 1 and 3 (two failed)", n, r)
	}

	s, got = unreachableCrawl(t, 100)
	var d *robotsguard.DisallowedError
	if len(got) != 1 || !errors.As(got[0], &d) || d.Reason != robotsguard.ReasonUnreachable {
		t.Fatalf("OnError's next saw %v, want one refusal, ReasonUnreachable", got)
	}
	if n, r := s.served("/"), s.served("/robots.txt"); n != 0 || r != robotscolly.TransientRetries+1 {
		t.Errorf("/ requested %d times, robots.txt %d; want 0 and %d", n, r, robotscolly.TransientRetries+1)
	}
}
