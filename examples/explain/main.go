// Command explain shows how a robots.txt decides URLs: for each URL, the
// verdict and the rule (with its line) that decided it.
//
//	go run ./examples/explain                         # a sample file and URLs
//	go run ./examples/explain -agent FooBot robots.txt /a /b?c
//	go run ./examples/explain -dialect google robots.txt https://example.com/x
//
// It runs offline: the robots.txt is a local file.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/robotsguard/robotsguard/policy"
)

const sample = `# A sample robots.txt
User-agent: *
Disallow: /private/
Allow: /private/press/
Disallow: /*.pdf$
Crawl-delay: 2

User-agent: FooBot
Disallow: /search
Allow: /search/about

Sitemap: https://example.com/sitemap.xml
`

var sampleURLs = []string{
	"https://example.com/",
	"https://example.com/private/plans",
	"https://example.com/private/press/launch",
	"https://example.com/docs/manual.pdf",
	"https://example.com/docs/manual.pdf?download=1",
	"https://example.com/search?q=robots",
	"https://example.com/robots.txt",
}

func main() {
	agent := flag.String("agent", "", "product token or User-Agent to decide for (default: OtherBot and FooBot)")
	dialect := flag.String("dialect", "rfc9309", "rfc9309, google or koster1996")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: explain [-agent token] [-dialect rfc9309|google|koster1996] [robots.txt [URL...]]")
		flag.PrintDefaults()
	}
	flag.Parse()

	p := policy.Parser{}
	switch strings.ToLower(*dialect) {
	case "rfc9309":
	case "google":
		p.Dialect = policy.Google
	case "koster1996":
		p.Dialect = policy.Koster1996
	default:
		flag.Usage()
		os.Exit(2)
	}

	body, urls := []byte(sample), sampleURLs
	if flag.NArg() > 0 {
		b, err := os.ReadFile(flag.Arg(0))
		if err != nil {
			fmt.Fprintln(os.Stderr, "explain:", err)
			os.Exit(1)
		}
		body, urls = b, flag.Args()[1:]
	} else {
		fmt.Printf("robots.txt:\n%s\n", sample)
	}

	r := p.Parse(body)
	agents := []string{"OtherBot", "FooBot"}
	if *agent != "" {
		agents = []string{*agent}
	}
	for _, a := range agents {
		g := r.Group(a)
		fmt.Printf("%s follows group %q (line %d)", a, g.Agent(), g.Line())
		if d, ok := g.CrawlDelay(); ok {
			fmt.Printf(", crawl-delay %v", d)
		}
		fmt.Println()
		for _, u := range urls {
			fmt.Printf("  %-48s %s\n", u, g.Decide(u))
		}
	}
	for _, s := range r.Sitemaps() {
		fmt.Println("sitemap:", s)
	}
	for _, u := range r.Unknown() {
		fmt.Printf("line %d: %s: %s (not interpreted)\n", u.Line, u.Key, u.Value)
	}
}
