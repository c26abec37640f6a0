package usage_test

import (
	"fmt"
	"net/http"

	"github.com/robotsguard/robotsguard/policy"
	"github.com/robotsguard/robotsguard/usage"
)

func ExampleDecide() {
	const robotsURL = "https://example.com/robots.txt"
	body := []byte("User-agent: *\nDisallow: /private/\nContent-Signal: search=yes, ai-input=yes, ai-train=no\n")
	site := &usage.Site{RobotsURL: robotsURL, Rules: policy.Parse(body), Robots: usage.ParseRobots(body, robotsURL)}
	// The header fields of the page's response.
	page := usage.ReadHeader(http.Header{"X-Robots-Tag": {"max-snippet:50, noarchive"}})
	for _, c := range []usage.Category{usage.Crawl, usage.Search, usage.Snippet, usage.Archive, usage.TrainAI} {
		d := usage.Decide(usage.Query{Agent: "FooBot/1.0", URL: "https://example.com/news/1", Category: c}, site, page)
		fmt.Println(d)
		if !d.Conditions.IsZero() {
			fmt.Println("    conditions:", d.Conditions)
		}
	}
	// Output:
	// crawl allowed by https://example.com/robots.txt line 1 "no rule of group * matches"
	// search allowed by https://example.com/robots.txt line 3 "Content-Signal: search=yes, ai-input=yes, ai-train=no"
	// snippet unknown: no signal allows or disallows it
	//     conditions: max-snippet=50
	// archive disallowed by X-Robots-Tag header "noarchive"
	// train-ai disallowed by https://example.com/robots.txt line 3 "Content-Signal: search=yes, ai-input=yes, ai-train=no"
}
