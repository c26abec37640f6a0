// Command explain shows how a robots.txt decides URLs: for each URL, the
// verdict and the rule (with its line) that decided it.
//
//	go run ./examples/explain                         # a sample file and URLs
//	go run ./examples/explain -agent FooBot robots.txt /a /b?c
//	go run ./examples/explain -dialect google robots.txt https://example.com/x
//	go run ./examples/explain -acap present-snippet    # ACAP 1.1 records, for a usage
//
// It runs offline: the robots.txt is a local file. The robotsguard command
// (cmd/robotsguard) does this and more, for live origins too, with exit
// statuses and JSON: robotsguard check -robots robots.txt /a /b?c.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/robotsguard/robotsguard/acap"
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

// acapSample adds ACAP 1.1 records to sample.
const acapSample = sample + `
ACAP-crawler: *
ACAP-disallow-crawl: /drafts/
ACAP-allow-present-snippet: /news/ max-length=250-chars
ACAP-disallow-present: /private/press/
ACAP-crawler: FooBot
ACAP-allow-crawl: /search/
ACAP-request-take-down: /news/retracted.html
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

var acapSampleURLs = append(sampleURLs[:len(sampleURLs):len(sampleURLs)],
	"https://example.com/drafts/plan",
	"https://example.com/news/today",
)

func main() {
	agent := flag.String("agent", "", "product token or User-Agent to decide for (default: OtherBot and FooBot)")
	dialect := flag.String("dialect", "rfc9309", "rfc9309, google or koster1996")
	usage := flag.String("acap", "", "decide by the file's ACAP 1.1 records for this usage: crawl, index, present-snippet, …")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: explain [-agent token] [-dialect rfc9309|google|koster1996] [-acap usage] [robots.txt [URL...]]")
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
	if *usage != "" {
		body, urls = []byte(acapSample), acapSampleURLs
	}
	if flag.NArg() > 0 {
		b, err := os.ReadFile(flag.Arg(0))
		if err != nil {
			fmt.Fprintln(os.Stderr, "explain:", err)
			os.Exit(1)
		}
		body, urls = b, flag.Args()[1:]
	} else {
		fmt.Printf("robots.txt:\n%s\n", body)
	}

	agents := []string{"OtherBot", "FooBot"}
	if *agent != "" {
		agents = []string{*agent}
	}
	if *usage != "" {
		explainACAP(body, acap.Usage(strings.ToLower(*usage)), agents, urls)
		return
	}
	r := p.Parse(body)
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

// explainACAP shows the decisions of a file's ACAP records for usage u.
func explainACAP(body []byte, u acap.Usage, agents, urls []string) {
	p := acap.Parse(body)
	if v := p.Version(); v != "" {
		fmt.Println("ACAP version", v)
	}
	for _, a := range agents {
		fmt.Printf("%s, usage %s:\n", a, u)
		for _, target := range urls {
			fmt.Printf("  %-48s %s\n", target, p.Decide(acap.Query{Agent: a, URL: target, Usage: u}))
		}
		for _, act := range p.Actions(a) {
			fmt.Println("  requested:", act)
		}
	}
	for _, pr := range p.Problems() {
		fmt.Println("problem:", pr)
	}
}
