package robotscolly_test

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"

	"github.com/gocolly/colly/v2"

	"github.com/robotsguard/robotsguard"
	robotscrawl "github.com/robotsguard/robotsguard/crawl"
	"github.com/robotsguard/robotsguard/robotscolly"
)

// A collector can crawl from a crawl.Frontier: a loop hands it the URL of
// the site whose turn comes first (Next, then Collector.Request, with the
// Item in the request's Context), and its callbacks end each one (Done,
// with the Guard's PacingError). Three sites' pages are each fetched once,
// none that robots.txt disallows, with four requests under way at most.
func TestFrontierDrivesCollector(t *testing.T) {
	const robots = "User-agent: *\nDisallow: /private/\nCrawl-delay: 0.02\n"
	pages := map[string]page{
		"/":          {links: []string{"/a", "/b", "/private/x"}},
		"/a":         {links: []string{"/b", "/"}},
		"/b":         {links: []string{"/a", "/c"}},
		"/c":         {},
		"/private/x": {},
	}
	var sites []*site
	for range 3 {
		sites = append(sites, newSite(t, "FooBot", robots, pages))
	}

	tr := &robotsguard.Transport{UserAgent: "FooBot/1.0"}
	c := colly.NewCollector(colly.Async(true), colly.AllowURLRevisit()) // the loop dedupes, and requeues
	g, err := robotscolly.Attach(c, tr)
	if err != nil {
		t.Fatal(err)
	}
	f := &robotscrawl.Frontier{Transport: tr}
	ctx := context.Background()
	var seen sync.Map
	add := func(u string) {
		if _, dup := seen.LoadOrStore(u, true); !dup {
			if err := f.Add(ctx, u); err != nil && !errors.Is(err, robotsguard.ErrDisallowed) {
				t.Errorf("Add(%s): %v", u, err)
			}
		}
	}
	slots := make(chan struct{}, 4)
	done := func(r *colly.Response, err error) {
		it := r.Ctx.GetAny("item").(robotscrawl.Item)
		resp := &http.Response{StatusCode: r.StatusCode}
		if r.Headers != nil {
			resp.Header = *r.Headers
		}
		if pe := g.PacingError(r, err); pe != nil {
			err = pe
		}
		f.Done(it, resp, err)
		<-slots
	}
	c.OnHTML("a[href]", func(e *colly.HTMLElement) { add(e.Request.AbsoluteURL(e.Attr("href"))) })
	c.OnScraped(func(r *colly.Response) { done(r, nil) })
	c.OnError(func(r *colly.Response, err error) {
		if !errors.Is(err, robotsguard.ErrDisallowed) && g.PacingError(r, err) == nil {
			t.Errorf("%s: %v", r.Request.URL, err)
		}
		done(r, err)
	})

	for _, s := range sites {
		add(s.srv.URL + "/")
	}
	for {
		slots <- struct{}{}
		it, err := f.Next(ctx)
		if errors.Is(err, robotscrawl.ErrEmpty) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		cctx := colly.NewContext()
		cctx.Put("item", it)
		if err := c.Request(http.MethodGet, it.URL, nil, cctx, nil); err != nil {
			f.Done(it, nil, err)
			<-slots
		}
	}
	c.Wait()
	for _, s := range sites {
		s.check(t, []string{"/", "/a", "/b", "/c"})
	}
	if st := f.Stats(); st.Done != 12 || st.Refused != 3 {
		t.Errorf("Stats %+v, want 12 done and 3 refused", st)
	}
}
