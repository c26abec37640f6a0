// Command crawl crawls three local sites from their sitemaps with a
// crawl.Frontier: eight workers, each handed a page of the site whose
// turn comes first, so that no worker waits on one site's Crawl-delay
// while the others sit idle. Pages the sites' robots.txt disallow are
// dropped before they are queued.
//
//	go run ./examples/crawl
package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/crawl"
	"github.com/robotsguard/robotsguard/sitemap"
)

func main() {
	ctx := context.Background()
	var sites []string
	for i := range 3 {
		s := httptest.NewServer(site(i))
		defer s.Close()
		sites = append(sites, s.URL)
	}
	t := &robotsguard.Transport{UserAgent: "ExampleBot/1.0 (+https://example.com/bot)"}
	client := &http.Client{Transport: t, Timeout: 10 * time.Second}
	f := &crawl.Frontier{Transport: t}
	for _, origin := range sites {
		// The site's sitemaps, as its robots.txt lists them, each fetched
		// through the Transport: paced, and refused where disallowed.
		for e, err := range sitemap.Site(ctx, client, origin) {
			if err == nil {
				err = f.Add(ctx, e.Loc)
			}
			if err != nil {
				fmt.Println("not queued:", err)
			}
		}
	}
	start := time.Now()
	err := f.Run(ctx, client, 8, func(ctx context.Context, it crawl.Item, resp *http.Response, err error) error {
		if err != nil {
			fmt.Println("failed:", err) // a network error, or a redirect the rules refuse
			return nil
		}
		fmt.Printf("%6v  %s  %s\n", time.Since(start).Round(10*time.Millisecond), resp.Status, it.URL)
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	st := f.Stats()
	fmt.Printf("\n%d pages from %d sites in %v, a Crawl-delay of 0.2 s each: the sites were crawled side by side.\n",
		st.Done, len(sites), time.Since(start).Round(100*time.Millisecond))
	fmt.Printf("%d URLs not queued, %d requeued.\n", st.Refused, st.Requeued)
}

// site returns the handler of site i: a robots.txt with a Crawl-delay and
// a Sitemap, a sitemap of six pages (one disallowed), and the pages.
func site(i int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		base := "http://" + r.Host
		switch r.URL.Path {
		case "/robots.txt":
			fmt.Fprintf(w, "User-agent: *\nDisallow: /private/\nCrawl-delay: 0.2\n\nSitemap: %s/sitemap.xml\n", base)
		case "/sitemap.xml":
			io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
			for p := range 5 {
				fmt.Fprintf(w, "<url><loc>%s/site%d/page%d</loc></url>", base, i, p)
			}
			fmt.Fprintf(w, "<url><loc>%s/private/drafts</loc></url></urlset>", base)
		default:
			fmt.Fprintf(w, "<html>%s</html>", r.URL.Path)
		}
	})
}
