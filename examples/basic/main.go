// Command basic shows robotsguard at work, offline: a plain http.Client
// with a robotsguard.Transport crawls a local server whose robots.txt
// disallows a directory and asks for half a second between requests.
//
//	go run ./examples/basic
package main

import (
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	"github.com/robotsguard/robotsguard"
)

const robotsTxt = `User-agent: *
Disallow: /private/
Allow: /private/press/
Crawl-delay: 0.5
`

func main() {
	// A local site that logs what it serves.
	var mu sync.Mutex
	var served []string
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		served = append(served, r.URL.RequestURI())
		mu.Unlock()
		if r.URL.Path == "/robots.txt" {
			io.WriteString(w, robotsTxt)
			return
		}
		fmt.Fprintf(w, "page %s\n", r.URL.Path)
	}))
	defer site.Close()
	fmt.Printf("robots.txt of %s:\n%s\n", site.URL, robotsTxt)

	// The crawler: an ordinary client with a robotsguard Transport.
	client := &http.Client{Transport: &robotsguard.Transport{
		UserAgent: "ExampleBot/1.0 (+https://example.com/bot)",
	}}

	start := time.Now()
	for _, path := range []string{"/", "/articles/1", "/private/plans", "/private/press/launch", "/articles/2"} {
		resp, err := client.Get(site.URL + path)
		at := time.Since(start).Round(100 * time.Millisecond)
		var refused *robotsguard.DisallowedError
		switch {
		case errors.As(err, &refused):
			fmt.Printf("%5v  %-24s blocked: %s line %d %q\n", at, path,
				refused.Reason, refused.Decision.Rule.Line, refused.Decision.Rule.String())
		case err != nil:
			log.Fatal(err)
		default:
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			fmt.Printf("%5v  %-24s %s\n", at, path, resp.Status)
		}
	}

	mu.Lock()
	defer mu.Unlock()
	fmt.Printf("\nThe site served: %s\n", strings.Join(served, " "))
	fmt.Println("(robots.txt once, pages half a second apart, nothing under /private/ but the press page)")
}
