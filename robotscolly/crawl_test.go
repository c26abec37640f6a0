package robotscolly_test

import (
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/gocolly/colly/v2"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/robotscolly"
)

// crawlRobots gives colly (by its default User-Agent, "colly -
// https://github.com/gocolly/colly") a group of its own; every other
// agent may fetch nothing.
const crawlRobots = `User-agent: *
Disallow: /

User-agent: colly
Disallow: /private/
Disallow: /admin
Allow: /private/open
`

// crawlSite links allowed and disallowed pages, and redirects into
// disallowed paths, directly and through a chain.
var crawlSite = map[string]page{
	"/":                  {links: []string{"/a", "/b", "/private/secret", "/admin", "/private/open", "/r/private", "/r/chain", "/r/ok"}},
	"/a":                 {links: []string{"/b", "/d", "/admin?x=1"}},
	"/b":                 {links: []string{"/a", "/r/open"}},
	"/c":                 {links: []string{"/"}},
	"/d":                 {},
	"/private/open":      {links: []string{"/private/open/page"}},
	"/private/open/page": {},
	"/private/secret":    {},
	"/private/x":         {},
	"/admin":             {},
	"/admin/panel":       {},
	"/r/private":         {redirect: "/private/x"},
	"/r/chain":           {redirect: "/r/chain2"},
	"/r/chain2":          {redirect: "/admin/panel"},
	"/r/ok":              {redirect: "/c"},
	"/r/open":            {redirect: "/private/open/page"},
}

// crawlAllowed are the pages of crawlSite that colly may fetch.
var crawlAllowed = []string{"/", "/a", "/b", "/c", "/d", "/private/open", "/private/open/page",
	"/r/private", "/r/chain", "/r/chain2", "/r/ok", "/r/open"}

// crawl crawls s from "/" with a collector attached to a Transport, with
// colly's default User-Agent, and returns the URLs refused by the
// Transport (as OnError saw them) and the other errors.
func crawl(t *testing.T, s *site, configure func(*colly.Collector)) (refused []string, others []error) {
	t.Helper()
	c := colly.NewCollector()
	if configure != nil {
		configure(c)
	}
	if _, err := robotscolly.Attach(c, &robotsguard.Transport{Delay: -1}); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	c.OnHTML("a[href]", func(e *colly.HTMLElement) { e.Request.Visit(e.Attr("href")) })
	c.OnError(func(r *colly.Response, err error) {
		mu.Lock()
		defer mu.Unlock()
		var d *robotsguard.DisallowedError
		if errors.As(err, &d) {
			refused = append(refused, d.URL)
			return
		}
		others = append(others, err)
	})
	if err := c.Visit(s.srv.URL + "/"); err != nil {
		t.Fatal(err)
	}
	c.Wait()
	slices.Sort(refused)
	return refused, others
}

// TestCrawl: a colly crawl of a linked site, whose links and redirects
// lead into disallowed paths, fetches no disallowed page and every allowed
// one, once, and robots.txt once; the Transport's refusals reach OnError.
func TestCrawl(t *testing.T) {
	t.Run("robotsguard alone", func(t *testing.T) {
		s := newSite(t, "colly", crawlRobots, crawlSite)
		refused, others := crawl(t, s, nil)
		s.check(t, crawlAllowed)
		u := s.srv.URL
		want := []string{u + "/admin", u + "/admin/panel", u + "/admin?x=1", u + "/private/secret", u + "/private/x"}
		if !slices.Equal(refused, want) {
			t.Errorf("OnError saw refusals of\n%v\nwant\n%v", refused, want)
		}
		if len(others) > 0 {
			t.Errorf("other errors: %v", others)
		}
		if n := s.served("/robots.txt"); n != 1 {
			t.Errorf("robots.txt fetched %d times, want 1", n)
		}
	})
	// With colly's own check on, colly fetches /robots.txt through the
	// Transport, which serves it from its cache, and refuses disallowed
	// links itself (Visit fails with colly.ErrRobotsTxtBlocked); the
	// redirect hops, which colly does not check, are the Transport's.
	t.Run("colly's check too", func(t *testing.T) {
		s := newSite(t, "colly", crawlRobots, crawlSite)
		refused, others := crawl(t, s, func(c *colly.Collector) { c.IgnoreRobotsTxt = false })
		s.check(t, crawlAllowed)
		u := s.srv.URL
		want := []string{u + "/admin/panel", u + "/private/x"}
		if !slices.Equal(refused, want) {
			t.Errorf("OnError saw refusals of\n%v\nwant\n%v", refused, want)
		}
		if len(others) > 0 {
			t.Errorf("other errors: %v", others)
		}
		if n := s.served("/robots.txt"); n != 1 {
			t.Errorf("robots.txt fetched %d times, want 1", n)
		}
	})
}
