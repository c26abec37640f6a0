// Command usage shows a crawler asking what it may do with the pages it
// fetched: it serves a site in-process whose robots.txt, tdmrep.json,
// response headers and HTML speak of search, snippets, archives and AI,
// fetches a page through a robotsguard.Transport, and prints the decision
// on each use, with the signal it rests on:
//
//	go run ./examples/usage
package main

import (
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/usage"
)

const robotsTxt = `User-agent: *
Content-Signal: search=yes, ai-input=yes, ai-train=no
Content-Usage: /news/ train-ai=n, search=y
Disallow: /private/
`

const tdmrep = `[{"location": "/news/*", "tdm-reservation": 1, "tdm-policy": "https://example.com/tdm-policy.json"}]`

const page = `<!doctype html>
<html><head>
<meta name="robots" content="max-snippet:120, noarchive">
<meta name="foobot" content="max-image-preview:standard">
<title>A story</title>
</head><body><p>Text.</p></body></html>`

func main() {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			io.WriteString(w, robotsTxt)
		case "/.well-known/tdmrep.json":
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, tdmrep)
		default:
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("X-Robots-Tag", "unavailable_after: 2099-12-31")
			io.WriteString(w, page)
		}
	}))
	defer site.Close()

	t := &robotsguard.Transport{UserAgent: "FooBot/1.0 (+https://example.com/bot)", NoPacing: true}
	client := &http.Client{Transport: t}
	resp, err := client.Get(site.URL + "/news/story")
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	// The page's signals: its headers and the meta tags of its head. The
	// body can still be read whole afterwards.
	p, err := usage.ReadResponse(resp, true)
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range usage.Categories() {
		d, err := t.Usage(resp.Request, c, p)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(d)
		if !d.Conditions.IsZero() {
			fmt.Println("          conditions:", d.Conditions)
		}
	}
}
