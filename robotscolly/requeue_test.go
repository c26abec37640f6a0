package robotscolly_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/gocolly/colly/v2"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/robotscolly"
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

// pacedCrawl crawls s asynchronously, the errors of OnError going to
// onError(c, t), and returns the pacing refusals it did not requeue.
func pacedCrawl(t *testing.T, s *site, requeue bool) (paced int) {
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
		if pe := g.PacingError(r, err); pe == nil || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("OnError: %s: %v, want a pacing refusal", r.Request.URL, err)
			return
		}
		mu.Lock()
		paced++
		mu.Unlock()
	}
	if requeue {
		onError = g.Requeue(onError)
	}
	c.OnError(onError)
	if err := c.Visit(s.srv.URL + "/"); err != nil {
		t.Fatal(err)
	}
	c.Wait()
	return paced
}

// TestPacedCrawlLosesPages reproduces the loss Requeue prevents: the
// requests whose turn comes after their deadline fail, already marked
// visited, with a *robotsguard.PacingError.
func TestPacedCrawlLosesPages(t *testing.T) {
	s, want := pacedSite(t)
	paced := pacedCrawl(t, s, false)
	reached := 0
	for _, p := range want {
		reached += s.served(p)
	}
	if paced == 0 || reached+paced != len(want) {
		t.Errorf("%d pages reached and %d refused for their pace, want some refused and %d in all", reached, paced, len(want))
	}
}

// TestRequeue: with Requeue, an async crawl reaches every page of the
// paced origin once, and no request is refused for good.
func TestRequeue(t *testing.T) {
	s, want := pacedSite(t)
	if paced := pacedCrawl(t, s, true); paced != 0 {
		t.Errorf("%d pacing refusals reached OnError's next, want 0", paced)
	}
	s.check(t, want)
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
