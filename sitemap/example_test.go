package sitemap_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/sitemap"
)

func ExampleParse() {
	const file = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>https://example.com/</loc><lastmod>2024-05-06</lastmod><priority>1.0</priority></url>
  <url><loc>/relative</loc></url>
  <url><loc>https://example.com/about</loc></url>
</urlset>`
	for e, err := range sitemap.Parse(strings.NewReader(file)) {
		if err != nil {
			fmt.Println("error:", err)
			continue
		}
		fmt.Println(e.Loc, e.LastMod.Format("2006-01-02"), e.Priority)
	}
	// Output:
	// https://example.com/ 2024-05-06 1
	// error: robotsguard: sitemap:4: "/relative": not an absolute http(s) URL
	// https://example.com/about 0001-01-01 -1
}

func ExampleSite() {
	var site *httptest.Server
	site = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			fmt.Fprintf(w, "User-agent: *\nDisallow: /drafts/\n\nSitemap: %s/sitemap.xml\nSitemap: %s/drafts/sitemap.xml\n", site.URL, site.URL)
		case "/sitemap.xml":
			fmt.Fprintf(w, "<urlset><url><loc>%s/a</loc></url><url><loc>%s/drafts/b</loc></url></urlset>", site.URL, site.URL)
		default:
			http.NotFound(w, r)
		}
	}))
	defer site.Close()

	client := &http.Client{Transport: &robotsguard.Transport{UserAgent: "FooBot/1.0"}}
	for e, err := range sitemap.Site(context.Background(), client, site.URL) {
		if errors.Is(err, robotsguard.ErrDisallowed) {
			fmt.Println("not fetched:", strings.TrimPrefix(err.(*sitemap.Error).Sitemap, site.URL))
			continue
		}
		fmt.Println(strings.TrimPrefix(e.Loc, site.URL))
	}
	// Output:
	// /a
	// /drafts/b
	// not fetched: /drafts/sitemap.xml
}
