package robotscolly_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/gocolly/colly/v2"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/robotscolly"
	"github.com/robotsguard/robotsguard/usage"
)

// A colly crawler asks, per page, what it may do with it: the robots.txt's
// Content-Signal line, the page's X-Robots-Tag field and its robots meta
// tag all count, and the site is asked nothing more for them.
func TestUsageInCollyCrawl(t *testing.T) {
	var mu sync.Mutex
	hits := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits[r.URL.Path]++
		mu.Unlock()
		switch r.URL.Path {
		case "/robots.txt":
			io.WriteString(w, "User-agent: *\nContent-Signal: search=yes, ai-train=no\n")
		case "/":
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, `<html><head><meta name="robots" content="nosnippet"></head><body><a href="/doc">doc</a></body></html>`)
		case "/doc":
			w.Header().Set("Content-Type", "text/plain")
			w.Header().Set("X-Robots-Tag", "noindex")
			io.WriteString(w, "plain text")
		}
	}))
	defer srv.Close()

	c := colly.NewCollector()
	g, err := robotscolly.Attach(c, &robotsguard.Transport{NoPacing: true})
	if err != nil {
		t.Fatal(err)
	}
	type key struct {
		path string
		c    usage.Category
	}
	got := map[key]usage.Decision{}
	c.OnHTML("a[href]", func(e *colly.HTMLElement) { e.Request.Visit(e.Attr("href")) })
	c.OnResponse(func(r *colly.Response) {
		for _, cat := range []usage.Category{usage.Search, usage.Snippet, usage.TrainAI} {
			d, err := g.Usage(r, cat)
			if err != nil {
				t.Errorf("Usage(%s, %s): %v", r.Request.URL.Path, cat, err)
				continue
			}
			mu.Lock()
			got[key{r.Request.URL.Path, cat}] = d
			mu.Unlock()
		}
	})
	if err := c.Visit(srv.URL + "/"); err != nil {
		t.Fatal(err)
	}
	c.Wait()
	for k, want := range map[key]usage.Verdict{
		{"/", usage.Search}:     usage.Allowed,    // Content-Signal: search=yes
		{"/", usage.Snippet}:    usage.Disallowed, // <meta name="robots" content="nosnippet">
		{"/", usage.TrainAI}:    usage.Disallowed, // Content-Signal: ai-train=no
		{"/doc", usage.Search}:  usage.Disallowed, // X-Robots-Tag: noindex
		{"/doc", usage.Snippet}: usage.Unknown,
		{"/doc", usage.TrainAI}: usage.Disallowed,
	} {
		if d, ok := got[k]; !ok || d.Verdict != want {
			t.Errorf("%s %s: %v, want %v", k.path, k.c, d, want)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if hits["/robots.txt"] != 1 {
		t.Errorf("robots.txt fetched %d times, want 1", hits["/robots.txt"])
	}
}

// A page whose Content-Type has a malformed parameter is still HTML, as
// usage.ReadResponse reads it: its robots meta tag counts.
func TestUsageMalformedContentType(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			io.WriteString(w, "User-agent: *\nAllow: /\n")
			return
		}
		w.Header().Set("Content-Type", "text/html; charset")
		io.WriteString(w, `<html><head><meta name="robots" content="noindex"></head><body></body></html>`)
	}))
	defer srv.Close()
	c := colly.NewCollector()
	g, err := robotscolly.Attach(c, &robotsguard.Transport{NoPacing: true})
	if err != nil {
		t.Fatal(err)
	}
	var got usage.Decision
	c.OnResponse(func(r *colly.Response) {
		if got, err = g.Usage(r, usage.Search); err != nil {
			t.Error(err)
		}
	})
	if err := c.Visit(srv.URL + "/page"); err != nil {
		t.Fatal(err)
	}
	c.Wait()
	if got.Verdict != usage.Disallowed {
		t.Errorf("search: %v, want disallowed by the meta tag", got)
	}
}
