package robotscolly_test

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/gocolly/colly/v2"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/robotscolly"
)

// Attach a Transport to a collector, and tell in OnError a refusal from a
// pacing refusal and from a network error.
func ExampleAttach() {
	// A site whose robots.txt disallows /admin and asks for 5 seconds
	// between requests, and another that breaks its connections.
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			fmt.Fprint(w, "User-agent: *\nCrawl-delay: 5\nDisallow: /admin\n")
		case "/":
			fmt.Fprint(w, `<a href="/admin">admin</a> <a href="/later">later</a>`)
		}
	}))
	defer site.Close()
	broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r) // no robots.txt: everything allowed
		} else if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
			conn.Close()
		}
	}))
	defer broken.Close()

	c := colly.NewCollector()
	c.SetRequestTimeout(time.Second) // colly's default is 10 s
	// Proxies belong in the Transport's Base (colly's SetProxy works too).
	t := &robotsguard.Transport{Base: &http.Transport{Proxy: http.ProxyFromEnvironment}}
	g, err := robotscolly.Attach(c, t)
	if err != nil {
		panic(err)
	}
	c.OnHTML("a[href]", func(e *colly.HTMLElement) { e.Request.Visit(e.Attr("href")) })
	c.OnError(func(r *colly.Response, err error) {
		var d *robotsguard.DisallowedError
		switch {
		case errors.As(err, &d): // errors.Is(err, robotsguard.ErrDisallowed) too
			fmt.Printf("refused: %s by line %d %q\n", r.Request.URL.Path, d.Decision.Rule.Line, d.Decision.Rule)
		case g.PacingError(r, err) != nil: // g.Requeue sends these again
			fmt.Printf("paced: %s, its turn comes after its deadline\n", r.Request.URL.Path)
		default:
			fmt.Printf("network error: %s\n", r.Request.URL.Path)
		}
	})
	c.Visit(site.URL + "/")
	c.Visit(broken.URL + "/broken")
	// Output:
	// refused: /admin by line 3 "Disallow: /admin"
	// paced: /later, its turn comes after its deadline
	// network error: /broken
}
