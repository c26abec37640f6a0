package acap_test

import (
	"fmt"

	"github.com/robotsguard/robotsguard/acap"
)

const newsSite = `User-agent: *
Disallow: /private/

ACAP-version: 1.1
ACAP-crawler: *
ACAP-disallow-crawl: /drafts/
ACAP-allow-present-snippet: /news/ max-length=250-chars
ACAP-disallow-present-thumbnail: /news/
ACAP-request-take-down: /news/retracted.html
`

func Example() {
	p := acap.Parse([]byte(newsSite))
	for _, q := range []acap.Query{
		{Agent: "NewsBot/1.0", URL: "https://example.com/news/1", Usage: acap.PresentSnippet},
		{Agent: "NewsBot/1.0", URL: "https://example.com/news/1", Usage: acap.PresentThumbnail},
		{Agent: "NewsBot/1.0", URL: "https://example.com/drafts/1", Usage: acap.Crawl},
		{Agent: "NewsBot/1.0", URL: "https://example.com/private/1", Usage: acap.Crawl},
		{Agent: "NewsBot/1.0", URL: "https://example.com/news/1", Usage: acap.Crawl},
	} {
		fmt.Printf("%s %s: %v\n", q.Usage, q.URL, p.Decide(q))
	}
	fmt.Println(p.Actions("NewsBot/1.0"))
	// Output:
	// present-snippet https://example.com/news/1: permitted by "ACAP-allow-present-snippet: /news/ max-length=250-chars" (line 7) max-length=250-chars
	// present-thumbnail https://example.com/news/1: prohibited by "ACAP-disallow-present-thumbnail: /news/" (line 8)
	// crawl https://example.com/drafts/1: prohibited by "ACAP-disallow-crawl: /drafts/" (line 6)
	// crawl https://example.com/private/1: prohibited by "Disallow: /private/" (line 2)
	// crawl https://example.com/news/1: permitted: no field applies
	// [take-down /news/retracted.html (line 9)]
}

// A crawler that cannot cut snippets to a length may not present them: the
// qualified permission becomes a prohibition (section 2.4.3).
func ExampleQuery_honours() {
	p := acap.Parse([]byte(newsSite))
	d := p.Decide(acap.Query{
		Agent:   "NewsBot/1.0",
		URL:     "/news/1",
		Usage:   acap.PresentSnippet,
		Honours: func(q acap.Qualifier) bool { return q.Type != "max-length" },
	})
	fmt.Println(d)
	// Output:
	// prohibited by "ACAP-allow-present-snippet: /news/ max-length=250-chars" (line 7) read as a prohibition of present-snippet
}

func ExamplePolicy_Problems() {
	p := acap.Parse([]byte(`ACAP-crawler: *
ACAP-allow-preserve: /news/ time-limit=until-recrawl
ACAP-allow-index /articles/
`))
	for _, pr := range p.Problems() {
		fmt.Printf("line %d: %s\n", pr.Line, pr.Reason)
	}
	// Output:
	// line 2: invalid value of time-limit=until-recrawl: the field is ignored (the fallback of section 2.4.3 is an ACAP 1.1 feature)
	// line 3: no colon after the field name
}
