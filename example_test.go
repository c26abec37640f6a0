package robotsguard_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync/atomic"
	"time"

	"github.com/robotsguard/robotsguard"
)

// localSite starts a site that serves robotsTxt at /robots.txt, with the
// Cache-Control given (if any), and "hello" on every other path.
func localSite(robotsTxt, cacheControl string) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			if cacheControl != "" {
				w.Header().Set("Cache-Control", cacheControl)
			}
			io.WriteString(w, robotsTxt)
			return
		}
		io.WriteString(w, "hello")
	}))
}

func ExampleTransport() {
	site := localSite("User-agent: *\nDisallow: /private/\n", "")
	defer site.Close()

	client := &http.Client{Transport: &robotsguard.Transport{
		UserAgent: "ExampleBot/1.0 (+https://example.com/bot)",
	}}
	for _, path := range []string{"/", "/private/report"} {
		resp, err := client.Get(site.URL + path)
		var refused *robotsguard.DisallowedError
		if errors.As(err, &refused) {
			fmt.Printf("%s: %s, line %d: %s\n", path, refused.Reason, refused.Decision.Rule.Line, refused.Decision.Rule)
			continue
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Printf("%s: %s %q\n", path, resp.Status, body)
	}
	// Output:
	// /: 200 OK "hello"
	// /private/report: disallowed by a rule, line 2: Disallow: /private/
}

func ExampleTransport_Check() {
	site := localSite("User-agent: *\nDisallow: /cart/\nDisallow: /*?sort=\n", "")
	defer site.Close()

	// Check fetches the robots.txt, but sends none of the URLs and does not
	// wait between them: a frontier filters what it queues.
	tr := &robotsguard.Transport{UserAgent: "ExampleBot/1.0"}
	frontier := []string{"/", "/articles/1", "/cart/checkout", "/articles?sort=date"}
	for _, path := range frontier {
		req, err := http.NewRequest(http.MethodGet, site.URL+path, nil)
		if err != nil {
			fmt.Println(err)
			return
		}
		switch err := tr.Check(req); {
		case err == nil:
			fmt.Println("queue", path)
		case errors.Is(err, robotsguard.ErrDisallowed):
			fmt.Println("drop ", path)
		default:
			fmt.Println("error", path, err)
		}
	}
	// Output:
	// queue /
	// queue /articles/1
	// drop  /cart/checkout
	// drop  /articles?sort=date
}

func ExampleTransport_Snapshot() {
	site := localSite(`User-agent: *
Disallow: /search

User-agent: ExampleBot
Crawl-delay: 5

Sitemap: https://example.com/sitemap.xml
Sitemap: https://example.com/news/sitemap.xml
`, "max-age=3600")
	defer site.Close()

	tr := &robotsguard.Transport{UserAgent: "ExampleBot/1.0"}
	u, err := url.Parse(site.URL)
	if err != nil {
		fmt.Println(err)
		return
	}
	snap, err := tr.Snapshot(context.Background(), u)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("status:", snap.Status)
	for _, sitemap := range snap.Rules.Sitemaps() {
		fmt.Println("sitemap:", sitemap)
	}
	fmt.Println("pause between requests:", snap.Delay)
	// max-age=3600, less the age of the response by its Date (up to a
	// second, as Date counts whole seconds).
	fmt.Println("fresh for:", snap.FreshUntil.Sub(snap.Received).Round(time.Minute))
	// Output:
	// status: 200
	// sitemap: https://example.com/sitemap.xml
	// sitemap: https://example.com/news/sitemap.xml
	// pause between requests: 5s
	// fresh for: 1h0m0s
}

func ExampleDisallowedError() {
	site := localSite("User-agent: *\nDisallow: /admin/\n", "")
	defer site.Close()
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer down.Close()

	client := &http.Client{Transport: &robotsguard.Transport{
		UserAgent: "ExampleBot/1.0",
		RetryMax:  -1, // do not retry the robots.txt fetch, for the example
	}}
	for _, u := range []string{site.URL + "/admin/users", down.URL + "/", "ftp://example.com/file"} {
		resp, err := client.Get(u)
		if err == nil {
			resp.Body.Close()
			fmt.Println("fetched", resp.Status)
			continue
		}
		var refused *robotsguard.DisallowedError
		var fetch *robotsguard.FetchError
		switch {
		case errors.As(err, &refused) && refused.Reason == robotsguard.ReasonRule:
			fmt.Println("drop the URL:", refused.Decision)
		case errors.As(err, &refused) && errors.As(refused.Err, &fetch):
			// No rule decided: the robots.txt could not be read.
			fmt.Printf("retry the origin later: %s (status %d)\n", refused.Reason, fetch.Status)
		case errors.Is(err, robotsguard.ErrUnsupportedURL):
			fmt.Println("not an http or https URL")
		default:
			fmt.Println("failed:", err)
		}
	}
	// Output:
	// drop the URL: disallowed by "Disallow: /admin/" (line 2, group "*" at line 1)
	// retry the origin later: robots.txt unreachable (status 503)
	// not an http or https URL
}

func ExampleObserver() {
	site := localSite("User-agent: *\nDisallow: /private/\n", "max-age=3600")
	defer site.Close()

	var fetches, refusals atomic.Int64
	client := &http.Client{Transport: &robotsguard.Transport{
		UserAgent: "ExampleBot/1.0",
		Delay:     -1, // no pause between requests, for the example
		Observer: &robotsguard.Observer{
			Fetched: func(ev robotsguard.FetchEvent) {
				fetches.Add(1)
				fmt.Printf("robots.txt %s: status %d, kept %v (%s)\n", ev.Outcome, ev.Status, ev.Lifetime.Round(time.Minute), ev.LifetimeSource)
			},
			Refused: func(*robotsguard.DisallowedError) { refusals.Add(1) },
		},
	}}
	for _, path := range []string{"/", "/a", "/private/1", "/b", "/private/2"} {
		if resp, err := client.Get(site.URL + path); err == nil {
			resp.Body.Close()
		}
	}
	fmt.Printf("%d fetch, %d refusals\n", fetches.Load(), refusals.Load())
	// Output:
	// robots.txt fetched: status 200, kept 1h0m0s (max-age)
	// 1 fetch, 2 refusals
}
